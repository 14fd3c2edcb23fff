/* ledger.c: each rank's time partitioned into what the GPU did and why it
 * idled (ledger.h), built window by window, each GPU's apart where a
 * process drives several; split by the findings in ledger_resolve.c. */
#include "viewer/analyse/ledger.h"
#include "viewer/analyse/ledger_int.h"
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
    "idle.host_busy", "idle.peer", "idle.launch", "idle.other", "before_gpu", "after_gpu", "not_recorded",
};

int ledger_waste(int bucket)
{
    return bucket >= LB_COMM_WAIT && bucket <= LB_IDLE_OTHER && bucket != LB_COPY;
}

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

void lg_push_ival(struct interval **v, size_t *n, size_t *cap, int64_t a, int64_t b)
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
void lg_add_span(struct ledger *l, int bucket, int64_t a, int64_t b)
{
    for (size_t k = model_step_from(l->steps, l->nsteps, a); k < l->nsteps && l->steps[k].start < b; k++) {
        /* disjoint, in order */
        int64_t s = l->steps[k].start > a ? l->steps[k].start : a;
        int64_t e = l->steps[k].end < b ? l->steps[k].end : b;
        if (e > s)
            model_add(&l->step_ns[k][bucket], e - s);
    }
}

/* One GPU's work in a window (or the process's GPUs' together, when it
 * drives one): all of it, its compute kernels, its NCCL kernels; and the
 * device its operations run on (-1: any). */
struct gpu_view { const struct ivals *busy, *compute, *comm; int device; };

/* What the GPU did in [a, b) of the window, added to ns (a ledger's or an
 * iteration's): compute alone, compute beside communication, copies alone
 * (busy less compute less exposed communication). */
static void add_states(int64_t *ns, const struct gpu_view *v, const struct ivals *compute_only,
                       const struct ivals *exposed, int64_t a, int64_t b)
{
    int64_t compute = ivals_cover(v->compute, a, b), alone = ivals_cover(compute_only, a, b);
    model_add(&ns[LB_COMPUTE], alone);
    model_add(&ns[LB_COMM_HIDDEN], compute - alone);
    model_add(&ns[LB_COPY], ivals_cover(v->busy, a, b) - compute - ivals_cover(exposed, a, b));
}

/* The GPU's states within [lo, hi) of the window, added to the iterations. */
static void steps_window(struct ledger *l, const struct gpu_view *v, const struct ivals *compute_only,
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
            add_states(l->step_ns[k], v, compute_only, exposed, a, b);
    }
}

/* The parts of the union u within [lo, hi). */
static void push_within(struct interval **v, size_t *n, size_t *cap, const struct ivals *u, int64_t lo, int64_t hi)
{
    for (size_t i = 0; i < u->n; i++)
        lg_push_ival(v, n, cap, u->v[i].a > lo ? u->v[i].a : lo, u->v[i].b < hi ? u->v[i].b : hi);
}

static void keep_blocked(void *arg, int64_t a, int64_t b)
{
    struct ledger *l = arg;
    lg_push_ival(&l->blocked, &l->nblocked, &l->blocked_cap, a, b);
}

void lg_tally_range(struct launch_tally **v, size_t *n, const struct proc *p, int64_t a, int64_t b)
{
    int r = p->nuser_ranges ? model_range_place(p, model_range_at(p, -1, a + (b - a) / 2)) : -1;
    int label = r >= 0 ? p->ranges[r].name : -1;
    size_t k;
    for (k = 0; k < *n && (*v)[k].label != label; k++)
        ;
    if (k == *n) {
        struct launch_tally *t = realloc(*v, (*n + 1) * sizeof *t);
        if (!t)
            model_out_of_memory();
        *v = t;
        t[(*n)++] = (struct launch_tally){ label, 0, 0 };
    }
    model_add(&(*v)[k].ns, b - a);
    (*v)[k].n++;
}

/* A long gap [a, b) of a GPU kept: with the host's blocking calls in it;
 * of one of several GPUs (others: every GPU's work) that wait for each
 * other from waits_from on, before b (the process's first wait across
 * its GPUs: proc_pass.h, pipeline_by), its parts while another worked
 * apart (peer). */
struct gap_split { struct ledger *l; const struct ivals *blocked; };

