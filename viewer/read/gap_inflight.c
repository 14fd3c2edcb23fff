/* gap_inflight.c: a stretch without the tracer's GPU records (gpu_gaps:
 * the program's own profiler held CUPTI) begins where the work in flight
 * at its hand-over began, not at the hand-over.
 *
 * The tracer hands CUPTI over with its kinds off and a forced flush: the
 * records of work still queued or running then are lost (incomplete, or
 * never made), and the GPU ran that work while the report saw nothing
 * after the last record's end.  A training loop's host runs ahead of its
 * GPU, so at torch.profiler's start a step's kernels are in flight: that
 * time read as GPU idle, charged to whatever the host did then.  A launch
 * (or an asynchronous copy) before the hand-over whose operation has no
 * record is such work: the stretch starts at its launch or at the end of
 * the last work recorded before the hand-over, whichever is later (the GPU
 * was busy with recorded work until then, and idle before the launch).
 * Only launches at most MODEL_GAP_INFLIGHT_NS before the hand-over count
 * (a record lost long before is not work in flight at it), and only in
 * the window the stretch begins in (an earlier window's time was read as
 * recorded already); the pull-back never reaches before the window, or
 * the stretch before. */
#include "viewer/read/gap_inflight.h"

#include <stdlib.h>
#include <string.h>

/* Whether call c enqueued GPU work that would have a record of its own:
 * a launch (not a host function's), an asynchronous copy of some bytes,
 * that succeeded and was correlated to CUPTI's record of it. */
static int enqueues_work(const struct model *m, const struct call *c)
{
    enum api_role r = m->roles[c->api];
    if (!c->corr || model_result_failed(m, c->api, c->result))
        return 0;
    if (r == ROLE_COPY_ASYNC)
        return c->bytes > 0;
    return r == ROLE_LAUNCH && !strstr(model_api_name(m, c->api), "HostFunc");
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The first operation of p (sorted by start) that starts at t or later. */
static size_t op_at(const struct proc *p, int64_t t)
{
    size_t lo = 0, hi = p->nops;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->ops[mid].start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The first call of p (sorted by start) that starts at t or later. */
static size_t call_at(const struct proc *p, int64_t t)
{
    size_t lo = 0, hi = p->ncalls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->calls[mid].start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The start of the earliest launch of p in [lower, from) whose work has
 * no record, or -1. */
static int64_t lost_launch(const struct model *m, const struct proc *p, int64_t lower, int64_t from)
{
    /* the correlations of the operations such a launch can have: begun
     * after it and, recorded, before the hand-over (a millisecond of slack
     * each side for the clocks' join) */
    size_t first = op_at(p, lower - 1000000), last = op_at(p, from + 1000000), n = 0;
    uint32_t *corrs = last > first ? malloc((last - first) * sizeof *corrs) : NULL;
    if (last > first && !corrs)
        model_out_of_memory();
    for (size_t i = first; i < last; i++)
        if (p->ops[i].corr)
            corrs[n++] = p->ops[i].corr;
    if (n > 1)
        qsort(corrs, n, sizeof *corrs, cmp_u32);
    int64_t launch = -1;
    for (size_t i = call_at(p, lower); i < p->ncalls && p->calls[i].start < from && launch < 0; i++) {
        const struct call *c = &p->calls[i];
        if (enqueues_work(m, c) && !(n && bsearch(&c->corr, corrs, n, sizeof *corrs, cmp_u32)))
            launch = c->start; /* in time order: the earliest */
    }
    free(corrs);
    return launch;
}

void gap_inflight_pull_back(const struct model *m, struct proc *p, int64_t lo, int64_t hi)
{
    size_t scanned = 0; /* the operations whose ends busy holds: those before the last stretch's start */
    int64_t busy = INT64_MIN;
    for (size_t k = p->ngpu_gaps ? model_gpu_gap_after(p, lo) : 0; k < p->ngpu_gaps; k++) {
        struct gpu_gap *g = &p->gpu_gaps[k];
        if (g->from >= hi)
            break;
        if (g->from < lo)
            continue; /* begun in an earlier window, read there */
        /* the last recorded work's end before the hand-over: busy until then */
        for (size_t e = op_at(p, g->from); scanned < e; scanned++)
            if (p->ops[scanned].end > busy)
                busy = p->ops[scanned].end;
        int64_t lower = g->from - MODEL_GAP_INFLIGHT_NS;
        if (lower < lo)
            lower = lo;
        if (k && lower < p->gpu_gaps[k - 1].to)
            lower = p->gpu_gaps[k - 1].to;
        int64_t launch = lost_launch(m, p, lower, g->from);
        if (launch < 0)
            continue;
        int64_t from = launch > busy ? launch : busy;
        if (from < lower)
            from = lower;
        if (from < g->from) {
            if (p->gpu_until == g->from)
                p->gpu_until = from;
            g->from = from;
        }
    }
}
