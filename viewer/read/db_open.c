/* db_open.c: a database given to the report, opened as untrusted input.
 *
 * Anything can be named on the command line: a FIFO (whose open would wait
 * for a writer forever), a file whose schema was written by someone else
 * (views and triggers that run whatever SQL they hold; an api_call that is
 * an endless recursive view).  So: a regular file only; read-only, in
 * SQLite's defensive mode with the schema not trusted and the file's views
 * and triggers off (format/db_guard.h); every table the report reads
 * an ordinary table; and a progress handler as a watchdog over the opening
 * (the schema parsed, the checks, the version read), the one part of the
 * report whose cost does not grow with the rows it reads. */
#include "viewer/read/db_open.h"
#include "format/db_guard.h"
#include "format/schema.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

/* Every table the report reads (FROM and JOIN in viewer/). */
static const char *const report_tables[] = {
    "meta", "api", "process", "api_call", "api_call_block", "inflight", "collective", "gpu_op", "gpu_op_block",
    "cupti_api", "cupti_api_block", "ext_corr", "string", "callsite", "pystack", "label", "nvtx_range",
    "nvtx_range_block", NULL
};

/* Opening a file of ours takes milliseconds; a schema built to be slow to
 * parse or check is given up on after this long. */
#define OPEN_WATCHDOG_S 10

static int past_deadline(void *deadline)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec >= *(const time_t *)deadline;
}

static int open_guarded(const char *path, sqlite3 **out)
{
    /* one thread reads: no SQLite mutex taken on every column read */
    if (sqlite3_open_v2(path, out, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK)
        return -1;
    gt_guard_connection(*out);
    sqlite3_busy_timeout(*out, 5000);
    /* a damaged page's cells checked to lie inside it when the page is
     * first read: unchecked, SQLite decodes a cell whose offset points past
     * the page from the bytes that follow its buffer in memory, which
     * differ from one run to the next (the allocator's addresses), so the
     * same damage read as an error in one run and as no rows in another
     * (1 run in about 20 named another damaged file) */
    sqlite3_exec(*out, "PRAGMA cell_size_check = ON", NULL, NULL, NULL);
    return 0;
}

int model_open_again(const char *path, sqlite3 **out)
{
    if (open_guarded(path, out) == 0)
        return 0;
    sqlite3_close(*out);
    *out = NULL;
    return -1;
}

static int check_db(const char *path, sqlite3 *db, char *err, size_t errlen)
{
    char why[256];
    if (gt_guard_tables(db, report_tables, why, sizeof why) != 0) {
        /* a rollback journal beside it: a write that did not finish (an
         * import killed in its transaction: the tracer writes in WAL),
         * which only a writer can play back */
        char journal[PATH_MAX + 16];
        struct stat js;
        snprintf(journal, sizeof journal, "%s-journal", path);
        if (stat(journal, &js) == 0 && S_ISREG(js.st_mode) && js.st_size > 0)
            snprintf(err, errlen, "%s: a write to it did not finish (%s is there): not read; import it again"
                     " (gputrace import -f)", path, journal);
        else
            snprintf(err, errlen, "%s: not a gputrace database (%s)", path, why);
        return -1;
    }
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &s, NULL) != SQLITE_OK) {
        const char *msg = sqlite3_errmsg(db);
        if (strstr(msg, "no such table"))
            snprintf(err, errlen, "%s: not a gputrace database (no meta table)", path);
        else
            snprintf(err, errlen, "%s: not a gputrace database (%s)", path, msg);
        return -1;
    }
    int version = -1, rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
        version = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    if (rc == SQLITE_INTERRUPT) {
        snprintf(err, errlen, "%s: took more than %d s to open: not read", path, OPEN_WATCHDOG_S);
        return -1;
    }
    if (version < GT_SCHEMA_OLDEST_READ || version > GT_SCHEMA_VERSION) {
        snprintf(err, errlen, "%s: schema version %d; this gputrace-report reads versions %d to %d", path, version,
                 GT_SCHEMA_OLDEST_READ, GT_SCHEMA_VERSION);
        return -1;
    }
    return 0;
}

int model_open_db(const char *path, sqlite3 **out, char *err, size_t errlen)
{
    if (gt_guard_regular(path, err, errlen) != 0)
        return -1;
    if (open_guarded(path, out) != 0) {
        snprintf(err, errlen, "%s: cannot open: %s", path, *out ? sqlite3_errmsg(*out) : "out of memory");
        return -1;
    }
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    time_t deadline = now.tv_sec + OPEN_WATCHDOG_S;
    sqlite3_progress_handler(*out, 10000, past_deadline, &deadline);
    int rc = check_db(path, *out, err, errlen);
    sqlite3_progress_handler(*out, 0, NULL, NULL);
    return rc;
}

/* A file of no tables is at most a page: 64 KiB, SQLite's largest. */
#define NO_TABLES_MAX_BYTES 65536

int model_db_holds_nothing(const char *path, char *why, size_t whylen)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0; /* model_open_db says what is wrong with it */
    if (st.st_size == 0) {
        snprintf(why, whylen, "empty");
        return 1;
    }
    if (st.st_size > NO_TABLES_MAX_BYTES)
        return 0;
    sqlite3 *db;
    int none = 0;
    if (open_guarded(path, &db) == 0) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &s, NULL) == SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            none = sqlite3_column_int(s, 0) == 0;
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    if (none)
        snprintf(why, whylen, "no table in it");
    return none;
}

int model_db_is_merge(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 0;
    sqlite3 *db;
    int merged = 0;
    if (open_guarded(path, &db) == 0) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(db, "SELECT EXISTS(SELECT 1 FROM meta WHERE key = 'merged')", -1, &s, NULL) ==
                SQLITE_OK &&
            sqlite3_step(s) == SQLITE_ROW)
            merged = sqlite3_column_int(s, 0) == 1;
        sqlite3_finalize(s);
    }
    sqlite3_close(db);
    return merged;
}
