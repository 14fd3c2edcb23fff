/* ledger_resolve.c: each rank's ledger split by the findings charged for
 * its waste, once every claim is resolved (ledger.h, ledger_resolve); the
 * findings made of what no finding claimed (unclaimed exposed
 * communication, gpu.launch_bound). */
#include "viewer/analyse/ledger.h"
#include "viewer/analyse/ledger_int.h"
#include "viewer/analyse/findings.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- resolved against the charges ------------------------------------------- */

/* v[0, n) sorted by start.  A process's pieces come as attribute_costs
 * gave them, cause after cause, each cause's in time order: a few sorted
 * runs, merged pairwise (qsort's comparisons through a pointer were most
 * of the ledger's time). */
static void sort_pieces(struct charge *v, size_t n)
{
    if (n < 2) /* sorted; and none (a GPU no finding charged) may be NULL, no copy's destination */
        return;
    struct charge *t = malloc((n + 1) * sizeof *t), *src = v, *dst = t;
    if (!t)
        model_out_of_memory();
    for (;;) {
        size_t runs = 0;
        for (size_t i = 0; i < n; runs++) {
            size_t mid = i + 1;
            while (mid < n && src[mid - 1].a <= src[mid].a)
                mid++;
            size_t end = mid < n ? mid + 1 : n;
            while (end < n && src[end - 1].a <= src[end].a)
                end++;
            size_t l = i, r = mid, k = i;
            while (l < mid && r < end)
                dst[k++] = src[r].a < src[l].a ? src[r++] : src[l++];
            while (l < mid)
                dst[k++] = src[l++];
            while (r < end)
                dst[k++] = src[r++];
            i = end;
        }
        struct charge *x = src;
        src = dst;
        dst = x;
        if (runs <= 1)
            break;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
    free(t);
}

/* The bucket an interval of exposed communication (comm 1) or of idle
 * (comm 0) goes to when charged to a finding of this kind (-1: none). */
static int bucket_of(int comm, int kind)
{
    int peer = kind == F_COMM_STRAGGLER || kind == F_COMM_HANG || kind == F_COMM_MISMATCH;
    if (comm)
        return peer ? LB_COMM_WAIT : LB_COMM_TRANSFER;
    if (kind < 0)
        return LB_IDLE_OTHER;
    if (kind == F_GPU_STALLED)
        return LB_IDLE_OTHER; /* neither the host's pace nor its block: work queued, not run */
    return peer ? LB_IDLE_PEER : kind == F_GPU_IDLE ? LB_IDLE_HOST : LB_IDLE_BLOCKED;
}

/* ns of a bucket charged to c's finding (NULL: none), in its row. */
void lg_note_row(struct ledger *l, size_t *cap, int bucket, const struct charge *c, int64_t ns)
{
    int kind = c ? c->kind : -1, proc = c ? c->proc : -1, site = c ? c->site : 0;
    for (size_t i = 0; i < l->nrows; i++) {
        struct ledger_row *r = &l->rows[i];
        if (r->bucket == bucket && r->kind == kind && r->proc == proc && r->site == site) {
            model_add(&r->ns, ns);
            return;
        }
    }
    if (l->nrows == *cap) {
        *cap = *cap ? *cap * 2 : 16;
        if (!(l->rows = realloc(l->rows, *cap * sizeof *l->rows)))
            model_out_of_memory();
    }
    l->rows[l->nrows++] = (struct ledger_row){ bucket, kind, proc, site, ns };
}

/* ... and added to the bucket. */
void lg_add_row(struct ledger *l, size_t *cap, int bucket, const struct charge *c, int64_t ns)
{
    model_add(&l->ns[bucket], ns);
    lg_note_row(l, cap, bucket, c, ns);
}

/* Each interval of v (sorted, disjoint) split by the pieces (sorted by
 * start, disjoint: each interval of a rank's time is given once) into
 * rows; what no piece covers goes to the bucket of no finding, and is
 * returned as intervals in *left when left is not NULL. */
static void split(struct ledger *l, size_t *cap, const struct interval *v, size_t n, const struct charge *pc,
                  size_t np, int comm, struct interval **left, size_t *nleft, size_t *left_cap)
{
    int rows_left = comm; /* idle no finding claimed: sorted by the host's state after (uncharged_idle) */
    size_t j = 0;
    for (size_t i = 0; i < n; i++) {
        int64_t a = v[i].a, b = v[i].b;
        while (j < np && pc[j].b <= a)
            j++;
        for (size_t k = j; k < np && pc[k].a < b && a < b; k++) {
            if (pc[k].a > a) {
                if (rows_left) {
                    lg_add_row(l, cap, bucket_of(comm, -1), NULL, pc[k].a - a);
                    lg_add_span(l, bucket_of(comm, -1), a, pc[k].a);
                }
                if (left)
                    lg_push_ival(left, nleft, left_cap, a, pc[k].a);
                a = pc[k].a;
            }
            int64_t e = pc[k].b < b ? pc[k].b : b;
            if (e > a) {
                lg_add_row(l, cap, bucket_of(comm, pc[k].kind), &pc[k], e - a);
                lg_add_span(l, bucket_of(comm, pc[k].kind), a, e);
                a = e;
            }
        }
        if (b > a) {
            if (rows_left) {
                lg_add_row(l, cap, bucket_of(comm, -1), NULL, b - a);
                lg_add_span(l, bucket_of(comm, -1), a, b);
            }
            if (left)
                lg_push_ival(left, nleft, left_cap, a, b);
        }
    }
}

/* The idle no finding claimed, `left`: the host blocked in a call no
 * finding names (a sync the program needs), or not. */
static void uncharged_idle(struct ledger *l, size_t *cap, const struct interval *left, size_t nleft)
{
    const struct interval *bl = l->blocked;
    size_t k = 0; /* both in time order, each disjoint: one sweep */
    for (size_t i = 0; i < nleft; i++) {
        int64_t in = 0, len = left[i].b - left[i].a;
        while (k < l->nblocked && bl[k].b <= left[i].a)
            k++;
        int64_t at = left[i].a; /* swept: the host blocked, or not */
        for (size_t q = k; q < l->nblocked && bl[q].a < left[i].b; q++) {
            int64_t a = bl[q].a > left[i].a ? bl[q].a : left[i].a, b = bl[q].b < left[i].b ? bl[q].b : left[i].b;
            if (b > a) {
                in += b - a;
                lg_add_span(l, LB_IDLE_OTHER, at, a);
                lg_add_span(l, LB_IDLE_BLOCKED, a, b);
                at = b;
            }
        }
        lg_add_span(l, LB_IDLE_OTHER, at, left[i].b);
        if (in)
            lg_add_row(l, cap, LB_IDLE_BLOCKED, NULL, in);
        if (len - in)
            lg_add_row(l, cap, LB_IDLE_OTHER, NULL, len - in);
    }
}

static int cmp_row(const void *x, const void *y)
{
    const struct ledger_row *a = x, *b = y;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    if (a->bucket != b->bucket)
        return a->bucket < b->bucket ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->proc != b->proc)
        return a->proc < b->proc ? -1 : 1;
    return a->site < b->site ? -1 : a->site > b->site;
}

