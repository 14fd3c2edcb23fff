/* proc_report.h: one process of the run through the report (proc_report.c). */
#ifndef GPUTRACE_PROC_REPORT_H
#define GPUTRACE_PROC_REPORT_H

#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/findings.h"
#include "viewer/write/output.h"
#include "viewer/analyse/summary.h"

#include <pthread.h>

/* What every process goes through: the findings, the summary, the
 * exports (a NULL ct or kineto: none), the collectives across ranks. */
struct report_sinks {
    const struct report_opts *o;
    struct findings *fs;
    struct summary *s;
    struct chrome_trace *ct;
    char *const *kineto; /* each process's Kineto file (kineto_paths) */
    struct coll_spill *spill;
    pthread_mutex_t *spill_lock; /* held around each write to the spill, which workers share (proc_jobs.h); NULL: one worker */
};

/* Loads process pi (a window at a time when it is long: windows.h),
 * analyses, summarises and exports it, and frees it.  Returns 0, or -1
 * with a reason in err when its Kineto trace could not be written (the
 * rest is done). */
int report_process(struct model *m, const struct report_sinks *k, size_t pi, char *err, size_t errlen);

#endif
