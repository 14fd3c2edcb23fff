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
 * before the stretch before.  Read a window at a time, a window carries
 * to the next its lost launches of its last 100 ms and its operations'
 * latest end: a cut parts no correlation (windows.c), so a launch whose
 * operation is not in its window has none, and the starts read are the
 * whole read's.  Each window is read once, in its first read: the calls
 * a read leaves out are those that meet the stretch as the profiler held
 * CUPTI (model.h, held), the same in every read. */
#include "viewer/read/gap_inflight.h"

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

/* In the n records of `size` bytes at base, sorted by the int64_t start
 * at offset off, the first that starts at t or later. */
static size_t first_at(const void *base, size_t n, size_t size, size_t off, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t start;
        memcpy(&start, (const char *)base + mid * size + off, sizeof start);
        if (start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

static size_t op_at(const struct proc *p, int64_t t)
{
    return first_at(p->ops, p->nops, sizeof *p->ops, offsetof(struct gop, start), t);
}

static size_t call_at(const struct proc *p, int64_t t)
{
    return first_at(p->calls, p->ncalls, sizeof *p->calls, offsetof(struct call, start), t);
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

/* Appends to *v (sorted; *n, *cap) the starts of p's calls in [a, b)
 * that enqueued work with no operation among corrs (n of them): in time
 * order, so *v stays sorted.  With first, only the earliest. */
static void lost_launches(const struct model *m, const struct proc *p, int64_t a, int64_t b, const uint32_t *corrs,
                          size_t ncorrs, int first, int64_t **v, size_t *n, size_t *cap)
{
    for (size_t i = call_at(p, a); i < p->ncalls && p->calls[i].start < b; i++) {
        const struct call *c = &p->calls[i];
        if (!enqueues_work(m, c) || (ncorrs && bsearch(&c->corr, corrs, ncorrs, sizeof *corrs, cmp_u32)))
            continue;
        if (*n == *cap) {
            *cap = *cap ? 2 * *cap : 16;
            if (!(*v = realloc(*v, *cap * sizeof **v)))
                model_out_of_memory();
        }
        (*v)[(*n)++] = c->start;
        if (first)
            return;
    }
}

/* The first of the n sorted times at v that is t or later (n if none). */
static size_t time_at(const int64_t *v, size_t n, int64_t t)
{
    return n ? first_at(v, n, sizeof *v, 0, t) : 0;
}

void gap_inflight_pull_back(const struct model *m, struct proc *p, int64_t lo, int64_t hi)
{
    /* each window once, in its first read, in time order (a window read
     * again reads the same starts: the trace pass, a windowed read's
     * second look); where CUPTI dropped records, an operation without one
     * says nothing */
    if (hi <= p->gaps_read_to || !p->ngpu_gaps || p->dropped_cupti)
        return;
    p->gaps_read_to = hi;
    uint32_t *corrs = NULL; /* made once a stretch needs them */
    size_t ncorrs = 0;
    int made = 0;
    size_t scanned = 0; /* the window's operations whose ends busy holds */
    int64_t busy = p->gaps_busy; /* the windows' before, all begun before this one */
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
        int64_t lower = g->held - MODEL_GAP_INFLIGHT_NS;
        if (k && lower < p->gpu_gaps[k - 1].to)
            lower = p->gpu_gaps[k - 1].to;
        if (!made) {
            corrs = op_corrs(p, &ncorrs);
            made = 1;
        }
        /* the earliest lost launch: an earlier window's (its operation, if
         * any, would be in that window: a cut parts no correlation), or
         * this one's */
        int64_t *own = NULL, launch = 0;
        size_t nown = 0, cap = 0, c = time_at(p->gaps_lost, p->ngaps_lost, lower);
        lost_launches(m, p, lower > lo ? lower : lo, g->held, corrs, ncorrs, 1, &own, &nown, &cap);
        if (c < p->ngaps_lost)
            launch = p->gaps_lost[c];
        else if (nown)
            launch = own[0];
        free(own);
        if (c == p->ngaps_lost && !nown)
            continue;
        int64_t from = launch > busy ? launch : busy;
        if (from < g->from) {
            if (p->gpu_until == g->from)
                p->gpu_until = from;
            g->from = from;
        }
    }
    for (; scanned < p->nops; scanned++)
        if (p->ops[scanned].end > busy)
            busy = p->ops[scanned].end;
    p->gaps_busy = busy;
    /* the lost launches of the window's last 100 ms, for a hand-over in
     * the next (and those carried here still as recent) */
    int64_t *keep = NULL;
    size_t nkeep = 0, cap = 0;
    if (hi != INT64_MAX && p->gpu_gaps[p->ngpu_gaps - 1].held >= hi) {
        int64_t since = hi > INT64_MIN + MODEL_GAP_INFLIGHT_NS ? hi - MODEL_GAP_INFLIGHT_NS : INT64_MIN;
        for (size_t c = time_at(p->gaps_lost, p->ngaps_lost, since); c < p->ngaps_lost; c++) {
            if (nkeep == cap && !(keep = realloc(keep, (cap = cap ? 2 * cap : 16) * sizeof *keep)))
                model_out_of_memory();
            keep[nkeep++] = p->gaps_lost[c];
        }
        if (!made)
            corrs = op_corrs(p, &ncorrs);
        lost_launches(m, p, since > lo ? since : lo, hi, corrs, ncorrs, 0, &keep, &nkeep, &cap);
    }
    free(p->gaps_lost);
    p->gaps_lost = keep;
    p->ngaps_lost = nkeep;
    free(corrs);
}
