/* input_notes.h: what the report left out of its inputs, said in its
 * notes (input_notes.c): files of a run directory with no trace in them,
 * and the runs not reported where the inputs hold several. */
#ifndef GPUTRACE_INPUT_NOTES_H
#define GPUTRACE_INPUT_NOTES_H

#include <stdio.h>

struct model;

/* "note: ..." lines of the text report, none when nothing was left out. */
void input_notes_text(FILE *out, const struct model *m);
/* The same as members of the JSON report's "run" object:
 * `, "other_runs": [ID, ...]` and `, "skipped_files": [PATH, ...]`, each
 * written only when not empty. */
void input_notes_json(FILE *out, const struct model *m);

#endif
