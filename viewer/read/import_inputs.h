/* import_inputs.h: the report's inputs that are traces of other tools
 * (Kineto JSON, nsys SQLite; import/import.h), imported into one temporary
 * database in a directory of the report's own in $TMPDIR (mode 0700),
 * which is read in their place and removed at exit or when a signal ends
 * the report (tmpfiles.h). */
#ifndef GPUTRACE_IMPORT_INPUTS_H
#define GPUTRACE_IMPORT_INPUTS_H

#include <stdio.h>

struct model;

/* Replaces the foreign inputs among args[0..*n) by one temporary database
 * (its path owned here).  0, 1 (imported, but a trace was cut short: a
 * note says so), -1 after a line on stderr, -2 (bad usage, nothing
 * written) if the Chrome trace or the Kineto directory (either may be
 * NULL) would write over a foreign input. */
int import_inputs(const char **args, int *n, const char *trace, const char *kineto);
/* The files the import reads of arg when it is a directory of Kineto
 * traces (each *.json, *.json.gz in it, not hidden), as "arg/name" in *out
 * (free each and *out): how many; 0 (*out NULL) when arg is no such
 * directory; -1 when out of memory. */
int import_input_files(const char *arg, char ***out);
/* Removes the temporary database and its directory, if made. */
void import_inputs_cleanup(void);
/* Each distinct note the import left (import_note) on the run reported
 * (or on no process), in the order written, to fn(out, kind, note, i), i
 * counting from 0; then, if there was one, fn(out, NULL, NULL, -1). */
void import_notes_each(const struct model *m, void (*fn)(FILE *, const char *, const char *, int), FILE *out);
/* The notes the import left (import_note), for the end of the text report. */
void import_notes_text(FILE *out, const struct model *m);
/* The same as a JSON member, `,"not_checked": [{"kind": K, "note": N}, ...]`,
 * written only when there are notes. */
void import_notes_json(FILE *out, const struct model *m);

#endif
