/* gap_inflight.h: a stretch without the tracer's GPU records begins where
 * the work in flight at its hand-over began (gap_inflight.c). */
#ifndef GPUTRACE_GAP_INFLIGHT_H
#define GPUTRACE_GAP_INFLIGHT_H

#include "viewer/model/model.h"

/* Pulls back the start of each of process p's stretches that begins in
 * the window [lo, hi) to the work in flight at its hand-over: the launch
 * of the earliest whose operation has no record, or the end of the last
 * recorded work before it, whichever is later.  p's calls and operations
 * are the window's, each sorted by start. */
void gap_inflight_pull_back(const struct model *m, struct proc *p, int64_t lo, int64_t hi);

#endif
