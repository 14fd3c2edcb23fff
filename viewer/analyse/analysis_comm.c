/* analysis_comm.c: collectives within a rank (comm.exposed,
 * comm.same_stream) and across ranks, matched by (communicator, sequence):
 * comm.straggler, comm.mismatch, comm.hang. */
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/hang_depth.h"
#include "viewer/analyse/hang_place.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/findings.h"
#include "viewer/analyse/order_match.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/model/timeline.h"
#include "viewer/model/stream_map.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Of collective i of p (on a stream that also runs compute), the time
 * that another stream could hide: the compute kernels queued after it on
 * its stream up to its stream's next collective (or the last loaded), that
 * would run beside it there.  Some of that compute may need its result,
 * so this bounds what the fix saves; the rest of its exposed time no
 * stream would hide.  ops are sorted by start. */
static int64_t hideable_after(const struct proc *p, size_t i)
{
    const struct coll *c = &p->colls[i];
    int64_t until = INT64_MAX;
    for (size_t j = i + 1; j < p->ncolls; j++)
        if (p->colls[j].gstream == c->gstream && p->colls[j].gstart >= c->gend) {
            until = p->colls[j].gstart;
            break;
        }
    size_t lo = 0, hi = p->nops;
    while (lo < hi) { /* the first operation starting at or after its end */
        size_t mid = lo + (hi - lo) / 2;
        if (p->ops[mid].start < c->gend)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t sum = 0;
    for (size_t k = lo; k < p->nops && p->ops[k].start < until; k++) {
        const struct gop *g = &p->ops[k];
        if (g->kind == GOP_KERNEL && !g->nccl && g->stream == c->gstream && g->end > g->start)
            model_add(&sum, (g->end < until ? g->end : until) - g->start);
    }
    return sum;
}

/* A stretch of a collective's kernel with no compute beside it, kept
 * (its first COLL_EXPOSED_MAX; past those, none: n -1). */
static void keep_exposed(void *arg, int64_t a, int64_t b)
{
    struct coll_exposed *x = arg;
    if (x->n >= 0 && x->n < COLL_EXPOSED_MAX)
        x->v[x->n++] = (struct interval){ a, b };
    else
        x->n = -1;
}

/* Each collective's overlap with compute, in the window that holds its
 * kernel (which nothing runs across: proc_pass.h). */
void analyse_comm(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    (void)o;
    (void)fs;
    const struct proc *p = &m->procs[pi];
    struct proc_pass *ps = p->pass;
    struct timeline *t = model_timeline(m, pi);
    proc_pass_colls_sync(ps, p);
    for (size_t i = 0; i < p->ncolls; i++) {
        const struct coll *c = &p->colls[i];
        if (c->gend <= c->gstart || c->gstream < 0 || c->gstart < p->win_lo || c->gstart >= p->win_hi)
            continue;
        /* overlap as HTA computes it: merged compute intervals on the
         * device's other streams, intersected with the collective */
        const struct ivals *compute = timeline_compute_except(t, c->gstream);
        ps->coll_overlap[i] = ivals_cover(compute, c->gstart, c->gend);
        ps->coll_hideable[i] = hideable_after(p, i);
        ps->coll_exposed[i].n = 0;
        ivals_split(compute, c->gstart, c->gend, 0, keep_exposed, &ps->coll_exposed[i]);
    }
    /* no other analysis needs them: freed before the next ones add theirs */
    timeline_drop_except(t);
}

/* The first n collectives loaded, done with (in order). */
void analyse_colls_done(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi, size_t n)
{
    const struct proc *p = &m->procs[pi];
    struct proc_pass *ps = p->pass;
    proc_pass_colls_sync(ps, p);
    for (size_t i = 0; i < n; i++) {
        const struct coll *c = &p->colls[i];
        int64_t k;
        /* what exposed_share weighs a site's exposed ones against; those
         * with no known site (a Kineto trace read back) are one site, as
         * their finding is, else its one-offs were never dropped */
        if (c->gend > c->gstart) {
            uint64_t key = (uint64_t)model_site_shown(m, &m->procs[pi], c->site) + 1;
            idmap_put(&ps->site_colls, key, idmap_get(&ps->site_colls, key, &k) ? k + 1 : 1, 0);
        }
        if (c->gend <= c->gstart || c->gstream < 0 || ps->coll_overlap[i] < 0)
            continue;
        int64_t dur = c->gend - c->gstart;
        int64_t ov = ps->coll_overlap[i];
        /* a collective on the compute stream is one finding, comm.same_stream,
         * not that and comm.exposed; its exposed time is claimed from its
         * start (the overlap is measured, not where it fell) */
        struct finding *f = NULL;
        if (stream_map_computes(p->smap, c->gstream))
            f = findings_at(fs, m, F_COMM_SAME_STREAM, (int)pi, c->site, -1, c->start);
        else if ((double)ov < o->exposed_fraction * (double)dur)
            f = findings_at(fs, m, F_COMM_EXPOSED, (int)pi, c->site, -1, c->start);
        if (f) {
            f->count++;
            f->facts.exposed_fraction = o->exposed_fraction; /* what its message quotes */
            model_add(&f->exposed_ns, dur - ov);
            int64_t lost = dur - ov;
            if (f->kind == F_COMM_SAME_STREAM) { /* what another stream would win back */
                int64_t h = ps->coll_hideable[i] < 0 ? 0 : ps->coll_hideable[i];
                lost = h < lost ? h : lost;
                model_add(&f->hideable_ns, lost);
            }
            /* comm.exposed claims where its kernel ran exposed (the
             * ledger's exposed communication there: ledger.c); a kernel
             * exposed in more stretches than kept, and comm.same_stream
             * (what another stream would win back: no place of its own),
             * from the kernel's start */
            const struct coll_exposed *x = &ps->coll_exposed[i];
            if (f->kind == F_COMM_EXPOSED && x->n >= 0)
                for (int j = 0; j < x->n; j++)
                    charge_add(fs, f, (int)pi, x->v[j].a, x->v[j].b);
            else
                charge_add(fs, f, (int)pi, c->gstart, c->gstart + lost);
        }
    }
}

void analyse_comm_end(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc_pass *ps = m->procs[pi].pass;
    /* what exposed_share weighs each call site's exposed ones against */
    for (size_t i = 0; i < fs->n; i++) {
        int64_t k;
        if (fs->v[i].kind == F_COMM_EXPOSED && fs->v[i].proc == (int)pi)
            fs->v[i].site_colls = idmap_get(&ps->site_colls, (uint64_t)fs->v[i].callsite_id + 1, &k) ? k : 0;
    }
}

/* Exposed-collective findings of the whole run, now that each call site's
 * count is known. */
static void exposed_share(const struct report_opts *o, struct findings *fs)
{
    /* a call site whose collectives are exposed only now and then (the
     * first one, waiting for the ranks to start; a rank briefly behind) is
     * not a pattern to fix */
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        if (f->kind == F_COMM_EXPOSED && (double)f->count < o->exposed_share * (double)f->site_colls)
            f->count = 0;
    }
}

