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
 * (a record lost long before is not work in flight at it), and never
 * before the stretch before.  A window is not cut within 100 ms before a
 * hand-over (windows.c), so they are the window's; where it had to be (a
 * profiler stretch every 100 ms or so, windows grown 4 times their size),
 * the read-back stops at the window's start: the windows before it are
 * analysed already.  Each window is read back once, in its first read:
 * the calls a read leaves out are those that meet the stretch as the
 * profiler held CUPTI (model.h, held), the same in every read. */
#include "viewer/read/gap_inflight.h"
#include "viewer/model/sort_by_time.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Whether call c enqueued GPU work that would have a record of its own:
 * a launch (not a host function's), an asynchronous copy of some bytes or
 * memset, that succeeded and was correlated to CUPTI's record of it.  Not
 * an NCCL operation: its kernels' launches are NCCL's, under other
 * correlations.  (A launch into a stream being captured runs nothing: one
 * within 100 ms of a hand-over reads as lost work.) */
static int enqueues_work(const struct model *m, const struct call *c)
{
    enum api_role r = m->roles[c->api];
    if (!c->corr || model_result_failed(m, c->api, c->result))
        return 0;
    if (r == ROLE_COPY_ASYNC)
        return c->bytes > 0;
    const char *n = model_api_name(m, c->api);
    if (r == ROLE_OTHER)
        return n && strstr(n, "Memset") && strstr(n, "Async");
    return r == ROLE_LAUNCH && n && !strstr(n, "HostFunc");
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

static size_t op_at(const struct proc *p, int64_t t)
{
    return sorted_first_at(p->ops, p->nops, sizeof *p->ops, offsetof(struct gop, start), t);
}

static size_t call_at(const struct proc *p, int64_t t)
{
    return sorted_first_at(p->calls, p->ncalls, sizeof *p->calls, offsetof(struct call, start), t);
}

/* The correlations of p's operations of the window, sorted (*n of
 * them; NULL if none). */
static uint32_t *op_corrs(const struct proc *p, size_t *n)
{
    uint32_t *v = p->nops ? malloc(p->nops * sizeof *v) : NULL;
    if (p->nops && !v)
        model_out_of_memory();
    *n = 0;
    for (size_t i = 0; i < p->nops; i++)
        if (p->ops[i].corr)
            v[(*n)++] = p->ops[i].corr;
    if (*n > 1)
        qsort(v, *n, sizeof *v, cmp_u32);
    return v;
}

/* Whether p has a call in [lower, held) that enqueued work with no
 * operation among corrs (n of them); *at its start, the earliest. */
static int lost_launch(const struct model *m, const struct proc *p, int64_t lower, int64_t held, const uint32_t *corrs,
                       size_t n, int64_t *at)
{
    for (size_t i = call_at(p, lower); i < p->ncalls && p->calls[i].start < held; i++) {
        const struct call *c = &p->calls[i];
        if (enqueues_work(m, c) && !(n && bsearch(&c->corr, corrs, n, sizeof *corrs, cmp_u32))) {
            *at = c->start; /* in time order: the earliest */
            return 1;
        }
    }
    return 0;
}

void gap_inflight_pull_back(const struct model *m, struct proc *p, int64_t lo, int64_t hi)
{
    /* each window once, in its first read (a window read again reads the
     * same starts: the trace pass, a windowed read's second look); where
     * CUPTI dropped records, an operation without one says nothing */
    if (hi <= p->gaps_read_to || !p->ngpu_gaps || p->dropped_cupti)
        return;
    p->gaps_read_to = hi;
    uint32_t *corrs = NULL; /* made once a stretch needs them */
    size_t ncorrs = 0;
    int made = 0;
    size_t scanned = 0; /* the operations whose ends busy holds: those before the last stretch's hand-over */
    int64_t busy = INT64_MIN;
    for (size_t k = model_gpu_gap_after(p, lo); k < p->ngpu_gaps; k++) {
        struct gpu_gap *g = &p->gpu_gaps[k];
        if (g->held >= hi)
            break;
        if (g->held < lo)
            continue; /* an earlier window's */
        /* the last recorded work's end before the hand-over: busy until then */
        for (size_t e = op_at(p, g->held); scanned < e; scanned++)
            if (p->ops[scanned].end > busy)
                busy = p->ops[scanned].end;
        /* never before the window: the windows before it are analysed */
        int64_t lower = g->held - MODEL_GAP_INFLIGHT_NS, launch;
        if (lower < lo)
            lower = lo;
        if (k && lower < p->gpu_gaps[k - 1].to)
            lower = p->gpu_gaps[k - 1].to;
        if (!made) {
            corrs = op_corrs(p, &ncorrs);
            made = 1;
        }
        if (!lost_launch(m, p, lower, g->held, corrs, ncorrs, &launch))
            continue;
        int64_t from = launch > busy ? launch : busy;
        if (from < 1)
            from = 1; /* (a hostile time: gpu_until 0 would say no stretch is open) */
        if (from < g->from) {
            if (p->gpu_until == g->from)
                p->gpu_until = from;
            g->from = from;
        }
    }
    free(corrs);
}
