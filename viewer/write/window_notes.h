/* window_notes.h: the report of a monitor's windows says so at its top
 * (window_notes.c): why each was written, what span it covers, and the
 * ranks the run has that no file read holds. */
#ifndef GPUTRACE_WINDOW_NOTES_H
#define GPUTRACE_WINDOW_NOTES_H

#include <stdio.h>

struct model;

/* "note: ..." lines of the text report; none unless the inputs are windows. */
void window_notes_text(FILE *out, const struct model *m);
/* Members of the JSON report's "run" object: `, "monitor_windows": [...]`
 * and `, "missing_ranks": [...]`; none unless the inputs are windows. */
void window_notes_json(FILE *out, const struct model *m);
/* A paragraph and a table of the HTML page; none unless the inputs are windows. */
void window_notes_html(FILE *out, const struct model *m);

#endif
