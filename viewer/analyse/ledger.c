/* ledger.c: each rank's time partitioned into what the GPU did and why it
 * idled, its waste split by the finding charged for it (ledger.h). */
#include "viewer/analyse/ledger.h"
#include "viewer/analyse/findings.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/analyse/host_blocked.h"
#include "viewer/model/timeline.h"
#include "viewer/model/tmpstore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const ledger_bucket_names[LB_COUNT] = {
    "compute", "comm.hidden", "comm.wait", "comm.transfer", "copy", "idle.host_blocked",
    "idle.host_busy", "idle.peer", "idle.launch", "idle.other", "before_gpu", "after_gpu",
};

int ledger_waste(int bucket)
{
    return bucket >= LB_COMM_WAIT && bucket <= LB_IDLE_OTHER && bucket != LB_COPY;
}

/* A finding made of what no finding claimed: its site, never a real one
 * (>= 0) nor gpu.idle's (analysis_gpu.c: above -2^30). */
#define UNCLAIMED_SITE (-(1 << 30) - 1)
/* gpu.launch_bound's site, never a real one, nor another whole process's */
#define LAUNCH_SITE (-(1 << 30) - 2)
/* The short gaps make gpu.launch_bound from this much on, and this share
 * of the process's GPU span (1/20). */
#define LAUNCH_MIN_NS 1000000
#define LAUNCH_SHARE 20
/* What no finding claimed becomes one from this much on; and gpu.idle
 * of one range is kept from this much on, or 1% of its process's GPU
 * span (below both it is noise: the host paused a little in a range). */
#define UNCLAIMED_MIN_NS 1000000
#define IDLE_MIN_NS 1000000

static struct ledger *ledger_at(struct findings *fs, const struct model *m, size_t pi)
{
    if (!fs->ledgers) {
        fs->nledgers = m->nprocs;
        if (!(fs->ledgers = calloc(m->nprocs + 1, sizeof *fs->ledgers)))
            model_out_of_memory();
    }
    return &fs->ledgers[pi];
}

const struct ledger *ledger_of(const struct findings *fs, size_t pi)
{
    return fs->ledgers && pi < fs->nledgers && fs->ledgers[pi].on ? &fs->ledgers[pi] : NULL;
}

static void push_ival(struct interval **v, size_t *n, size_t *cap, int64_t a, int64_t b)
{
    if (b <= a)
        return;
    if (*n && (*v)[*n - 1].b == a) { /* one stretch, however the windows cut it */
        (*v)[*n - 1].b = b;
        return;
    }
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        if (!(*v = realloc(*v, *cap * sizeof **v)))
            model_out_of_memory();
    }
    (*v)[(*n)++] = (struct interval){ a, b };
}

static int cmp_step_start(const void *x, const void *y)
{
    const struct model_step *a = x, *b = y;
    return a->start < b->start ? -1 : a->start > b->start ? 1 : (a->iter > b->iter) - (a->iter < b->iter);
}

/* The process's iterations, once, in time order and made disjoint (each
 * time is counted in the first that holds it, should two overlap). */
static void steps_begin(struct ledger *l, const struct proc *p)
{
    if (l->steps_known)
        return;
    l->steps_known = 1;
    l->nsteps = model_steps(p, &l->steps);
    if (!l->nsteps)
        return;
    qsort(l->steps, l->nsteps, sizeof *l->steps, cmp_step_start);
    if (!(l->step_ns = calloc(l->nsteps, sizeof *l->step_ns)) || !(l->step_len = calloc(l->nsteps, sizeof *l->step_len)))
        model_out_of_memory();
    /* made disjoint: what two hold is the earlier one's */
    int64_t done = INT64_MIN;
    for (size_t k = 0; k < l->nsteps; k++) {
        struct model_step *st = &l->steps[k];
        if (st->start < done)
            st->start = done;
        if (st->end < st->start)
            st->end = st->start;
        done = st->end;
        int64_t a = st->start > p->start ? st->start : p->start, b = st->end < p->end ? st->end : p->end;
        l->step_len[k] = b > a ? b - a : 0;
    }
}

