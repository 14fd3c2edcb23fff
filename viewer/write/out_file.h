/* out_file.h: an output of the report (--chrome-trace, --html, each
 * --kineto file), complete or absent (out_file.c).
 *
 * Each is written to a temporary file beside it (".NAME.XXXXXX", made with
 * O_EXCL, mode 0600), which is given the mode of a new file (0666 less the
 * umask) when closed and renamed over NAME only when the report says it is
 * complete; on any error it is removed, and the file that was at NAME
 * before, if any, is left as it was.  A stream's first error is the errno
 * its fclose returns, not whatever a later call left in errno.  Until
 * renamed or removed, the temporary file is registered for removal at exit
 * and on the signals tmpfiles.h lists. */
#ifndef GPUTRACE_OUT_FILE_H
#define GPUTRACE_OUT_FILE_H

#include <stdio.h>

/* A stream for path, to be closed by fclose (which returns EOF with errno
 * set to the first error of a write, or of the close): NULL with errno
 * set.  Where path is a device, a FIFO or a socket (/dev/stdout), or a
 * link that leads nowhere, it is written in place, as fopen would.  Any
 * thread. */
FILE *out_file_open(const char *path);
/* Whether path is the report's own standard output ("-", /dev/stdout, or
 * the file or pipe fd 1 is): such an output is written through fd 1 itself
 * (reopened, a file was truncated or replaced under the report's own
 * lines, and a pipe got both), and the report prints nothing else there. */
int out_file_is_stdout(const char *path);
/* Puts path's temporary file in place, once its stream is closed without
 * an error: 0, or -1 with errno set (the temporary file then removed). */
int out_file_commit(const char *path);
/* Removes path's temporary file, if any; path is left as it was. */
void out_file_discard(const char *path);
/* out_file_discard of every output neither committed nor discarded. */
void out_file_discard_all(void);

#endif
