/* summary.c: per-rank figures and the collectives table (see summary.h). */
#define _GNU_SOURCE
#include "viewer/analyse/summary.h"
#include "viewer/model/handles.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nccl-tests' bus bandwidth factors (doc/PERFORMANCE.md there). */
static double bus_factor(const char *op, int n)
{
    if (n <= 1)
        return 1.0;
    if (!strcmp(op, "ncclAllReduce"))
        return 2.0 * (n - 1) / n;
    if (!strcmp(op, "ncclAllGather") || !strcmp(op, "ncclReduceScatter") || !strcmp(op, "ncclAlltoAll"))
        return (double)(n - 1) / n;
    return 1.0;
}

/* Bytes nccl-tests counts for the operation: the larger buffer. */
static double test_bytes(const char *op, int64_t bytes, int n)
{
    if (!strcmp(op, "ncclAllGather") || !strcmp(op, "ncclReduceScatter") || !strcmp(op, "ncclAlltoAll") ||
        !strcmp(op, "ncclGather") || !strcmp(op, "ncclScatter"))
        return (double)bytes * (n > 0 ? n : 1);
    return (double)bytes;
}

static void algorithm_of(const char *kernel, char *out, size_t len)
{
    static const char *const algos[] = { "RING", "TREE", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "PAT" };
    out[0] = 0;
    for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
        const char *p = strstr(kernel, algos[i]);
        if (p && p[-1] == '_') {
            size_t n = strlen(algos[i]);
            snprintf(out, len, "%.*s", (int)n, algos[i]);
            return;
        }
    }
}

static int cmp_phase(const void *a, const void *b)
{
    const struct phase_summary *x = a, *y = b;
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->wall_ns > y->wall_ns ? -1 : x->wall_ns < y->wall_ns;
}

/* The phase entry of top-level range r of process pi, made if new (made
 * when the process begins, in the order of its ranges). */
static struct phase_summary *phase_of(struct summary *s, const struct proc *p, int pi, const struct nvtx *r)
{
    const char *name = model_label(p, r->name);
    size_t k;
    for (k = s->phase_first; k < s->nphases && strcmp(s->phases[k].name, name); k++)
        ;
    if (k == s->nphases) {
        if (s->nphases == s->phases_cap) {
            s->phases_cap = s->phases_cap ? s->phases_cap * 2 : 16;
            if (!(s->phases = realloc(s->phases, s->phases_cap * sizeof *s->phases)))
                model_out_of_memory();
        }
        s->phases[k] = (struct phase_summary){ p->rank, pi, name, 0, 0, 0, 0, 0 };
        s->nphases++;
    }
    return &s->phases[k];
}

/* Whether range r is a phase: a top-level user range; with --range, a
 * range of that name not inside another of that name. */
static int is_phase(const struct summary *s, const struct proc *p, const struct nvtx *r)
{
    if (!s->range_filter)
        return r->parent < 0;
    return !strcmp(model_label(p, r->name), s->range_filter) && !model_range_within(p, r->parent, s->range_filter);
}

/* Top-level user ranges of process pi by name: how many, how long. */
static void phases_begin(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    s->phase_first = s->nphases;
    for (size_t i = 0; i < p->nuser_ranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        if (!is_phase(s, p, r))
            continue;
        struct phase_summary *ph = phase_of(s, p, (int)pi, r);
        ph->count++;
        model_add(&ph->wall_ns, r->end - r->start);
    }
}

/* ... and what the GPU did inside them, in the window loaded (a range
 * spanning windows gets each one's share: nothing runs across a cut). */
static void phases_add(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->nuser_ranges)
        return;
    struct timeline *t = model_timeline(m, pi);
    if (!t->busy.n)
        return; /* nothing to add: no GPU time in this window */
    struct ivals exposed = ivals_minus(&t->comm, &t->compute);
    for (size_t i = 0; i < p->nuser_ranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        if (!is_phase(s, p, r))
            continue;
        struct phase_summary *ph = phase_of(s, p, (int)pi, r);
        model_add(&ph->gpu_busy_ns, ivals_cover(&t->busy, r->start, r->end));
        model_add(&ph->comm_ns, ivals_cover(&t->comm, r->start, r->end));
        model_add(&ph->exposed_comm_ns, ivals_cover(&exposed, r->start, r->end));
    }
    free(exposed.v);
}

