/* printable.h: a value from outside (an environment variable, a path, a
 * host name) made fit to echo in a one-line message (printable.c). */
#ifndef GPUTRACE_PRINTABLE_H
#define GPUTRACE_PRINTABLE_H

#include <stddef.h>

/* A buffer for a value in a message: a longer value is cut to fit, with
 * "..." (a path that must be shown whole gets a buffer of its own). */
#define GT_PRINTABLE_LEN 200

/* s as one line of printable ASCII into buf (len bytes): a control byte,
 * DEL, a byte past ASCII and '\' written as \xNN (\x1b for ESC, \x0a for
 * a newline, \x5c for '\'), and what does not fit in len cut, the cut
 * marked "...".  NULL shows as "(null)".  Returns buf.  Allocates
 * nothing, calls nothing: safe anywhere. */
const char *gt_printable(const char *s, char *buf, size_t len);

#endif