static void idle_part(void *arg, int64_t a, int64_t b)
{
    struct gap_split *g = arg;
    lg_push_ival(&g->l->idle, &g->l->nidle, &g->l->idle_cap, a, b);
    ivals_split(g->blocked, a, b, 1, keep_blocked, g->l);
}

static void peer_part(void *arg, int64_t a, int64_t b)
{
    struct gap_split *g = arg;
    lg_push_ival(&g->l->peer, &g->l->npeer, &g->l->peer_cap, a, b);
    model_add(&g->l->peer_blocked_ns, ivals_cover(g->blocked, a, b));
}

static void keep_gap(struct ledger *l, const struct ivals *others, int64_t waits_from, const struct ivals *blocked,
                     int64_t a, int64_t b)
{
    struct gap_split g = { l, blocked };
    if (!others || waits_from >= b) {
        idle_part(&g, a, b);
        return;
    }
    ivals_split(others, a, b, 0, idle_part, &g);
    ivals_split(others, a, b, 1, peer_part, &g);
}

/* A stretch the GPU did nothing of, between two of its work (or after the
 * last, for a process that did not end), cut at the process's stretches
 * without GPU records (model_gpu_gap_split): those are not_recorded
 * (unrecorded_piece); of the rest, short ones summed (top tallies their
 * ranges), long ones kept, with the host's blocking calls in them
 * (idle_piece; tail_piece after the last work). */
struct idle_between { struct ledger *top, *l; const struct proc *p; const struct report_opts *o;
                      const struct ivals *others, *blocked; int64_t waits_from; };

static void unrecorded_piece(void *arg, int64_t a, int64_t b)
{
    struct idle_between *x = arg;
    model_add(&x->l->ns[LB_NOT_RECORDED], b - a);
    lg_add_span(x->l, LB_NOT_RECORDED, a, b);
}

static void idle_piece(void *arg, int64_t a, int64_t b)
{
    struct idle_between *x = arg;
    if (b - a < x->o->idle_gap_ns) {
        model_add(&x->l->ns[LB_IDLE_LAUNCH], b - a);
        lg_add_span(x->l, LB_IDLE_LAUNCH, a, b);
        lg_tally_range(&x->top->launch, &x->top->nlaunch, x->p, a, b); /* gpu.launch_bound's place */
    } else {
        keep_gap(x->l, x->others, x->top->waits ? x->top->waits_from : INT64_MAX, x->blocked, a, b);
    }
}

/* One window of a GPU's work into its ledger l (top: the process's, which
 * tallies the short gaps and the communication kernels): what the GPU did
 * in it, summed, and its exposed communication and long gaps kept.
 * Clipped to the process's life (its ledger adds up to it), and to after
 * what an earlier window counted (windows are cut where nothing runs, so
 * nothing is cut off but what a damaged file overlaps). */
static void window_into(struct ledger *top, struct ledger *l, const struct proc *p, const struct report_opts *o,
                        const struct gpu_view *v, const struct ivals *blocked, const struct ivals *others)
{
    steps_begin(l, p);
    int64_t lo = l->on && l->last > p->start ? l->last : p->start, hi = p->end;
    if (!v->busy->n || hi <= lo)
        return;
    struct ivals compute_only = ivals_minus(v->compute, v->comm);
    struct ivals exposed = ivals_minus(v->comm, v->compute);
    add_states(l->ns, v, &compute_only, &exposed, lo, hi);
    push_within(&l->exposed, &l->nexposed, &l->exposed_cap, &exposed, lo, hi);
    if (l->nsteps)
        steps_window(l, v, &compute_only, &exposed, lo, hi);
    for (size_t i = 0; i < p->nops && exposed.n; i++) { /* by kernel name: what ran exposed */
        const struct gop *g = &p->ops[i];
        if (v->device >= 0 && g->device != v->device)
            continue;
        int64_t e = g->nccl ? ivals_cover(&exposed, g->start > lo ? g->start : lo, g->end < hi ? g->end : hi) : 0;
        if (e > 0) {
            int64_t n = 0;
            idmap_get(&top->comm_by_name, (uint64_t)(uint32_t)g->name + 1, &n);
            idmap_put(&top->comm_by_name, (uint64_t)(uint32_t)g->name + 1, n + e, 0);
        }
    }
    free(compute_only.v);
    free(exposed.v);
    /* the gaps between busy stretches: short ones summed, long ones kept,
     * with the host's blocking calls in them */
    const struct ivals *busy = v->busy;
    for (size_t k = 0; k < busy->n; k++) {
        int64_t a = busy->v[k].a > lo ? busy->v[k].a : lo, b = busy->v[k].b < hi ? busy->v[k].b : hi;
        if (b <= a)
            continue;
        if (!l->on) {
            l->on = 1;
            l->first = a;
        } else {
            struct idle_between x = { top, l, p, o, others, blocked, 0 };
            model_gpu_gap_split(p, l->last, a, idle_piece, unrecorded_piece, &x);
        }
        l->last = b;
    }
}

