/* procfile.c: the file a process writes (see procfile.h).
 *
 * SQLite opens by name and follows links: a `<host>-<pid>.db` link that
 * someone else planted in the run directory (or a `-wal` one next to it)
 * made the tracer write an 819 KB database wherever it pointed, or append
 * a process to another run's file.  So the file is made here first,
 * O_CREAT|O_EXCL|O_NOFOLLOW, in the directory as resolved once; SQLite
 * then opens that path, and afterwards the name must still be the file
 * made.  A name already there is taken only as a regular file with one
 * link (an exec keeps the pid, so the new image finds its own file; the
 * processes of a pattern such as run-%h.db share one).  Anything refused
 * turns tracing off with one line; the program never notices.
 *
 * Which links are followed: the user's own.  The run directory and the
 * file of --one-file are names the user gave; either may be a symbolic
 * link if the user who runs the program owns it (the rule of the kernel's
 * protected_symlinks: a link someone else made in a shared directory is
 * not followed).  Directories above them are followed as they are. */
#define _GNU_SOURCE
#include "collector/procfile.h"
#include "collector/config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static const char *const sides[] = { "-wal", "-shm", "-journal" };

/* Closed with the system call itself, not the program's (or our own
 * wrapper of) close. */
static void close_fd(int fd)
{
    syscall(SYS_close, fd);
}

/* Whether the link at path may be followed: the user's own. */
static int own_link(const struct stat *st)
{
    return st->st_uid == geteuid();
}

/* path's directory, links resolved, into out; the run directory checked
 * for an owner first. */
static int resolve_dir(const char *path, int layout, char *out, size_t len, char *err, size_t errlen)
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    struct stat st;
    if (layout == GT_LAYOUT_DIR && lstat(dir, &st) == 0 && S_ISLNK(st.st_mode) && !own_link(&st)) {
        snprintf(err, errlen, "the run directory is a symbolic link that another user made: not followed");
        return -1;
    }
    char real[PATH_MAX];
    if (!realpath(dir, real)) {
        int e = errno;
        /* a run directory not there: config.c's mkdir failed, and its errno
         * (a directory we may not write in: EACCES, EPERM, EROFS) says why,
         * where the path's ENOENT said "No such file or directory" */
        if (e == ENOENT && layout == GT_LAYOUT_DIR) {
            if (mkdir(dir, 0777) == 0 || errno == EEXIST) {
                if (realpath(dir, real))
                    goto found;
                e = errno;
            } else if (errno != ENOENT) {
                snprintf(err, errlen, "the run directory cannot be made: %s", strerror(errno));
                return -1;
            }
        }
        snprintf(err, errlen, "its directory: %s", strerror(e));
        return -1;
    }
found:
    if (stat(real, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(err, errlen, "its directory is not a directory");
        return -1;
    }
    snprintf(out, len, "%s", real);
    return 0;
}

/* A name already there: a regular file, reached through no link, with no
 * other name (one_name), whose identity goes to *st.  what: "it", or
 * "its -wal"..., for the reason in err (which names no path: the line
 * that says it names the file).  With gone_ok (a side file: another
 * process's SQLite makes and removes its -journal as it writes the file
 * they share), a name removed as it was looked at is no file: 1. */
static int existing(const char *path, const char *what, int one_name, int gone_ok, struct stat *st, char *err,
                    size_t errlen)
{
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (gone_ok && errno == ENOENT)
            return 1;
        if (errno == ELOOP)
            snprintf(err, errlen, "%s is a symbolic link this run did not make: not followed", what);
        else
            snprintf(err, errlen, "%s: %s", what, strerror(errno));
        return -1;
    }
    int rc = fstat(fd, st);
    close_fd(fd);
    if (rc != 0 || !S_ISREG(st->st_mode)) {
        snprintf(err, errlen, "%s is not a regular file", what);
        return -1;
    }
    if (gone_ok && st->st_nlink == 0) /* removed since it was opened (its count of names: 0) */
        return 1;
    if (one_name && st->st_nlink != 1) {
        snprintf(err, errlen, "%s has other names (hard links) this run did not make: not written", what);
        return -1;
    }
    return 0;
}

