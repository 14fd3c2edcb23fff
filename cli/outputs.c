/* outputs.c: before a run, `gputrace record` looks for what an earlier run
 * with the same -o left: a run directory and its databases, one database,
 * or every file a %h/%p/%r pattern can name, each with its -wal, -shm and
 * -journal.  Without -f any of them is refused, so that runs never pile up
 * in the same files; with -f they are removed.
 *
 * Only what is ours is ever removed: a gputrace database, told by its
 * content (ours.c), never by its name, and the -wal, -shm and -journal of
 * one.  A name proves nothing: a pattern's %h matches every file of a
 * directory, and a user's accounts-2024.db has the shape of a process's
 * file.  So:
 *   - a pattern: the files it names that are gputrace databases (and their
 *     side files) are refused, or with -f removed; any other file it names
 *     is left as it is (one line says how many);
 *   - a run directory: it must hold only its processes' files
 *     (<host>-<pid>.db and their -wal...), each a gputrace database (or
 *     empty: a process killed as it made it) or a side file of one;
 *     anything else, and the whole directory is refused, even with -f,
 *     and nothing in it is removed;
 *   - one file: removed with -f only if it is a gputrace database.
 * A monitored run's directory also holds requests/ (files named as
 * requests, collector/requests.h) and window-<request>/ folders (process
 * files that are ours, as above): those go with it; a folder holding
 * anything else keeps the whole directory.
 * Everything is looked at before anything is removed. */
#define _GNU_SOURCE
#include "cli/outputs.h"
#include "collector/requests.h"
#include "format/ours.h"
#include "common/printable.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

/* A process whose writer commits every GPUTRACE_FLUSH_MS (at most 60 s)
 * keeps its file's -wal changing: one that changed this recently may be
 * of a run still going (a killed one stops changing; one that ended
 * removed its -wal).  Removed, its process writes on into a file with no
 * name, and its run is lost. */
#define LIVE_S 65

/* Whether any process has the database open, as SQLite's -shm says: each
 * connection to a database in WAL mode holds a read lock on the -shm's
 * "dead man switch" byte (offset 128: os_unix.c's UNIX_SHM_DMS) while it
 * is open.  1: held, 0: free, -1: cannot tell (no -shm, or a file system
 * without POSIX locks). */
static int shm_held(const char *path)
{
    char shm[8300];
    snprintf(shm, sizeof shm, "%s-shm", path);
    int fd = open(shm, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 128, .l_len = 1 };
    int rc = fcntl(fd, F_GETLK, &l) == 0 ? l.l_type != F_UNLCK : -1;
    close(fd);
    return rc;
}

/* Whether path is on a network or cluster file system, where a POSIX lock
 * may be kept on each client alone (NFS mounted nolock or local_lock,
 * Lustre's localflock): a rank writing from another host holds no lock
 * this host sees. */
static int shared_fs(const char *path)
{
    static const unsigned long types[] = {
        0x6969UL,     /* NFS */
        0x0BD00BD0UL, /* Lustre */
        0x47504653UL, /* GPFS */
        0xFF534D42UL, /* CIFS */
        0xFE534D42UL, /* SMB2 */
        0x00C36400UL, /* CephFS */
        0x19830326UL, /* BeeGFS */
        0x65735546UL, /* FUSE (a cluster file system's client, often) */
    };
    struct statfs sf;
    if (statfs(path, &sf) != 0)
        return 1; /* cannot tell: as if shared */
    for (size_t i = 0; i < sizeof types / sizeof *types; i++)
        if ((unsigned long)sf.f_type == types[i])
            return 1;
    return 0;
}

/* Why path (a gputrace database) may be a running process's: NULL if not.
 * A -wal with frames in it is one that a process writes, or one left by
 * processes that closed the file at the same moment (each saw the other
 * and left the checkpoint to it: a %h.db file of several processes); the
 * -shm's lock tells them apart, the -wal's age where it cannot. */
