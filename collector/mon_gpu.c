/* mon_gpu.c: monitor mode's live GPU ledger (see mon_gpu.h).
 *
 * GPU operations are kept, unsorted, until the time they cover has been
 * accounted (and, while a step that began before it has not, the step's
 * too), within IVALS of them: past that the oldest go, counted lost.  Each
 * account sorts what is kept and sweeps the span from where the last one
 * ended: a segment's state is what runs in it, and an idle gap's cause is
 * the host's blocking calls that overlap it.  Writer thread only. */
#include "collector/mon_gpu.h"
#include "collector/mon_agg.h"
#include "collector/hash.h"
#include "format/schema.h"

#include <stdlib.h>
#include <string.h>

#define IVALS 65536    /* 1.5 MiB, taken at the first GPU operation */
#define BLOCKS 16384
#define STEPS 16
#define LINKS 4096           /* calls and correlation ids remembered, each */
#define LAUNCH_GAP_NS 100000 /* the report's --idle-gap-us default */

const char *const gt_mon_state_names[GT_MS_COUNT] = {
    "compute", "comm.hidden", "comm.exposed", "copy", "idle.host_blocked", "idle.host_busy", "idle.launch",
    "not_recorded",
};

enum { K_COMPUTE, K_COMM, K_COPY, K_UNREC };
#define UNREC 64
/* launches remembered (taken at the first): a stretch is read back at
 * the writer's pass after the one that first saw it, so these hold its
 * 100 ms before and a pass at up to ~150,000 launches a second; past that
 * the oldest go, and a stretch begins no earlier than the oldest kept */
#define LAUNCHES 16384
struct ival { int64_t s, e; int kind; uint32_t corr; };
struct launch { int64_t t; uint32_t corr; };
struct span { int64_t s, e; };
struct link { uint64_t key; int slot; int64_t bytes; };
struct orphan { uint32_t corr; int64_t ns; };

static struct {
    struct ival *iv;
    int niv;
    struct span blk[BLOCKS];
    int nblk;
    struct span steps[STEPS]; /* ended, not yet accounted */
    int nsteps;
    int64_t done;             /* accounted up to here; 0: no GPU work yet */
    int64_t kept_from;        /* what ended before this was let go */
    int64_t step_end;         /* the last step's end: where the next began, about */
    struct gt_mon_gpu out;
    struct link calls[LINKS]; /* NCCL call or group id -> its communicator slot */
    struct link corrs[LINKS]; /* CUPTI correlation id -> the same */
    struct orphan orphans[256]; /* NCCL kernels whose correlation came before its link */
    uint64_t lost;
    uint64_t ops_lost;        /* operations among lost */
    uint64_t cupti_dropped;   /* records CUPTI said it dropped (gt_mon_gpu_cupti_dropped) */
    struct span unrec[UNREC]; /* gt_mon_gpu_unrecorded's, begun where the work in flight did */
    int64_t handed[UNREC];    /* ... each one's hand-over */
    int nunrec;
    struct launch *launches;  /* a ring of gt_mon_gpu_launch's */
    uint64_t nlaunches;       /* how many ever */
    /* where each stretch was found to begin, by its hand-over (the last
     * UNREC decided), and the hand-overs seen and not yet decided */
    struct { int64_t handed, from; } began[UNREC];
    unsigned nbegan;
    int64_t seen[UNREC];
    unsigned nseen;
} g;

/* Where the stretch handed over at h was found to begin; h if not yet. */
static int64_t began_at(int64_t h, int *known)
{
    for (unsigned i = 0; i < UNREC && i < g.nbegan; i++)
        if (g.began[i].handed == h) {
            *known = 1;
            return g.began[i].from;
        }
    *known = 0;
    return h;
}

void gt_mon_gpu_launch(int64_t start_ns, uint32_t corr)
{
    if (!g.launches && !(g.launches = malloc(LAUNCHES * sizeof *g.launches)))
        return; /* then no stretch begins before its hand-over */
    g.launches[g.nlaunches++ % LAUNCHES] = (struct launch){ start_ns, corr };
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return a < b ? -1 : a > b;
}

