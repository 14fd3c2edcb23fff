/* monitor_notes.h: the report of a monitored run's own files says what
 * their aggregates hold and where its windows are (monitor_notes.c). */
#ifndef GPUTRACE_MONITOR_NOTES_H
#define GPUTRACE_MONITOR_NOTES_H

#include <stdio.h>

struct model;

/* Lines of the text report; none unless the inputs are a monitored run's. */
void monitor_notes_text(FILE *out, const struct model *m);
/* `, "monitor": {...}` in the JSON report's "run" object; none unless so. */
void monitor_notes_json(FILE *out, const struct model *m);
/* A paragraph and a table of the HTML page; none unless so. */
void monitor_notes_html(FILE *out, const struct model *m);

#endif
