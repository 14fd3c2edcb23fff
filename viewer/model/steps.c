/* steps.c: a rank's iterations, from its ranges (steps.h). */
#include "viewer/model/steps.h"
#include "viewer/model/idmap.h"

#include <stdlib.h>

/* (steps.h) A rank's iterations, from one source: the ranges that begin an
 * iteration (a number of their own, or a top-level name numbered by its
 * occurrence: ranges.c), of the one thread that has the most of them.
 * Each iteration spans from the first such range's start to the last
 * one's end.  Steps were once every top-level range with a number, of
 * every thread: PyTorch's "nccl:all_reduce" ranges of the backward thread,
 * numbered by occurrence, joined ProfilerStep#N of the main thread and
 * drew 1.5 s steps where the steps were 340 ms. */
static int cmp_step(const void *a, const void *b)
{
    const struct model_step *x = a, *y = b;
    return x->iter < y->iter ? -1 : x->iter > y->iter;
}

/* Whether range i begins an iteration: it has one, and its enclosing
 * range (same thread) is not in that one already. */
static int begins_iteration(const struct proc *p, size_t i)
{
    const struct nvtx *r = &p->ranges[i];
    return r->user && r->iter >= 0 && (r->parent < 0 || p->ranges[r->parent].iter != r->iter);
}

/* The thread whose ranges begin the most iterations, in *tid; 0 if no
 * thread's do (the user ranges are sorted by thread: ranges.c). */
static int steps_thread(const struct proc *p, size_t end, int *tid)
{
    size_t best = 0, n = 0;
    for (size_t i = 0; i < end; i++) {
        if (i > 0 && p->ranges[i].tid != p->ranges[i - 1].tid)
            n = 0;
        if (begins_iteration(p, i) && ++n > best) {
            best = n;
            *tid = p->ranges[i].tid;
        }
    }
    return best > 0;
}

size_t model_steps(const struct proc *p, struct model_step **out)
{
    struct model_step *v = NULL;
    size_t n = 0, cap = 0, end = p->nuser_ranges < p->nranges ? p->nuser_ranges : p->nranges;
    int tid = 0, found = steps_thread(p, end, &tid);
    struct idmap at = { 0 }; /* iteration + 1 -> its index: a long run has 10^5 of them */
    for (size_t i = 0; i < end && found; i++) {
        const struct nvtx *r = &p->ranges[i];
        if (r->tid != tid || !begins_iteration(p, i))
            continue;
        int64_t got;
        size_t k = idmap_get(&at, (uint64_t)r->iter + 1, &got) ? (size_t)got : n;
        if (k == n) {
            idmap_put(&at, (uint64_t)r->iter + 1, (int64_t)n, 0);
            if (n == cap) {
                cap = cap ? 2 * cap : 64;
                if (!(v = realloc(v, cap * sizeof *v)))
                    model_out_of_memory();
            }
            v[n++] = (struct model_step){ r->iter, r->start, r->end };
        } else {
            v[k].start = r->start < v[k].start ? r->start : v[k].start;
            v[k].end = r->end > v[k].end ? r->end : v[k].end;
        }
    }
    idmap_free(&at);
    if (n)
        qsort(v, n, sizeof *v, cmp_step);
    *out = v;
    return n;
}


size_t model_step_from(const struct model_step *v, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) { /* the first step starting after t */
        size_t mid = lo + (hi - lo) / 2;
        if (v[mid].start <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo ? lo - 1 : 0;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Step k's period, from its start to the next one's, in unsigned
 * arithmetic (a damaged file's times can be anywhere in int64_t): the
 * pace of the loop, where a step's own range can be short while the host
 * runs ahead of its GPU and long where it waits for it */
static uint64_t step_period(const struct model_step *v, size_t k)
{
    return v[k + 1].start > v[k].start ? (uint64_t)v[k + 1].start - (uint64_t)v[k].start : 0;
}

size_t model_steps_warmup(const struct model_step *v, size_t n)
{
    if (n < STEP_WARMUP_MIN)
        return 0;
    uint64_t *d = malloc((n - 1) * sizeof *d);
    if (!d)
        model_out_of_memory();
    for (size_t k = 0; k + 1 < n; k++)
        d[k] = step_period(v, k);
    qsort(d, n - 1, sizeof *d, cmp_u64);
    uint64_t med = d[(n - 1) / 2];
    free(d);
    size_t k = 0;
    while (k < n / 2 && step_period(v, k) / STEP_WARMUP_FACTOR > med)
        k++;
    return k;
}