static const char *being_written(const char *path)
{
    char wal[8300];
    struct stat st;
    snprintf(wal, sizeof wal, "%s-wal", path);
    if (lstat(wal, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 32) /* no frame (WAL's header: 32 bytes) */
        return NULL;
    int held = shm_held(path);
    if (held == 0 && shared_fs(path))
        held = -1; /* no lock seen here says nothing of the other hosts' */
    if (held == 1)
        return "which a process has open";
    time_t now = time(NULL);
    return held < 0 && now - st.st_mtime < LIVE_S
               ? "which a process may still be writing (its -wal changed in the last minute)"
               : NULL;
}

static int refuse_live(const char *what, const char *why)
{
    char a[GT_PRINTABLE_LEN];
    fprintf(stderr, "gputrace record: %s is a gputrace database %s: not replaced, even with -f; wait for its run"
            " to end, or choose another -o\n", gt_printable(what, a, sizeof a), why);
    return -1;
}

static int refuse_existing(const char *what, const char *shown)
{
    char a[GT_PRINTABLE_LEN], b[GT_PRINTABLE_LEN];
    if (strcmp(what, shown))
        fprintf(stderr, "gputrace record: %s exists (a file -o %s names); use -f to replace them\n",
                gt_printable(what, a, sizeof a), gt_printable(shown, b, sizeof b));
    else
        fprintf(stderr, "gputrace record: %s exists; use -f to replace it\n", gt_printable(shown, b, sizeof b));
    return -1;
}

static int refuse_foreign(const char *shown)
{
    char a[GT_PRINTABLE_LEN];
    fprintf(stderr, "gputrace record: %s exists and is not a gputrace database: not replaced, even with -f;"
            " choose another -o\n", gt_printable(shown, a, sizeof a));
    return -1;
}

static int remove_file(const char *p)
{
    if (unlink(p) != 0 && errno != ENOENT) {
        char a[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace record: cannot remove %s: %s\n", gt_printable(p, a, sizeof a), strerror(errno));
        return -1;
    }
    return 0;
}

/* A gputrace database's side files, then the database itself: its -wal
 * may hold rows the file does not yet (a killed process). */
static int remove_db(const char *path)
{
    for (size_t k = GT_OURS_NSIDECARS; k-- > 0;) {
        char p[8192];
        snprintf(p, sizeof p, "%s%s", path, gt_ours_sidecars[k]);
        if (remove_file(p) != 0)
            return -1;
    }
    return 0;
}

/* The glob(3) pattern that finds every expansion of p (and more, which
 * gt_config_name_matches then leaves out). */
static void to_glob(const char *p, char *out, size_t len)
{
    size_t o = 0;
    for (; *p && o + 3 < len; p++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p' || p[1] == 'r')) {
            out[o++] = '*';
            p++;
            continue;
        }
        if (p[0] == '%' && p[1] == '%')
            p++;
        if (strchr("*?[]\\", *p))
            out[o++] = '\\';
        out[o++] = *p;
    }
    out[o] = 0;
}

/* Every file the pattern names: the gputrace databases among them refused
 * (or with force removed, side files first); the others left alone, and
 * counted in one line.  A side file is never looked for on its own: it
 * goes with its database, or stays. */
static int clear_pattern(const char *path, const char *shown, int force)
{
    char g[8192];
    to_glob(path, g, sizeof g);
    glob_t found;
    if (glob(g, 0, NULL, &found) != 0)
        return 0; /* GLOB_NOMATCH, or a directory we cannot read: nothing of ours there */
    int rc = 0;
    size_t others = 0;
    const char *other = NULL;
    char **ours = calloc(found.gl_pathc + 1, sizeof *ours);
    size_t nours = 0;
    if (!ours) {
        globfree(&found);
        fprintf(stderr, "gputrace record: out of memory\n");
        return -1;
    }
    /* first a look at every file, then, only if none refuses, the removal */
    for (size_t i = 0; i < found.gl_pathc && rc == 0; i++) {
        char *f = found.gl_pathv[i];
        int merged = 0;
        if (!gt_config_name_matches(path, f))
            continue;
        /* a `gputrace merge` output is no record's file, whatever its name
         * (all.db matches %h.db) */
        if (gt_ours_db_merged(f, &merged) && !merged) {
            const char *why = being_written(f);
            rc = why ? refuse_live(f, why) : force ? 0 : refuse_existing(f, shown);
            ours[nours++] = f;
        } else if (!gt_ours_sidecar_base(f)) {
            others++;
            other = f;
        }
    }
    for (size_t i = 0; i < nours && rc == 0; i++)
        rc = remove_db(ours[i]);
    if (rc == 0 && others) {
        char a[GT_PRINTABLE_LEN], b[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace record: %zu file(s) that -o %s names are not a run's gputrace databases"
                " (%s%s): left as they are\n", others, gt_printable(shown, b, sizeof b), gt_printable(other, a, sizeof a),
                others > 1 ? ", ..." : "");
    }
    free(ours);
    globfree(&found);
    return rc;
}

/* 1 for a name a process gives its file in a run directory (config.h),
 * or that file's -wal, -shm or -journal */
static int is_process_file(const char *name)
{
    char base[512];
    snprintf(base, sizeof base, "%s", name);
    size_t n = gt_ours_sidecar_base(base);
    if (n)
        base[n] = 0;
    return gt_config_name_matches(GT_RUN_DIR_FILE, base);
}

/* Whether a process's file in a run directory is ours: a gputrace
 * database, or empty (a process killed as it made its file, before
 * SQLite wrote a byte: nothing in it to lose). */
static int process_db_ours(const char *path)
{
    struct stat st;
    return gt_ours_db(path) || (lstat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0);
}

static const char *not_ours_why(const char *dir, const char *name);

/* A monitor's folder in a run directory (docs/monitor.md): 1 for
 * requests/ and window-<request>/; *files_ok: whether each entry in it is
 * what the monitor writes there. */
static int monitor_folder(const char *path, const char *name, int *files_ok)
{
    struct gt_request r;
    int requests = strcmp(name, GT_REQUESTS_DIR) == 0;
    if (!requests && (strncmp(name, "window-", 7) != 0 || gt_request_parse(name + 7, &r) != 0))
        return 0;
    *files_ok = 1;
    DIR *d = opendir(path);
    if (!d) {
        *files_ok = 0;
        return 1;
    }
    for (struct dirent *e; *files_ok && (e = readdir(d));) {
        if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
            continue;
        char p[8704];
        struct stat st;
        snprintf(p, sizeof p, "%s/%s", path, e->d_name);
        if (requests)
            *files_ok = lstat(p, &st) == 0 && S_ISREG(st.st_mode) && gt_request_parse(e->d_name, &r) == 0;
        else
            *files_ok = lstat(p, &st) == 0 && S_ISREG(st.st_mode) && not_ours_why(path, e->d_name) == NULL;
    }
    closedir(d);
    return 1;
}

/* A monitor's folder, with what is in it (monitor_folder said it is all
 * ours). */
static int remove_folder(const char *path)
{
    DIR *d = opendir(path);
    int rc = 0;
    if (d) {
        for (struct dirent *e; rc == 0 && (e = readdir(d));) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            char p[8704];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            rc = remove_file(p);
        }
        closedir(d);
    }
    if (rc == 0 && rmdir(path) != 0) {
        char a[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace record: cannot remove %s: %s\n", gt_printable(path, a, sizeof a), strerror(errno));
        rc = -1;
    }
    return rc;
}

/* What in a run directory keeps it from being replaced: NULL when the
 * entry is a process's file that is ours (process_db_ours), or a side
 * file of one, or a monitor's folder of those. */
static const char *not_ours_why(const char *dir, const char *name)
{
    char p[8192];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    struct stat st;
    int files_ok;
    if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode) && monitor_folder(p, name, &files_ok))
        return files_ok ? NULL : "a monitor's folder holding files it did not write";
    if (lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || !is_process_file(name))
        return "which none of its processes wrote";
    size_t base = gt_ours_sidecar_base(p);
    if (base)
        p[base] = 0; /* a side file goes with its database */
    if (!process_db_ours(p))
        return "which is not a gputrace database (nor a side file of one)";
    return being_written(p);
}

