/* huge_pages.c: the report's memory on transparent huge pages, where the
 * kernel gives them only to memory advised for them (THP "madvise", the
 * default of most distributions).
 *
 * Why: a report faults in every page of its arrays once (1.8 M records:
 * 72,800 faults of 4 KiB; with huge pages 14,000, and 0.48 CPU s, not
 * 0.66: docs/report.md).  glibc's malloc advises its heaps and mapped
 * arrays for huge pages only when
 * GLIBC_TUNABLES says glibc.malloc.hugetlb=1 as the process starts, so the
 * report sets it and runs itself again, once, before anything else: the
 * same process (exec keeps the pid, the descriptors and the arguments).
 * The second start puts GLIBC_TUNABLES back as the user had it, so that
 * nothing the report starts inherits the change.
 *
 * Not done where it cannot help or the user decided: THP "always" (every
 * heap has them already) or "never", a GLIBC_TUNABLES that names hugetlb,
 * GPUTRACE_REPORT_HUGE_PAGES=0. */
#define _GNU_SOURCE
#include "viewer/huge_pages.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* set for the second start: the user's GLIBC_TUNABLES with a leading '=',
 * or "" where there was none */
#define AGAIN_VAR "GPUTRACE_REPORT_HUGE_PAGES_WAS"

/* Whether the kernel gives huge pages to advised memory only. */
static int thp_on_advice(void)
{
    int fd = open("/sys/kernel/mm/transparent_hugepage/enabled", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char buf[128];
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = 0;
    return strstr(buf, "[madvise]") != NULL;
}

void report_huge_pages(char **argv)
{
    const char *was = getenv(AGAIN_VAR);
    if (was) { /* the second start: the user's environment back */
        if (*was == '=')
            setenv("GLIBC_TUNABLES", was + 1, 1);
        else
            unsetenv("GLIBC_TUNABLES");
        unsetenv(AGAIN_VAR);
        return;
    }
    const char *off = getenv("GPUTRACE_REPORT_HUGE_PAGES");
    const char *tun = getenv("GLIBC_TUNABLES");
    if ((off && strcmp(off, "0") == 0) || (tun && strstr(tun, "glibc.malloc.hugetlb")) || !thp_on_advice())
        return;
    size_t len = (tun ? strlen(tun) : 0) + 64;
    char *saved = malloc(len), *want = malloc(len);
    if (!saved || !want) {
        free(saved);
        free(want);
        return;
    }
    snprintf(saved, len, "%s%s", tun ? "=" : "", tun ? tun : "");
    snprintf(want, len, "%s%sglibc.malloc.hugetlb=1", tun ? tun : "", tun && *tun ? ":" : "");
    if (setenv(AGAIN_VAR, saved, 1) == 0 && setenv("GLIBC_TUNABLES", want, 1) == 0)
        execv("/proc/self/exe", argv);
    /* no second start (no /proc, or the exec refused): on as we are, the
     * environment as it was */
    if (*saved == '=')
        setenv("GLIBC_TUNABLES", saved + 1, 1);
    else
        unsetenv("GLIBC_TUNABLES");
    unsetenv(AGAIN_VAR);
    free(saved);
    free(want);
}
