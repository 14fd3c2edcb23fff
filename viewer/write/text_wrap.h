/* text_wrap.h: the text report's lines broken at spaces to fit its
 * TEXT_COLUMNS (text_wrap.c), shared by its writers. */
#ifndef GPUTRACE_TEXT_WRAP_H
#define GPUTRACE_TEXT_WRAP_H

#include <stdio.h>

#define TEXT_COLUMNS 100

/* text from column `indent` on (what comes before it on the first line
 * the caller's, already written), broken at spaces so that no line passes
 * TEXT_COLUMNS, each line after the first indented as far; a number stays
 * with its unit ("60.93 ms"), a word longer than a line (a path) whole. */
void text_wrap(FILE *out, int indent, const char *text);

#endif
