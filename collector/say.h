/* say.h: the tracer's lines on the program's stderr (say.c). */
#ifndef GPUTRACE_SAY_H
#define GPUTRACE_SAY_H

#include "collector/visibility.h"

/* "gputrace: " and the formatted line on fd 2, whatever fd 2 is: neither
 * SIGPIPE (a reader gone) nor SIGXFSZ (a file at its size limit) of that
 * write reaches the program, and errno is as it was. */
GT_INTERNAL void gt_say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* gt_say unless GPUTRACE_QUIET, as gt_say_quiet was told at activation:
 * for lines said later on the program's threads, which must not read the
 * environment the program may be changing. */
GT_INTERNAL void gt_tell(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
GT_INTERNAL void gt_say_quiet(int on);
/* The line (and a newline) as it is, the same way; async-signal-safe. */
GT_INTERNAL void gt_say_line(const char *line);

#endif
