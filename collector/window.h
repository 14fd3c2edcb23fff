/* window.h: monitor mode's window (docs/monitor.md): the last
 * GPUTRACE_WINDOW_S seconds of full records, kept in a database in memory
 * (gt_db_open_memory) that the writer fills as it would fill the file, and
 * written out as a normal database when a trigger asks.
 *
 * Keeping the window: the writer notes, every GT_WINDOW_TICK_MS, how far
 * each table of records has come (its largest rowid); the rows older than
 * the window are those below the last note taken before it began, and go
 * as a range of rowids, which costs a few B-tree pages however large the
 * table.  Names, call sites, communicators and the process row are never
 * let go: a window's records must find them.  When the memory bound comes
 * first, the oldest notes' rows go before their time, and are counted.
 *
 * Writing one: the database's image (sqlite3_serialize, no copy: memdb
 * keeps it in one block) written by the writer thread into a file it
 * makes itself (O_EXCL, no link followed), a descriptor registered with
 * fdguard.h while it is open.  Writer thread only. */
#ifndef GPUTRACE_WINDOW_H
#define GPUTRACE_WINDOW_H

#include "collector/db.h"

#include <stddef.h>
#include <stdint.h>

#define GT_WINDOW_TICK_MS 250

/* Starts keeping a window of window_ns in mem, whose memory bound is limit
 * bytes; from_ns: when the process began (the window's start until the
 * first rows go). */
void gt_window_begin(struct gt_db *mem, int64_t window_ns, int64_t limit, int64_t from_ns);
/* Notes how far the tables have come and lets go of what is older than
 * the window (no older than keep_from_ns, while a capture needs it: 0 =
 * none), or what the memory bound cannot hold.  Inside the writer's open
 * transaction. */
void gt_window_keep(int64_t now_ns, int64_t keep_from_ns);
/* The onset of the slow steps on this process's clock, for the next
 * window row written (its onset_ns): the requester of a slowdown's own
 * window has it, so that a report need not place it through the realtime
 * clock, which can step against this one between the process's start and
 * the trigger (a time service's correction, a virtual machine's clock set
 * again), nor through two clocks read one after the other. */
void gt_window_onset(int64_t onset_ns);
/* Before the caller adds, for the window it is about to write, the
 * push/pop ranges still open (they are stored when they end): those
 * rows, and only those, go once the window is written or has failed. */
void gt_window_adding(void);
/* Writes the window as dir/name (dir made if missing): the process row,
 * the names and the last window of records, with a window row saying why
 * (request, reason, detail) and whether CUPTI handed over every buffer,
 * its work in flight's too, before it (gpu_flushed).  Commits mem first;
 * leaves it with no open transaction.  Returns 0, or -1 with a one-line
 * reason in err (the file not left half written). */
int gt_window_write(const char *dir, const char *name, const char *request, const char *reason,
                    const char *detail, int gpu_flushed, int64_t now_ns, char *err, size_t errlen);
/* The same window written again over the one gt_window_write made (a new
 * file renamed into place: a reader sees the one or the other whole). */
int gt_window_rewrite(const char *dir, const char *name, const char *request, const char *reason,
                      const char *detail, int gpu_flushed, int64_t now_ns, char *err, size_t errlen);
/* Records let go of before their time, since the start. */
uint64_t gt_window_cut_rows(void);

#endif