void lg_push_given(struct charges *c, struct charge g)
{
    struct charge *v = realloc(c->given, (c->ngiven + 1) * sizeof *v);
    if (!v)
        model_out_of_memory();
    c->given = v;
    c->given[c->ngiven++] = g;
}

/* Process pi's exposed communication that no finding claimed, `left`, as
 * a finding of its own when it is 1 ms or more: the communication kernels
 * with no collective call recorded (a trace without collective args,
 * symmetric memory's all-reduce), or collectives a little overlapped at
 * many sites.  Its pieces are given to it, so that its cost, its marks
 * and --charges say where. */
static void claim_unclaimed(struct findings *fs, const struct model *m, size_t pi, struct ledger *l,
                            const struct interval *left, size_t nleft, const int16_t *gpu)
{
    int64_t total = 0;
    for (size_t i = 0; i < nleft; i++)
        model_add(&total, left[i].b - left[i].a);
    if (total < UNCLAIMED_MIN_NS)
        return;
    struct finding *f = findings_new(fs, m, F_COMM_EXPOSED, (int)pi, UNCLAIMED_SITE);
    snprintf(f->callsite, sizeof f->callsite, "(whole process)");
    f->count = (int64_t)nleft;
    f->exposed_ns = total;
    f->cost_ns = total; /* its waste_ns is its rows', as every finding's */
    f->confidence = "medium";
    f->facts.has |= FACT_UNCLAIMED;
    if (l->comm_kernel) /* the kernel that ran most of it: its place */
        snprintf(f->facts.kernel, sizeof f->facts.kernel, "%s", l->comm_kernel);
    struct charge g = { 0, 0, (int)pi, (int)pi, UNCLAIMED_SITE, F_COMM_EXPOSED, -1, 0 };
    for (size_t i = 0; i < nleft; i++) {
        g.a = left[i].a;
        g.b = left[i].b;
        g.gpu = gpu ? gpu[i] : 0; /* of several GPUs: each one's own time */
        lg_push_given(&fs->charges, g);
    }
    if (fs->charges.by_proc)
        model_add(&fs->charges.by_proc[pi], total); /* (of several GPUs: their union, by_proc_union) */
    /* the rows of no finding are now its */
    for (size_t i = 0; i < l->nrows; i++)
        if (l->rows[i].bucket == LB_COMM_TRANSFER && l->rows[i].kind < 0) {
            l->rows[i].kind = F_COMM_EXPOSED;
            l->rows[i].proc = (int)pi;
            l->rows[i].site = UNCLAIMED_SITE;
        }
}

