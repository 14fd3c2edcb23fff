/* test_ranges.c: the iterations of NVTX ranges (viewer/model/ranges.c):
 * which ranges number iterations, and which never do. */
#include "viewer/model/model.h"
#include "viewer/model/steps.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

/* A process whose labels are names[1..] and whose ranges are given as
 * (tid, name id, start, end), all user ranges. */
struct spec { int tid, name; int64_t start, end; };

static void make(struct proc *p, const char *const *names, int nnames, const struct spec *v, size_t n)
{
    memset(p, 0, sizeof *p);
    p->labels = calloc((size_t)nnames + 1, sizeof *p->labels);
    p->nlabels = nnames + 1;
    for (int i = 0; i < nnames; i++)
        p->labels[i + 1] = strdup(names[i]);
    p->ranges = calloc(n, sizeof *p->ranges);
    p->nranges = n;
    for (size_t i = 0; i < n; i++)
        p->ranges[i] = (struct nvtx){ .start = v[i].start, .end = v[i].end, .tid = v[i].tid, .name = v[i].name,
                                      .user = 1, .parent = -1, .iter = -1 };
    model_ranges_index(p);
}

static void unmake(struct proc *p)
{
    for (int i = 0; i < p->nlabels; i++)
        free(p->labels[i]);
    free(p->labels);
    free(p->ranges);
}

/* The iteration of the range named names[name - 1] starting at start. */
static int64_t iter_of(const struct proc *p, int name, int64_t start)
{
    for (size_t i = 0; i < p->nranges; i++)
        if (p->ranges[i].name == name && p->ranges[i].start == start)
            return p->ranges[i].iter;
    cr_assert_fail("no range %d at %lld", name, (long long)start);
    return -2;
}

/* PyTorch: ProfilerStep#N on the main thread, nccl:all_reduce many times
 * on the backward thread.  Once numbered 1, 2, 3... by occurrence, mixing
 * with the steps' numbers. */
Test(ranges, steps_named_so_no_occurrence_numbers)
{
    static const char *const names[] = { "ProfilerStep#4", "ProfilerStep#5", "nccl:all_reduce", "forward" };
    struct spec v[] = {
        { 1, 1, 0, 100 }, { 1, 2, 100, 200 }, { 1, 4, 10, 20 }, { 1, 4, 110, 120 },
        { 2, 3, 30, 31 }, { 2, 3, 40, 41 }, { 2, 3, 130, 131 }, { 2, 3, 250, 251 }, { 2, 3, 260, 261 },
        { 2, 4, 300, 310 }, { 2, 4, 320, 330 }, /* repeated, but the process names its steps */
    };
    struct proc p;
    make(&p, names, 4, v, sizeof v / sizeof *v);
    cr_expect_eq(iter_of(&p, 1, 0), 4);
    cr_expect_eq(iter_of(&p, 2, 100), 5);
    cr_expect_eq(iter_of(&p, 4, 10), 4); /* inside a step: that step */
    cr_expect_eq(iter_of(&p, 4, 110), 5);
    cr_expect_eq(iter_of(&p, 3, 30), -1);
    cr_expect_eq(iter_of(&p, 3, 260), -1);
    cr_expect_eq(iter_of(&p, 4, 300), -1);
    unmake(&p);
}

/* No step named: a repeated top-level name is numbered by occurrence,
 * but not an operation's (aten::, nccl:, CUDA or NCCL calls). */
Test(ranges, occurrences_of_the_program_not_of_operations)
{
    static const char *const names[] = { "train_step", "aten::mm", "nccl:all_reduce", "cudaMemcpyAsync",
                                         "ncclAllReduce", "cudnn_setup", "aten::step3" };
    struct spec v[] = {
        { 1, 1, 0, 100 }, { 1, 1, 100, 200 }, { 1, 1, 200, 300 }, { 1, 2, 50, 60 },
        { 2, 2, 0, 1 }, { 2, 2, 10, 11 }, { 2, 3, 20, 21 }, { 2, 3, 30, 31 }, { 2, 4, 40, 41 }, { 2, 4, 50, 51 },
        { 2, 5, 60, 61 }, { 2, 5, 70, 71 }, { 2, 6, 80, 81 }, { 2, 6, 90, 91 }, { 2, 7, 95, 96 },
    };
    struct proc p;
    make(&p, names, 7, v, sizeof v / sizeof *v);
    cr_expect_eq(iter_of(&p, 1, 0), 1);
    cr_expect_eq(iter_of(&p, 1, 200), 3);
    cr_expect_eq(iter_of(&p, 2, 50), 1); /* an operation inside an iteration belongs to it */
    cr_expect_eq(iter_of(&p, 2, 10), -1);
    cr_expect_eq(iter_of(&p, 3, 30), -1);
    cr_expect_eq(iter_of(&p, 4, 50), -1);
    cr_expect_eq(iter_of(&p, 5, 70), -1);
    cr_expect_eq(iter_of(&p, 6, 90), 2); /* cudnn_setup: no API's name ("cu" then a capital) */
    cr_expect_eq(iter_of(&p, 7, 95), -1); /* an operator's name that ends in a step-like number */
    unmake(&p);
}

