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
 * iteration, and so is everything inside it.  Only in a process that has
 * no such range, a top-level range whose name repeats on its thread
 * ("train_step" each step) is numbered by its occurrence, from 1: where
 * the program names its steps, the 2,020 "nccl:all_reduce" ranges of
 * PyTorch's backward thread are not 2,020 iterations whose numbers mix
 * with the steps'.  Ranges named as operations (operation_name) never
 * number iterations, neither way; inside a step they belong to it.
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

/* Whether a range's name is an operation's, not a stretch of the program
 * that the program named: PyTorch's operators and its annotations of
 * collectives and of the optimizer ("aten::add", "nccl:all_reduce",
 * "c10d::allreduce_", "Optimizer.step#SGD.step"), CUDA and NCCL calls,
 * kernels ("void at::native::..."), copies.  Such a range repeats as often
 * as the operation runs, many times a step, so it never numbers
 * iterations, whatever number its name ends in. */
static int operation_name(const char *name)
{
    static const char *const prefixes[] = { "nccl:", "gloo:", "mpi:", "ucc:", "c10d", "record_param_comms",
                                            "Optimizer.", "void ", "Memcpy ", "Memset " };
    static const char *const apis[] = { "cuda", "cu", "nccl" }; /* cudaMemcpy, cuLaunchKernel, ncclAllReduce */
    if (strstr(name, "::")) /* a C++ or Python qualified name: aten::, torch::, autograd:: */
        return 1;
    for (size_t k = 0; k < sizeof prefixes / sizeof *prefixes; k++)
        if (!strncmp(name, prefixes[k], strlen(prefixes[k])))
            return 1;
    for (size_t k = 0; k < sizeof apis / sizeof *apis; k++) {
        size_t n = strlen(apis[k]);
        if (!strncmp(name, apis[k], n) && isupper((unsigned char)name[n]))
            return 1;
    }
    return 0;
}

/* Marks left in nvtx.iter between the two passes of model_ranges_index. */
#define ITER_NONE (-1)   /* no number of its own */
#define ITER_OP (-2)     /* an operation's range (operation_name) */

/* A top-level name on its thread, as a key of the occurrence counts. */
static uint64_t name_key(const struct nvtx *r)
{
    return ((uint64_t)(uint32_t)r->tid << 32 | (uint32_t)r->name) + 1;
}

/* Parents of the user ranges of one thread, [lo, hi), and each range's
 * own step number (in iter, or a mark above); the top-level names that
 * may be numbered by occurrence counted in seen.  Whether any range has a
 * number of its own is returned. */
static int index_thread(struct proc *p, size_t lo, size_t hi, struct idmap *seen)
{
    int stack[256], top = 0, own_steps = 0;
    for (size_t i = lo; i < hi; i++) {
        struct nvtx *r = &p->ranges[i];
        for (;;) {
            while (top > 0 && p->ranges[stack[top - 1]].end <= r->start)
                top--;
            if (top == 0 || r->end <= p->ranges[stack[top - 1]].end || r->crossable ||
                p->ranges[stack[top - 1]].crossable)
                break; /* nested, or a start/end range, which may cross others */
            /* r starts inside the range it follows and ends after it:
             * push/pop ranges nest, so this is the clock, not the program
             * (the tracer converts a range's ticks when it ends, a long
             * range's start with a later calibration than the end of the
             * range before it: collector/clock.c; seen 69 ns), or a damaged
             * or imported file.  A child (deeper) ends where its parent
             * does; otherwise the range before ends where r starts (its own
             * children, all ended before r, stay inside it), and r is
             * tried against the range around it.  No track then holds a
             * slice that crosses another's end, which Perfetto would drop */
            struct nvtx *t = &p->ranges[stack[top - 1]];
            if (r->depth > t->depth) {
                r->end = t->end;
                break;
            }
            t->end = r->start;
            top--;
        }
        r->parent = top > 0 ? stack[top - 1] : -1;
        if (top < 256)
            stack[top++] = (int)i;
        const char *name = model_label(p, r->name);
        int64_t own;
        if (operation_name(name)) {
            r->iter = ITER_OP;
            continue;
        }
        if ((own = step_number(name)) >= 0) {
            r->iter = own;
            own_steps = 1;
            continue;
        }
        r->iter = ITER_NONE;
        if (r->parent < 0) { /* keyed by thread and name: a name repeats on its own thread */
            int64_t n = 0;
            idmap_get(seen, name_key(r), &n);
            idmap_put(seen, name_key(r), n + 1, 0);
        }
    }
    return own_steps;
}

