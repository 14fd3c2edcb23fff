/* ranges.c: the NVTX ranges of a process, and which one a moment of a
 * thread falls in (read/load_ranges.c loads them).
 *
 * User ranges (all domains but NCCL's own) are sorted by (thread, start,
 * longest first), so a range's enclosing range comes before it; one sweep
 * per thread with a stack gives each range its parent.  The innermost
 * range around a time is then the latest-starting range before it, or the
 * first of its ancestors that has not ended yet.
 *
 * Iterations: a range whose name ends in a number after "step", "iter",
 * "epoch" or "batch" (PyTorch's "ProfilerStep#412", "step 412") is that
 * iteration, and so is everything inside it; otherwise a top-level range
 * whose name repeats on its thread ("train_step" each step) is numbered by
 * its occurrence, from 1.
 */
#define _GNU_SOURCE
#include "viewer/model/model.h"
#include "viewer/model/idmap.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *model_label(const struct proc *p, int id)
{
    return id > 0 && id < p->nlabels && p->labels[id] ? p->labels[id] : "";
}

static int cmp_range(const void *a, const void *b)
{
    const struct nvtx *x = a, *y = b;
    if (x->user != y->user)
        return x->user ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The number at the end of a step-like name, or -1. */
static int64_t step_number(const char *name)
{
    size_t n = strlen(name), i = n;
    while (i > 0 && isdigit((unsigned char)name[i - 1]))
        i--;
    if (i == n || n - i > 15)
        return -1;
    static const char *const words[] = { "step", "iter", "epoch", "batch" };
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        const char *hit = strcasestr(name, words[w]);
        if (hit && (size_t)(hit - name) < i)
            return strtoll(name + i, NULL, 10);
    }
    return -1;
}

/* Parents and iterations of the user ranges of one thread, [lo, hi). */
static void index_thread(struct proc *p, size_t lo, size_t hi)
{
    int stack[256], top = 0;
    struct idmap seen = { 0 }, order = { 0 };
    for (size_t i = lo; i < hi; i++) {
        struct nvtx *r = &p->ranges[i];
        while (top > 0 && p->ranges[stack[top - 1]].end <= r->start)
            top--;
        r->parent = top > 0 ? stack[top - 1] : -1;
        if (top < 256)
            stack[top++] = (int)i;
        if (r->parent < 0) {
            int64_t n = 0;
            idmap_get(&seen, (uint64_t)r->name + 1, &n);
            idmap_put(&seen, (uint64_t)r->name + 1, n + 1, 0);
        }
    }
    for (size_t i = lo; i < hi; i++) {
        struct nvtx *r = &p->ranges[i];
        int64_t own = step_number(model_label(p, r->name)), n = 0, k = 0;
        if (own >= 0) {
            r->iter = own;
        } else if (r->parent >= 0) {
            r->iter = p->ranges[r->parent].iter;
        } else {
            idmap_get(&seen, (uint64_t)r->name + 1, &n);
            idmap_get(&order, (uint64_t)r->name + 1, &k);
            idmap_put(&order, (uint64_t)r->name + 1, k + 1, 0);
            r->iter = n >= 2 ? k + 1 : -1;
        }
    }
    idmap_free(&seen);
    idmap_free(&order);
}

void model_ranges_index(struct proc *p)
{
    p->range_tid = -1;
    if (p->nranges)
        qsort(p->ranges, p->nranges, sizeof *p->ranges, cmp_range);
    size_t best = 0;
    for (size_t lo = 0; lo < p->nranges && p->ranges[lo].user;) {
        size_t hi = lo;
        while (hi < p->nranges && p->ranges[hi].user && p->ranges[hi].tid == p->ranges[lo].tid)
            hi++;
        index_thread(p, lo, hi);
        if (hi - lo > best) {
            best = hi - lo;
            p->range_tid = p->ranges[lo].tid;
        }
        p->nuser_ranges = hi;
        lo = hi;
    }
}

int model_range_at(const struct proc *p, int tid, int64_t t)
{
    if (tid < 0)
        tid = p->range_tid;
    /* last user range of tid with start <= t */
    size_t lo = 0, hi = p->nuser_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct nvtx *r = &p->ranges[mid];
        if (r->tid < tid || (r->tid == tid && r->start <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || p->ranges[lo - 1].tid != tid)
        return -1;
    int r = (int)lo - 1;
    while (r >= 0 && p->ranges[r].end <= t)
        r = p->ranges[r].parent;
    return r;
}

int model_range_within(const struct proc *p, int r, const char *name)
{
    for (; r >= 0; r = p->ranges[r].parent)
        if (!strcmp(model_label(p, p->ranges[r].name), name))
            return 1;
    return 0;
}