/* [a, b) of bucket b added to the iterations it falls in. */
static void add_span(struct ledger *l, int bucket, int64_t a, int64_t b)
{
    for (size_t k = model_step_from(l->steps, l->nsteps, a); k < l->nsteps && l->steps[k].start < b; k++) {
        /* disjoint, in order */
        int64_t s = l->steps[k].start > a ? l->steps[k].start : a;
        int64_t e = l->steps[k].end < b ? l->steps[k].end : b;
        if (e > s)
            model_add(&l->step_ns[k][bucket], e - s);
    }
}

/* What the GPU did in [a, b) of the window, added to ns (a ledger's or an
 * iteration's): compute alone, compute beside communication, copies alone
 * (busy less compute less exposed communication). */
static void add_states(int64_t *ns, const struct timeline *t, const struct ivals *compute_only,
                       const struct ivals *exposed, int64_t a, int64_t b)
{
    int64_t compute = ivals_cover(&t->compute, a, b), alone = ivals_cover(compute_only, a, b);
    model_add(&ns[LB_COMPUTE], alone);
    model_add(&ns[LB_COMM_HIDDEN], compute - alone);
    model_add(&ns[LB_COPY], ivals_cover(&t->busy, a, b) - compute - ivals_cover(exposed, a, b));
}

/* The GPU's states within [lo, hi) of the window, added to the iterations. */
static void steps_window(struct ledger *l, const struct timeline *t, const struct ivals *compute_only,
                         const struct ivals *exposed, int64_t lo, int64_t hi)
{
    size_t first = 0, last = l->nsteps;
    while (first < last) { /* the first iteration ending after lo (disjoint: their ends in order too) */
        size_t mid = (first + last) / 2;
        if (l->steps[mid].end <= lo)
            first = mid + 1;
        else
            last = mid;
    }
    for (size_t k = first; k < l->nsteps && l->steps[k].start < hi; k++) {
        int64_t a = l->steps[k].start > lo ? l->steps[k].start : lo, b = l->steps[k].end < hi ? l->steps[k].end : hi;
        if (b > a)
            add_states(l->step_ns[k], t, compute_only, exposed, a, b);
    }
}

/* The parts of the union u within [lo, hi). */
static void push_within(struct interval **v, size_t *n, size_t *cap, const struct ivals *u, int64_t lo, int64_t hi)
{
    for (size_t i = 0; i < u->n; i++)
        push_ival(v, n, cap, u->v[i].a > lo ? u->v[i].a : lo, u->v[i].b < hi ? u->v[i].b : hi);
}

static void keep_blocked(void *arg, int64_t a, int64_t b)
{
    struct ledger *l = arg;
    push_ival(&l->blocked, &l->nblocked, &l->blocked_cap, a, b);
}

/* A short gap [a, b) tallied by the host range around its middle. */
static void tally_launch(struct ledger *l, const struct proc *p, int64_t a, int64_t b)
{
    int r = p->nuser_ranges ? model_range_place(p, model_range_at(p, -1, a + (b - a) / 2)) : -1;
    int label = r >= 0 ? p->ranges[r].name : -1;
    size_t k;
    for (k = 0; k < l->nlaunch && l->launch[k].label != label; k++)
        ;
    if (k == l->nlaunch) {
        struct launch_tally *v = realloc(l->launch, (l->nlaunch + 1) * sizeof *v);
        if (!v)
            model_out_of_memory();
        l->launch = v;
        v[l->nlaunch++] = (struct launch_tally){ label, 0, 0 };
    }
    model_add(&l->launch[k].ns, b - a);
    l->launch[k].n++;
}

/* One window of the process's GPU work: what the GPU did in it, summed,
 * and its exposed communication and long gaps kept.  Clipped to the
 * process's life (its ledger adds up to it), and to after what an earlier
 * window counted (windows are cut where nothing runs, so nothing is cut
 * off but what a damaged file overlaps). */