/* ---- across ranks ---------------------------------------------------------- */
/* Each pass goes over every (comm, seq) group of the run, read back from
 * the spill (coll_spill.h): its members, one per rank that entered it;
 * their arrivals all of one kind (coll_arrival). */

/* The straggler (docs/report.md): the rank that is clearly last (by more
 * than --straggler-margin-us) in at least --straggler-clear-fraction of
 * the collectives, and that caused more than --straggler-fraction of all
 * the waiting.  "Last most of the time" alone is not enough: after a late
 * start, the remaining collectives of a step are paced by GPU queues rather
 * than by arrivals, and with many ranks someone is always a little last. */
struct straggling {
    const struct model *m;
    const struct report_opts *o;
    int64_t *last_count, *clear, full;
    double *margins;          /* by how much it was last, summed over the collectives it was clearly last to */
    int *host_gpu;            /* per process: its collectives' arrivals were GPU times (1), host calls (2), both (3) */
    /* waits are summed as doubles: a file whose ranks' clocks disagree
     * absurdly (a damaged clock offset) must not overflow them */
    double *waits, total_wait;
    /* the second pass, once the straggler is known: its finding claims
     * the other ranks' waits for it */
    int charge_for;
    struct findings *fs;
    const struct finding *f;
    /* ... and, on each rank's clock, the stretches before each collective
     * the straggler was clearly last to: from the rank's arrival at the
     * communicator's previous collective to its arrival at this one (where
     * the straggler's extra time went: straggler_place.c) */
    int64_t comm_now, *prev_arr;
    int have_comm;
    struct interval **wins;
    size_t *nwins, *capwins;
};

