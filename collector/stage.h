/* stage.h: the drain thread and the staging queue between the threads'
 * rings and the writer thread.
 *
 * Why: the writer thread's SQLite work stops for a commit and for the WAL
 * checkpoint after it (tens of ms on a loaded machine, 150 ms seen), and a
 * ring that is not drained meanwhile fills and drops records.  So the rings
 * are drained by a thread of their own that never touches the database: it
 * copies their records, every GT_STAGE_TICK_MS (backing off to 64 ms while
 * few come: fewer than 512 a tick; a ring that grows past
 * GT_TBUF_KICK_RECORDS wakes it at once), into chunks of memory
 * queued for the writer, which stores them at its own pace; a segment a
 * growing ring left behind, a chunk's worth of records or more, is queued
 * whole instead of copied (tbuf.h, gt_tbuf_drain_some's give), and let
 * go once stored (back to its ring's pool, or unmapped).  A commit then
 * holds up only the queue, which is shared by every thread of the process
 * and bounded: it shares one budget with the rings (membudget.h, 32 MiB at
 * the defaults, of which the rings leave it 4 MiB at least); a ring fills
 * only when the queue is full.
 *
 * Either thread may drain the rings (gt_stage_pull): the writer does so
 * itself before each pass, so that a flush, a fork or the final pass sees
 * everything recorded until then; a mutex makes them one consumer at a
 * time (tbuf.h invariant 2).  Records reach the writer in the order of each
 * ring.  The drain thread takes no lock the program can hold (no malloc: the
 * chunks are mapped), blocks every signal, and uses no descriptor.
 */
#ifndef GPUTRACE_STAGE_H
#define GPUTRACE_STAGE_H

#include "collector/tbuf.h"

#include <stddef.h>
#include <stdint.h>

#define GT_STAGE_TICK_MS 2

/* Starts the drain thread (call with every signal blocked). */
int gt_stage_start(char *err, size_t errlen);
/* Stops the drain thread, waiting up to timeout_ms for it to leave its
 * loop; 0 once it has (after it, only the caller drains). */
int gt_stage_stop(int timeout_ms);
/* Moves what the rings hold into the queue, as far as it has room;
 * returns the number of slots taken, and *cut when the queue was full.
 * The chunk being filled goes to the writer when it is full, or, with
 * partial, now: the writer's own pulls (it takes what it pulled at once);
 * the drain thread's do not, for a chunk of its every 2 ms tick, a few
 * hundred records at a modest rate, would fill the queue's bound with
 * chunks mostly empty while the writer is held up. */
size_t gt_stage_pull(int *cut, int partial);
/* Writer side: the oldest queued chunk's or segment's records to fn (with
 * their NCCL records and thread, as gt_tbuf_drain gives them), then it is
 * let go.  Returns the number of slots stored, 0 when the queue is empty. */
size_t gt_stage_store_one(gt_tbuf_fn *fn, void *ctx);
/* Records queued and not stored yet (a hint), and the most seen queued. */
uint64_t gt_stage_backlog(void);
uint64_t gt_stage_peak(void);
/* Around fork: held, so that the child finds the queue whole. */
void gt_stage_fork_prepare(void);
void gt_stage_fork_parent(void);
/* Empties the queue and lets go of its memory: in a forked child (the
 * parent's records are the parent's to store) or after a failed exec (the
 * final pass stored them; left alone if the drain thread did not stop). */
void gt_stage_forget(int in_child);

#endif