/* The iterations of one thread's ranges, after index_thread: a number of
 * its own, else the enclosing range's, else (top level, and only where
 * the process names no step) its name's occurrence if the name repeats
 * at top level at least half as often as the thread's most repeated one.
 * A name the program nests is at top level only where its parent is not
 * in the records (a monitor's window written as a step ended: the step's
 * range still in the thread's buffer, its first children stored): 2
 * "forward" ranges beside 70 "train_step" ones, numbered 1 and 2, made
 * iteration 1 span from the first step to the last one's forward. */
static void number_thread(struct proc *p, size_t lo, size_t hi, const struct idmap *seen, struct idmap *order,
                          int by_occurrence)
{
    int64_t most = 0;
    for (size_t i = lo; i < hi && by_occurrence; i++) {
        const struct nvtx *r = &p->ranges[i];
        int64_t n = 0;
        if (r->iter == ITER_NONE && r->parent < 0 && idmap_get(seen, name_key(r), &n) && n > most)
            most = n;
    }
    for (size_t i = lo; i < hi; i++) {
        struct nvtx *r = &p->ranges[i];
        if (r->iter >= 0)
            continue; /* its own step number */
        int op = r->iter == ITER_OP;
        r->iter = -1;
        if (r->parent >= 0) {
            r->iter = p->ranges[r->parent].iter;
        } else if (by_occurrence && !op) {
            int64_t n = 0, k = 0;
            idmap_get(seen, name_key(r), &n);
            idmap_get(order, name_key(r), &k);
            idmap_put(order, name_key(r), k + 1, 0);
            r->iter = n >= 2 && 2 * n >= most ? k + 1 : -1;
        }
    }
}

/* Ranges never closed end where the process's records do (load_ranges.c),
 * which can be before the last range of their own thread began: a
 * monitor's window stores the ranges open as it is written, the next
 * step's among them, after its records up to then (the process's end
 * there).  A range still open was open past every range its thread began:
 * it ends after the latest one's start, so that it holds those (a step
 * open with no length left its open "forward" at top level). */
static void open_ranges_reach(struct proc *p)
{
    size_t i = 0;
    while (i < p->nranges && !p->ranges[i].open)
        i++;
    if (i == p->nranges)
        return;
    /* thread + 1 -> its latest range's start, or a closed range's end if
     * later: a range closed inside an open one (a step's forward, stored
     * ended while the step was open) may end past the latest start, and an
     * open range ending before it was cut it to where the open one ended
     * (index_thread: a child ends where its parent does) */
    struct idmap last = { 0 };
    for (i = 0; i < p->nranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        int64_t t, reach = !r->open && r->end > r->start ? r->end - 1 : r->start;
        if (!idmap_get(&last, (uint64_t)(uint32_t)r->tid + 1, &t) || reach > t)
            idmap_put(&last, (uint64_t)(uint32_t)r->tid + 1, reach, 0);
    }
    for (i = 0; i < p->nranges; i++) {
        struct nvtx *r = &p->ranges[i];
        int64_t t;
        if (r->open && idmap_get(&last, (uint64_t)(uint32_t)r->tid + 1, &t) && r->end <= t && t < INT64_MAX)
            r->end = t + 1;
    }
    idmap_free(&last);
}

void model_ranges_index(struct proc *p)
{
    p->range_tid = -1;
    open_ranges_reach(p);
    if (p->nranges)
        qsort(p->ranges, p->nranges, sizeof *p->ranges, cmp_range);
    size_t best = 0;
    int own_steps = 0;
    struct idmap seen = { 0 }, order = { 0 };
    /* first every thread, for whether any range of the process names its step */
    for (size_t lo = 0; lo < p->nranges && p->ranges[lo].user;) {
        size_t hi = lo;
        while (hi < p->nranges && p->ranges[hi].user && p->ranges[hi].tid == p->ranges[lo].tid)
            hi++;
        own_steps |= index_thread(p, lo, hi, &seen);
        if (hi - lo > best) {
            best = hi - lo;
            p->range_tid = p->ranges[lo].tid;
        }
        p->nuser_ranges = hi;
        lo = hi;
    }
    for (size_t lo = 0; lo < p->nuser_ranges;) {
        size_t hi = lo;
        while (hi < p->nuser_ranges && p->ranges[hi].tid == p->ranges[lo].tid)
            hi++;
        number_thread(p, lo, hi, &seen, &order, !own_steps);
        lo = hi;
    }
    idmap_free(&seen);
    idmap_free(&order);
}