static void add_window(struct straggling *st, int proc, int64_t a, int64_t b)
{
    if (b <= a)
        return;
    if (st->nwins[proc] == st->capwins[proc]) {
        st->capwins[proc] = st->capwins[proc] ? st->capwins[proc] * 2 : 16;
        if (!(st->wins[proc] = realloc(st->wins[proc], st->capwins[proc] * sizeof *st->wins[proc])))
            model_out_of_memory();
    }
    st->wins[proc][st->nwins[proc]++] = (struct interval){ a, b };
}

static void straggler_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct straggling *st = ctx;
    if (n < 2 || n != (size_t)(v[0].nranks > 0 ? v[0].nranks : 0) ||
        (p2p_kind(st->m, v[0].api) && !model_seq_by_order(v[0].seq)))
        return; /* point to point: analysis_p2p.c pairs those by order, not by sequence */
    size_t same = 1;
    while (same < n && v[same].proc == v[0].proc)
        same++;
    if (same == n)
        return; /* every member one process's (it drives several GPUs): no rank to be late; its GPUs' uneven
                 * load is their idle time (gpu.idle) */
    if (coll_group_unrecorded(st->m, v, n))
        return; /* a member without its kernel's records (a profiler of its own held CUPTI) */
    st->full++;
    int64_t latest = INT64_MIN, second = INT64_MIN;
    int who = -1, gpu = coll_group_on_gpu(v, n);
    for (size_t k = 0; k < n; k++) {
        int64_t a = coll_arrival(st->m, &v[k], gpu);
        if (a > latest) {
            second = latest;
            latest = a;
            who = v[k].proc;
        } else if (a > second) {
            second = a;
        }
    }
    st->last_count[who]++;
    if ((double)latest - (double)second >= (double)st->o->straggler_margin_ns) {
        st->clear[who]++;
        st->margins[who] += (double)latest - (double)second;
    }
    for (size_t k = 0; k < n; k++)
        st->host_gpu[v[k].proc] |= gpu ? 1 : 2;
    for (size_t k = 0; k < n; k++) {
        double w = (double)latest - (double)coll_arrival(st->m, &v[k], gpu);
        st->waits[who] += w;
        st->total_wait += w;
    }
    if (st->charge_for < 0)
        return;
    /* the second pass: groups come by communicator, then sequence */
    if (!st->have_comm || v[0].comm != st->comm_now) {
        st->comm_now = v[0].comm;
        st->have_comm = 1;
        for (size_t q = 0; q < st->m->nprocs; q++)
            st->prev_arr[q] = INT64_MIN;
    }
    int clear = (double)latest - (double)second >= (double)st->o->straggler_margin_ns;
    for (size_t k = 0; k < n; k++) {
        const struct proc *p = &st->m->procs[v[k].proc];
        int64_t from = coll_arrival(st->m, &v[k], gpu), off = st->m->t0 - p->clock_offset; /* aligned -> its own clock */
        if (who == st->charge_for) /* each rank's wait, on its own clock */
            charge_add(st->fs, st->f, v[k].proc, from + off, latest + off);
        if (who == st->charge_for && clear)
            add_window(st, v[k].proc, st->prev_arr[v[k].proc] == INT64_MIN ? p->start : st->prev_arr[v[k].proc] + off,
                       from + off);
        st->prev_arr[v[k].proc] = from;
    }
}

static int cmp_interval(const void *x, const void *y)
{
    const struct interval *a = x, *b = y;
    return (a->a > b->a) - (a->a < b->a);
}

/* A rank's windows, sorted and merged into a union. */
static struct ivals windows_union(struct interval *v, size_t n)
{
    struct ivals u = { v, 0 };
    if (!n)
        return u;
    qsort(v, n, sizeof *v, cmp_interval);
    for (size_t i = 0; i < n; i++) {
        if (u.n && v[i].a <= v[u.n - 1].b) {
            if (v[i].b > v[u.n - 1].b)
                v[u.n - 1].b = v[i].b;
        } else {
            v[u.n++] = v[i];
        }
    }
    return u;
}

