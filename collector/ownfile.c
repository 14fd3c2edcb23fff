/* ownfile.c: a new file of the tracer's own, written whole (ownfile.h). */
#define _GNU_SOURCE
#include "collector/ownfile.h"
#include "collector/fdguard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

int gt_ownfile_write(const char *path, const void *data, size_t len, char *err, size_t errlen)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot make %s: %s", path, strerror(errno));
        return -1;
    }
    if (gt_fd_add(fd) != 0) { /* no room to guard it: not used, closed by the system call itself */
        syscall(SYS_close, fd);
        unlink(path);
        snprintf(err, errlen, "cannot write %s: the tracer's descriptor table is full", path);
        return -1;
    }
    const char *p = data;
    size_t done = 0;
    int e = 0;
    while (done < len) {
        ssize_t n = write(fd, p + done, len - done > (1u << 20) ? 1u << 20 : len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            e = n < 0 ? errno : ENOSPC;
            break;
        }
        done += (size_t)n;
    }
    if (gt_fd_close(fd) != 0 && !e)
        e = EBADF; /* the program took it: what was written may be the program's */
    if (e) {
        unlink(path);
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(e));
        return -1;
    }
    return 0;
}