void summary_begin(const struct model *m, struct summary *s)
{
    memset(s, 0, sizeof *s);
    s->ranks = calloc(m->nprocs + 1, sizeof *s->ranks);
}

/* The collectives table: the first n of process pi's collectives loaded,
 * done with (in process order, as the table's rows first appear). */
void summary_add_colls(const struct model *m, struct summary *s, size_t pi, size_t n)
{
    const struct proc *p = &m->procs[pi];
    for (size_t i = 0; i < n; i++) {
        const struct coll *c = &p->colls[i];
        if (s->range_filter && !model_range_within(p, model_range_at(p, -1, c->start), s->range_filter))
            continue; /* --range: called inside such a range */
        const char *op = model_api_name(m, c->api);
        size_t k;
        for (k = 0; k < s->ncolls; k++)
            if (!strcmp(s->colls[k].op, op) && s->colls[k].bytes == c->bytes && s->colls[k].nranks == c->nranks)
                break;
        if (k == s->ncolls) {
            if (s->ncolls == s->colls_cap) {
                s->colls_cap = s->colls_cap ? s->colls_cap * 2 : 16;
                s->colls = realloc(s->colls, s->colls_cap * sizeof *s->colls);
            }
            memset(&s->colls[k], 0, sizeof s->colls[k]);
            s->colls[k].op = op;
            s->colls[k].bytes = c->bytes;
            s->colls[k].nranks = c->nranks;
            s->ncolls++;
            if (c->kname)
                algorithm_of(model_kernel_name(p, c->kname), s->colls[k].algorithm,
                             sizeof s->colls[k].algorithm);
        }
        s->colls[k].count++;
        if (c->gend > c->gstart)
            model_add(&s->colls[k].total_ns, c->gend - c->gstart);
    }
}

void summary_begin_proc(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    struct rank_summary *r = &s->ranks[s->nranks++];
    r->rank = p->rank;
    r->pid = p->pid;
    r->proc = (int)pi;
    r->wall_ns = p->end - p->start;
    r->first_ns = INT64_MAX;
    r->collectives = (int64_t)p->colls_parked;
    phases_begin(m, s, pi);
    kernels_begin_proc(m, s, pi);
}

/* The window's figures per GPU (devices_summary). */
static void devices_add(const struct model *m, struct summary *s, size_t pi);

void summary_add_window(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    struct proc_pass *ps = p->pass;
    struct rank_summary *r = &s->ranks[s->nranks - 1];
    struct timeline *t = model_timeline(m, pi);
    model_add(&r->gpu_busy_ns, ivals_total(&t->busy));
    if (t->busy.n && t->busy.v[0].a < r->first_ns)
        r->first_ns = t->busy.v[0].a;
    if (p->ncalls && p->calls[0].start < r->first_ns)
        r->first_ns = p->calls[0].start;
    if (t->busy.n) {
        if (!ps->have_span)
            ps->busy_first = t->busy.v[0].a;
        ps->have_span = 1;
        r->gpu_span_ns = t->busy.v[t->busy.n - 1].b - ps->busy_first;
    }
    int64_t comm = ivals_total(&t->comm);
    model_add(&r->compute_ns, ivals_total(&t->compute));
    model_add(&r->comm_ns, comm);
    model_add(&r->exposed_comm_ns, comm - ivals_intersection(&t->comm, &t->compute));
    r->api_calls += (int64_t)p->ncalls;
    r->gpu_ops += (int64_t)p->nops;
    for (size_t i = 0; i < p->ncalls; i++) {
        if (model_is_explicit_sync(m, &p->calls[i]) || model_is_implicit_sync(m, &p->calls[i]))
            model_add(&r->sync_blocked_ns, p->calls[i].end - p->calls[i].start);
        r->cupti_only_calls += p->calls[i].call_id == CUPTI_CALL_ID;
    }
    phases_add(m, s, pi);
    devices_add(m, s, pi);
    kernels_add_window(m, s, pi);
    failed_add_proc(m, s, pi);
}

