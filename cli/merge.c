/* merge.c: `gputrace merge OUT.db RUN`: one SQLite file from a run
 * directory's (or any) databases, for those who query a run with sqlite3
 * or pandas.  A run is written one file per process so that no process
 * waits for another's lock (config.h); the report reads them together, so
 * merging is only ever for people's own queries: so what the tracer
 * stored in bulk blocks is made rows in the output (expand.c), and
 * api_call, gpu_op and the views hold every record.
 *
 * The output is made with our own schema, and only our tables' columns
 * are copied from each input: nothing of an input's schema (a trigger, a
 * view) is carried over or run.  Every table's process_id, and process.id,
 * move up by the processes already merged; the rest of each process's ids
 * (strings, call sites, calls) are scoped by process and stay.  meta, run
 * and api are the same in every file of one version: kept once, and an
 * api table that disagrees (another tracer version) is refused. */
#define _GNU_SOURCE
#include "cli/merge.h"
#include "cli/expand.h"

#include "format/schema.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(sqlite3 *db, const char *what, const char *path)
{
    fprintf(stderr, "gputrace merge: %s%s%s: %s\n", path ? path : "", path ? ": " : "", what,
            db ? sqlite3_errmsg(db) : "out of memory");
    return 1;
}

static int64_t one_i64(sqlite3 *db, const char *sql)
{
    sqlite3_stmt *s;
    int64_t v = -1;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
        v = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return v;
}

/* INSERT INTO main.t SELECT ... FROM s.t over the columns both have. */
static int copy_table(sqlite3 *db, const char *t, int64_t off, const char *path)
{
    sqlite3_stmt *s;
    char sql[8192], cols[4096] = "", sel[4096] = "";
    size_t c = 0, e = 0;
    if (sqlite3_prepare_v2(db, "SELECT m.name FROM pragma_table_info(?1, 'main') m"
                               " JOIN pragma_table_info(?1, 's') i ON i.name = m.name ORDER BY m.cid",
                           -1, &s, NULL) != SQLITE_OK)
        return fail(db, "cannot read its columns", path);
    sqlite3_bind_text(s, 1, t, -1, SQLITE_STATIC);
    int shifted = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        const char *col = (const char *)sqlite3_column_text(s, 0);
        int moves = !strcmp(col, "process_id") || (!strcmp(t, "process") && !strcmp(col, "id"));
        shifted |= moves;
        c += (size_t)snprintf(cols + c, sizeof cols - c, "%s\"%s\"", c ? "," : "", col);
        if (moves)
            e += (size_t)snprintf(sel + e, sizeof sel - e, "%s\"%s\" + %lld", e ? "," : "", col, (long long)off);
        else
            e += (size_t)snprintf(sel + e, sizeof sel - e, "%s\"%s\"", e ? "," : "", col);
        if (c >= sizeof cols || e >= sizeof sel)
            break;
    }
    sqlite3_finalize(s);
    if (!c)
        return 0; /* an older file without this table */
    snprintf(sql, sizeof sql, "INSERT %s INTO main.\"%s\"(%s) SELECT %s FROM s.\"%s\"", shifted ? "" : "OR IGNORE", t, cols,
             sel, t);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) {
        char what[200];
        snprintf(what, sizeof what, "cannot copy %s", t);
        return fail(db, what, path);
    }
    return 0;
}

