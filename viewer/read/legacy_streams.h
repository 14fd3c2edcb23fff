/* legacy_streams.h: each device's legacy default stream told apart in
 * the calls' stream handles (legacy_streams.c). */
#ifndef GPUTRACE_LEGACY_STREAMS_H
#define GPUTRACE_LEGACY_STREAMS_H

#include "viewer/model/model.h"

/* The window [lo, ...)'s calls of p, sorted by start and not yet joined
 * to their GPU work: a call on the legacy stream (0, 1) made while its
 * thread's device was not the process's first takes that device's handle
 * (model/handles.h: LEGACY_STREAM_HANDLE), and an NCCL call's collective
 * (loaded up to the window) with it.  A window at or before the
 * last one seen starts the process over (a pass that reads every window
 * again). */
void legacy_streams_split(const struct model *m, struct proc *p, int64_t lo);

#endif
