/* trace_pass.h: a process read again for the Chrome trace alone.
 *
 * The trace is streamed process by process, and a run on several hosts
 * is aligned from every rank's collectives (clock_align.h) only once all
 * were read: its trace is written after that, in a pass of its own. */
#ifndef GPUTRACE_TRACE_PASS_H
#define GPUTRACE_TRACE_PASS_H

#include "viewer/write/output.h"

/* Loads process pi (a window at a time when it is long), writes its part
 * of the trace, and frees it. */
void trace_process(struct model *m, struct chrome_trace *ct, size_t pi);

#endif