void ledger_window(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->cupti_active)
        return;
    struct timeline *t = model_timeline(m, pi);
    struct ledger *l = ledger_at(fs, m, pi);
    steps_begin(l, p);
    int64_t lo = l->on && l->last > p->start ? l->last : p->start, hi = p->end;
    if (!t->busy.n || hi <= lo)
        return;
    struct ivals compute_only = ivals_minus(&t->compute, &t->comm);
    struct ivals exposed = ivals_minus(&t->comm, &t->compute);
    add_states(l->ns, t, &compute_only, &exposed, lo, hi);
    push_within(&l->exposed, &l->nexposed, &l->exposed_cap, &exposed, lo, hi);
    if (l->nsteps)
        steps_window(l, t, &compute_only, &exposed, lo, hi);
    for (size_t i = 0; i < p->nops && exposed.n; i++) { /* by kernel name: what ran exposed */
        const struct gop *g = &p->ops[i];
        int64_t e = g->nccl ? ivals_cover(&exposed, g->start > lo ? g->start : lo, g->end < hi ? g->end : hi) : 0;
        if (e > 0) {
            int64_t v = 0;
            idmap_get(&l->comm_by_name, (uint64_t)(uint32_t)g->name + 1, &v);
            idmap_put(&l->comm_by_name, (uint64_t)(uint32_t)g->name + 1, v + e, 0);
        }
    }
    free(compute_only.v);
    free(exposed.v);
    /* the gaps between busy stretches: short ones summed, long ones kept,
     * with the host's blocking calls in them */
    const struct ivals blocked = ((const struct proc_pass *)p->pass)->blocked; /* analysis_gpu.c's, this window's */
    for (size_t k = 0; k < t->busy.n; k++) {
        int64_t a = t->busy.v[k].a > lo ? t->busy.v[k].a : lo, b = t->busy.v[k].b < hi ? t->busy.v[k].b : hi;
        if (b <= a)
            continue;
        if (!l->on) {
            l->on = 1;
            l->first = a;
        } else if (a - l->last < o->idle_gap_ns) {
            model_add(&l->ns[LB_IDLE_LAUNCH], a - l->last);
            add_span(l, LB_IDLE_LAUNCH, l->last, a);
            tally_launch(l, p, l->last, a);
        } else {
            push_ival(&l->idle, &l->nidle, &l->idle_cap, l->last, a);
            ivals_split(&blocked, l->last, a, 1, keep_blocked, l);
        }
        l->last = b;
    }
}

/* The process's intervals into the run's scratch store, so that the
 * report's memory follows one rank, not the run: read back (take_back)
 * once every rank's claims are resolved. */
static void put_aside(struct findings *fs, struct ledger *l)
{
    if (!fs->aside)
        return;
    if (fs->aside_lock)
        pthread_mutex_lock(fs->aside_lock);
    l->aside_at = fs->aside->len; /* the three in turn; an empty one writes nothing */
    if (l->nexposed)
        tmpstore_append(fs->aside, l->exposed, l->nexposed * sizeof *l->exposed);
    if (l->nidle)
        tmpstore_append(fs->aside, l->idle, l->nidle * sizeof *l->idle);
    if (l->nblocked)
        tmpstore_append(fs->aside, l->blocked, l->nblocked * sizeof *l->blocked);
    if (fs->aside_lock)
        pthread_mutex_unlock(fs->aside_lock);
    free(l->exposed);
    free(l->idle);
    free(l->blocked);
    l->exposed = l->idle = l->blocked = NULL;
    l->exposed_cap = l->idle_cap = l->blocked_cap = 0;
    l->aside = 1;
}

static struct interval *read_back(const struct tmpstore *t, uint64_t *at, size_t n)
{
    struct interval *v = malloc((n + 1) * sizeof *v);
    if (!v)
        model_out_of_memory();
    if (n)
        tmpstore_read(t, *at, v, n * sizeof *v);
    *at += n * sizeof *v;
    return v;
}

/* The intervals put aside, back (one process at a time). */
static void take_back(const struct findings *fs, struct ledger *l)
{
    if (!l->aside)
        return;
    uint64_t at = l->aside_at;
    l->exposed = read_back(fs->aside, &at, l->nexposed);
    l->idle = read_back(fs->aside, &at, l->nidle);
    l->blocked = read_back(fs->aside, &at, l->nblocked);
    l->aside = 0;
}

