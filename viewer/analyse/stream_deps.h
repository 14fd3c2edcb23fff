/* stream_deps.h: what a host sync transitively waits for (docs/report.md,
 * "What a sync waited for").
 *
 * Each stream and each event carries a small vector clock: for every
 * stream it depends on, the host time before which work enqueued there is
 * waited for.  cudaEventRecord(E, S) at t gives E the clock of S plus
 * (S, t); cudaStreamWaitEvent(S, E) merges E's clock into S's; work
 * launched on the legacy default stream waits for everything enqueued
 * before it on every stream.  A stream sync at t then waits for its own
 * stream up to t and for what its clock says; an event sync for the
 * event's clock.  The clocks live in the process's proc_pass, so they
 * carry across the windows a long rank is read in.
 */
#ifndef GPUTRACE_STREAM_DEPS_H
#define GPUTRACE_STREAM_DEPS_H

#include "viewer/model/idmap.h"

#include <stdint.h>

#define DEP_STREAMS 16 /* streams one clock names; past that the oldest entries go (docs/report.md) */

struct dep_clock {
    int n;
    int64_t all;                              /* work enqueued on any blocking stream before this (legacy stream) */
    struct { int64_t handle, t; } e[DEP_STREAMS];
};

struct stream_deps {
    struct idmap stream_ix, event_ix;         /* handle -> index into v */
    struct dep_clock *v; size_t n, cap;
    /* thread id + 1 -> the stream handle of its latest call when that was
     * a blocking copy, else DEPS_NO_COPY: the cudaStreamSynchronize that
     * .cpu() adds after one is part of the copy (analysis_sync.c) */
    struct idmap last_copy;
    /* streams created blocking (without cudaStreamNonBlocking), which the
     * legacy default stream orders with; one created before the trace
     * began, whose flags are unknown, is taken as non-blocking */
    int64_t *blocking; size_t nblocking, blocking_cap;
};
#define DEPS_NO_COPY INT64_MIN

/* Whether a stream handle is the legacy default stream (0, cudaStreamLegacy). */
int deps_is_legacy(int64_t handle);
void deps_record(struct stream_deps *d, int64_t event, int64_t stream, int64_t t);
/* Returns 0 when the event was never recorded (the wait waits for nothing). */
int deps_wait(struct stream_deps *d, int64_t stream, int64_t event);
/* A stream created with the given flags. */
void deps_created(struct stream_deps *d, int64_t stream, int64_t flags);
/* Work enqueued on `stream` at t: on the legacy default stream it waits
 * for every blocking stream's earlier work, on a blocking stream for the
 * legacy stream's. */
void deps_launch(struct stream_deps *d, int64_t stream, int64_t t);
/* The scope of a sync on `stream` at t, or of an event sync (NULL when
 * the event was never recorded). */
void deps_stream_scope(const struct stream_deps *d, int64_t stream, int64_t t, struct dep_clock *out);
const struct dep_clock *deps_event(const struct stream_deps *d, int64_t event);
/* Notes thread tid's latest call: a blocking copy on `stream`, or
 * (stream DEPS_NO_COPY) anything else; deps_after_copy says whether the
 * thread's latest call before this one was a blocking copy on `stream`. */
void deps_note_call(struct stream_deps *d, int tid, int64_t stream);
int deps_after_copy(const struct stream_deps *d, int tid, int64_t stream);
void deps_free(struct stream_deps *d);

#endif