static struct device_summary *device_row(struct summary *s, const struct proc *p, size_t pi, int device)
{
    for (size_t i = s->devices_first; i < s->ndevices; i++)
        if (s->devices[i].device == device)
            return &s->devices[i];
    if (s->ndevices == s->devices_cap) {
        s->devices_cap = s->devices_cap ? s->devices_cap * 2 : 8;
        if (!(s->devices = realloc(s->devices, s->devices_cap * sizeof *s->devices)))
            model_out_of_memory();
    }
    s->devices[s->ndevices] = (struct device_summary){ p->rank, (int)pi, device, 0, 0, 0, 0 };
    return &s->devices[s->ndevices++];
}

/* One GPU's union of operations (which: 0 all, 1 compute, 2 NCCL). */
static struct ivals device_union(const struct proc *p, int device, int which)
{
    struct ivals_build u = { 0 };
    do
        for (size_t i = 0; i < p->nops; i++) {
            const struct gop *g = &p->ops[i];
            if (g->device != device || (which == 1 && !(g->kind == GOP_KERNEL && !g->nccl)) || (which == 2 && !g->nccl))
                continue;
            ivals_build_add(&u, g->start, g->end);
        }
    while (ivals_build_pass(&u));
    return u.u;
}

static void devices_add(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    int devs[64];
    size_t nd = 0;
    for (size_t i = 0; i < p->nops; i++) {
        size_t k;
        for (k = 0; k < nd && devs[k] != p->ops[i].device; k++)
            ;
        if (k == nd && nd < 64)
            devs[nd++] = p->ops[i].device;
    }
    if (nd == 1) { /* the window's one GPU: the timeline's unions are its own (no pass more over the operations) */
        const struct timeline *t = model_timeline(m, pi);
        struct device_summary *d = device_row(s, p, pi, devs[0]);
        int64_t c = ivals_total(&t->comm);
        model_add(&d->gpu_busy_ns, ivals_total(&t->busy));
        model_add(&d->compute_ns, ivals_total(&t->compute));
        model_add(&d->comm_ns, c);
        model_add(&d->exposed_comm_ns, c - ivals_intersection(&t->comm, &t->compute));
        return;
    }
    for (size_t k = 0; k < nd; k++) {
        struct ivals busy = device_union(p, devs[k], 0), comp = device_union(p, devs[k], 1),
                     comm = device_union(p, devs[k], 2);
        struct device_summary *d = device_row(s, p, pi, devs[k]);
        int64_t c = ivals_total(&comm);
        model_add(&d->gpu_busy_ns, ivals_total(&busy));
        model_add(&d->compute_ns, ivals_total(&comp));
        model_add(&d->comm_ns, c);
        model_add(&d->exposed_comm_ns, c - ivals_intersection(&comm, &comp));
        free(busy.v);
        free(comp.v);
        free(comm.v);
    }
}

void summary_end_proc(const struct model *m, struct summary *s, size_t pi)
{
    /* a monitor's window holds the process's last seconds, from the
     * window's start (or a record its file kept from before it: CUPTI
     * hands over GPU records late), not its life: its wall time, and the
     * busy% of it, are of that */
    const struct monitor_window *w = model_proc_window(m, pi);
    struct rank_summary *r = &s->ranks[s->nranks - 1];
    if (w) {
        const struct proc *p = &m->procs[pi];
        int64_t from = w->from_ns < r->first_ns ? w->from_ns : r->first_ns;
        r->wall_ns = p->end - (from > p->start ? from : p->start);
    }
    if (s->ndevices - s->devices_first < 2)
        s->ndevices = s->devices_first; /* one GPU: its row is the rank's */
    s->devices_first = s->ndevices;
    kernels_end_proc(m, s, pi);
}

/* Bandwidths of the collectives table; the other tables in order. */
void summary_end(struct summary *s)
{
    for (size_t k = 0; k < s->ncolls; k++) {
        struct coll_summary *c = &s->colls[k];
        if (!c->total_ns)
            continue;
        double mean_s = (double)c->total_ns / (double)c->count / 1e9;
        c->algbw_gbs = test_bytes(c->op, c->bytes, c->nranks) / mean_s / 1e9;
        c->busbw_gbs = c->algbw_gbs * bus_factor(c->op, c->nranks);
    }
    if (s->nphases)
        qsort(s->phases, s->nphases, sizeof *s->phases, cmp_phase);
    kernels_end(s);
    failed_end(s);
}

void summary_free(struct summary *s)
{
    free(s->ranks);
    free(s->devices);
    free(s->colls);
    free(s->phases);
    kernels_free(s);
    memset(s, 0, sizeof *s);
}
