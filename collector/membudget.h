/* membudget.h: the one budget that the threads' rings (tbuf.c) and the
 * drain thread's queue (stage.c) share, and the tracer's memory bound that
 * it is part of.
 *
 * Why: the tracer's worst case is every buffer full at once, which happens
 * when the program records faster than the writer stores, or while the
 * writer is held up (a lock another process holds, a slow disk).  With a
 * bound of their own each, the rings (8 MiB a thread, up to 256 MiB in
 * all) and the queue (32 MiB) added up with the threads: 16 threads
 * calling flat out took ~180 MiB.  Drawn from one budget, the queue's room
 * shrinks as rings grow and the reverse; the records past it are counted
 * as dropped, as before.  The queue keeps GT_MEM_QUEUE_RESERVE that rings
 * cannot take: it is what the writer drains the rings through at all.
 *
 * The tracer's bound per process, 64 MiB, every buffer full:
 *   rings and queue              GT_MEM_HOST_BYTES    32 MiB (this budget;
 *                                more if GPUTRACE_BUFFER_MB is set above 8)
 *   CUPTI's buffers (held by CUPTI, queued, being stored; cupti_sub.c)
 *                                GT_MEM_CUPTI_BYTES   16 MiB
 *   SQLite's page cache (db.c)   GT_MEM_SQLITE_KIB     8 MiB
 * and 8 MiB for the rest: the tables that grow with the program's own
 * variety (names, call sites, calls in flight), the code and the threads'
 * stacks.  docs/tracer-guarantees.md says what was measured.
 *
 * Counted in whole pages (what a full mapping makes resident), from
 * mmap to munmap.  Lock-free (one atomic); called on slow paths only. */
#ifndef GPUTRACE_MEMBUDGET_H
#define GPUTRACE_MEMBUDGET_H

#include <stddef.h>

#define GT_MEM_BOUND_BYTES ((size_t)64 << 20)
#define GT_MEM_HOST_BYTES ((size_t)32 << 20)
#define GT_MEM_QUEUE_RESERVE ((size_t)4 << 20)
#define GT_MEM_CUPTI_BYTES ((size_t)16 << 20)
#define GT_MEM_SQLITE_KIB 8192

enum gt_mem_user { GT_MEM_RING, GT_MEM_QUEUE };

/* Takes bytes (rounded up to pages) from the budget for a ring or the
 * queue; 0, or -1 when that would pass its part of it. */
int gt_mem_take(size_t bytes, enum gt_mem_user who);
/* What the budget counts for a mapping of bytes: whole pages. */
size_t gt_mem_pages(size_t bytes);
/* Gives back what gt_mem_take took for the same bytes. */
void gt_mem_give(size_t bytes);
/* A forked child's count, set to what its rings hold once the queue is
 * let go (tbuf.c, gt_tbuf_recount_after_fork): what threads the fork did
 * not copy had taken and not yet linked anywhere is not the child's. */
void gt_mem_set_used(size_t bytes);
/* Taken now, and the most taken at once so far. */
size_t gt_mem_used(void);
size_t gt_mem_peak(void);
/* The budget's size: GT_MEM_HOST_BYTES, or more when GPUTRACE_BUFFER_MB
 * asks for rings larger than the default (tbuf.c: four of them); the
 * queue's reserve stays out of the rings' reach either way. */
void gt_mem_set_host(size_t bytes);
size_t gt_mem_host(void);

#endif
