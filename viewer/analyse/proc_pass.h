/* proc_pass.h: what the analyses of one process carry from one window of
 * its records to the next (read/windows.h), made and freed by the driver
 * around each process (proc_pass.c).
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
#include "viewer/model/timeline.h"

#include <stddef.h>
#include <stdint.h>

struct idle_due { size_t finding; int64_t t_end; };
/* a host.setup call's part past its window's last GPU work (analysis_setup.c) */
struct setup_due { size_t finding; int64_t from, to, held; int api; };

struct proc_pass {
    /* analysis_sync.c: what each stream and event waits for (the
     * dependency clocks of stream_deps.h), and the scalar reads whose
     * following GPU idle time waits for a window with operations */
    struct stream_deps deps;
    struct idle_due *due; size_t ndue, due_cap;
    /* analysis_setup.c: host.setup's calls past their window's GPU work,
     * and whether an earlier window had GPU work */
    struct setup_due *setup_due; size_t nsetup_due, setup_due_cap;
    int setup_had_gpu;
    /* analysis_gpu.c (gpu.idle): per GPU (by device number), the last
     * busy end so far; and the gaps counted, per GPU and host range
     * (label, -1: none) */
    struct dev_idle { int device, have_busy; int64_t busy_end; } *dev_idle;
    size_t ndev_idle;
    /* (stalled: gpu.stalled's, the gaps with work queued; longest, and
     * what: its longest gap and the work that ended it) */
    struct idle_tally {
        int device, label, stalled;
        int64_t ns, n, steady_ns, longest;
        char what[160];
    } *idle_tally;
    size_t nidle_tally;
    /* ... the steady steps' span: from the first step after the warm-up
     * (model_steps_warmup) to the last step's end, the gaps' share in it
     * the steady idle (no steps: all of it) */
    int64_t steady_from, steady_to; int steady_known;
    /* ... and the host's blocking calls of this window (host_blocked.h),
     * with those of earlier windows that reach past a GPU's last busy
     * end (a gap across a cut is blocked by the calls before it too), for
     * gpu.idle and the ledger */
    struct ivals blocked;
    /* analysis_comm.c: each loaded collective's overlap with compute on
     * other streams, measured in the window that holds its kernel (-1:
     * none), by its number in start order less coll_first (proc.colls
     * from proc.colls_first on: proc_pass_colls_sync keeps them in step);
     * and how many with a GPU time each call site (as shown) made, over
     * those done with */
    int64_t *coll_overlap;
    /* beside it: the compute queued after the collective on its own stream,
     * up to that stream's next collective, that another stream could have
     * run beside it (comm.same_stream's cost is at most this) */
    int64_t *coll_hideable;
    /* ... and where its kernel ran with no compute beside it: what
     * comm.exposed claims (n -1: in more stretches than kept, or not
     * measured) */
    struct coll_exposed *coll_exposed;
    size_t coll_first, ncoll_values, coll_values_cap;
    struct idmap site_colls;
    /* analysis_sync.c: whether a stream of one GPU waited for an event
     * recorded on another's (cudaStreamWaitEvent), and from when (the
     * first such wait's start): one GPU's queued work idle while another
     * works is from then on a pipeline's bubble (ledger.c), else a stall
     * (pipeline_by: the same read whole or a window at a time); whether
     * its work ran on several GPUs so far (and the first one's device +
     * 1); each stream's GPU (stream key + 1 -> device + 1) and each
     * event's stream, where it was last recorded (handle -> handle) */
    int waits_across, multi_gpu, first_device;
    int64_t waits_from;
    struct idmap stream_dev, event_stream;
    /* summary.c: the first busy time */
    int64_t busy_first;
    int have_span;
};

/* Whether a gap of one of the process's GPUs that ends at t lies where its
 * GPUs wait for each other: a wait across them was seen before t. */
static inline int pipeline_by(const struct proc_pass *ps, int64_t t)
{
    return ps->waits_across && ps->waits_from < t;
}

struct proc;

#define COLL_EXPOSED_MAX 4
struct coll_exposed { struct interval v[COLL_EXPOSED_MAX]; int n; };

/* A process's new state, for its first window; freed by proc_pass_free. */
struct proc_pass *proc_pass_new(void);
void proc_pass_free(struct proc_pass *ps);
/* Makes coll_overlap and coll_hideable stand beside p's loaded
 * collectives: those released since dropped, those loaded since added
 * (-1: not measured). */
void proc_pass_colls_sync(struct proc_pass *ps, const struct proc *p);
/* Collective i of p->colls's overlap with compute (-1: not measured). */
int64_t proc_pass_coll_overlap(const struct proc_pass *ps, const struct proc *p, size_t i);

#endif