static void stragglers(const struct model *m, const struct report_opts *o, struct findings *fs,
                       struct coll_spill *spill)
{
    size_t np = m->nprocs;
    struct straggling st = { m, o, calloc(np + 1, sizeof *st.last_count), calloc(np + 1, sizeof *st.clear), 0,
                             calloc(np + 1, sizeof *st.margins), calloc(np + 1, sizeof *st.host_gpu),
                             calloc(np + 1, sizeof *st.waits), 0, -1, fs, NULL, 0, NULL, 0, NULL, NULL, NULL };
    if (!st.last_count || !st.clear || !st.waits || !st.margins || !st.host_gpu)
        model_out_of_memory();
    coll_spill_groups(spill, straggler_group, &st);
    for (size_t pi = 0; pi < np; pi++) {
        if (!st.full || (double)st.clear[pi] < o->straggler_clear_fraction * (double)st.full ||
            st.waits[pi] <= o->straggler_fraction * st.total_wait)
            continue;
        struct finding *f = findings_new(fs, m, F_COMM_STRAGGLER, (int)pi, 0);
        f->count = st.last_count[pi];
        /* confidence: low when its ranks are on several hosts (whose clocks
         * are aligned only as well as the records allow) and it was last by
         * less than twice the margin on average; medium when arrivals were
         * host calls (no GPU times) or it was clearly last barely often
         * enough; else high */
        int hosts = 0, gpu_all = 1;
        for (size_t q = 0; q < np; q++) {
            hosts |= !model_same_host(&m->procs[q], &m->procs[pi]);
            gpu_all &= st.host_gpu[q] != 2 && st.host_gpu[q] != 3 ? 1 : 0;
        }
        double mean_margin = st.clear[pi] ? st.margins[pi] / (double)st.clear[pi] : 0;
        if (hosts && mean_margin < 2.0 * (double)o->straggler_margin_ns)
            f->confidence = "low";
        else if (!gpu_all || (double)st.clear[pi] < 2 * o->straggler_clear_fraction * (double)st.full)
            f->confidence = "medium";
        f->wait_ns = st.waits[pi] < 9e18 ? (int64_t)st.waits[pi] : INT64_MAX;
        snprintf(f->callsite, sizeof f->callsite, "(whole process)");
        f->facts.has |= FACT_STRAGGLER;
        f->facts.straggler_rank = m->procs[pi].rank;
        f->facts.collectives = st.full;
        f->facts.clearly_last = st.clear[pi];
        f->facts.wait_share = st.total_wait > 0 ? st.waits[pi] / st.total_wait : 0.0;
        f->facts.margin_ns = o->straggler_margin_ns;

        /* the claims: a pass of its own (the counts above are done with) */
        struct straggling again = st;
        again.waits = calloc(np + 1, sizeof *again.waits);
        again.last_count = calloc(np + 1, sizeof *again.last_count);
        again.clear = calloc(np + 1, sizeof *again.clear);
        again.margins = calloc(np + 1, sizeof *again.margins);
        again.host_gpu = calloc(np + 1, sizeof *again.host_gpu);
        if (!again.waits || !again.last_count || !again.clear || !again.margins || !again.host_gpu)
            model_out_of_memory();
        again.charge_for = (int)pi;
        struct finding key = { .kind = F_COMM_STRAGGLER, .proc = (int)pi, .callsite_id = 0 };
        again.f = &key; /* fs->v may move as charges are added: they name it by key */
        size_t fi = (size_t)(f - fs->v);
        again.prev_arr = calloc(np + 1, sizeof *again.prev_arr);
        again.wins = calloc(np + 1, sizeof *again.wins);
        again.nwins = calloc(np + 1, sizeof *again.nwins);
        again.capwins = calloc(np + 1, sizeof *again.capwins);
        if (!again.prev_arr || !again.wins || !again.nwins || !again.capwins)
            model_out_of_memory();
        coll_spill_groups(spill, straggler_group, &again);
        struct ivals *wins = calloc(np + 1, sizeof *wins);
        if (!wins)
            model_out_of_memory();
        for (size_t q = 0; q < np; q++)
            wins[q] = windows_union(again.wins[q], again.nwins[q]);
        /* where its time went before the collectives it was late to, if the ranges say */
        place_straggler(m, fs, fi, pi, wins, st.clear[pi]);
        for (size_t q = 0; q < np; q++)
            free(again.wins[q]);
        free(wins);
        free(again.prev_arr);
        free(again.wins);
        free(again.nwins);
        free(again.capwins);
        f = &fs->v[fi];
        free(again.waits);
        free(again.last_count);
        free(again.clear);
        free(again.margins);
        free(again.host_gpu);
    }
    free(st.last_count);
    free(st.clear);
    free(st.waits);
    free(st.margins);
    free(st.host_gpu);
}

