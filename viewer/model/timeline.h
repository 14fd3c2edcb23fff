/* timeline.h: per-process indexes the analyses share: which GPU operation
 * each call caused, which CUPTI stream a stream handle is, merged busy
 * intervals, and time-range lookups. */
#ifndef GPUTRACE_TIMELINE_H
#define GPUTRACE_TIMELINE_H

#include "viewer/model/model.h"

struct interval { int64_t a, b; };
struct ivals { struct interval *v; size_t n; };

struct timeline {
    const struct proc *p;
    int32_t *op_of_call;      /* index into p->ops of the first op each call caused, -1 if none
                               * (4 bytes a call: a process's ops are counted in int32) */
    int64_t max_op_ns;        /* longest GPU operation */
    struct ivals busy;        /* union of all GPU operations */
    struct ivals seen;        /* busy, with the stretches without GPU records of the tracer's joined in
                               * (timeline_join_gaps): what the GPU's idle is measured against */
    struct ivals compute;     /* union of kernels that are not NCCL's */
    struct ivals comm;        /* union of NCCL kernels */
    /* compute on every stream but one, for the few streams that need it */
    struct { int stream; struct ivals u; } *others; size_t nothers;
};

/* Whether a stream runs compute (non-NCCL) kernels (anywhere in the
 * process: stream_map.h). */
int timeline_stream_computes(const struct timeline *t, int stream);
/* Union of compute kernels on all streams of `stream`'s GPU except
 * `stream` (cached until timeline_drop_except). */
const struct ivals *timeline_compute_except(struct timeline *t, int stream);
void timeline_drop_except(struct timeline *t);

void timeline_build(struct timeline *t, const struct proc *p);
/* u, a union of p's GPU work, with the stretches p has no GPU records of
 * the tracer's (model.h, gpu_gaps; cut at its end) joined in: idle there is
 * not known, not the GPU's.  1 when *out is a new union (free its v); 0
 * when p has none, and *out is u itself. */
int timeline_join_gaps(const struct proc *p, const struct ivals *u, struct ivals *out);
/* The union of the window's GPU operations on GPU `device` (-1: every
 * GPU of the process); which: 0 all, 1 compute kernels (not NCCL's), 2
 * NCCL kernels.  Merged as it goes: the operations are sorted by start,
 * and a copy of all of them first would cost 16 bytes each (free its v). */
struct ivals timeline_ops_union(const struct proc *p, int device, int which);
/* The GPUs the window's operations ran on, in the order first seen, up to
 * n of them into devs; how many. */
size_t timeline_devices(const struct proc *p, int *devs, size_t n);
/* The timeline of process pi, built once and kept in the model (freed by
 * load_free). */
struct timeline *model_timeline(const struct model *m, size_t pi);
void model_free_timelines(struct model *m);
void model_free_timeline(struct model *m, size_t pi);
void timeline_free(struct timeline *t);
/* CUPTI stream id of a stream handle, -1 if not seen so far (the process's
 * stream map, stream_map.h, which notes the miss). */
int timeline_stream(const struct timeline *t, int64_t handle);
/* First op index whose start >= ts. */
size_t timeline_first_op_at(const struct timeline *t, int64_t ts);
/* The first call of the window that started at ts or later (ncalls if none). */
size_t timeline_first_call_at(const struct timeline *t, int64_t ts);
/* A union built from intervals sorted by start (each not before the one
 * added last), merging as it goes, in two passes over them: the first
 * counts the merged intervals, the second stores them into an array of
 * just that size.  Growing an array instead left holes in the heap that
 * raised the peak of a report over several ranks:
 *
 *     struct ivals_build u = { 0 };
 *     do
 *         for (...each record, in start order...) ivals_build_add(&u, a, b);
 *     while (ivals_build_pass(&u));
 *     ... u.u is the union ...
 */
struct ivals_build { struct ivals u; size_t n; int64_t end; };
void ivals_build_add(struct ivals_build *u, int64_t a, int64_t b);
/* Ends a pass: returns 1 when the records must be walked again. */
int ivals_build_pass(struct ivals_build *u);
int64_t ivals_total(const struct ivals *s);
/* Length of [a, b) covered by the union s. */
int64_t ivals_cover(const struct ivals *s, int64_t a, int64_t b);
/* The end of the last interval of s that starts before b (INT64_MIN: none). */
int64_t ivals_end_before(const struct ivals *s, int64_t b);
int64_t ivals_intersection(const struct ivals *x, const struct ivals *y);
/* x minus y, as a new union (free its v). */
struct ivals ivals_minus(const struct ivals *x, const struct ivals *y);
/* The parts of [a, b) that the union u covers (want 1) or not (want 0),
 * each handed to fn with arg, in time order (ivals.c, as are the above). */
void ivals_split(const struct ivals *u, int64_t a, int64_t b, int want,
                 void (*fn)(void *arg, int64_t a, int64_t b), void *arg);

#endif
