/* sim_clock.c: a simulated rank's host: its realtime clock and its name.
 *
 * Hosts kept by NTP disagree by a millisecond or more, and the report
 * aligns them from the collectives (docs/report.md).  To test that on one
 * machine, the simulator can put a rank on a host of its own whose
 * realtime clock is off:
 *
 *   GPUSIM_CLOCK_SHIFT_NS=N       CLOCK_REALTIME (and _COARSE) read N ns later (N may be negative)
 *   GPUSIM_HOSTNAME=NAME          gethostname() answers NAME
 *
 * Each takes one value for every rank, or "R:V[,R:V...]" for the ranks
 * listed (by RANK, as gpusim-run sets it); a rank not listed is left as
 * it is.  Nothing in the tracer knows: the simulator, loaded before the C
 * library (a program links it as it links libcudart), defines
 * clock_gettime and gethostname, so every caller in the process, the
 * tracer included, sees the simulated host, as it would see a real one.
 * The monotonic clock is untouched, as it is on a real host whose
 * realtime clock is set wrong. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* This rank's value of a setting ("" when it has none), into buf. */
static void setting(const char *var, char *buf, size_t len)
{
    const char *v = getenv(var), *rank = getenv("RANK");
    buf[0] = 0;
    if (!v || !*v)
        return;
    if (!strchr(v, ':')) {
        snprintf(buf, len, "%s", v);
        return;
    }
    int me = rank && *rank ? atoi(rank) : -1;
    for (const char *p = v; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL) {
        char *colon;
        long r = strtol(p, &colon, 10);
        if (*colon != ':' || r != me)
            continue;
        size_t n = strcspn(colon + 1, ",");
        snprintf(buf, len, "%.*s", (int)n, colon + 1);
        return;
    }
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int64_t shift_ns;
static char host[256];
static int (*real_clock_gettime)(clockid_t, struct timespec *);
static int (*real_gethostname)(char *, size_t);

static void init(void)
{
    char buf[64];
    real_clock_gettime = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    real_gethostname = (int (*)(char *, size_t))dlsym(RTLD_NEXT, "gethostname");
    setting("GPUSIM_CLOCK_SHIFT_NS", buf, sizeof buf);
    if (buf[0])
        shift_ns = strtoll(buf, NULL, 10);
    setting("GPUSIM_HOSTNAME", host, sizeof host);
}

int clock_gettime(clockid_t id, struct timespec *ts)
{
    pthread_once(&once, init);
    if (!real_clock_gettime) {
        errno = ENOSYS;
        return -1;
    }
    int rc = real_clock_gettime(id, ts);
    if (rc == 0 && shift_ns && (id == CLOCK_REALTIME || id == CLOCK_REALTIME_COARSE)) {
        int64_t ns = (int64_t)ts->tv_sec * 1000000000ll + ts->tv_nsec + shift_ns;
        ts->tv_sec = (time_t)(ns / 1000000000ll);
        ts->tv_nsec = (long)(ns % 1000000000ll);
    }
    return rc;
}

int gethostname(char *name, size_t len)
{
    pthread_once(&once, init);
    if (!host[0])
        return real_gethostname ? real_gethostname(name, len) : (errno = ENOSYS, -1);
    if (strlen(host) >= len) {
        errno = ENAMETOOLONG;
        return -1;
    }
    strcpy(name, host);
    return 0;
}