/* The process's gaps shorter than --idle-gap-us, when they are 1 ms or
 * more and a twentieth of its GPU span, as gpu.launch_bound: kernels
 * separated only by the time the host takes to launch the next.  Placed
 * by the host range that held the most of them.  Its cost is their time,
 * charged as no interval (they are as many as the kernels): the ledger's
 * row of it, not --charges, lists where. */
static void launch_bound(struct findings *fs, const struct model *m, size_t pi, struct ledger *l, size_t *cap)
{
    int64_t total = l->ns[LB_IDLE_LAUNCH], n = 0;
    if (total < LAUNCH_MIN_NS || total * LAUNCH_SHARE < l->span_ns)
        return;
    const struct launch_tally *top = NULL;
    for (size_t k = 0; k < l->nlaunch; k++) {
        n += l->launch[k].n;
        if (!top || l->launch[k].ns > top->ns)
            top = &l->launch[k];
    }
    struct finding *f = findings_new(fs, m, F_GPU_LAUNCH_BOUND, (int)pi, LAUNCH_SITE);
    snprintf(f->callsite, sizeof f->callsite, "(whole process)");
    f->count = n;
    f->gpu_idle_ns = total;
    f->cost_ns = total; /* its waste_ns is its row's, below */
    f->confidence = "medium";
    f->range = top && top->label >= 0 ? top->label + 1 : 0;
    struct charge g = { 0, 0, (int)pi, (int)pi, LAUNCH_SITE, F_GPU_LAUNCH_BOUND, -1, 0 };
    lg_note_row(l, cap, LB_IDLE_LAUNCH, &g, total); /* the bucket counted it already */
}

/* gpu.idle of a range that cost less than IDLE_MIN_NS and 1% of its
 * process's span is dropped (findings_finish) before the waste is split,
 * its time no finding's.  Its cost is all idle time (its claims are
 * parts of long gaps), so its waste would be its cost. */
static void drop_small_idle(struct findings *fs, struct idmap *dropped_out)
{
    struct idmap dropped = { 0 };
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        const struct ledger *l = f->proc >= 0 ? ledger_of(fs, (size_t)f->proc) : NULL;
        /* (one GPU's of several: what it claimed, as its cost is its GPU's
         * pieces, below, and another GPU's claim may have taken the
         * process's time first) */
        int64_t cost = f->facts.has & FACT_DEVICE ? f->gpu_idle_ns : f->cost_ns;
        if (f->kind == F_GPU_IDLE && l && f->count && cost < IDLE_MIN_NS && cost * 100 < l->span_ns) {
            f->count = 0;
            f->cost_ns = 0;
            idmap_put(&dropped, finding_key(f->kind, f->proc, f->callsite_id), 1, 0);
        }
    }
    *dropped_out = dropped;
    if (!dropped.n)
        return;
    /* their pieces go with them: what the findings account for is theirs */
    struct charges *c = &fs->charges;
    size_t k = 0;
    for (size_t q = 0; q < c->ngiven; q++) {
        const struct charge *g = &c->given[q];
        int64_t v;
        if (g->kind == F_GPU_IDLE && idmap_get(&dropped, finding_key(g->kind, g->proc, g->site), &v)) {
            if (c->by_proc && g->tl >= 0 && (size_t)g->tl < c->nprocs)
                c->by_proc[g->tl] -= g->b - g->a;
            continue;
        }
        c->given[k++] = c->given[q];
    }
    c->ngiven = k;
}

