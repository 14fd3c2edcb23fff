/* sim_boot_id.c: a simulated rank's machine: its kernel's boot id.
 *
 * Two machines can have one host name; what tells them apart is the
 * kernel's boot id, /proc/sys/kernel/random/boot_id, a UUID made at each
 * boot.  To put a rank on a machine of its own that has the same name as
 * another's (GPUSIM_HOSTNAME, sim_clock.c), the simulator answers for it:
 *
 *   GPUSIM_BOOT_ID=ID         opening that file reads ID and a newline
 *
 * one value for every rank, or "R:ID[,R:ID...]" for the ranks listed (by
 * RANK); a rank not listed reads the real file.  As with sim_clock.c, the
 * simulator is loaded before the C library and defines open and open64,
 * so every caller in the process (the tracer too) sees the simulated
 * machine; every other path goes to the C library's open unchanged. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int (*real_open)(const char *, int, ...);
static int (*real_open64)(const char *, int, ...);
static char boot_id[64]; /* "" when this rank reads the real file */

/* This rank's value of GPUSIM_BOOT_ID (as sim_clock.c reads its settings). */
static void init(void)
{
    real_open = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open");
    real_open64 = (int (*)(const char *, int, ...))dlsym(RTLD_NEXT, "open64");
    const char *v = getenv("GPUSIM_BOOT_ID"), *rank = getenv("RANK");
    if (!v || !*v)
        return;
    if (!strchr(v, ':')) {
        snprintf(boot_id, sizeof boot_id, "%s", v);
        return;
    }
    for (const char *p = v; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        const char *colon = strchr(p, ':'), *end = strchr(p, ',');
        if (!colon || (end && colon > end) || !rank)
            continue;
        if ((size_t)(colon - p) == strlen(rank) && !strncmp(p, rank, (size_t)(colon - p))) {
            size_t n = end ? (size_t)(end - colon - 1) : strlen(colon + 1);
            snprintf(boot_id, sizeof boot_id, "%.*s", (int)n, colon + 1);
        }
    }
}

/* A descriptor reading this rank's boot id, or -2 when the real file is meant. */
static int simulated(const char *path, int flags)
{
    pthread_once(&once, init);
    if (!boot_id[0] || !path || strcmp(path, BOOT_ID_PATH) || (flags & O_ACCMODE) != O_RDONLY)
        return -2;
    int fd = memfd_create("gpusim-boot-id", (flags & O_CLOEXEC) ? MFD_CLOEXEC : 0);
    if (fd < 0)
        return -1;
    char line[80];
    int n = snprintf(line, sizeof line, "%s\n", boot_id);
    if (write(fd, line, (size_t)n) != n || lseek(fd, 0, SEEK_SET) != 0) {
        close(fd);
        errno = EIO;
        return -1;
    }
    return fd;
}

static int forward(int (*fn)(const char *, int, ...), const char *path, int flags, mode_t mode)
{
    if (!fn) {
        errno = ENOSYS;
        return -1;
    }
    return fn(path, flags, mode);
}

int open(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    int fd = simulated(path, flags);
    return fd != -2 ? fd : forward(real_open, path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    mode_t mode = 0;
    if (flags & (O_CREAT | O_TMPFILE)) {
        va_list ap;
        va_start(ap, flags);
        mode = va_arg(ap, mode_t);
        va_end(ap);
    }
    int fd = simulated(path, flags);
    return fd != -2 ? fd : forward(real_open64 ? real_open64 : real_open, path, flags, mode);
}
