/* trace_pass.h: a process read again for the Chrome and Kineto traces
 * alone.
 *
 * The traces are streamed process by process, and a run on several hosts
 * is aligned from every rank's collectives (clock_align.h) only once all
 * were read: its traces are written after that, in a pass of their own. */
#ifndef GPUTRACE_TRACE_PASS_H
#define GPUTRACE_TRACE_PASS_H

#include "viewer/write/output.h"

/* Loads process pi (a window at a time when it is long), writes its part
 * of the Chrome trace (ct, or NULL) and its Kineto trace (to kineto, or
 * NULL), and frees it.  Returns 0, or -1 with a reason in err when the
 * Kineto trace could not be written. */
int trace_process(struct model *m, struct chrome_trace *ct, const char *kineto, size_t pi, char *err, size_t errlen);

#endif