static int same_call(const struct coll_rec *a, const struct coll_rec *b)
{
    return a->api == b->api && a->count == b->count && a->dtype == b->dtype && a->peer == b->peer && a->op == b->op;
}

struct finding_pass {
    const struct model *m; struct findings *fs; const struct coll_spill *spill; int64_t comm; int have; int hangs;
    int64_t latest; /* model_latest_end: which processes were running when read (live) */
};

static void mismatch_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct finding_pass *fp = ctx;
    const struct model *m = fp->m;
    if (n < 2 || m->roles[v[0].api] != ROLE_NCCL_OP || model_seq_by_order(v[0].seq))
        return; /* matched by kernel order: a wrong match is no program's bug (order_match.h) */
    if (!strcmp(model_api_name(m, v[0].api), "ncclSend") || !strcmp(model_api_name(m, v[0].api), "ncclRecv"))
        return; /* point to point: peers differ by nature */
    /* the majority call */
    size_t best = 0, best_n = 0;
    for (size_t a = 0; a < n; a++) {
        size_t c = 0;
        for (size_t b = 0; b < n; b++)
            c += same_call(&v[a], &v[b]);
        if (c > best_n) {
            best_n = c;
            best = a;
        }
    }
    if (best_n == n)
        return;
    int first_proc = -1;
    for (size_t b = 0; b < n; b++)
        if (!same_call(&v[best], &v[b]) && first_proc < 0)
            first_proc = v[b].proc;
    struct finding *f = findings_new(fp->fs, m, F_COMM_MISMATCH, -1, 0); /* one per (comm, seq) */
    f->count = 1;
    const struct coll_rec *want = &v[best], *got = NULL;
    for (size_t b = 0; b < n; b++)
        if (!same_call(want, &v[b]))
            got = &v[b];
    f->wait_ns = 0;
    model_callsite(m, &m->procs[first_proc], got->site, f->callsite, sizeof f->callsite);
    f->facts.has |= FACT_COMM | FACT_SEQ;
    f->facts.comm_id = v[0].comm;
    f->facts.seq = v[0].seq;
    for (size_t b = 0; b < n; b++)
        if (!same_call(want, &v[b]))
            finding_add_rank(&f->facts, m->procs[v[b].proc].rank);
    f->facts.call[0] = (struct finding_call){ got->api, got->dtype, got->count };
    f->facts.call[1] = (struct finding_call){ want->api, want->dtype, want->count };
}

/* Processes read while they run (a monitor's windows, a live run: no end,
 * no signal, and a heartbeat to say so) are caught in the middle of their
 * collectives, each at its own moment: one entered a moment before it was
 * read, or not yet entered when it was read, is no hang.  Only a wait of
 * this long, while it still ran, is.  (A file without heartbeats, of a
 * process killed at once, says nothing of how long it waited after its last
 * record.) */
#define LIVE_HANG_NS 1000000000LL

/* (and not one whose heartbeat stopped seconds before the others': a
 * rank killed before a collective the others then waited in for 6 s was
 * taken for one read too soon to tell, and no hang was found) */
static int live(const struct finding_pass *fp, const struct proc *p)
{
    return model_proc_running(fp->m, (size_t)(p - fp->m->procs), fp->latest);
}

/* Whether process p, a member of a collective it entered at r->start,
 * stopped inside it: it did not end normally, and unless it was read while
 * it ran, waited there LIVE_HANG_NS before it was (a rank written at its
 * exit and one cut 30 ms into the collective the first finished: the cut
 * one's kernel of it never ends in its file, and it was not stopped) */
static int stopped_inside(const struct finding_pass *fp, const struct proc *p, const struct coll_rec *r)
{
    if (!model_proc_unended(p))
        return 0; /* it ended normally: not stuck inside */
    return !live(fp, p) || p->end - r->start >= LIVE_HANG_NS;
}

/* Whether process p, which used the communicator and did not enter a
 * collective the first member entered at `began`, was read while it ran
 * too soon after to tell: it may have entered it after it was read. */
static int read_too_soon(const struct finding_pass *fp, const struct proc *p, int64_t began)
{
    return live(fp, p) && p->end - began < LIVE_HANG_NS;
}

