/* proc_pass.h: what the analyses of one process carry from one window of
 * its records to the next (windows.h).
 *
 * A long rank is read a window of time at a time, so that the report's
 * memory follows the window, not the rank.  The windows are cut where
 * nothing is in flight (windows.c proves it), so each window's calls and
 * GPU operations correlate among themselves; what an analysis needs of
 * earlier windows, or of the whole process, lives here.  A rank read in
 * one piece is one window: the same code, and the same answers.
 */
#ifndef GPUTRACE_PROC_PASS_H
#define GPUTRACE_PROC_PASS_H

#include "viewer/analyse/stream_deps.h"
#include "viewer/model/idmap.h"

#include <stddef.h>
#include <stdint.h>

struct handle_stream { int64_t handle; int stream; };
struct idle_due { size_t finding; int64_t t_end; };

struct proc_pass {
    int64_t lo, hi;                 /* the window loaded now: records that start in [lo, hi) */
    /* stream handle -> CUPTI stream, from the first call that caused GPU
     * work, over the windows so far (timeline.c) */
    struct handle_stream *streams; size_t nstreams, streams_cap;
    /* handles looked up before they were seen: if a later window maps
     * one, the process's syncs are analysed again (proc_report.c) */
    int64_t *missed; size_t nmissed, missed_cap;
    int missed_overflow;
    /* streams that run compute (non-NCCL) kernels: over the whole process
     * (windows.c counts them before the first window), or built from the
     * one window's operations */
    int *compute_streams; size_t ncompute_streams, compute_cap;
    int compute_preset;
    /* analysis_sync.c: what each stream and event waits for (the
     * dependency clocks of stream_deps.h), and the scalar reads whose
     * following GPU idle time waits for a window with operations */
    struct stream_deps deps;
    struct idle_due *due; size_t ndue, due_cap;
    /* analysis_gpu.c (gpu.idle): the last busy end so far, the latest
     * end of the host syncs swept, the gaps counted */
    int64_t busy_end, sync_end, idle_ns, idle_n;
    int have_busy;
    /* ... the same per GPU, for a process that drives several (each GPU's
     * gaps its own: analysis_gpu.c), by device number */
    struct dev_idle { int device, have_busy; int64_t busy_end, idle_ns, idle_n; } *dev_idle;
    size_t ndev_idle;
    /* analysis_comm.c: each loaded collective's overlap with compute on
     * other streams, measured in the window that holds its kernel (-1:
     * none), beside proc.colls; and how many with a GPU time each call
     * site (as shown) made, over those done with */
    int64_t *coll_overlap;
    /* beside it: the compute queued after the collective on its own stream,
     * up to that stream's next collective, that another stream could have
     * run beside it (comm.same_stream's cost is at most this) */
    int64_t *coll_hideable;
    struct idmap site_colls;
    /* load_proc.c: the highest CUPTI correlation id of the windows so far */
    int64_t corr_seen;
    /* summary.c: the first busy time */
    int64_t busy_first;
    int have_span;
};

#endif
