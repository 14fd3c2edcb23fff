/* wrap_fd.c: close, close_range, closefrom, dup2 and dup3, wrapped so that
 * the tracer learns, before the program's call happens, that the program
 * is about to take one of the tracer's descriptor numbers
 * (collector/fdguard.h).  Then the tracer stops using its descriptors
 * before their numbers can be reused.  Each wrapper then makes the real
 * call and returns its result and errno unchanged; when no descriptor of
 * ours is open (tracing never started, or turned off) the extra cost is
 * one load.
 */
#define _GNU_SOURCE
#include "collector/fdguard.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

typedef int close_fn(int);
typedef int close_range_fn(unsigned int, unsigned int, int);
typedef void closefrom_fn(int);
typedef int dup2_fn(int, int);
typedef int dup3_fn(int, int, int);

/* The real function, looked up once; NULL where this libc lacks it. */
#define REAL_FD(name)                                                      \
    static name##_fn *real_##name;                                         \
    if (!real_##name)                                                      \
        real_##name = (name##_fn *)dlsym(RTLD_NEXT, #name)

/* Whether fd names an open descriptor (dup2 onto ours from a bad one fails
 * without closing ours: nothing is taken then).  Keeps errno. */
static int is_open(int fd)
{
    int saved = errno;
    int ok = fcntl(fd, F_GETFD) >= 0;
    errno = saved;
    return ok;
}

int close(int fd)
{
    REAL_FD(close);
    if (fd >= 0)
        gt_fd_before_close((unsigned)fd, (unsigned)fd);
    if (!real_close)
        return (int)syscall(SYS_close, fd);
    return real_close(fd);
}

int close_range(unsigned int first, unsigned int last, int flags)
{
    REAL_FD(close_range);
    /* with CLOSE_RANGE_CLOEXEC nothing is closed now */
    if (!((unsigned)flags & CLOSE_RANGE_CLOEXEC) && first <= last)
        gt_fd_before_close(first, last);
    if (!real_close_range)
        return (int)syscall(SYS_close_range, first, last, flags);
    return real_close_range(first, last, flags);
}

void closefrom(int lowfd)
{
    REAL_FD(closefrom);
    gt_fd_before_close(lowfd < 0 ? 0u : (unsigned)lowfd, UINT_MAX);
    if (real_closefrom) {
        real_closefrom(lowfd);
        return;
    }
    int saved = errno;
    syscall(SYS_close_range, lowfd < 0 ? 0u : (unsigned)lowfd, UINT_MAX, 0);
    errno = saved;
}

int dup2(int oldfd, int newfd)
{
    REAL_FD(dup2);
    if (newfd >= 0 && oldfd != newfd && is_open(oldfd))
        gt_fd_before_close((unsigned)newfd, (unsigned)newfd);
    return real_dup2(oldfd, newfd);
}

int dup3(int oldfd, int newfd, int flags)
{
    REAL_FD(dup3);
    if (newfd >= 0 && oldfd != newfd && is_open(oldfd))
        gt_fd_before_close((unsigned)newfd, (unsigned)newfd);
    return real_dup3(oldfd, newfd, flags);
}