/* A GPU's ledger given the process's iterations (the same, so that their
 * buckets add up), its own counts of them zero. */
static void steps_copy(struct ledger *g, const struct ledger *l)
{
    g->steps_known = 1;
    g->nsteps = l->nsteps;
    if (!l->nsteps)
        return;
    g->steps = malloc(l->nsteps * sizeof *g->steps);
    g->step_len = malloc(l->nsteps * sizeof *g->step_len);
    g->step_ns = calloc(l->nsteps, sizeof *g->step_ns);
    if (!g->steps || !g->step_len || !g->step_ns)
        model_out_of_memory();
    memcpy(g->steps, l->steps, l->nsteps * sizeof *g->steps);
    memcpy(g->step_len, l->step_len, l->nsteps * sizeof *g->step_len);
}

/* The ledger of GPU `device` of the process's, found or added.  The first
 * time a second GPU is seen, what the process's ledger counted so far is
 * moved to its one GPU's: until then they were the same. */
static struct ledger *gpu_ledger(struct ledger *l, int device)
{
    for (size_t k = 0; k < l->ngpus; k++)
        if (l->gpus[k].device == device)
            return &l->gpus[k];
    struct ledger *v = realloc(l->gpus, (l->ngpus + 2) * sizeof *v);
    if (!v)
        model_out_of_memory();
    l->gpus = v;
    if (!l->ngpus && l->on) {
        struct ledger *g = &v[l->ngpus++];
        memset(g, 0, sizeof *g);
        g->device = l->device;
        g->on = 1;
        g->first = l->first;
        g->last = l->last;
        memcpy(g->ns, l->ns, sizeof g->ns);
        memset(l->ns, 0, sizeof l->ns);
        steps_copy(g, l);
        if (l->nsteps) { /* (no steps: no arrays) */
            memcpy(g->step_ns, l->step_ns, l->nsteps * sizeof *g->step_ns);
            memset(l->step_ns, 0, l->nsteps * sizeof *l->step_ns);
        }
        /* its intervals so far */
        g->exposed = l->exposed, g->nexposed = l->nexposed, g->exposed_cap = l->exposed_cap;
        g->idle = l->idle, g->nidle = l->nidle, g->idle_cap = l->idle_cap;
        g->blocked = l->blocked, g->nblocked = l->nblocked, g->blocked_cap = l->blocked_cap;
        l->exposed = l->idle = l->blocked = NULL;
        l->nexposed = l->nidle = l->nblocked = 0;
        l->exposed_cap = l->idle_cap = l->blocked_cap = 0;
        if (g->device == device)
            return g;
    }
    struct ledger *g = &l->gpus[l->ngpus++];
    memset(g, 0, sizeof *g);
    g->device = device;
    steps_copy(g, l);
    return g;
}