void ledger_proc_end(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!fs->ledgers || pi >= fs->nledgers || !fs->ledgers[pi].on)
        return;
    struct ledger *l = &fs->ledgers[pi];
    l->life_ns = p->end - p->start;
    /* a process that did not end (killed, stuck, or read while it runs) had
     * its GPU idle from its last work until it was last known alive: a
     * rank waiting in a hung collective, whose kernel never ended, is
     * waste charged to the hang, not the quiet after a run's end.  Not a
     * window whose last GPU records CUPTI still held (model_proc_gpu_cut):
     * what its GPU did then is not known */
    if (model_proc_unended(p) && !model_proc_gpu_cut(m, pi) && p->end > l->last) {
        push_ival(&l->idle, &l->nidle, &l->idle_cap, l->last, p->end);
        l->last = p->end;
    }
    l->span_ns = l->last - l->first;
    l->ns[LB_BEFORE] = l->first - p->start;
    l->ns[LB_AFTER] = p->end - l->last;
    add_span(l, LB_BEFORE, p->start, l->first);
    add_span(l, LB_AFTER, l->last, p->end);
    put_aside(fs, l);
    for (size_t i = 0; i < l->comm_by_name.cap; i++) /* its names go with its records */
        if (l->comm_by_name.key[i] && l->comm_by_name.val[i] > l->comm_kernel_ns) {
            l->comm_kernel_ns = l->comm_by_name.val[i];
            free(l->comm_kernel);
            if (!(l->comm_kernel = strdup(model_kernel_name(p, (int)(l->comm_by_name.key[i] - 1)))))
                model_out_of_memory();
        }
    idmap_free(&l->comm_by_name);
}

/* ---- resolved against the charges ------------------------------------------- */

/* v[0, n) sorted by start.  A process's pieces come as attribute_costs
 * gave them, cause after cause, each cause's in time order: a few sorted
 * runs, merged pairwise (qsort's comparisons through a pointer were most
 * of the ledger's time). */
static void sort_pieces(struct charge *v, size_t n)
{
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
static void note_row(struct ledger *l, size_t *cap, int bucket, const struct charge *c, int64_t ns)
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
static void add_row(struct ledger *l, size_t *cap, int bucket, const struct charge *c, int64_t ns)
{
    model_add(&l->ns[bucket], ns);
    note_row(l, cap, bucket, c, ns);
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
                    add_row(l, cap, bucket_of(comm, -1), NULL, pc[k].a - a);
                    add_span(l, bucket_of(comm, -1), a, pc[k].a);
                }
                if (left)
                    push_ival(left, nleft, left_cap, a, pc[k].a);
                a = pc[k].a;
            }
            int64_t e = pc[k].b < b ? pc[k].b : b;
            if (e > a) {
                add_row(l, cap, bucket_of(comm, pc[k].kind), &pc[k], e - a);
                add_span(l, bucket_of(comm, pc[k].kind), a, e);
                a = e;
            }
        }
        if (b > a) {
            if (rows_left) {
                add_row(l, cap, bucket_of(comm, -1), NULL, b - a);
                add_span(l, bucket_of(comm, -1), a, b);
            }
            if (left)
                push_ival(left, nleft, left_cap, a, b);
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
                add_span(l, LB_IDLE_OTHER, at, a);
                add_span(l, LB_IDLE_BLOCKED, a, b);
                at = b;
            }
        }
        add_span(l, LB_IDLE_OTHER, at, left[i].b);
        if (in)
            add_row(l, cap, LB_IDLE_BLOCKED, NULL, in);
        if (len - in)
            add_row(l, cap, LB_IDLE_OTHER, NULL, len - in);
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

static void push_given(struct charges *c, struct charge g)
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
                            const struct interval *left, size_t nleft)
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
    struct charge g = { 0, 0, (int)pi, (int)pi, UNCLAIMED_SITE, F_COMM_EXPOSED, -1 };
    for (size_t i = 0; i < nleft; i++) {
        g.a = left[i].a;
        g.b = left[i].b;
        push_given(&fs->charges, g);
    }
    if (fs->charges.by_proc)
        model_add(&fs->charges.by_proc[pi], total);
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
    struct charge g = { 0, 0, (int)pi, (int)pi, LAUNCH_SITE, F_GPU_LAUNCH_BOUND, -1 };
    note_row(l, cap, LB_IDLE_LAUNCH, &g, total); /* the bucket counted it already */
}