void ledger_resolve(struct findings *fs, const struct model *m)
{
    if (!fs->ledgers)
        return;
    struct idmap dropped = { 0 };
    drop_small_idle(fs, &dropped);
    lg_gpu_pieces(fs, &dropped);
    idmap_free(&dropped);
    lg_gpus_own(fs);
    struct charges *c = &fs->charges;
    /* the claims are resolved: their memory goes to the pieces below */
    free(c->v);
    c->v = NULL;
    c->n = c->cap = 0;
    /* each process's pieces: attribute_costs gave them process by process,
     * so each process's are one stretch of the array (checked), copied
     * and sorted by time one process at a time */
    size_t *at = calloc(m->nprocs + 2, sizeof *at), *len = calloc(m->nprocs + 2, sizeof *len);
    if (!at || !len)
        model_out_of_memory();
    size_t ngiven = c->ngiven, most = 0;
    int grouped = 1;
    for (size_t i = 0; i < ngiven; i++) {
        int tl = c->given[i].tl;
        if (tl < 0 || (size_t)tl >= m->nprocs)
            continue;
        if (len[tl] && at[tl] + len[tl] != i)
            grouped = 0;
        if (!len[tl])
            at[tl] = i;
        len[tl]++;
        most = len[tl] > most ? len[tl] : most;
    }
    struct charge *mine = malloc((grouped ? most : ngiven) * sizeof *mine + sizeof *mine);
    if (!mine)
        model_out_of_memory();
    for (size_t pi = 0; pi < m->nprocs && pi < fs->nledgers; pi++) {
        struct ledger *l = &fs->ledgers[pi];
        if (!l->on)
            continue;
        lg_take_back(fs, l);
        size_t nmine = 0, cap = 0;
        if (grouped) {
            if (len[pi]) /* (no piece at all: given may be NULL) */
                memcpy(mine, c->given + at[pi], len[pi] * sizeof *mine);
            nmine = len[pi];
        } else { /* never so today: found the long way */
            for (size_t i = 0; i < ngiven; i++)
                if (c->given[i].tl == (int)pi)
                    mine[nmine++] = c->given[i];
        }
        sort_pieces(mine, nmine);
        struct interval *left = NULL;
        size_t nleft = 0, left_cap = 0;
        if (!l->ngpus) {
            split(l, &cap, l->exposed, l->nexposed, mine, nmine, 1, &left, &nleft, &left_cap);
            claim_unclaimed(fs, m, pi, l, left, nleft, NULL);
            launch_bound(fs, m, pi, l, &cap);
            nleft = 0;
            split(l, &cap, l->idle, l->nidle, mine, nmine, 0, &left, &nleft, &left_cap);
            uncharged_idle(l, &cap, left, nleft);
        } else {
            /* each GPU's time split by the process's pieces (a sync the host
             * blocked in idled every GPU), then summed */
            struct interval *comm = NULL;
            int16_t *comm_gpu = NULL;
            size_t ncomm = 0, comm_cap = 0;
            for (size_t k = 0; k < l->ngpus; k++) {
                struct ledger *g = &l->gpus[k];
                size_t gcap = 0;
                lg_take_back(fs, g);
                sort_pieces(g->pieces, g->npieces);
                const struct charge *gp = g->pieces;
                size_t ngp = g->npieces;
                nleft = 0; /* its exposed communication no finding claimed, with its GPU */
                split(g, &gcap, g->exposed, g->nexposed, gp, ngp, 1, &left, &nleft, &left_cap);
                if (nleft > comm_cap - ncomm || !comm) {
                    comm_cap = ncomm + nleft + 1;
                    if (!(comm = realloc(comm, comm_cap * sizeof *comm)) ||
                        !(comm_gpu = realloc(comm_gpu, comm_cap * sizeof *comm_gpu)))
                        model_out_of_memory();
                }
                for (size_t q = 0; q < nleft; q++, ncomm++) {
                    comm[ncomm] = left[q];
                    comm_gpu[ncomm] = (int16_t)(g->device + 1);
                }
                nleft = 0;
                split(g, &gcap, g->idle, g->nidle, gp, ngp, 0, &left, &nleft, &left_cap);
                uncharged_idle(g, &gcap, left, nleft);
                nleft = 0;
                split(g, &gcap, g->peer, g->npeer, gp, ngp, 0, &left, &nleft, &left_cap);
                free(g->pieces);
                g->pieces = NULL;
                g->npieces = 0;
                free(g->peer); /* what is left of it: the bubble's (below) */
                g->peer = left;
                g->npeer = nleft;
                left = NULL;
                nleft = left_cap = 0;
            }
            lg_bubble(fs, m, pi, l);
            for (size_t k = 0; k < l->ngpus; k++)
                lg_intervals_free(&l->gpus[k]);
            lg_sum_gpus(l, &cap);
            claim_unclaimed(fs, m, pi, l, comm, ncomm, comm_gpu);
            launch_bound(fs, m, pi, l, &cap);
            free(comm);
            free(comm_gpu);
        }
        if (l->nrows)
            qsort(l->rows, l->nrows, sizeof *l->rows, cmp_row);
        free(left);
        lg_intervals_free(l);
    }
    free(mine);
    free(at);
    free(len);
    lg_by_proc_union(fs);
    /* each finding's share of the waste */
    struct idmap of = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        idmap_put(&of, finding_key(fs->v[i].kind, fs->v[i].proc, fs->v[i].callsite_id), (int64_t)i, 1);
    for (size_t pi = 0; pi < fs->nledgers; pi++)
        for (size_t r = 0; fs->ledgers[pi].on && r < fs->ledgers[pi].nrows; r++) {
            const struct ledger_row *row = &fs->ledgers[pi].rows[r];
            int64_t i;
            if (row->kind >= 0 && idmap_get(&of, finding_key(row->kind, row->proc, row->site), &i))
                model_add(&fs->v[i].waste_ns, row->ns);
        }
    idmap_free(&of);
}