/* The process's ledger of a window: its one GPU's, or each GPU's. */
void ledger_window(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->cupti_active)
        return;
    struct timeline *t = model_timeline(m, pi);
    struct ledger *l = ledger_at(fs, m, pi);
    const struct ivals *blocked = &((const struct proc_pass *)p->pass)->blocked; /* analysis_gpu.c's, this window's */
    int devs[64];
    size_t nd = timeline_devices(p, devs, 64);
    if (!l->ngpus && (nd == 0 || (nd == 1 && (!l->on || l->device == devs[0])))) {
        if (nd && !l->on)
            l->device = devs[0];
        struct gpu_view v = { &t->busy, &t->compute, &t->comm, -1 };
        window_into(l, l, p, o, &v, blocked, NULL);
        return;
    }
    if (!l->ngpus)
        steps_begin(l, p);
    /* one GPU idle while another works is a bubble where one waits for
     * another's events, from the first such wait on (else as any idle: the
     * host's pace, a sync, a stall) */
    const struct proc_pass *ps = p->pass;
    if (ps->waits_across && !l->waits) {
        l->waits = 1;
        l->waits_from = ps->waits_from;
    }
    /* every GPU's work: what earlier windows left, then this window's,
     * after it (windows are cut where nothing runs), appended */
    if (l->ncarry + t->busy.n + 1 > l->carry_cap) {
        l->carry_cap = (l->ncarry + t->busy.n + 1) * 2;
        if (!(l->carry = realloc(l->carry, l->carry_cap * sizeof *l->carry)))
            model_out_of_memory();
    }
    for (size_t k = 0; k < t->busy.n; k++) {
        struct interval *last = l->ncarry ? &l->carry[l->ncarry - 1] : NULL;
        if (last && t->busy.v[k].a <= last->b) /* (a damaged file's overlap: joined) */
            last->b = t->busy.v[k].b > last->b ? t->busy.v[k].b : last->b;
        else
            l->carry[l->ncarry++] = t->busy.v[k];
    }
    const struct ivals u = { l->carry, l->ncarry };
    for (size_t k = 0; k < nd; k++) {
        struct ledger *g = gpu_ledger(l, devs[k]);
        struct ivals busy = timeline_ops_union(p, devs[k], 0), compute = timeline_ops_union(p, devs[k], 1),
                     comm = timeline_ops_union(p, devs[k], 2);
        struct gpu_view v = { &busy, &compute, &comm, devs[k] };
        window_into(l, g, p, o, &v, blocked, &u);
        free(busy.v);
        free(compute.v);
        free(comm.v);
    }
    /* the process's first and last GPU work; what a later gap of a GPU
     * may lie beside kept */
    int64_t keep = INT64_MAX;
    for (size_t k = 0; k < l->ngpus; k++) {
        const struct ledger *g = &l->gpus[k];
        if (!g->on)
            continue;
        if (!l->on || g->first < l->first)
            l->first = g->first;
        if (!l->on || g->last > l->last)
            l->last = g->last;
        l->on = 1;
        keep = g->last < keep ? g->last : keep;
    }
    size_t from = 0;
    while (from < l->ncarry && l->carry[from].b <= keep)
        from++;
    if (from) {
        l->ncarry -= from;
        memmove(l->carry, l->carry + from, l->ncarry * sizeof *l->carry);
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
    l->aside_at = fs->aside->len; /* the four in turn; an empty one writes nothing */
    if (l->nexposed)
        tmpstore_append(fs->aside, l->exposed, l->nexposed * sizeof *l->exposed);
    if (l->nidle)
        tmpstore_append(fs->aside, l->idle, l->nidle * sizeof *l->idle);
    if (l->nblocked)
        tmpstore_append(fs->aside, l->blocked, l->nblocked * sizeof *l->blocked);
    if (l->npeer)
        tmpstore_append(fs->aside, l->peer, l->npeer * sizeof *l->peer);
    if (fs->aside_lock)
        pthread_mutex_unlock(fs->aside_lock);
    free(l->exposed);
    free(l->idle);
    free(l->blocked);
    free(l->peer);
    l->exposed = l->idle = l->blocked = l->peer = NULL;
    l->exposed_cap = l->idle_cap = l->blocked_cap = l->peer_cap = 0;
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
void lg_take_back(const struct findings *fs, struct ledger *l)
{
    if (!l->aside)
        return;
    uint64_t at = l->aside_at;
    l->exposed = read_back(fs->aside, &at, l->nexposed);
    l->idle = read_back(fs->aside, &at, l->nidle);
    l->blocked = read_back(fs->aside, &at, l->nblocked);
    l->peer = read_back(fs->aside, &at, l->npeer);
    l->aside = 0;
}

static void tail_piece(void *arg, int64_t a, int64_t b)
{
    struct idle_between *x = arg;
    keep_gap(x->l, x->others, x->waits_from, x->blocked, a, b);
}

/* A GPU's ledger (or the process's one GPU's) at the process's end: its
 * life, span and the time before and after its work. */
static void gpu_end(const struct model *m, size_t pi, struct ledger *l, const struct ivals *others,
                    int64_t waits_from)
{
    const struct proc *p = &m->procs[pi];
    l->life_ns = p->end - p->start;
    /* a process that did not end (killed, stuck, or read while it runs) had
     * its GPU idle from its last work until it was last known alive: a
     * rank waiting in a hung collective, whose kernel never ended, is
     * waste charged to the hang, not the quiet after a run's end.  Not a
     * window whose last GPU records CUPTI still held (model_proc_gpu_cut):
     * what its GPU did then is not known */
    if (model_proc_unended(p) && !model_proc_gpu_cut(m, pi) && p->end > l->last) {
        const struct ivals none = { NULL, 0 };
        struct idle_between x = { NULL, l, p, NULL, others, &none, waits_from };
        model_gpu_gap_split(p, l->last, p->end, tail_piece, unrecorded_piece, &x);
        l->last = p->end;
    }
    /* before and after its work, whatever CUPTI's state: not_recorded is
     * within the span, as every bucket but these two */
    l->span_ns = l->last - l->first;
    l->ns[LB_BEFORE] = l->first - p->start;
    l->ns[LB_AFTER] = p->end - l->last;
    lg_add_span(l, LB_BEFORE, p->start, l->first);
    lg_add_span(l, LB_AFTER, l->last, p->end);
}

void ledger_proc_end(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!fs->ledgers || pi >= fs->nledgers || !fs->ledgers[pi].on)
        return;
    struct ledger *l = &fs->ledgers[pi];
    if (!l->ngpus) {
        gpu_end(m, pi, l, NULL, INT64_MAX);
        put_aside(fs, l);
    } else { /* each GPU's; the process's life and span their sums (its buckets once resolved) */
        const struct ivals carry = { l->carry, l->ncarry }, *others = &carry;
        l->life_ns = l->span_ns = 0;
        for (size_t k = 0; k < l->ngpus; k++) {
            struct ledger *g = &l->gpus[k];
            if (!g->on)
                continue;
            gpu_end(m, pi, g, others, l->waits ? l->waits_from : INT64_MAX);
            model_add(&l->life_ns, g->life_ns);
            model_add(&l->span_ns, g->span_ns);
            if (g->last > l->last)
                l->last = g->last;
            put_aside(fs, g);
        }
        free(l->carry);
        l->carry = NULL;
        l->ncarry = l->carry_cap = 0;
    }
    for (size_t i = 0; i < l->comm_by_name.cap; i++) /* its names go with its records */
        if (l->comm_by_name.key[i] && l->comm_by_name.val[i] > l->comm_kernel_ns) {
            l->comm_kernel_ns = l->comm_by_name.val[i];
            free(l->comm_kernel);
            if (!(l->comm_kernel = strdup(model_kernel_name(p, (int)(l->comm_by_name.key[i] - 1)))))
                model_out_of_memory();
        }
    idmap_free(&l->comm_by_name);
}

