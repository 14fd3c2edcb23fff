/* writer_int.h: what the writer's files share (internal to collector/):
 * the writer's state, and the parts of it each file does.
 *   writer.c      the writer thread: its loop, its passes, the final pass;
 *   writer_rows.c records into rows (the threads' records, NVTX, marks);
 *   writer_ctl.c  the other threads' side: flush, stop, fork.
 * The rings are drained by the drain thread (stage.h), never by a thread
 * that waits for the database. */
#ifndef GPUTRACE_WRITER_INT_H
#define GPUTRACE_WRITER_INT_H

#include "format/call_block.h"
#include "collector/db.h"
#include "format/nvtx_block.h"
#include "collector/tbuf.h"
#include "collector/writer.h"

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>

/* The writer's pause between passes while it is not behind: the drain
 * thread empties the rings meanwhile, and a commit comes every flush_ms
 * whatever the tick (a shorter GPUTRACE_FLUSH_MS shortens it).  It was 5 ms:
 * 200 wake-ups a second in every process, each with its scans, which the
 * ranks of a job on a few cores paid for. */
#define TICK_MS 20
/* ...and while passes find nothing to store (an idle process: no record
 * from the rings, CUPTI or NCCL's plugin), the pause lengthens to this, or
 * to the next commit if that comes sooner.  Each pass was a wake-up of its
 * own, most of an idle process's ~3 ms of tracer CPU a second: the drain
 * thread still empties the rings every IDLE_MS of stage.c meanwhile, and a
 * flush, a fork or the end wakes the writer at once (its pipe). */
#define IDLE_TICK_MS 60
#define STUCK_MS 500
#define FORK_WAIT_MS 2000 /* fork waits for the writer to park at most this long (writer_ctl.c) */
#define SIGNAL_GRACE_MS 200 /* in a signal handler, for CUPTI's last records after the host's */
/* Ends kept for starts not read yet: a start that never comes (dropped)
 * leaves its end here, so they are bounded; past this an end is counted
 * as dropped. */
#define MAX_EARLY_ENDS 65536

struct mark { uint64_t call_id; int64_t tid, api, start_ns, callsite, pystack; int written; };

struct gt_writer_state {
    struct gt_db db;   /* where records go: the file, or in monitor mode the window in memory */
    struct gt_db disk; /* monitor mode: the process's file (aggregates, heartbeat, its row) */
    int monitor;
    pthread_t thread;
    int running;
    int flush_ms;
    _Atomic int end_signal;
    /* fork handshake (see gt_writer_fork_prepare): guarded by fork_mu */
    pthread_mutex_t fork_mu;
    pthread_cond_t fork_cv;
    int pause_req, parked;
    int req_pipe[2], ack_pipe[2];
    _Atomic int stop;
    /* the final pass (gt_writer_stop): claimed by one caller, done by the
     * writer itself, which sets `stopped` when it has closed the database */
    _Atomic int stop_claimed, stopped;
    _Atomic int host_stopped; /* the final pass stored the host's records and the end */
    /* the writer is inside cuptiActivityFlushAll: a waiter gives up once it
     * has been there for STUCK_MS (it may wait on a lock of the very thread
     * that waits for it, interrupted by a signal inside CUDA) */
    _Atomic int in_cupti_flush;
    _Atomic int want_gpu_flush; /* a flush request asks for CUPTI's records too */
    struct gt_end_info end;
    int has_end;
    struct mark *marks; /* calls in flight, as many as the program has (grown as needed) */
    int nmarks, cap_marks;
    /* ends of start/end ranges read before their start (another thread's
     * ring was drained first) */
    struct early_end { uint64_t id; int64_t end_ns; } *early_ends;
    int nearly, cap_early;
    uint64_t lost; /* marks and ends memory could not hold: counted in dropped_host */
    /* calls, NVTX ranges and marks stored in bulk: this pass does so, and the blocks being filled */
    int bulk, bulk_after; /* bulk_after: GPUTRACE_BULK_AFTER, more rows than SQLite takes in a tick or two */
    struct gt_call_packed block[GT_CALL_BLOCK_ROWS];
    int nblock;
    struct gt_nvtx_packed nvtx_block[GT_BLOCK_ROWS]; /* ranges and marks, the same way */
    int nnvtx_block;
    int device_seen;
    int name_device; /* the device whose name is still to be asked for: device + 1 (0: none) */
    /* the process row's dropped_host and dropped_cupti as last written in
     * this database (dropped_known: a bit each, written): a commit rewrites them
     * only when they changed.  Each was an UPDATE prepared anew, twice
     * every commit, a tenth of an idle process's writer. */
    int64_t dropped_stored[2];
    int dropped_known;
    int handover_stored; /* process.cupti_status says where CUPTI was handed over first (writer.c) */
    int gaps_closed;     /* the gpu_gap rows stored with their end (writer.c) */
    size_t stored_bytes; /* about how much the open transaction holds */
    uint64_t stored_recs; /* records stored so far (host and CUPTI): whether a pass found any */
    char path[4096];
    pid_t owner_pid;
    _Atomic int released; /* tracing turned off and our descriptors were let go (fdguard.h) */
};
extern struct gt_writer_state gt_w;

/* The writer thread (and the drain thread) are the tracer's: never traced. */
extern GT_TLS int gt_w_is_writer;

/* writer_rows.c */
void gt_wr_on_record(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx);
void gt_wr_on_open_range(uint32_t tid, const struct gt_nvtx_open *o, int depth, void *ctx);
/* The calls and NVTX rows waiting in a block, stored. */
void gt_wr_flush_blocks(void);
/* New call sites, modules, strings and Python stacks, stored. */
void gt_wr_store_names(void);
/* Calls still in flight at a commit, stored as marks (once each). */
void gt_wr_store_marks(void);
/* The device's name asked of the runtime and stored.  Only where the
 * records before are committed: the runtime may wait on a lock that a
 * thread a signal interrupted holds. */
void gt_wr_look_up_gpu_name(void);
/* Records lost so far, all kinds (the process row's dropped_host). */
uint64_t gt_wr_dropped(void);

/* writer.c */
void *gt_wr_main(void *arg);
/* CUPTI's buffers asked for (gt_cupti_flush), marked for waiters. */
void gt_wr_cupti_flush(int forced);
/* The threads' records queued so far and CUPTI's buffers handed over,
 * stored now (inside a transaction, begun if none is open). */
void gt_wr_drain(void);

#endif
