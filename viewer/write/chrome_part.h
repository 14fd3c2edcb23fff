/* chrome_part.h: a process's part of the Chrome trace, written by a worker
 * of the report (viewer/proc_jobs.h) into a scratch file, then joined to
 * the trace in process order: the trace is byte for byte what one worker
 * writing every process in turn makes. */
#ifndef GPUTRACE_CHROME_PART_H
#define GPUTRACE_CHROME_PART_H

#include "viewer/write/output.h"

/* A part for trace `whole` (only read here: safe beside other workers'
 * parts), to hand to chrome_trace_window and chrome_trace_proc_end as the
 * trace; NULL with errno set when no scratch file can be had. */
struct chrome_trace *chrome_trace_part(const struct chrome_trace *whole, const struct model *m);
/* Appends the part to the trace and frees it (on the thread that owns
 * the trace); a part that could not be written, or made (part NULL, err
 * the errno of chrome_trace_part), makes chrome_trace_close fail. */
void chrome_trace_join(struct chrome_trace *whole, struct chrome_trace *part, int err);
/* Frees a part not joined. */
void chrome_trace_part_free(struct chrome_trace *part);

#endif
