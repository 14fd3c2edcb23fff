/* ownfile.h: a new file of the tracer's own, written whole by the writer
 * thread (a monitor's window, its metrics file): made with O_EXCL and no
 * link followed (an existing file, or a link planted there, is refused,
 * never written through), its descriptor registered with fdguard.h while
 * open, and removed again if it could not be written whole. */
#ifndef GPUTRACE_OWNFILE_H
#define GPUTRACE_OWNFILE_H

#include <stddef.h>

/* Returns 0, or -1 with a one-line reason in err. */
int gt_ownfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen);

#endif
