/* test_requests.c: a window request (collector/requests.c) is seen by the
 * other processes of the run whole or not at all: a process that looks
 * in requests/ while it is being made (every process looks once a
 * second; the final pass takes a request at once) must not find it
 * without its words (a slowdown's onset, a capture's start and length:
 * a capture read so was skipped, and marked handled). */
#include "collector/requests.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static char rundir[64];
static int looking; /* 1: the next write looks at the requests first */
static int found = -1;
static char found_detail[256];

/* every write of this program: at the request's first, another process's
 * look in between, as a preemption of its maker there would allow */
ssize_t write(int fd, const void *buf, size_t n)
{
    if (looking == 1) {
        looking = 2;
        struct gt_request r;
        found = gt_request_next(rundir, 0, &r);
        snprintf(found_detail, sizeof found_detail, "%s", found > 0 ? r.detail : "");
    }
    return syscall(SYS_write, fd, buf, n);
}

/* link(), as a file system without hard links answers it (EPERM) when
 * no_links is set */
static int no_links;
int link(const char *from, const char *to)
{
    if (no_links) {
        errno = EPERM;
        return -1;
    }
    return (int)syscall(SYS_link, from, to);
}

static int files_in(const char *dir)
{
    char cmd[160];
    snprintf(cmd, sizeof cmd, "ls -A %s/requests | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    cr_assert(p && fscanf(p, "%d", &n) == 1);
    pclose(p);
    return n;
}

/* without hard links the request is renamed into place, a name taken
 * still refused */
Test(requests, made_where_no_hard_links)
{
    snprintf(rundir, sizeof rundir, "/tmp/test_requests.XXXXXX");
    cr_assert(mkdtemp(rundir) != NULL);
    char name[GT_REQUEST_NAME_MAX], err[4800];
    no_links = 1;
    int rc = gt_request_make(rundir, 1700000000000LL, "request", "cli-h-2", "why", name, sizeof name, err, sizeof err);
    cr_assert_eq(rc, 0, "%s", err);
    struct gt_request r;
    cr_assert_eq(gt_request_next(rundir, 0, &r), 1);
    cr_expect_str_eq(r.name, name);
    cr_expect_str_eq(r.detail, "why");
    cr_expect_neq(gt_request_make(rundir, 1700000000000LL, "request", "cli-h-2", "again", NULL, 0, err, sizeof err), 0,
                  "a name taken is refused without hard links too");
    cr_assert_eq(gt_request_next(rundir, 0, &r), 1);
    cr_expect_str_eq(r.detail, "why", "the first request kept its words");
    no_links = 0;
    cr_expect_eq(files_in(rundir), 1, "no temporary file left");
}

Test(requests, never_seen_without_its_words)
{
    snprintf(rundir, sizeof rundir, "/tmp/test_requests.XXXXXX");
    cr_assert(mkdtemp(rundir) != NULL);
    const char *words = "start_ms=1700000002000 seconds=5";
    char name[GT_REQUEST_NAME_MAX], err[4800];
    looking = 1;
    int rc = gt_request_make(rundir, 1700000000000LL, "capture", "cli-h-1", words, name, sizeof name, err, sizeof err);
    looking = 0;
    cr_assert_eq(rc, 0, "%s", err);
    cr_assert_eq(looking, 0);
    cr_expect(found == 0 || (found == 1 && strcmp(found_detail, words) == 0),
              "a look while it was made found it with the words '%s'", found_detail);
    /* once made: found, whole */
    struct gt_request r;
    cr_assert_eq(gt_request_next(rundir, 0, &r), 1);
    cr_expect_str_eq(r.name, name);
    cr_expect_str_eq(r.detail, words);
    cr_expect_eq(r.at_ms, 1700000000000LL);
    /* made twice: refused, as before */
    cr_expect_neq(gt_request_make(rundir, 1700000000000LL, "capture", "cli-h-1", words, NULL, 0, err, sizeof err), 0);
    cr_expect_eq(files_in(rundir), 1, "the requests folder holds only the request (no temporary file left)");
}
