/* import.h: `gputrace import`: traces of other tools (PyTorch profiler's
 * Kineto JSON, Nsight Systems' SQLite export) written into a gputrace
 * database, so that every analysis of the report runs on them
 * (docs/import.md has the mapping, field by field). */
#ifndef GPUTRACE_IMPORT_H
#define GPUTRACE_IMPORT_H

#include <stddef.h>

struct out_db;

enum import_format { IMPORT_NONE, IMPORT_KINETO, IMPORT_NSYS, IMPORT_OURS };

/* What a path holds, from its content: a gputrace database or run
 * directory (IMPORT_OURS), a Kineto trace or a directory of them, an nsys
 * export; IMPORT_NONE if none of these (or it cannot be read). */
enum import_format import_detect(const char *path);

/* Imports the traces into a new database at out.  An out that exists is
 * replaced only with force, and only if it is a gputrace database (by its
 * content) or empty; never if it is one of the traces or of an input
 * directory's (by device and inode).  Returns 0; 1 if a trace was cut
 * short (what was read is imported, a note says so); -1 with a one-line
 * reason in err; -2 (reason in err) if out is an input, before anything
 * is removed.  err is safe to print (term_text.h).  Notes on what could
 * not be mapped go into the database (import_note) and, when verbose, to
 * stderr. */
int import_traces(const char *out, int force, char *const *traces, int ntraces, int verbose, char *err,
                  size_t errlen);

/* Per format: one input file into the open database, as one process.
 * 0, or -1 with err (the rows read before a failure stay, with a note). */
int import_kineto_file(struct out_db *o, const char *path, char *err, size_t errlen);
int import_nsys_file(struct out_db *o, const char *path, char *err, size_t errlen);

/* The `gputrace import` command: argv after the word import. */
int import_main(int argc, char **argv);

#endif
