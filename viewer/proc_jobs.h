/* proc_jobs.h: the processes of a run through the report on several
 * workers (threads), with the output of one.
 *
 * Each worker takes the next process not taken, loads and analyses it as
 * proc_report.c (or trace_pass.c) does on one, with its own connections to
 * the process's database (two, as one worker has, to read a big table in
 * halves) and its own findings, summary and Chrome trace
 * part; the report's thread adds each process's results to the run's in
 * process order, as soon as those before it are in (findings_merge.c,
 * summary_merge.c, chrome_part.c).  What the analyses across ranks read
 * (the collectives' spill, the point-to-point stages) is written by each
 * worker for its own process.  So every output is byte for byte the one
 * worker's, and the memory is what one worker needs, per worker. */
#ifndef GPUTRACE_PROC_JOBS_H
#define GPUTRACE_PROC_JOBS_H

#include "viewer/proc_report.h"

/* How many workers: want (> 0), else GPUTRACE_REPORT_JOBS when set to a
 * number, else the online CPUs; at most one per process, and one where
 * SQLite is built without threads. */
int report_jobs(int want, size_t nprocs);
/* Every process through report_process on `jobs` workers (jobs 1: in turn
 * on this thread, with k as given).  A process whose Kineto trace could
 * not be written says so on stderr and makes it return nonzero; once one
 * has, *kineto_ok is 0 (and one worker writes no more of them).  On
 * several workers, the CPU seconds of the busiest are added to *cpu (what
 * the pass takes on CPUs of its own: bench/report_bench.sh). */
int report_processes(struct model *m, const struct report_sinks *k, int jobs, int *kineto_ok, double *cpu);
/* Every process through trace_process, likewise (ct and kineto: as
 * trace_process takes them; kineto NULL: none). */
int trace_processes(struct model *m, struct chrome_trace *ct, char *const *kineto, int jobs, int *kineto_ok,
                    double *cpu);

#endif
