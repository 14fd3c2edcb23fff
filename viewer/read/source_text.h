/* source_text.h: a source file's line, for a call site's finding. */
#ifndef GPUTRACE_SOURCE_TEXT_H
#define GPUTRACE_SOURCE_TEXT_H

#include <stddef.h>

/* Line `line` (from 1) of the source file at path, without the blanks
 * around it and cut to fit buf; "" where the name does not end as a
 * source file's (.py, .c, .cu, ...), it is not a regular file, it cannot
 * be read, or it has no such line. */
const char *source_line_text(const char *path, long line, char *buf, size_t len);

#endif