void gt_mon_gpu_cupti_dropped(uint64_t n)
{
    g.cupti_dropped = n;
}

/* Where stretch i begins: its hand-over, or, where work launched at most
 * GT_MON_GPU_INFLIGHT_NS before it (after the stretch before, and after
 * what is accounted) has no record, that launch or the end of the last
 * work recorded before the hand-over, whichever is later.  Asked at the
 * writer's pass after the one that first saw the stretch, or once the
 * account comes that close, whichever is first: the records from before
 * the hand-over are stored by then (the tracer's forced flush comes before
 * the stretch is known, and a pass stores what was flushed before it looks),
 * and the operations of those launches, which end after them and after
 * what is accounted, are still kept.  Not where records were lost (the
 * ledger's table full, or CUPTI's drops): a missing one says nothing then,
 * as in the report. */
static int64_t find_start(int i)
{
    int64_t h = g.handed[i], lo = h - GT_MON_GPU_INFLIGHT_NS;
    if (g.ops_lost || g.cupti_dropped)
        return h;
    if (i > 0 && g.unrec[i - 1].e > lo)
        lo = g.unrec[i - 1].e;
    if (lo < g.done)
        lo = g.done;
    if (lo >= h || !g.nlaunches)
        return h;
    uint32_t *corrs = malloc(((size_t)g.niv + 1) * sizeof *corrs);
    if (!corrs)
        return h;
    int nc = 0;
    int64_t last_end = 0; /* of the work recorded before the hand-over */
    for (int k = 0; k < g.niv; k++) {
        corrs[nc++] = g.iv[k].corr;
        if (g.iv[k].s < h) {
            int64_t e = g.iv[k].e < h ? g.iv[k].e : h;
            last_end = e > last_end ? e : last_end;
        }
    }
    qsort(corrs, (size_t)nc, sizeof *corrs, cmp_u32);
    int64_t first = INT64_MAX;
    uint64_t kept = g.nlaunches < LAUNCHES ? g.nlaunches : LAUNCHES;
    for (uint64_t k = g.nlaunches - kept; k < g.nlaunches; k++) {
        const struct launch *l = &g.launches[k % LAUNCHES];
        if (l->t >= lo && l->t < h && l->t < first && !bsearch(&l->corr, corrs, (size_t)nc, sizeof *corrs, cmp_u32))
            first = l->t;
    }
    free(corrs);
    if (first == INT64_MAX)
        return h;
    return first > last_end ? first : last_end;
}

/* Stretch i begun where its work in flight did, and remembered so. */
static void decide(int i)
{
    int64_t from = find_start(i);
    unsigned slot = g.nbegan++ % UNREC;
    g.began[slot].handed = g.handed[i];
    g.began[slot].from = from;
    g.unrec[i].s = from;
}

static int seen_before(int64_t h)
{
    for (unsigned k = 0; k < UNREC && k < g.nseen; k++)
        if (g.seen[k] == h)
            return 1;
    return 0;
}

void gt_mon_gpu_unrecorded(const int64_t (*v)[2], int n)
{
    int from = n > UNREC ? n - UNREC : 0;
    g.nunrec = 0;
    for (int i = from; i < n; i++) {
        int known;
        g.handed[g.nunrec] = v[i][0];
        g.unrec[g.nunrec++] = (struct span){ began_at(v[i][0], &known), v[i][1] ? v[i][1] : INT64_MAX };
    }
    for (int i = 0; i < g.nunrec; i++) {
        int known;
        began_at(g.handed[i], &known);
        if (known)
            continue;
        if (seen_before(g.handed[i]))
            decide(i); /* a pass has stored what was flushed at its hand-over */
        else
            g.seen[g.nseen++ % UNREC] = g.handed[i];
    }
}

