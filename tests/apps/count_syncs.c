/* count_syncs.c: a library preloaded beside the tracer, for
 * tests/e2e/tracer_nosync.sh: counts the process's fsync and fdatasync
 * calls (the tracer's SQLite makes them through these entry points) and,
 * at the end (a destructor: after the tracer's final pass), writes
 * "syncs: N" to the file COUNT_SYNCS_OUT names. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic int syncs;

int fsync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fsync");
    syncs++;
    return real ? real(fd) : -1;
}

int fdatasync(int fd)
{
    static int (*real)(int);
    if (!real)
        *(void **)&real = dlsym(RTLD_NEXT, "fdatasync");
    syncs++;
    return real ? real(fd) : -1;
}

__attribute__((destructor)) static void say(void)
{
    const char *out = getenv("COUNT_SYNCS_OUT");
    if (!out || !*out)
        return;
    char line[64];
    int n = snprintf(line, sizeof line, "syncs: %d\n", (int)syncs);
    int fd = open(out, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    (void)!write(fd, line, (size_t)n);
    close(fd);
}
