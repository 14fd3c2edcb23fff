/* windows.h: reading a long rank a window of time at a time.
 *
 * The report holds a process's calls and GPU operations while it analyses
 * them: about 50 bytes a record, so a rank of a hundred million records
 * would need gigabytes.  A long rank is instead cut at times when nothing
 * is in flight, and each window between two cuts is loaded, analysed and
 * freed in turn; what the model carries from one window to the next is in
 * model/stream_map.h, what the analyses carry in analyse/proc_pass.h.  A cut at time x is exact, the windows' answers adding
 * up to the whole rank's, when
 *   - every call and CUPTI API record that starts before x ends more than
 *     the matching slack before it (so calls and API records match within
 *     their window);
 *   - every GPU operation that starts before x ends by x (so no operation
 *     runs across the cut, and unions of busy time split there);
 *   - CUPTI correlation ids separate at x: those of API records before x
 *     are below those of operations after it, and those of operations
 *     before x below those of API records after it (so each operation's
 *     launch, and its enqueue time, is in its window).
 * Candidates are the moments right after each host sync (when the GPU has
 * drained, if ever); one pass over the rank's calls finds them, a second
 * over all its records proves which hold and notes where in the file each
 * stretch of rows lies, so that a window reads only its own.  A rank with
 * no such moment is read whole, as before.
 */
#ifndef GPUTRACE_WINDOWS_H
#define GPUTRACE_WINDOWS_H

#include "viewer/model/model.h"
#include "viewer/read/rowruns.h"

struct window {
    int64_t lo, hi;            /* its records start in [lo, hi) */
    struct proc_rows rows;     /* where they are in the file */
};

struct proc_windows { struct window *v; size_t n; };

/* Rows a window aims at (GPUTRACE_REPORT_WINDOW_ROWS overrides it, for
 * the tests), and how many times that a rank must hold to be cut. */
#define WINDOW_ROWS (1 << 20)
#define WINDOW_MIN_FACTOR 4

/* Plans windows for process pi (between load_begin_proc and the first
 * load_window).  Returns 0 with at least two windows in w, and the
 * process's compute streams counted (stream_map.h); -1 when it is read
 * whole (short, no exact cut, or a read failed). */
int windows_plan(struct model *m, size_t pi, struct proc_windows *w);
void windows_free(struct proc_windows *w);

#endif