static int merge_one(sqlite3 *db, const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
        fprintf(stderr, "gputrace merge: %s: %s\n", path, errno ? strerror(errno) : "not a file");
        return 1;
    }
    /* read only, as a URI: what would end it (? #) and its escape (%) escaped */
    char uri[16384];
    size_t u = (size_t)snprintf(uri, sizeof uri, "file:");
    for (const char *p = path; *p && u + 8 < sizeof uri; p++)
        u += (size_t)(strchr("%?#", *p) ? snprintf(uri + u, sizeof uri - u, "%%%02X", (unsigned char)*p)
                                          : snprintf(uri + u, sizeof uri - u, "%c", *p));
    snprintf(uri + u, sizeof uri - u, "?mode=ro");
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "ATTACH ?1 AS s", -1, &s, NULL) != SQLITE_OK)
        return fail(db, "cannot attach", path);
    sqlite3_bind_text(s, 1, uri, -1, SQLITE_STATIC);
    int rc = sqlite3_step(s);
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
        return fail(db, "cannot open", path);
    int bad = 0;
    if (one_i64(db, "SELECT count(*) FROM s.sqlite_master WHERE type = 'table' AND name = 'process'") != 1) {
        fprintf(stderr, "gputrace merge: %s: not a gputrace database (no process table)\n", path);
        bad = 1;
    } else if (one_i64(db, "SELECT count(*) FROM s.sqlite_master WHERE type = 'table' AND name = 'meta'") != 1 ||
               one_i64(db, "SELECT count(*) FROM s.meta WHERE key = 'schema_version'") != 1) {
        /* without it nothing says gputrace wrote the file, nor in which
         * version: not "another version" (the first input's own may be
         * missing too) */
        fprintf(stderr, "gputrace merge: %s: not a gputrace database (no meta table with a schema_version)\n", path);
        bad = 1;
    } else if (one_i64(db, "SELECT count(*) FROM s.meta i JOIN main.meta m ON m.key = i.key"
                           " WHERE i.key = 'schema_version' AND i.value IS NOT m.value") != 0) {
        fprintf(stderr, "gputrace merge: %s: another schema version than the first input's\n", path);
        bad = 1;
    }
    /* one transaction per input: an attached database cannot be detached
     * inside one */
    if (!bad && sqlite3_exec(db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        bad = fail(db, "cannot begin", path);
    int64_t off = one_i64(db, "SELECT coalesce(max(id), 0) FROM main.process");
    if (sqlite3_prepare_v2(db, "SELECT m.name FROM main.sqlite_master m JOIN s.sqlite_master i ON i.name = m.name"
                               " AND i.type = 'table' WHERE m.type = 'table' ORDER BY m.name",
                           -1, &s, NULL) != SQLITE_OK)
        bad = fail(db, "cannot list its tables", path);
    while (!bad && sqlite3_step(s) == SQLITE_ROW)
        bad = copy_table(db, (const char *)sqlite3_column_text(s, 0), off, path);
    sqlite3_finalize(s);
    if (!bad && one_i64(db, "SELECT count(*) FROM s.api a LEFT JOIN main.api b ON b.id = a.id AND b.name = a.name"
                            " WHERE b.id IS NULL") != 0) {
        fprintf(stderr, "gputrace merge: %s: written by another gputrace version (its api ids differ)\n", path);
        bad = 1;
    }
    if (!bad && sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        bad = fail(db, "cannot finish", path);
    sqlite3_exec(db, "DETACH s", NULL, NULL, NULL);
    return bad;
}

/* Whether OUT names a file that exists: OUT itself, or the file it names
 * as SQLite reads it (the output is opened with URIs allowed, for the
 * inputs' read-only ATTACH: "file:/x/m.db" names /x/m.db). */
static int exists(const char *out)
{
    struct stat st;
    if (lstat(out, &st) == 0)
        return 1;
    sqlite3 *probe = NULL;
    int rc = sqlite3_open_v2(out, &probe, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
    const char *fn = rc == SQLITE_OK ? sqlite3_db_filename(probe, "main") : NULL;
    int there = fn && *fn && lstat(fn, &st) == 0;
    sqlite3_close(probe);
    return there;
}

/* The merged file rewritten without the pages its emptied block tables
 * left free: a quarter of the file where the tracer stored blocks (docs/
 * schema.md has the figures).  A failure here leaves the file whole
 * (VACUUM is one transaction): said, not fatal. */
static void compact(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "PRAGMA synchronous=OFF; VACUUM", NULL, NULL, NULL) != SQLITE_OK)
        fprintf(stderr, "gputrace merge: %s: not compacted (%s); the file is complete\n", path,
                db ? sqlite3_errmsg(db) : "out of memory");
    sqlite3_close(db);
}

int gt_merge(const char *out, char *const *inputs, int n)
{
    if (exists(out)) {
        fprintf(stderr, "gputrace merge: %s exists; name a new file\n", out);
        return 1;
    }
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(out, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_URI, NULL) != SQLITE_OK) {
        fail(db, "cannot create", out);
        sqlite3_close(db);
        return 1;
    }
    int bad = 0;
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
    if (sqlite3_exec(db, "PRAGMA page_size=16384; PRAGMA synchronous=OFF", NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, gt_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, gt_schema_late_sql, NULL, NULL, NULL) != SQLITE_OK)
        bad = fail(db, "cannot create the tables", out);
    for (int k = 0; k < n && !bad; k++)
        bad = merge_one(db, inputs[k]);
    /* marked as a merge's output: `gputrace record -f` removes only what a
     * record wrote (a pattern's %h.db names all.db too: format/ours.h) */
    if (!bad && sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('merged', 'gputrace merge')", NULL, NULL, NULL) !=
                    SQLITE_OK)
        bad = fail(db, "cannot mark the output", out);
    /* the file's own name (OUT may be a URI, which SQLite was told to read) */
    char path[4096];
    const char *fn = sqlite3_db_filename(db, "main");
    snprintf(path, sizeof path, "%s", fn && *fn ? fn : out);
    sqlite3_close(db);
    if (!bad)
        bad = gt_expand_quiet(path);
    if (bad) {
        unlink(path);
        return 1;
    }
    compact(path);
    printf("gputrace merge: %d database(s) into %s\n", n, out);
    return 0;
}