/* Push/pop ranges that cross (one starts inside another and ends after
 * it: the tracer's clock calibration moved between converting the end of
 * one and the start of the next) are made to nest: the range before ends
 * where the next starts, a deeper one ends with its parent; parents
 * follow.  Perfetto drops a slice that crosses another's end. */
Test(ranges, crossing_ranges_are_made_to_nest)
{
    static const char *const names[] = { "train_step", "optimizer.step", "log_loss", "inner" };
    /* depth 0: train_step [0, 1000]; depth 1: optimizer.step [100, 500],
     * log_loss [431, 900] (69 ns before optimizer.step's end); depth 2:
     * inner [800, 950], past log_loss's end */
    struct proc p;
    make(&p, names, 4, NULL, 0);
    static const struct { int name, depth; int64_t start, end; } v[] = {
        { 1, 0, 0, 1000 }, { 2, 1, 100, 500 }, { 3, 1, 431, 900 }, { 4, 2, 800, 950 } };
    free(p.ranges);
    p.ranges = calloc(4, sizeof *p.ranges);
    p.nranges = 4;
    for (size_t i = 0; i < 4; i++)
        p.ranges[i] = (struct nvtx){ .start = v[i].start, .end = v[i].end, .tid = 1, .name = v[i].name,
                                     .depth = v[i].depth, .user = 1, .parent = -1, .iter = -1 };
    model_ranges_index(&p);
    const struct nvtx *by[5] = { 0 };
    for (size_t i = 0; i < p.nranges; i++)
        by[p.ranges[i].name] = &p.ranges[i];
    cr_assert_eq(by[2]->end, 431, "optimizer.step ends where log_loss starts: %lld", (long long)by[2]->end);
    cr_assert_eq(by[3]->start, 431);
    cr_assert_eq(by[3]->parent, by[1] - p.ranges, "log_loss's parent is train_step, not optimizer.step");
    cr_assert_eq(by[4]->end, 900, "inner ends with its parent log_loss: %lld", (long long)by[4]->end);
    cr_assert_eq(by[4]->parent, by[3] - p.ranges);
    /* every pair of ranges nests or is disjoint */
    for (size_t i = 0; i < p.nranges; i++)
        for (size_t j = 0; j < p.nranges; j++) {
            const struct nvtx *a = &p.ranges[i], *b = &p.ranges[j];
            cr_assert(!(a->start < b->start && b->start < a->end && a->end < b->end), "ranges %zu and %zu cross", i, j);
        }
    unmake(&p);
}

/* Start/end ranges (NVTX kind 2) may cross others by design: kept as
 * they are, and so is a push/pop range they cross. */
Test(ranges, start_end_ranges_may_cross)
{
    static const char *const names[] = { "load", "prefetch" };
    struct proc p;
    make(&p, names, 2, NULL, 0);
    free(p.ranges);
    p.ranges = calloc(2, sizeof *p.ranges);
    p.nranges = 2;
    p.ranges[0] = (struct nvtx){ .start = 100, .end = 500, .tid = 1, .name = 1, .user = 1, .parent = -1, .iter = -1 };
    p.ranges[1] = (struct nvtx){ .start = 300, .end = 900, .tid = 1, .name = 2, .user = 1, .parent = -1, .iter = -1,
                                 .crossable = 1 };
    model_ranges_index(&p);
    cr_assert_eq(p.ranges[0].end, 500, "the push/pop range keeps its end: %lld", (long long)p.ranges[0].end);
    cr_assert_eq(p.ranges[1].start, 300);
    cr_assert_eq(p.ranges[1].end, 900);
    unmake(&p);
}

/* A range's boundary inside a call of its thread (the clock's doing: a
 * range's ticks are converted when it ends) goes to an edge of the call,
 * the one nearer the first boundary inside it, the same for all inside
 * it; on other threads, outside calls, and start/end ranges stay. */