/* The first collective of a communicator that every member entered and
 * none finished, when the run did not end well: no member's kernel ended
 * (each process has GPU records, so a kernel that ended would be there),
 * and the processes that stopped inside it did not end normally. */
static void hang_inside(struct finding_pass *fp, const struct coll_rec *v, size_t n)
{
    const struct model *m = fp->m;
    for (size_t k = 0; k < n; k++) {
        const struct proc *p = &m->procs[v[k].proc];
        /* a window written while running, not a hang's, lacks the GPU
         * records CUPTI still held, for as long as a buffer takes to fill
         * (seconds under load: a collective every rank entered a second
         * before the cut, with no kernel end, was a false hang of
         * monitor.sh 17 on CI) */
        if (v[k].gend > v[k].gstart || !p->cupti_active || model_proc_gpu_cut(m, (size_t)v[k].proc) ||
            model_proc_gpu_gap_soon(p, v[k].start, MODEL_GAP_INFLIGHT_NS))
            return; /* finished somewhere, or no GPU records to tell (in flight into a gpu_gap) */
    }
    int some = 0;
    for (size_t k = 0; k < n; k++)
        some |= stopped_inside(fp, &m->procs[v[k].proc], &v[k]);
    if (!some)
        return;
    struct finding *f = findings_new(fp->fs, m, F_COMM_HANG, -1, 0);
    f->callsite_id = -(++fp->hangs); /* told apart from the others by their claims (attribution.c) */
    f->count = 1;
    for (size_t k = 0; k < n; k++) {
        const struct proc *p = &m->procs[v[k].proc];
        model_add(&f->wait_ns, p->end > v[k].start ? p->end - v[k].start : 0);
        charge_add(fp->fs, f, v[k].proc, v[k].start, p->end);
    }
    model_callsite(m, &m->procs[v[0].proc], v[0].site, f->callsite, sizeof f->callsite);
    f->facts.has |= FACT_COMM | FACT_SEQ;
    f->facts.comm_id = v[0].comm;
    f->facts.seq = v[0].seq;
    f->facts.list_of = FACT_LIST_STOPPED;
    for (size_t k = 0; k < n; k++)
        if (stopped_inside(fp, &m->procs[v[k].proc], &v[k]))
            finding_add_rank(&f->facts, m->procs[v[k].proc].rank);
    f->api = v[0].api;
    fp->comm = v[0].comm;
    fp->have = 1;
}

/* Whether group v (n members) is only a collective in progress when the
 * processes were read: every member still running, one entered it under
 * LIVE_HANG_NS before the earliest was read. */
static int in_progress(const struct finding_pass *fp, const struct coll_rec *v, size_t n)
{
    const struct model *m = fp->m;
    /* the windows of one request are cut a second or more apart: what a
     * rank entered after the earliest cut, the rank cut there could not
     * show having entered */
    int64_t horizon = INT64_MAX;
    for (size_t i = 0; i < m->nprocs; i++)
        if (live(fp, &m->procs[i]) && m->procs[i].end < horizon)
            horizon = m->procs[i].end;
    for (size_t k = 0; k < n; k++) {
        const struct proc *p = &m->procs[v[k].proc];
        if (!live(fp, p))
            return 0;
    }
    for (size_t k = 0; k < n; k++)
        if (horizon - v[k].start < LIVE_HANG_NS)
            return 1;
    return 0;
}

/* Whether group v (n of its communicator's members) waits for members
 * the inputs do not hold (a rank killed before its window was written, a
 * window set of one host): none of its kernels ended, where each process
 * has GPU records to tell.  A collective every member finished is no
 * hang, however many files are missing. */
static int absent_members(const struct model *m, const struct coll_rec *v, size_t n)
{
    if (n >= (size_t)(v[0].nranks > 0 ? v[0].nranks : 0))
        return 0;
    for (size_t k = 0; k < n; k++)
        if (v[k].gend > v[k].gstart || !m->procs[v[k].proc].cupti_active ||
            model_proc_gpu_gap_soon(&m->procs[v[k].proc], v[k].start, MODEL_GAP_INFLIGHT_NS))
            return 0;
    return 1;
}

/* Whether process pi used the communicator of group v (n members) and
 * did not enter it: not there, and no later collective of it either (a
 * monitor's window that begins after pi entered it holds pi's later ones
 * only: it went past it). */
