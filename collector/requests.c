/* requests.c: making and finding window requests in a run directory
 * (requests.h).  Shared by the tracer's writer thread and the CLI: it
 * allocates nothing but what opendir does, and follows no link it made. */
#define _GNU_SOURCE
#include "collector/requests.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

/* The descriptors here are this file's own, open for a moment: closed by
 * the system call itself, never through the program-facing close (in the
 * tracer, libtrace's wrapper, or a close the program defines). */
static int close_own(int fd)
{
    return (int)syscall(SYS_close, fd);
}

int gt_request_parse(const char *name, struct gt_request *r)
{
    memset(r, 0, sizeof *r);
    const char *p = name;
    int64_t ms = 0;
    int digits = 0;
    for (; *p >= '0' && *p <= '9' && digits < 18; p++, digits++)
        ms = ms * 10 + (*p - '0');
    if (!digits || *p != '-')
        return -1;
    p++;
    size_t n = 0;
    for (; *p >= 'a' && *p <= 'z' && n + 1 < sizeof r->reason; p++)
        r->reason[n++] = *p;
    if (!n || *p != '-' || strlen(name) >= sizeof r->name)
        return -1;
    for (const char *c = p + 1; *c; c++) /* a name we would make: no '/', no dot first */
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || *c == '-' ||
              *c == '_' || *c == '.'))
            return -1;
    snprintf(r->name, sizeof r->name, "%s", name);
    r->at_ms = ms;
    return 0;
}

static void read_detail(int dfd, struct gt_request *r)
{
    int fd = openat(dfd, r->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return;
    ssize_t n = read(fd, r->detail, sizeof r->detail - 1);
    close_own(fd);
    r->detail[n > 0 ? n : 0] = 0;
    r->detail[strcspn(r->detail, "\n")] = 0;
}

int gt_request_next(const char *rundir, int64_t after_ms, struct gt_request *r)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/" GT_REQUESTS_DIR, rundir);
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    int found = 0;
    struct gt_request c;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (gt_request_parse(e->d_name, &c) != 0)
            continue;
        /* the earliest; of two made in one ms, the first by name, as on
         * every host */
        if (c.at_ms > after_ms && (!found || c.at_ms < r->at_ms || (c.at_ms == r->at_ms && strcmp(c.name, r->name) < 0))) {
            *r = c;
            found = 1;
        }
    }
    if (found)
        read_detail(dirfd(d), r);
    closedir(d);
    return found;
}

int64_t gt_request_latest(const char *rundir, const char *reason)
{
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/" GT_REQUESTS_DIR, rundir);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int64_t latest = 0;
    struct gt_request c;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (gt_request_parse(e->d_name, &c) == 0 && strcmp(c.reason, reason) == 0 && c.at_ms > latest)
            latest = c.at_ms;
    closedir(d);
    return latest;
}

int gt_request_make(const char *rundir, int64_t at_ms, const char *reason, const char *who, const char *detail,
                    char *out, size_t outlen, char *err, size_t errlen)
{
    char dir[4400], path[4600], name[GT_REQUEST_NAME_MAX];
    snprintf(dir, sizeof dir, "%s/" GT_REQUESTS_DIR, rundir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
        return -1;
    }
    struct gt_request check;
    if (snprintf(name, sizeof name, "%lld-%s-%s", (long long)at_ms, reason, who) >= (int)sizeof name ||
        gt_request_parse(name, &check) != 0) {
        snprintf(err, errlen, "not a request name: %s", name);
        return -1;
    }
    /* made whole under a hidden name (no request's: not a digit first),
     * then linked to its own: a process looking meanwhile (each does
     * every second, and the final pass takes a request at once) finds it
     * with its words or not at all.  Made with O_CREAT and then written,
     * a look in between found it without them (a slowdown's onset; a
     * capture's start and length, skipped then and marked handled).
     * link, as O_EXCL did, refuses a name taken */
    char tmp[4700];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0) {
        snprintf(err, errlen, "cannot make %s: %s", tmp, strerror(errno));
        return -1;
    }
    int ok = 1;
    if (detail && *detail) {
        size_t n = strlen(detail);
        ok = write(fd, detail, n) == (ssize_t)n && write(fd, "\n", 1) == 1;
    }
    if (close_own(fd) != 0)
        ok = 0;
    if (!ok) {
        snprintf(err, errlen, "cannot write %s: %s", tmp, strerror(errno));
        unlink(tmp);
        return -1;
    }
    if (link(tmp, path) != 0) {
        int e = errno;
        /* a file system without hard links (some FUSE and object-store
         * mounts): renamed, where the name is not taken (rename would
         * replace it; the name holds this process's id and the moment, so
         * that only this process could take it meanwhile) */
        struct stat st;
        if ((e == EPERM || e == ENOSYS || e == EOPNOTSUPP) && lstat(path, &st) != 0 && errno == ENOENT &&
            rename(tmp, path) == 0)
            e = 0;
        if (e) {
            snprintf(err, errlen, "cannot make %s: %s", path, strerror(e));
            unlink(tmp);
            return -1;
        }
    } else {
        unlink(tmp);
    }
    if (out)
        snprintf(out, outlen, "%s", name);
    return 0;
}
