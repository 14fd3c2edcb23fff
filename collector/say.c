/* say.c: the tracer's lines on the program's stderr (say.h).
 *
 * A line is written on the program's own thread, to whatever its fd 2 is:
 * a pipe whose reader is gone (a log forwarder, `| head` that exited)
 * would raise SIGPIPE, a file at its RLIMIT_FSIZE SIGXFSZ, and either
 * kills the program by default: a rank that died at its first CUDA call
 * only when traced, just as the tracer said "tracing is off, the program
 * runs on".  The two are blocked for the write, and taken back if the
 * write raised them (one pending for the program before is left alone). */
#define _GNU_SOURCE
#include "collector/say.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

void gt_say_line(const char *line)
{
    int saved = errno;
    sigset_t x, old, pending;
    sigemptyset(&x);
    sigaddset(&x, SIGPIPE);
    sigaddset(&x, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &x, &old);
    int before_pipe = 0, before_xfsz = 0;
    if (sigpending(&pending) == 0) {
        before_pipe = sigismember(&pending, SIGPIPE);
        before_xfsz = sigismember(&pending, SIGXFSZ);
    }
    struct iovec v[2] = { { (void *)line, strlen(line) }, { (void *)"\n", 1 } };
    (void)!writev(STDERR_FILENO, v, 2);
    if (sigpending(&pending) == 0) {
        sigset_t ours;
        sigemptyset(&ours);
        if (!before_pipe && sigismember(&pending, SIGPIPE))
            sigaddset(&ours, SIGPIPE);
        if (!before_xfsz && sigismember(&pending, SIGXFSZ))
            sigaddset(&ours, SIGXFSZ);
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&ours, NULL, &zero) > 0)
            ;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    errno = saved;
}

static void vsay(const char *fmt, va_list ap)
{
    int saved = errno;
    char line[1024];
    int n = snprintf(line, sizeof line, "gputrace: ");
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    gt_say_line(line);
    errno = saved;
}

void gt_say(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}

/* set once at activation, read on any thread after */
static int quiet;

void gt_say_quiet(int on)
{
    quiet = on;
}

void gt_tell(const char *fmt, ...)
{
    if (quiet)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsay(fmt, ap);
    va_end(ap);
}
