/* slowdown_out.h: a slowdown window's slow steps against the steps before
 * them (analyse/slowdown.h), in each output: which rank the others came
 * to wait for when the steps slowed down. */
#ifndef GPUTRACE_SLOWDOWN_OUT_H
#define GPUTRACE_SLOWDOWN_OUT_H

#include <stdio.h>

struct model;
struct findings;

/* A table and a line of the text report; nothing unless fs->slowdown. */
void slowdown_text(FILE *out, const struct model *m, const struct findings *fs);
/* A member of the JSON report's "run" object: `, "slowdown": {...}`. */
void slowdown_json(FILE *out, const struct model *m, const struct findings *fs);
/* A table of the HTML page. */
void slowdown_html(FILE *out, const struct model *m, const struct findings *fs);

#endif