size_t model_range_after(const struct proc *p, int tid, int64_t t)
{
    size_t lo = 0, hi = p->nuser_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct nvtx *r = &p->ranges[mid];
        if (r->tid < tid || (r->tid == tid && r->start <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int model_range_at(const struct proc *p, int tid, int64_t t)
{
    if (tid < 0)
        tid = p->range_tid;
    /* last user range of tid with start <= t */
    size_t lo = model_range_after(p, tid, t);
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

int model_range_place(const struct proc *p, int r)
{
    for (; r >= 0; r = p->ranges[r].parent) {
        const char *name = model_label(p, p->ranges[r].name);
        if (step_number(name) < 0 && !operation_name(name))
            return r;
    }
    return -1;
}

/* ---- range boundaries inside calls ----------------------------------------
 *
 * A thread pushes and pops its ranges between its CUDA calls, never inside
 * one; but the tracer converts a range's ticks when the range ends, with
 * the clock calibration of that moment (collector/clock.c), and a call's
 * when the call ends, so a long range's start can land tens of ns inside
 * the call made right after the push, or before it (seen: log_loss's start
 * inside its first cudaMemcpyAsync; Perfetto then drops one of the two).
 * Each boundary of a user push/pop range that falls strictly inside a
 * call of its thread goes to an edge of that call: the edge nearer the
 * first such boundary, the same for every boundary inside that call, so
 * that the ranges' order (by start) and their nesting stay as they were.
 * Run on each window's calls (the process's ranges are all loaded). */

struct boundary { int64_t t; int tid; uint32_t r; int is_end; };

static int by_boundary(const void *a, const void *b)
{
    const struct boundary *x = a, *y = b;
    return x->t != y->t ? (x->t < y->t ? -1 : 1) : 0;
}

size_t model_ranges_fit_calls(struct proc *p)
{
    if (!p->nuser_ranges || !p->ncalls)
        return 0;
    int64_t lo = p->calls[0].start, hi = INT64_MIN;
    for (size_t i = 0; i < p->ncalls; i++)
        hi = p->calls[i].end > hi ? p->calls[i].end : hi;
    size_t n = 0;
    struct boundary *v = NULL;
    for (int pass = 0; pass < 2; pass++) { /* count, then fill */
        n = 0;
        for (size_t i = 0; i < p->nuser_ranges; i++) {
            const struct nvtx *r = &p->ranges[i];
            if (r->crossable)
                continue;
            for (int e = 0; e < 2; e++) {
                int64_t t = e ? r->end : r->start;
                if (t > lo && t < hi) {
                    if (v)
                        v[n] = (struct boundary){ t, r->tid, (uint32_t)i, e };
                    n++;
                }
            }
        }
        if (!n)
            return 0;
        if (!v && !(v = malloc(n * sizeof *v)))
            model_out_of_memory();
    }
    qsort(v, n, sizeof *v, by_boundary);
    struct idmap last = { 0 }; /* thread + 1 -> the call that, of those begun so far, ends last */
    struct idmap edge = { 0 }; /* call + 1 -> the edge its boundaries go to */
    size_t moved = 0, c = 0;
    for (size_t k = 0; k < n; k++) {
        for (; c < p->ncalls && p->calls[c].start < v[k].t; c++) {
            int64_t was;
            uint64_t key = (uint64_t)(uint32_t)p->calls[c].tid + 1;
            if (!idmap_get(&last, key, &was) || p->calls[was].end < p->calls[c].end)
                idmap_put(&last, key, (int64_t)c, 0);
        }
        int64_t ci, to;
        if (!idmap_get(&last, (uint64_t)(uint32_t)v[k].tid + 1, &ci))
            continue;
        const struct call *cl = &p->calls[ci];
        if (!(cl->start < v[k].t && v[k].t < cl->end))
            continue;
        if (!idmap_get(&edge, (uint64_t)ci + 1, &to)) {
            to = v[k].t - cl->start <= cl->end - v[k].t ? cl->start : cl->end;
            idmap_put(&edge, (uint64_t)ci + 1, to, 0);
        }
        struct nvtx *r = &p->ranges[v[k].r];
        if (v[k].is_end)
            r->end = to;
        else
            r->start = to;
        moved++;
    }
    idmap_free(&last);
    idmap_free(&edge);
    free(v);
    return moved;
}