/* A ledger's intervals, resolved, let go. */
void lg_intervals_free(struct ledger *l)
{
    free(l->blocked);
    free(l->exposed);
    free(l->idle);
    free(l->peer);
    l->exposed = l->idle = l->blocked = l->peer = NULL;
    l->nexposed = l->nidle = l->nblocked = l->npeer = 0;
}

size_t ledger_ngpus(const struct ledger *l)
{
    size_t n = 0;
    for (size_t k = 0; k < l->ngpus; k++)
        n += l->gpus[k].on;
    return n ? n : 1;
}

const struct ledger *ledger_gpu(const struct ledger *l, size_t k)
{
    for (size_t i = 0; i < l->ngpus; i++)
        if (l->gpus[i].on && !k--)
            return &l->gpus[i];
    return NULL;
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

/* A ledger's memory (not the ledger itself). */
static void ledger_free(struct ledger *l)
{
    free(l->rows);
    lg_intervals_free(l);
    free(l->comm_kernel);
    free(l->steps);
    free(l->step_ns);
    free(l->step_len);
    free(l->launch);
    free(l->carry);
    free(l->pieces);
    idmap_free(&l->comm_by_name);
    for (size_t k = 0; k < l->ngpus; k++)
        ledger_free(&l->gpus[k]);
    free(l->gpus);
}

void ledgers_free(struct findings *fs)
{
    for (size_t i = 0; i < fs->nledgers; i++)
        ledger_free(&fs->ledgers[i]);
    free(fs->ledgers);
    fs->ledgers = NULL;
    fs->nledgers = 0;
}
