/* fd_tracker.c: a descriptor and library tracker, preloaded beside the
 * tracer as a program's own tools are (tests/e2e/tracer_own_closes.sh): it
 * defines close and dlclose, passes each on to the next definition, and
 * says on stderr, at once, each close of a pipe and each dlclose it sees.
 * The workload it watches makes neither, so every line is the tracer's:
 * its writer's pipes, closed when tracing ends, and a library it opened
 * while looking for CUPTI.  Written with write(2): close may come from a
 * signal handler or at exit. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void say(const char *line)
{
    (void)!write(2, line, strlen(line));
}

int close(int fd)
{
    static int (*next)(int);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "close");
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode))
        say("fd_tracker: close of a pipe\n");
    return next ? next(fd) : -1;
}

int dlclose(void *handle)
{
    static int (*next)(void *);
    if (!next)
        *(void **)&next = dlsym(RTLD_NEXT, "dlclose");
    say("fd_tracker: dlclose\n");
    return next ? next(handle) : -1;
}