/* A run directory: only its processes' files in it, removed with it.  An
 * empty one is no earlier run's (a run makes its directory with its first
 * file): kept as it is, for a run directory (keep_empty), as one made
 * beforehand (mkdir -p by a job script).  keep_dir: the directory itself
 * stays (the user's symbolic link names it). */
static int clear_dir(const char *path, const char *shown, int force, int keep_empty, int keep_dir)
{
    char a[GT_PRINTABLE_LEN], b[GT_PRINTABLE_LEN];
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "gputrace record: cannot read %s: %s\n", gt_printable(shown, b, sizeof b), strerror(errno));
        return -1;
    }
    struct dirent *e;
    int rc = 0, entries = 0;
    /* first a look at everything, so that nothing is removed from a
     * directory that turns out to hold the user's own files */
    for (int pass = 0; pass < 2 && rc == 0; pass++) {
        rewinddir(d);
        while (rc == 0 && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
                continue;
            entries++;
            /* looked at again as it is removed (a file made since the first
             * look), but for a side file: it goes with its database */
            int side = gt_ours_sidecar_base(e->d_name) != 0;
            if (pass == 1 && side)
                continue; /* removed with its database (remove_db), never on its own */
            const char *why = not_ours_why(path, e->d_name);
            if (why) {
                fprintf(stderr, "gputrace record: %s exists and holds %s, %s: not replaced, even with -f; choose"
                        " another -o\n", gt_printable(shown, b, sizeof b), gt_printable(e->d_name, a, sizeof a), why);
                rc = -1;
            } else if (pass == 1) {
                char p[8192];
                struct stat st;
                snprintf(p, sizeof p, "%s/%s", path, e->d_name);
                if (lstat(p, &st) != 0)
                    continue; /* gone with its database */
                rc = S_ISDIR(st.st_mode) ? remove_folder(p) : remove_db(p);
            }
        }
        if (pass == 0 && rc == 0 && !entries && keep_empty) {
            closedir(d);
            return 0;
        }
        if (pass == 0 && rc == 0 && !force) {
            closedir(d);
            return refuse_existing(shown, shown);
        }
    }
    closedir(d);
    if (rc == 0 && !keep_dir && rmdir(path) != 0) {
        fprintf(stderr, "gputrace record: cannot remove %s: %s\n", gt_printable(shown, b, sizeof b), strerror(errno));
        rc = -1;
    }
    return rc;
}

