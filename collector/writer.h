/* writer.h: the writer thread that moves records into the database.
 *
 * DESIGN
 *   One thread per traced process, and a drain thread beside it
 *   (stage.h).  The drain thread empties the per-thread rings every
 *   GT_STAGE_TICK_MS into a bounded queue and never waits for the disk;
 *   the writer stores that queue and the queued CUPTI buffers, in turns,
 *   as rows, inside one open transaction that it commits every
 *   GPUTRACE_FLUSH_MS (and sooner once it holds about 4 MiB), so a process
 *   killed with SIGKILL keeps everything up to the last commit, and a
 *   commit or a checkpoint, however long, fills no ring.  Calls that block
 *   for long leave a start mark; marks still open at a commit are stored in
 *   `inflight` and removed when the call ends.
 *   NVTX records become nvtx_range rows (a start/end range: a row at its
 *   start, its end filled in when it ends); push/pop ranges still open when
 *   the process ends are stored with no end.  New interned strings, call
 *   stacks and Python stacks go out in the same pass as the rows using them.
 *   Before each commit it asks CUPTI for its buffers (cuptiActivityFlushAll,
 *   from this thread: never from a CUPTI callback, never holding a lock the
 *   callbacks take), so a kill loses no more GPU records than host ones.
 *   Other threads talk to it only through gt_writer_flush_from_signal (a
 *   pipe, async-signal-safe) and gt_writer_stop (a flag and the same pipe,
 *   async-signal-safe too: the final pass runs on the writer thread).
 */
#ifndef GPUTRACE_WRITER_H
#define GPUTRACE_WRITER_H

#include "collector/db.h"

#include <stddef.h>

/* Opens the database and adds this process (on the activating thread). */
int gt_writer_open(const char *path, const struct gt_process_info *p, char *err, size_t errlen);
/* Records what became of CUPTI, before the thread starts. */
void gt_writer_set_cupti_status(const char *status, unsigned version);
/* Sets a status column of the process row (python_status, nvtx_status). */
void gt_writer_set_status(const char *column, const char *status);
/* Starts the thread. */
/* bulk_after: records waiting past which calls are stored in blocks. */
int gt_writer_run(int flush_ms, int bulk_after, char *err, size_t errlen);
/* A signal that will end the process arrived (async-signal-safe). */
void gt_writer_note_signal(int sig);
/* Asks the writer to commit what the threads recorded now, and with_gpu
 * CUPTI's records too, and waits up to timeout_ms (less if the writer is
 * stuck in CUPTI's flush).  Async-signal-safe. */
void gt_writer_flush_from_signal(int timeout_ms, int with_gpu);
/* How the process ended, for its row. */
struct gt_end_info { int exit_code; int signal; const char *reason; const char *nvtx_status; };
/* The end: the writer thread drains what is left, stores the end of the
 * process row and closes the database; the caller waits up to timeout_ms
 * for it.  Async-signal-safe (a flag, a pipe, nanosleep): _exit and exec
 * may be called from a signal handler that interrupted malloc, whose lock
 * the writer's SQLite may then wait for; so in_signal, the wait ends soon
 * after the host's records and the end are committed.  A second caller
 * (exit from two threads) waits for the first one's pass.  Returns 0 once
 * the database is closed (or there was none), -1 otherwise. */
int gt_writer_stop(const struct gt_end_info *end, int timeout_ms, int in_signal);
/* Around fork (pthread_atfork): the writer commits and parks, so that the
 * child inherits no SQLite lock state; then the child forgets the writer
 * without touching SQLite, and the parent's writer goes on. */
void gt_writer_fork_prepare(void);
void gt_writer_fork_parent(void);
void gt_writer_forget_after_fork(void);
/* Whether the calling thread is the writer (its calls are never traced). */
int gt_writer_is_self(void);

#endif
