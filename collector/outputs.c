/* outputs.c: before a run, `gputrace record` looks for what an earlier run
 * with the same -o left: a run directory and its databases, one database,
 * or every file a %h/%p/%r pattern can name, each with its -wal, -shm and
 * -journal.  Without -f any of them is refused, so that runs never pile up
 * in the same files; with -f they are removed.  Nothing else is ever
 * removed: a directory holding anything but its processes' files
 * (<host>-<pid>.db and their -wal...) is refused even with -f. */
#define _GNU_SOURCE
#include "collector/outputs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const sidecars[] = { "", "-wal", "-shm", "-journal" };
#define NSIDECARS (sizeof sidecars / sizeof *sidecars)

static int refuse_existing(const char *what, const char *shown)
{
    if (strcmp(what, shown))
        fprintf(stderr, "gputrace record: %s exists (a file -o %s names); use -f to replace them\n", what, shown);
    else
        fprintf(stderr, "gputrace record: %s exists; use -f to replace it\n", shown);
    return -1;
}

static int remove_file(const char *p)
{
    if (unlink(p) != 0 && errno != ENOENT) {
        fprintf(stderr, "gputrace record: cannot remove %s: %s\n", p, strerror(errno));
        return -1;
    }
    return 0;
}

/* 1 when s is a name pattern p expands to: %h is a host name (no '/'),
 * %p and %r are numbers, %% is '%' (gt_config_expand_output). */
static int matches(const char *p, const char *s)
{
    for (;; p++, s++) {
        if (p[0] == '%' && (p[1] == 'h' || p[1] == 'p' || p[1] == 'r')) {
            int host = p[1] == 'h';
            /* one character at least, then every way of ending the field */
            for (const char *e = s; *e && (host ? *e != '/' : isdigit((unsigned char)*e));) {
                e++;
                if (matches(p + 2, e))
                    return 1;
            }
            return 0;
        }
        if (p[0] == '%' && p[1] == '%')
            p++;
        if (*p != *s)
            return 0;
        if (!*p)
            return 1;
    }
}

/* The glob(3) pattern that finds every expansion of p (and more, which
 * `matches` then leaves out). */
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

static int clear_pattern(const char *path, const char *shown, int force)
{
    char g[8192];
    to_glob(path, g, sizeof g - 16);
    size_t base = strlen(g);
    int rc = 0;
    for (size_t k = 0; k < NSIDECARS && rc == 0; k++) {
        snprintf(g + base, sizeof g - base, "%s", sidecars[k]);
        glob_t found;
        if (glob(g, 0, NULL, &found) != 0)
            continue; /* GLOB_NOMATCH, or a directory we cannot read: nothing of ours there */
        for (size_t i = 0; i < found.gl_pathc && rc == 0; i++) {
            char *f = found.gl_pathv[i];
            size_t n = strlen(f), sn = strlen(sidecars[k]);
            char keep = f[n - sn];
            f[n - sn] = 0;
            int ours = matches(path, f);
            f[n - sn] = keep;
            if (!ours)
                continue;
            struct stat st;
            if (lstat(f, &st) == 0 && S_ISDIR(st.st_mode)) {
                fprintf(stderr, "gputrace record: %s is a directory, not a file %s names; not removed\n", f, shown);
                rc = -1;
            } else if (!force) {
                rc = refuse_existing(f, shown);
            } else {
                rc = remove_file(f);
            }
        }
        globfree(&found);
    }
    return rc;
}

/* 1 for a name a process gives its file in a run directory (config.h),
 * or that file's -wal, -shm or -journal */
static int is_process_file(const char *name)
{
    char base[512];
    snprintf(base, sizeof base, "%s", name);
    size_t n = strlen(base);
    for (size_t k = 1; k < NSIDECARS; k++) {
        size_t sn = strlen(sidecars[k]);
        if (n > sn && !strcmp(base + n - sn, sidecars[k])) {
            base[n - sn] = 0;
            break;
        }
    }
    return matches(GT_RUN_DIR_FILE, base);
}

/* A run directory: only its processes' files in it, removed with it.  An
 * empty one is no earlier run's (a run makes its directory with its first
 * file): kept as it is, for a run directory (keep_empty), as one made
 * beforehand (mkdir -p by a job script). */
static int clear_dir(const char *path, const char *shown, int force, int keep_empty)
{
    DIR *d = opendir(path);
    if (!d) {
        fprintf(stderr, "gputrace record: cannot read %s: %s\n", shown, strerror(errno));
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
            char p[8192];
            snprintf(p, sizeof p, "%s/%s", path, e->d_name);
            struct stat st;
            if (pass == 0 && (lstat(p, &st) != 0 || !S_ISREG(st.st_mode) || !is_process_file(e->d_name))) {
                fprintf(stderr, "gputrace record: %s exists and holds %s, which none of its processes wrote: not"
                        " replaced; choose another -o\n", shown, e->d_name);
                rc = -1;
            } else if (pass == 1) {
                rc = remove_file(p);
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
    if (rc == 0 && rmdir(path) != 0) {
        fprintf(stderr, "gputrace record: cannot remove %s: %s\n", shown, strerror(errno));
        rc = -1;
    }
    return rc;
}

int gt_outputs_clear(const char *path, const char *shown, enum gt_layout layout, int force)
{
    if (layout == GT_LAYOUT_PATTERN)
        return clear_pattern(path, shown, force);
    /* a run directory or one file: whichever an earlier run left there
     * (the other layout included) */
    struct stat st;
    if (lstat(path, &st) != 0)
        return 0;
    if (S_ISDIR(st.st_mode))
        return clear_dir(path, shown, force, layout == GT_LAYOUT_DIR);
    if (!force)
        return refuse_existing(shown, shown);
    for (size_t k = 0; k < NSIDECARS; k++) {
        char p[8192];
        snprintf(p, sizeof p, "%s%s", path, sidecars[k]);
        if (remove_file(p) != 0)
            return -1;
    }
    return 0;
}
