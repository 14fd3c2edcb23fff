/* text_wrap.h: the text report's lines broken at spaces to fit its
 * TEXT_COLUMNS (text_wrap.c), shared by its writers. */
#ifndef GPUTRACE_TEXT_WRAP_H
#define GPUTRACE_TEXT_WRAP_H

#include <stdio.h>

#define TEXT_COLUMNS 100

/* A paragraph: lead written as it is (it may begin with newlines), then
 * the text fmt makes, broken at spaces so that no line passes
 * TEXT_COLUMNS: its first line takes the room the lead's last line leaves
 * (a new line if that is under 20 columns), the lines after it indented
 * `indent` (deeper than the lead for a hanging paragraph).  A number stays
 * with its unit ("60.93 ms"), a word longer than a line (a path) whole.
 * One call where a lead, a buffer and an indent that had to match it were
 * three, and disagreed (the room of a window's line, 2 columns off). */
void text_para(FILE *out, const char *lead, int indent, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#endif