/* gpu.idle of a range that cost less than IDLE_MIN_NS and 1% of its
 * process's span is dropped (findings_finish) before the waste is split,
 * its time no finding's.  Its cost is all idle time (its claims are
 * parts of long gaps), so its waste would be its cost. */
static void drop_small_idle(struct findings *fs)
{
    struct idmap dropped = { 0 };
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        const struct ledger *l = f->proc >= 0 ? ledger_of(fs, (size_t)f->proc) : NULL;
        /* (one GPU's of several idles while another works: no waste of the
         * process's ledger, and kept) */
        if (f->kind == F_GPU_IDLE && l && f->count && !(f->facts.has & FACT_DEVICE) && f->cost_ns < IDLE_MIN_NS &&
            f->cost_ns * 100 < l->span_ns) {
            f->count = 0;
            f->cost_ns = 0;
            idmap_put(&dropped, finding_key(f->kind, f->proc, f->callsite_id), 1, 0);
        }
    }
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
    idmap_free(&dropped);
}

void ledger_resolve(struct findings *fs, const struct model *m)
{
    if (!fs->ledgers)
        return;
    drop_small_idle(fs);
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
        take_back(fs, l);
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
        split(l, &cap, l->exposed, l->nexposed, mine, nmine, 1, &left, &nleft, &left_cap);
        claim_unclaimed(fs, m, pi, l, left, nleft);
        launch_bound(fs, m, pi, l, &cap);
        nleft = 0;
        split(l, &cap, l->idle, l->nidle, mine, nmine, 0, &left, &nleft, &left_cap);
        uncharged_idle(l, &cap, left, nleft);
        if (l->nrows)
            qsort(l->rows, l->nrows, sizeof *l->rows, cmp_row);
        free(left);
        free(l->blocked);
        l->blocked = NULL;
        l->nblocked = 0;
        free(l->exposed);
        free(l->idle);
        l->exposed = l->idle = NULL;
        l->nexposed = l->nidle = 0;
    }
    free(mine);
    free(at);
    free(len);
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

int64_t ledger_waste_ns(const struct ledger *l)
{
    int64_t w = 0;
    for (int b = 0; b < LB_COUNT; b++)
        if (ledger_waste(b))
            model_add(&w, l->ns[b]);
    return w;
}

int64_t ledger_found_ns(const struct ledger *l)
{
    int64_t w = 0;
    for (size_t i = 0; i < l->nrows; i++)
        if (l->rows[i].kind >= 0)
            model_add(&w, l->rows[i].ns);
    return w;
}

void ledgers_take(struct findings *fs, struct findings *from, size_t pi, size_t nprocs)
{
    if (!from->ledgers || pi >= from->nledgers)
        return;
    if (!fs->ledgers) {
        fs->nledgers = nprocs;
        if (!(fs->ledgers = calloc(nprocs + 1, sizeof *fs->ledgers)))
            model_out_of_memory();
    }
    fs->ledgers[pi] = from->ledgers[pi];
    memset(&from->ledgers[pi], 0, sizeof from->ledgers[pi]);
}

void ledgers_free(struct findings *fs)
{
    for (size_t i = 0; i < fs->nledgers; i++) {
        free(fs->ledgers[i].rows);
        free(fs->ledgers[i].exposed);
        free(fs->ledgers[i].idle);
        free(fs->ledgers[i].blocked);
        free(fs->ledgers[i].comm_kernel);
        free(fs->ledgers[i].steps);
        free(fs->ledgers[i].step_ns);
        free(fs->ledgers[i].step_len);
        free(fs->ledgers[i].launch);
        idmap_free(&fs->ledgers[i].comm_by_name);
    }
    free(fs->ledgers);
    fs->ledgers = NULL;
    fs->nledgers = 0;
}