/* The stretches the account is about to reach and not yet decided. */
static void read_back(int64_t upto)
{
    for (int i = 0; i < g.nunrec; i++) {
        int known;
        if (g.handed[i] - GT_MON_GPU_INFLIGHT_NS >= upto)
            break; /* later ones are later still */
        began_at(g.handed[i], &known);
        if (!known)
            decide(i);
    }
}

void gt_mon_gpu_start(void)
{
    free(g.iv);
    free(g.launches);
    memset(&g, 0, sizeof g);
    for (int i = 0; i < LINKS; i++)
        g.calls[i].slot = g.corrs[i].slot = -1;
}

void gt_mon_gpu_stop(void)
{
    free(g.iv);
    g.iv = NULL;
    g.niv = 0;
    free(g.launches);
    g.launches = NULL;
    g.nlaunches = 0;
}

/* a table slot's hash of a 64-bit key (hash.h) */
static uint64_t mix(uint64_t x)
{
    return gt_hash_words(&x, 1);
}

static struct link *link_of(struct link *tab, uint64_t key)
{
    return &tab[mix(key) % LINKS];
}

void gt_mon_gpu_call(uint64_t call_id, uint64_t group_id, int slot, int64_t bytes)
{
    if (slot < 0)
        return;
    *link_of(g.calls, call_id) = (struct link){ call_id, slot, bytes };
    /* a group's kernel is its first collective's (the group's launch
     * pushes the group's id) */
    struct link *l = link_of(g.calls, group_id);
    if (group_id && l->key != group_id)
        *l = (struct link){ group_id, slot, bytes };
}

static void comm_kernel(uint32_t corr, int64_t ns)
{
    struct link *l = link_of(g.corrs, corr);
    if (l->key == corr && l->slot >= 0) {
        gt_mon_agg_comm_gpu(l->slot, ns, l->bytes);
        return;
    }
    /* its external correlation may come in a later buffer */
    g.orphans[corr % 256] = (struct orphan){ corr, ns };
}

void gt_mon_gpu_xcorr(uint64_t external, uint32_t corr)
{
    struct link *c = link_of(g.calls, external);
    if (c->key != external || c->slot < 0)
        return;
    *link_of(g.corrs, corr) = (struct link){ corr, c->slot, c->bytes };
    struct orphan *o = &g.orphans[corr % 256];
    if (o->corr == corr && o->ns) {
        gt_mon_agg_comm_gpu(c->slot, o->ns, c->bytes);
        o->ns = 0;
    }
}

static void prune(int64_t keep);

static int is_nccl(const char *name)
{
    return name && strncmp(name, "nccl", 4) == 0;
}

void gt_mon_gpu_op(int kind, const char *name, int64_t start_ns, int64_t end_ns, uint32_t corr)
{
    if (end_ns <= start_ns || start_ns <= 0)
        return;
    struct link *l = link_of(g.corrs, corr);
    int linked = corr && l->key == corr && l->slot >= 0;
    int k = kind == GT_GPU_KERNEL ? (linked || is_nccl(name) ? K_COMM : K_COMPUTE) : linked ? K_COMM : K_COPY;
    if (k == K_COMM && kind == GT_GPU_KERNEL)
        comm_kernel(corr, end_ns - start_ns);
    if (!g.iv && !(g.iv = malloc(IVALS * sizeof *g.iv))) {
        g.lost++;
        g.ops_lost++;
        return;
    }
    if (g.niv == IVALS && g.kept_from < g.done) { /* a long step's first part goes */
        prune(g.done);
        g.kept_from = g.done;
    }
    if (g.niv == IVALS) {
        g.lost++;
        g.ops_lost++;
        return;
    }
    if (!g.done)
        g.done = g.kept_from = start_ns; /* the ledger begins at the first GPU work */
    g.iv[g.niv++] = (struct ival){ start_ns, end_ns, k, corr };
}