Test(ranges, boundaries_inside_calls_go_to_their_edges)
{
    static const char *const names[] = { "optimizer.step", "log_loss", "other", "prefetch" };
    struct proc p;
    make(&p, names, 4, NULL, 0);
    free(p.ranges);
    p.ranges = calloc(4, sizeof *p.ranges);
    p.nranges = 4;
    /* thread 1: optimizer.step [100, 1030] and log_loss [1030, 9000] pushed
     * and popped around the call [1000, 4000), converted 30 ns late: both
     * boundaries inside it, near its start; log_loss's end 50 ns inside
     * the call [8950, 12000), near its start too.  Thread 2's range ends at
     * 2000, inside no call of its own.  A start/end range at 3000: kept. */
    p.ranges[0] = (struct nvtx){ .start = 100, .end = 1030, .tid = 1, .name = 1, .user = 1 };
    p.ranges[1] = (struct nvtx){ .start = 1030, .end = 9000, .tid = 1, .name = 2, .user = 1 };
    p.ranges[2] = (struct nvtx){ .start = 500, .end = 2000, .tid = 2, .name = 3, .user = 1 };
    p.ranges[3] = (struct nvtx){ .start = 3000, .end = 20000, .tid = 1, .name = 4, .user = 1, .crossable = 1 };
    for (size_t i = 0; i < 4; i++)
        p.ranges[i].parent = -1, p.ranges[i].iter = -1;
    model_ranges_index(&p);
    struct call calls[3] = { { .start = 1000, .end = 4000, .tid = 1 }, { .start = 1500, .end = 2500, .tid = 3 },
                             { .start = 8950, .end = 12000, .tid = 1 } };
    p.calls = calls;
    p.ncalls = 3;
    size_t moved = model_ranges_fit_calls(&p);
    const struct nvtx *by[5] = { 0 };
    for (size_t i = 0; i < p.nranges; i++)
        by[p.ranges[i].name] = &p.ranges[i];
    cr_assert_eq(moved, 3, "three boundaries inside calls: %zu moved", moved);
    cr_assert_eq(by[1]->end, 1000, "optimizer.step ends where the call starts: %lld", (long long)by[1]->end);
    cr_assert_eq(by[2]->start, 1000, "log_loss starts there too: %lld", (long long)by[2]->start);
    cr_assert_eq(by[2]->end, 8950, "log_loss ends where its last call starts: %lld", (long long)by[2]->end);
    cr_assert_eq(by[3]->end, 2000, "a call of another thread moves nothing");
    cr_assert(by[4]->start == 3000 && by[4]->end == 20000, "a start/end range stays");
    cr_assert_eq(model_ranges_fit_calls(&p), 0, "once fitted, nothing moves again");
    p.calls = NULL;
    p.ncalls = 0;
    unmake(&p);
}

/* Steps at the given starts, each ending 1 ns before the next begins. */
static size_t steps_at(struct model_step *v, const int64_t *start, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i] = (struct model_step){ (int64_t)i, start[i], i + 1 < n ? start[i + 1] - 1 : start[i] + 10 };
    return n;
}

/* A first step that compiles (a real PyTorch loop: 3.7 s, then 1.9 ms
 * steps) is warm-up; so are the leading steps of a pace 4x the median
 * or slower, not a slow step later on, nor a pace within 4x. */
Test(steps, warmup_is_the_leading_slow_steps)
{
    struct model_step v[8];
    int64_t compile[] = { 0, 3746, 3748, 3750, 3752, 3754 };
    cr_expect_eq(model_steps_warmup(v, steps_at(v, compile, 6)), 1);
    int64_t two[] = { 0, 100, 150, 152, 154, 156, 158, 160 };
    cr_expect_eq(model_steps_warmup(v, steps_at(v, two, 8)), 2);
    int64_t later[] = { 0, 2, 4, 100, 102, 104 };
    cr_expect_eq(model_steps_warmup(v, steps_at(v, later, 6)), 0);
    int64_t within[] = { 0, 8, 10, 12, 14, 16 }; /* 8 against 2: not over 4x */
    cr_expect_eq(model_steps_warmup(v, steps_at(v, within, 6)), 0);
    int64_t few[] = { 0, 1000, 1002 }; /* too few steps for a median */
    cr_expect_eq(model_steps_warmup(v, steps_at(v, few, 3)), 0);
}

/* Warm-up that speeds up step by step ends at the first step of the
 * loop's pace; times anywhere in int64_t (a damaged file) give an answer,
 * not an overflow. */
Test(steps, warmup_speeding_up_and_any_times)
{
    struct model_step v[8];
    int64_t faster[] = { 0, 1000, 1900, 2700, 2710, 2720, 2730, 2740 };
    cr_expect_eq(model_steps_warmup(v, steps_at(v, faster, 8)), 3);
    int64_t wild[] = { INT64_MIN + 1, 0, 2, 4, 6, INT64_MAX - 20 };
    cr_expect_eq(model_steps_warmup(v, steps_at(v, wild, 6)), 1);
    int64_t back[] = { 100, 50, 52, 54, 56, 58 }; /* starts out of order: a period of 0, no warm-up */
    cr_expect_eq(model_steps_warmup(v, steps_at(v, back, 6)), 0);
}
