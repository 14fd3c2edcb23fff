/* ours.c: what `gputrace record -f` and `gputrace import -f` may remove:
 * a gputrace database, told by its content, and the side files of one.
 * A name proves nothing (a pattern's %h matches any name; a user's
 * accounts-2024.db has the shape of a process's file), so each file is
 * opened and its meta table read, read only.
 *
 * Reading must change nothing.  An SQLite file in WAL mode opened read
 * only still makes its -wal and -shm, and leaves them: so the file is
 * first read as immutable (no lock, no side file, no WAL), which sees every
 * database whose writer ended; only when that says no and a -wal is there
 * (a process killed before its last checkpoint keeps its first rows in
 * it) is it read again with its WAL, and any side file that this second
 * read made is removed after it.  The schema of a file that is not ours
 * is not trusted: defensive mode, no schema functions, and the meta table
 * must be a table (not a view that runs SQL). */
#define _GNU_SOURCE
#include "format/ours.h"

#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const gt_ours_sidecars[GT_OURS_NSIDECARS] = { "", "-wal", "-shm", "-journal" };

/* Whether path is a regular file that starts as every SQLite file does. */
static int sqlite_header(const char *path)
{
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char head[16];
    ssize_t n = read(fd, head, sizeof head);
    close(fd);
    return n == (ssize_t)sizeof head && !memcmp(head, "SQLite format 3", 16);
}

/* A bound on what one look may cost: a hostile file's meta table can be
 * huge; ours holds a few rows. */
static int on_progress(void *arg)
{
    return ++*(int *)arg > 1000;
}

/* 1 when the file's meta table says gputrace wrote it, read as the URI
 * parameters say; and whether its meta holds key (*has, if asked). */
static int meta_says_ours(const char *path, const char *params, const char *key, int *has)
{
    char uri[8300];
    size_t u = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const char *p = path; *p && u + 8 < sizeof uri; p++)
        u += (size_t)(strchr("%?#", *p) ? snprintf(uri + u, sizeof uri - u, "%%%02X", (unsigned char)*p)
                                          : snprintf(uri + u, sizeof uri - u, "%c", *p));
    if (u + strlen(params) + 2 >= sizeof uri)
        return 0;
    snprintf(uri + u, sizeof uri - u, "?%s", params);
    sqlite3 *db = NULL;
    int ours = 0, steps = 0;
    if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK) {
        sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
        sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
        sqlite3_progress_handler(db, 1000, on_progress, &steps);
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(db, "SELECT (SELECT type FROM sqlite_master WHERE name = 'meta') = 'table'", -1, &st,
                               NULL) == SQLITE_OK) {
            ours = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
            sqlite3_finalize(st);
        }
        if (ours && sqlite3_prepare_v2(db, "SELECT EXISTS(SELECT 1 FROM meta WHERE key = 'schema_version') AND"
                                           " EXISTS(SELECT 1 FROM meta WHERE key = 'writer' AND value LIKE 'gputrace%')",
                                       -1, &st, NULL) == SQLITE_OK) {
            ours = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
            sqlite3_finalize(st);
        } else {
            ours = 0;
        }
        if (ours && has &&
            sqlite3_prepare_v2(db, "SELECT EXISTS(SELECT 1 FROM meta WHERE key = ?)", -1, &st, NULL) == SQLITE_OK) {
            sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
            *has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
            sqlite3_finalize(st);
        }
        /* a merge output made before merge marked it: several processes,
         * every record a row (a run's file keeps blocks, at the defaults) */
        if (ours && has && !*has && !strcmp(key, "merged") &&
            sqlite3_prepare_v2(db, "SELECT (SELECT count(*) FROM process) > 1 AND NOT EXISTS(SELECT 1 FROM api_call_block)"
                                   " AND NOT EXISTS(SELECT 1 FROM gpu_op_block) AND NOT EXISTS(SELECT 1 FROM cupti_api_block)",
                               -1, &st, NULL) == SQLITE_OK) {
            *has = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
            sqlite3_finalize(st);
        }
    }
    sqlite3_close(db);
    return ours;
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

int gt_ours_db(const char *path)
{
    return gt_ours_db_mark(path, NULL, NULL);
}

int gt_ours_db_merged(const char *path, int *merged)
{
    return gt_ours_db_mark(path, "merged", merged);
}

int gt_ours_db_mark(const char *path, const char *key, int *has)
{
    if (has)
        *has = 0;
    if (!sqlite_header(path))
        return 0;
    char wal[8300], shm[8300];
    snprintf(wal, sizeof wal, "%s-wal", path);
    snprintf(shm, sizeof shm, "%s-shm", path);
    /* (the file alone, as it is on disk; a key asked for and not there may
     * be in the -wal still, which only a read through it sees) */
    if (meta_says_ours(path, "mode=ro&immutable=1", key, has) && (!has || *has || !exists(wal)))
        return 1;
    if (!exists(wal))
        return 0;
    int had_shm = exists(shm);
    int ours = meta_says_ours(path, "mode=ro", key, has);
    if (!had_shm)
        unlink(shm); /* made by the read above, not by anyone else */
    return ours;
}

size_t gt_ours_sidecar_base(const char *name)
{
    size_t n = strlen(name);
    for (size_t k = 1; k < GT_OURS_NSIDECARS; k++) {
        size_t sn = strlen(gt_ours_sidecars[k]);
        if (n > sn && !strcmp(name + n - sn, gt_ours_sidecars[k]))
            return n - sn;
    }
    return 0;
}

int gt_ours_file(const char *path)
{
    size_t base = gt_ours_sidecar_base(path);
    if (!base)
        return gt_ours_db(path);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    char main_file[8300];
    if (base >= sizeof main_file)
        return 0;
    memcpy(main_file, path, base);
    main_file[base] = 0;
    return gt_ours_db(main_file);
}