static int never_entered(const struct finding_pass *fp, const struct coll_rec *v, size_t n, size_t pi)
{
    for (size_t k = 0; k < n; k++)
        if (v[k].proc == (int)pi)
            return 0;
    return coll_spill_used(fp->spill, pi, v[0].comm) && !coll_spill_went_past(fp->spill, pi, v[0].comm, v[0].seq);
}

/* The first collective of each communicator that some of its members
 * never entered, when the run did not end well. */
static void hang_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct finding_pass *fp = ctx;
    const struct model *m = fp->m;
    if ((fp->have && v[0].comm == fp->comm) || p2p_kind(m, v[0].api) || in_progress(fp, v, n))
        return; /* point to point: analysis_p2p.c */
    if (v[0].nranks == 1)
        return; /* waits for nobody; and NCCL runs a one-rank collective as a copy of its own, with no
                 * kernel of NCCL's to end (seen on an H200: every all-reduce of a world of one) */
    if (n >= (size_t)(v[0].nranks > 0 ? v[0].nranks : 0)) {
        hang_inside(fp, v, n);
        return;
    }
    int64_t began = v[0].start; /* when the first rank entered it */
    for (size_t k = 1; k < n; k++)
        if (v[k].start < began)
            began = v[k].start;
    /* members: the processes that ever used this communicator; one read
     * while it ran too soon after `began` is neither missing nor absent */
    int missing = 0, soon = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++)
        if (never_entered(fp, v, n, pi)) {
            int early = read_too_soon(fp, &m->procs[pi], began);
            soon |= early;
            missing |= !early;
        }
    int absent = !missing && !soon && absent_members(m, v, n);
    if (!missing && !absent)
        return;
    struct finding *f = findings_new(fp->fs, m, F_COMM_HANG, -1, 0);
    f->callsite_id = -(++fp->hangs); /* told apart from the others by their claims (attribution.c) */
    f->count = 1;
    for (size_t k = 0; k < n; k++) {
        const struct proc *p = &m->procs[v[k].proc];
        model_add(&f->wait_ns, p->end > v[k].start ? p->end - v[k].start : 0);
        charge_add(fp->fs, f, v[k].proc, v[k].start, p->end);
    }
    model_callsite(m, &m->procs[v[0].proc], v[0].site, f->callsite, sizeof f->callsite);
    f->facts.has |= FACT_COMM | FACT_SEQ;
    f->facts.comm_id = v[0].comm;
    f->facts.seq = v[0].seq;
    f->facts.list_of = FACT_LIST_MISSING;
    if (absent) /* members whose files the run lacks: named by their rank in the communicator */
        for (int r = 0; r < v[0].nranks && r < 4096; r++) {
            size_t k = 0;
            while (k < n && v[k].rank != r)
                k++;
            if (k == n)
                finding_add_rank(&f->facts, r);
        }
    for (size_t pi = 0; pi < m->nprocs; pi++)
        if (never_entered(fp, v, n, pi) && !read_too_soon(fp, &m->procs[pi], began)) {
            const struct proc *p = &m->procs[pi];
            finding_add_rank(&f->facts, p->rank);
            hang_place_facts(m, pi, f); /* where it was instead */
            /* its GPU idle while the others waited for it is the hang's
             * too: measured as GPU idle beside the others' wait */
            if (p->end > began) { /* but for its stretches without GPU records (model.h) */
                const struct ivals none = { NULL, 0 };
                model_add(&f->gpu_idle_ns, charge_idle(fp->fs, f, (int)pi, p, &none, began, p->end));
            }
        }
    f->api = v[0].api;
    f->facts.entered = (int64_t)n;
    hang_depth_facts(m, fp->spill, v, n, f); /* how far each rank got in it, from NCCL's plugin */
    fp->comm = v[0].comm;
    fp->have = 1;
}

void analyse_comm_across(struct model *m, const struct report_opts *o, struct findings *fs,
                         struct coll_spill *spill)
{
    order_match_check(m, o, spill); /* collectives matched by kernel order: kept only once checked */
    exposed_share(o, fs);
    stragglers(m, o, fs, spill);
    struct finding_pass fp = { m, fs, spill, 0, 0, 0, model_latest_end(m) };
    coll_spill_groups(spill, mismatch_group, &fp);
    int ended_badly = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++)
        ended_badly |= model_proc_unended(&m->procs[pi]);
    if (ended_badly)
        coll_spill_groups(spill, hang_group, &fp);
}
