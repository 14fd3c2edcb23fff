/* cupti_order.c: the calls only CUPTI saw put in their place among the
 * recorded calls of their thread (cupti_order.h).
 *
 * Such a call's times are its CUPTI record's, moved by the offset the join
 * found between the two clocks' conversions (join_clock.c).  Where that
 * offset is a few microseconds off (a loaded host), a record made right
 * before a recorded call (a cudaEventRecord before the cudaEventSynchronize
 * a static runtime's callback recorded) can land after it, and the
 * analyses, which walk a thread's calls in time order, then see the sync
 * before the event it waits for: the sync goes unscoped (once in a clean CI
 * run, at a load average of 33).  CUPTI numbers a process's API calls in
 * the order they were made, so a joined call's correlation id is the truth
 * of that order: a call only CUPTI saw begins after the joined call before
 * it (by correlation, on its thread) has ended and before the one after it
 * begins; one outside that gap is moved to its edge, as a point. */
#include "viewer/read/cupti_order.h"
#include "viewer/read/load_internal.h"

#include <stdlib.h>

struct anchor { int tid; uint32_t corr; int64_t start, end; };

static int cmp_anchor(const void *x, const void *y)
{
    const struct anchor *a = x, *b = y;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    return a->corr < b->corr ? -1 : a->corr > b->corr;
}

/* The first anchor of (tid, corr) or after it. */
static size_t first_from(const struct anchor *a, size_t n, int tid, uint32_t corr)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].tid < tid || (a[mid].tid == tid && a[mid].corr < corr))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void cupti_calls_order(struct proc *p, size_t recorded)
{
    if (p->ncalls <= recorded || !recorded)
        return;
    struct anchor *a = malloc(recorded * sizeof *a);
    if (!a)
        model_out_of_memory();
    size_t n = 0;
    for (size_t i = 0; i < recorded; i++)
        if (p->calls[i].corr)
            a[n++] = (struct anchor){ p->calls[i].tid, p->calls[i].corr, p->calls[i].start, p->calls[i].end };
    qsort(a, n, sizeof *a, cmp_anchor);
    for (size_t i = recorded; i < p->ncalls && n; i++) {
        struct call *c = &p->calls[i];
        size_t k = first_from(a, n, c->tid, c->corr);
        const struct anchor *before = k > 0 && a[k - 1].tid == c->tid ? &a[k - 1] : NULL;
        const struct anchor *after = k < n && a[k].tid == c->tid && a[k].corr != c->corr ? &a[k] : NULL;
        /* the gap: from the end of the call before (its start, if it has
         * no end of its own: docs/tracer-guarantees.md), to the start of
         * the one after */
        int64_t lo = before ? (before->end > before->start ? before->end : before->start + 1) : INT64_MIN;
        int64_t hi = after ? after->start - 1 : INT64_MAX;
        if (lo > hi)
            continue; /* no gap: the recorded calls' own times disagree; left as it is */
        /* moved, it becomes a point at the gap's edge: with its length it
         * could overlap the calls beside it there, other moved ones too,
         * which a trace viewer drops (Perfetto: overlapping slices) */
        if (c->start < lo)
            c->start = c->end = lo;
        else if (c->start > hi)
            c->start = c->end = hi;
    }
    free(a);
}