void gt_mon_gpu_blocked(int64_t start_ns, int64_t end_ns)
{
    if (end_ns <= start_ns)
        return;
    if (g.nblk == BLOCKS) {
        g.lost++;
        return;
    }
    g.blk[g.nblk++] = (struct span){ start_ns, end_ns };
}

void gt_mon_gpu_step(int64_t start_ns, int64_t end_ns)
{
    /* steps come faster than the lag lets them be accounted: those kept
     * wait, the next ones pass (the last step's shares are then those of
     * a step up to a second older) */
    if (g.nsteps < STEPS)
        g.steps[g.nsteps++] = (struct span){ start_ns, end_ns };
    g.step_end = end_ns;
}

/* The sweep's points: a GPU operation begins (+1) or ends (-1). */
struct point { int64_t t; int kind, d; };

static int by_t(const void *x, const void *y)
{
    const struct point *p = x, *q = y;
    return p->t < q->t ? -1 : p->t > q->t ? 1 : q->d - p->d; /* starts before ends */
}

static int by_start(const void *x, const void *y)
{
    const struct span *p = x, *q = y;
    return p->s < q->s ? -1 : p->s > q->s;
}

/* Host time blocked within [s, e): the blocking calls' union there (they
 * are sorted by start). */
static int64_t blocked_in(const struct span *b, int n, int64_t s, int64_t e)
{
    int64_t got = 0, reach = s;
    for (int i = 0; i < n && b[i].s < e; i++) {
        int64_t lo = b[i].s > reach ? b[i].s : reach, hi = b[i].e < e ? b[i].e : e;
        if (hi > lo) {
            got += hi - lo;
            reach = hi;
        }
    }
    return got;
}

/* An idle gap [s, e): launch latency when GPU work bounds it on both sides
 * and it is short; else blocked or host time by the blocking calls. */
static void idle(int64_t *ns, const struct span *b, int nb, int64_t s, int64_t e, int bounded)
{
    if (bounded && e - s < LAUNCH_GAP_NS) {
        ns[GT_MS_IDLE_LAUNCH] += e - s;
        return;
    }
    int64_t blk = blocked_in(b, nb, s, e);
    ns[GT_MS_IDLE_BLOCKED] += blk;
    ns[GT_MS_IDLE_HOST] += e - s - blk;
}

/* Adds the states of [t0, t1) to ns. */
static void sweep(int64_t t0, int64_t t1, const struct span *b, int nb, int64_t *ns)
{
    int np = 0;
    struct point *pt = malloc(((size_t)g.niv + UNREC) * 2 * sizeof *pt);
    if (!pt)
        return;
    for (int i = 0; i < g.niv + g.nunrec; i++) {
        const struct ival v = i < g.niv ? g.iv[i] : (struct ival){ g.unrec[i - g.niv].s, g.unrec[i - g.niv].e, K_UNREC, 0 };
        if (v.e <= t0 || v.s >= t1)
            continue;
        pt[np++] = (struct point){ v.s > t0 ? v.s : t0, v.kind, 1 };
        pt[np++] = (struct point){ v.e < t1 ? v.e : t1, v.kind, -1 };
    }
    qsort(pt, (size_t)np, sizeof *pt, by_t);
    int n[4] = { 0, 0, 0, 0 };
    int64_t at = t0, gap = t0; /* gap: where the current idle stretch began */
    int gap_bounded = 0;       /* it began where GPU work (or a stretch without records) ended */
    for (int i = 0; i <= np; i++) {
        int64_t t = i < np ? pt[i].t : t1;
        if (t > at) {
            int busy = n[K_COMPUTE] || n[K_COMM] || n[K_COPY];
            if (busy)
                ns[n[K_COMM] ? (n[K_COMPUTE] ? GT_MS_COMM_HIDDEN : GT_MS_COMM_EXPOSED)
                             : n[K_COMPUTE] ? GT_MS_COMPUTE : GT_MS_COPY] += t - at;
            else if (n[K_UNREC]) /* records of its work, if any, are the program's profiler's */
                ns[GT_MS_NOT_RECORDED] += t - at;
            at = t;
        }
        if (i == np)
            break;
        int was_idle = !(n[K_COMPUTE] || n[K_COMM] || n[K_COPY] || n[K_UNREC]);
        n[pt[i].kind] += pt[i].d;
        int now_idle = !(n[K_COMPUTE] || n[K_COMM] || n[K_COPY] || n[K_UNREC]);
        if (was_idle && !now_idle && t > gap)
            idle(ns, b, nb, gap, t, gap_bounded);
        if (now_idle && !was_idle) {
            gap = t;
            gap_bounded = 1;
        } else if (was_idle && !now_idle) {
            gap = t1; /* none open */
        }
    }
    if (gap < t1 && !(n[K_COMPUTE] || n[K_COMM] || n[K_COPY] || n[K_UNREC]))
        idle(ns, b, nb, gap, t1, 0);
    free(pt);
}