int gt_outputs_clear(const char *path, const char *shown, enum gt_layout layout, int force)
{
    /* "run/.", "..", "link/": what they name is not what would be removed
     * and made again (rmdir of "." fails after the files are gone, and a
     * link's trailing slash names its target): refused before anything */
    const char *last = strrchr(path, '/');
    last = last ? last + 1 : path;
    if (!*last || !strcmp(last, ".") || !strcmp(last, "..")) {
        char b[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace record: -o %s: name the output without a trailing '/', '.' or '..'\n",
                gt_printable(shown, b, sizeof b));
        return -1;
    }
    if (layout == GT_LAYOUT_PATTERN)
        return clear_pattern(path, shown, force);
    /* a run directory or one file: whichever an earlier run left there
     * (the other layout included) */
    struct stat st, to;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return clear_dir(path, shown, force, layout == GT_LAYOUT_DIR, 0);
    if (S_ISLNK(st.st_mode) && layout == GT_LAYOUT_DIR && stat(path, &to) == 0 && S_ISDIR(to.st_mode))
        return clear_dir(path, shown, force, 1, 1); /* the run directory the user's link names: emptied, kept */
    if (S_ISLNK(st.st_mode)) {
        char b[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace record: %s is a symbolic link: not replaced; name its target, or another -o\n",
                gt_printable(shown, b, sizeof b));
        return -1;
    }
    if (!gt_ours_db(path))
        return refuse_foreign(shown);
    const char *why = being_written(path);
    if (why)
        return refuse_live(shown, why);
    if (!force)
        return refuse_existing(shown, shown);
    return remove_db(path);
}