/* Makes path, or takes it as it is (existing); *fresh: made now. */
static int make_or_take(const char *path, const char *what, int one_name, struct stat *st, int *fresh, char *err,
                        size_t errlen)
{
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
        int rc = fstat(fd, st);
        close_fd(fd);
        *fresh = 1;
        if (rc != 0) {
            snprintf(err, errlen, "%s: %s", what, strerror(errno));
            return -1;
        }
        return 0;
    }
    *fresh = 0;
    if (errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", what, strerror(errno));
        return -1;
    }
    return existing(path, what, one_name, 0, st, err, errlen) < 0 ? -1 : 0;
}

int gt_procfile_open(struct gt_procfile *pf, const char *path, int layout, char *err, size_t errlen)
{
    memset(pf, 0, sizeof *pf);
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    struct stat st;
    int named = layout == GT_LAYOUT_FILE; /* the file is the name the user gave */
    if (named && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
        char real[PATH_MAX];
        if (!own_link(&st)) {
            snprintf(err, errlen, "the file is a symbolic link that another user made: not followed");
            return -1;
        }
        if (!realpath(path, real)) {
            snprintf(err, errlen, "the file is a symbolic link to nothing (%s)", strerror(errno));
            return -1;
        }
        snprintf(pf->path, sizeof pf->path, "%s", real);
    } else {
        char dir[PATH_MAX];
        if (!*base || resolve_dir(path, layout, dir, sizeof dir, err, errlen) != 0) {
            if (!*base)
                snprintf(err, errlen, "the path names a directory, not a file");
            return -1;
        }
        if ((size_t)snprintf(pf->path, sizeof pf->path, "%s/%s", strcmp(dir, "/") ? dir : "", base) >= sizeof pf->path) {
            snprintf(err, errlen, "the path is too long");
            return -1;
        }
    }
    int fresh;
    if (make_or_take(pf->path, "the file", !named, &st, &fresh, err, errlen) != 0)
        return -1;
    pf->dev = st.st_dev;
    pf->ino = st.st_ino;
    /* its side files: SQLite makes them by name, following links too.  For
     * a file made now, -wal and -shm are made here as well (empty ones are
     * what SQLite makes); SQLite removes them at its close. */
    char side[3][sizeof pf->path + 16];
    int made[3] = { 0, 0, 0 };
    for (size_t k = 0; k < sizeof sides / sizeof *sides; k++) {
        char what[32];
        struct stat ss;
        snprintf(side[k], sizeof side[k], "%s%s", pf->path, sides[k]);
        snprintf(what, sizeof what, "its %s file", sides[k]);
        if (fresh && k < 2 ? make_or_take(side[k], what, 1, &ss, &made[k], err, errlen) != 0
                           : lstat(side[k], &ss) == 0 && existing(side[k], what, 1, 1, &ss, err, errlen) < 0) {
            /* what was made here goes again: an empty file left behind
             * would be no gputrace database, and `record -f` would refuse
             * the directory for it */
            for (size_t j = 0; fresh && j < k; j++)
                if (made[j])
                    unlink(side[j]);
            if (fresh)
                unlink(pf->path);
            return -1;
        }
    }
    return 0;
}

int gt_procfile_check(const struct gt_procfile *pf, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(pf->path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != pf->dev || st.st_ino != pf->ino) {
        snprintf(err, errlen, "the file was replaced while it was opened: not written");
        return -1;
    }
    for (size_t k = 0; k < sizeof sides / sizeof *sides; k++) {
        char side[sizeof pf->path + 16];
        snprintf(side, sizeof side, "%s%s", pf->path, sides[k]);
        if (lstat(side, &st) == 0 && !S_ISREG(st.st_mode)) {
            snprintf(err, errlen, "its %s is not a regular file: not written", sides[k]);
            return -1;
        }
    }
    return 0;
}
