/* load.h: a run read from its databases into the model (model.h).
 *
 * read/ fills the model; the model knows nothing of SQLite's statements or
 * of how a file is laid out, and the analyses read only the model.  A run's
 * processes, names, sites and ranges are loaded once (load_model); each
 * process's calls, GPU operations and collectives, the bulk of a run, are
 * loaded one process at a time, a window of time at a time (windows.h), so
 * that the report's memory follows the largest window, not the run.
 */
#ifndef GPUTRACE_LOAD_H
#define GPUTRACE_LOAD_H

#include "viewer/model/model.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Loads run (NULL: the latest) from the given databases, all but the calls
 * and GPU operations of each process.  On failure returns -1 with a
 * one-line reason in err.  With progress set, a line on stderr counts the
 * rows read (for a terminal); load_progress_done clears it. */
int load_model(struct model *m, char **paths, int npaths, const char *run, char *err, size_t errlen);
/* A process's calls and GPU operations, loaded whole or a window of time
 * at a time (windows.h): load_begin_proc loads its collectives and what
 * correlates them, and starts its proc_pass; load_window loads the
 * calls and operations that start in [lo, hi) (sorted, correlated), read
 * from the given rows (NULL: all of the process's); load_drop_window
 * frees them and the window's timeline; load_exts reads what
 * matches collectives and NCCL kernels to their calls (ext_corr), once,
 * when first needed, and load_drop_exts frees it once no window is to be
 * loaded; load_end_proc frees the rest. */
void load_begin_proc(struct model *m, size_t pi);
void load_window(struct model *m, size_t pi, const struct proc_rows *rows, int64_t lo, int64_t hi);
void load_drop_window(struct model *m, size_t pi);
void load_exts(struct model *m, size_t pi);
void load_drop_exts(struct model *m, size_t pi);
/* Whether the collective at p->colls[i] is done with: matched to its
 * kernel, or never to be (no window to come can hold it). */
int load_coll_settled(const struct proc *p, size_t i);
/* Frees the first n of p->colls (done with, in order). */
void load_release_colls(struct model *m, size_t pi, size_t n);
void load_end_proc(struct model *m, size_t pi);
void load_progress_done(struct model *m);
void load_free(struct model *m);
/* Reads the window table of files that are a monitor's windows
 * (monitor_windows.c) into model.windows, once the processes are sorted. */
void load_monitor_windows(struct model *m);
/* A monitored run's own files: their aggregates and the windows beside them (monitor_run.c). */
void load_monitor_run(struct model *m);
/* Reads each process's boot id (boot_ids.c), where its file has the column. */
void load_boot_ids(struct model *m);
/* Loads table(process_id, id, value) rows of one process into v[id]. */
void load_strings(sqlite3 *db, const char *table, int64_t process_id, char ***v, int *n);
/* NVTX ranges (ranges.c): loaded with the process. */
void load_ranges(const struct model *m, struct proc *p);
/* The stacks of the sites, read from the databases (stack_text.c):
 * load_model hands them to the model. */
extern const struct stack_source load_stacks;

#endif