/* The spans v[0, n) that end after keep, moved to the front; how many. */
static int spans_after(struct span *v, int n, int64_t keep)
{
    int j = 0;
    for (int i = 0; i < n; i++)
        if (v[i].e > keep)
            v[j++] = v[i];
    return j;
}

/* Lets go of the operations and blocking calls that end before keep. */
static void prune(int64_t keep)
{
    int j = 0;
    for (int i = 0; i < g.niv; i++)
        if (g.iv[i].e > keep)
            g.iv[j++] = g.iv[i];
    g.niv = j;
    g.nblk = spans_after(g.blk, g.nblk, keep);
}

void gt_mon_gpu_account(int64_t upto, const int64_t *blocked_from, int n)
{
    if (!g.done) {
        /* no GPU work yet (CUPTI off, or none that far): the ledger begins
         * at the first, so what ended before upto is none of it.  Kept,
         * the blocking calls of a process whose GPU sends no records
         * filled the table, and from the 16,385th on every one was
         * counted a dropped record */
        prune(upto);
        g.nsteps = spans_after(g.steps, g.nsteps, upto);
        return;
    }
    if (upto <= g.done)
        return;
    read_back(upto);
    /* the blocking calls, those in flight until upto, sorted by start */
    static struct span b[BLOCKS + 64];
    int nb = g.nblk;
    memcpy(b, g.blk, (size_t)nb * sizeof *b);
    for (int i = 0; i < n && nb < BLOCKS + 64; i++)
        if (blocked_from[i] < upto)
            b[nb++] = (struct span){ blocked_from[i], upto };
    qsort(b, (size_t)nb, sizeof *b, by_start);
    sweep(g.done, upto, b, nb, g.out.ns);
    g.done = upto;
    /* the steps that have ended by now, the last one's shares kept */
    int left = 0;
    for (int i = 0; i < g.nsteps; i++) {
        if (g.steps[i].e > upto) {
            g.steps[left++] = g.steps[i];
            continue;
        }
        if (g.steps[i].s < g.kept_from) /* its first part was let go (before the first GPU work, or */
            continue;                    /* a step longer than the lag that ended after it) */
        memset(g.out.step_ns, 0, sizeof g.out.step_ns);
        sweep(g.steps[i].s, g.steps[i].e, b, nb, g.out.step_ns);
        g.out.step_len = g.steps[i].e - g.steps[i].s;
    }
    g.nsteps = left;
    /* kept from where the step under way began (it is known once it ends) */
    int64_t keep = g.step_end && g.step_end < upto ? g.step_end : upto;
    for (int i = 0; i < g.nsteps; i++)
        keep = g.steps[i].s < keep ? g.steps[i].s : keep;
    prune(keep);
    g.kept_from = keep;
}

void gt_mon_gpu_read(struct gt_mon_gpu *out)
{
    *out = g.out;
}

uint64_t gt_mon_gpu_lost(void)
{
    return g.lost;
}
