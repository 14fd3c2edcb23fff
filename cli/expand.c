/* expand.c: `gputrace expand FILE`: turns what a writer stored in bulk
 * (api_call_block, format/call_block.h; nvtx_range_block,
 * format/nvtx_block.h; cupti_api_block, format/capi_block.h;
 * gpu_op_block, format/gpu_block.h) into api_call, nvtx_range, cupti_api
 * and gpu_op rows, for SQL users; gputrace-report reads both forms and needs no expanding.  One
 * transaction: on any error nothing changes.
 *
 * The file may come from anywhere, and expanding writes to it: a trigger
 * stored in it would run on every row inserted (gputrace makes none), and
 * a view in place of a table would turn the inserts into whatever its
 * INSTEAD OF triggers do.  So a regular file only, a connection guarded
 * as format/db_guard.h says (triggers and views of the file off), a
 * file with any trigger refused, and every table read or written an
 * ordinary one; nothing is changed before these checks pass. */
#define _GNU_SOURCE
#include "format/call_block.h"
#include "format/db_guard.h"
#include "format/capi_block.h"
#include "format/gpu_block.h"
#include "cli/expand.h"
#include "format/nvtx_block.h"
#include "format/nvtx_payload_sql.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

/* One bulk table: where its blocks are, the rows they become, and how a
 * record of a block is bound to that INSERT. */
struct block_kind {
    const char *table, *insert, *what;
    int optional; /* the table may be missing (a file of an older schema) */
    const struct gt_block_layout *layout; /* of its records (format/block_codec.h) */
    void (*bind)(sqlite3_stmt *ins, sqlite3_stmt *label, int64_t process_id, const void *rec);
};

/* Binds n integers to the first n parameters of ins. */
static void bind_ints(sqlite3_stmt *ins, const int64_t *cols, int n)
{
    for (int k = 0; k < n; k++)
        sqlite3_bind_int64(ins, k + 1, cols[k]);
}

static void bind_call(sqlite3_stmt *ins, sqlite3_stmt *label, int64_t process_id, const void *rec)
{
    (void)label;
    const struct gt_call_packed r = *(const struct gt_call_packed *)rec;
    int64_t cols[] = { process_id, r.tid, r.api, r.start_ns, r.end_ns, r.stream, r.event,
                       r.bytes, r.copy_kind, r.mem_kind, r.result, r.callsite, r.call_id, r.pystack };
    bind_ints(ins, cols, (int)(sizeof cols / sizeof *cols));
}

static void bind_nvtx(sqlite3_stmt *ins, sqlite3_stmt *label, int64_t process_id, const void *rec)
{
    const struct gt_nvtx_packed r = *(const struct gt_nvtx_packed *)rec;
    int64_t cols[] = { process_id, r.tid, r.kind, r.domain, r.name, r.category, r.start_ns, r.end_ns, r.depth };
    bind_ints(ins, cols, (int)(sizeof cols / sizeof *cols));
    const char *text = NULL;
    if (label && r.payload_type == GT_NVTX_PAYLOAD_TEXT) { /* the payload is the label id of its text */
        sqlite3_reset(label);
        sqlite3_bind_int64(label, 1, process_id);
        sqlite3_bind_int64(label, 2, (int64_t)r.payload);
        if (sqlite3_step(label) == SQLITE_ROW)
            text = (const char *)sqlite3_column_text(label, 0);
    }
    gt_bind_nvtx_payload(ins, 10, r.payload_type, r.payload, text);
}

static void bind_capi(sqlite3_stmt *ins, sqlite3_stmt *label, int64_t process_id, const void *rec)
{
    (void)label;
    const struct gt_capi_packed r = *(const struct gt_capi_packed *)rec;
    int64_t cols[] = { process_id, r.domain, r.cbid, r.tid, r.start_ns, r.end_ns, r.correlation, r.result };
    bind_ints(ins, cols, (int)(sizeof cols / sizeof *cols));
}

static void bind_gpu(sqlite3_stmt *ins, sqlite3_stmt *label, int64_t process_id, const void *rec)
{
    (void)label;
    const struct gt_gpu_packed r = *(const struct gt_gpu_packed *)rec;
    int64_t cols[] = { process_id, r.kind, r.device, r.context, r.stream_id, r.name_id, r.start_ns, r.end_ns,
                       r.bytes, r.copy_kind, r.src_kind, r.dst_kind, r.correlation, r.sync_type, r.event_id };
    bind_ints(ins, cols, (int)(sizeof cols / sizeof *cols));
}

static const struct block_kind kinds[] = {
    { "api_call_block",
      "INSERT INTO api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind, mem_kind,"
      " result, callsite, call_id, pystack) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
      "call", 0, &gt_call_layout, bind_call },
    { "nvtx_range_block",
      "INSERT INTO nvtx_range(process_id, tid, kind, domain, name, category, start_ns, end_ns, depth, payload)"
      " VALUES(?,?,?,?,?,?,?,?,?,?)",
      "NVTX range", 1, &gt_nvtx_layout, bind_nvtx },
    { "cupti_api_block",
      "INSERT INTO cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)"
      " VALUES(?,?,?,?,?,?,?,?)",
      "CUPTI API record", 1, &gt_capi_layout, bind_capi },
    { "gpu_op_block",
      "INSERT INTO gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,"
      " src_kind, dst_kind, correlation, sync_type, event_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
      "GPU operation", 1, &gt_gpu_layout, bind_gpu },
};

/* Who speaks in the messages, what a failure leaves, whether success is
 * told, and what becomes of a block that cannot be read (another format,
 * or damaged): gputrace expand's own (it refuses, the user's file
 * unchanged), or gputrace merge's when it makes rows of the file it wrote
 * (the block is kept as it is, as the input held it, and said: the merge
 * loses nothing the inputs hold, and the report judges the block as it
 * would in the input). */
struct voice { const char *who, *undone; int quiet, keep_unread; };
static const struct voice as_expand = { "gputrace expand", "nothing changed", 0, 0 },
                          as_merge = { "gputrace merge", "the merged file not written", 1, 1 };

/* SQLite's message, on one line: it may quote the file's schema, newlines
 * and whatever else its author put there included. */
static const char *errmsg(sqlite3 *db)
{
    static char buf[512];
    snprintf(buf, sizeof buf, "%s", sqlite3_errmsg(db));
    for (unsigned char *c = (unsigned char *)buf; *c; c++)
        if (*c < 0x20 || *c == 0x7f)
            *c = '?';
    return buf;
}

static int fail(const struct voice *v, sqlite3 *db, const char *path, const char *what)
{
    fprintf(stderr, "%s: %s: %s: %s\n", v->who, path, what, db ? errmsg(db) : "out of memory");
    if (db) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
    }
    return 1;
}

/* Marks block rowid of the kind being expanded to be left in its table. */
static int keep_block(sqlite3 *db, sqlite3_int64 rowid)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO temp.kept_block VALUES(?)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, rowid);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

/* Turns the blocks of one kind into rows; returns 0, or 1 after saying why
 * (the caller rolls back). */
static int expand_kind(const struct voice *v, sqlite3 *db, const char *path, const struct block_kind *k,
                       sqlite3_stmt *label, long long *rows, long long *blocks)
{
    sqlite3_stmt *sel = NULL, *ins = NULL;
    char sql[96];
    snprintf(sql, sizeof sql, "SELECT process_id, format, n, data, rowid FROM %s", k->table);
    if (sqlite3_prepare_v2(db, sql, -1, &sel, NULL) != SQLITE_OK) {
        if (k->optional)
            return 0;
        fprintf(stderr, "%s: %s: not a gputrace database with %s blocks\n", v->who, path, k->what);
        return 1;
    }
    if (sqlite3_prepare_v2(db, k->insert, -1, &ins, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s: cannot insert: %s\n", v->who, path, errmsg(db));
        sqlite3_finalize(sel);
        return 1;
    }
    int rc, bad = 0;
    long long kept = 0;
    while (!bad && (rc = sqlite3_step(sel)) == SQLITE_ROW) {
        struct gt_block_cur c;
        const void *data = sqlite3_column_blob(sel, 3); /* before its size, as SQLite asks */
        int n = gt_block_open(&c, k->layout, sqlite3_column_int64(sel, 1), sqlite3_column_int64(sel, 2), data,
                              sqlite3_column_bytes(sel, 3));
        if (n < 0) {
            if (v->keep_unread) { /* left in its table: the DELETE below spares it */
                if (keep_block(db, sqlite3_column_int64(sel, 4)) != 0) {
                    fprintf(stderr, "%s: %s: cannot keep a block: %s\n", v->who, path, errmsg(db));
                    bad = 1;
                }
                kept++;
                continue;
            }
            fprintf(stderr, "%s: %s: a %s block of another format or damaged; %s\n", v->who, path, k->what,
                    v->undone);
            bad = 1;
            break;
        }
        for (int i = 0; i < n && !bad; i++) {
            union { /* a record of any of the kinds */
                struct gt_call_packed call;
                struct gt_nvtx_packed nvtx;
                struct gt_capi_packed capi;
                struct gt_gpu_packed gpu;
            } rec;
            gt_block_next(&c, &rec);
            k->bind(ins, label, sqlite3_column_int64(sel, 0), &rec);
            if (sqlite3_step(ins) != SQLITE_DONE) {
                fprintf(stderr, "%s: %s: cannot insert: %s\n", v->who, path, errmsg(db));
                bad = 1;
            }
            sqlite3_reset(ins);
            (*rows)++;
        }
        (*blocks)++;
    }
    if (!bad && rc != SQLITE_DONE) {
        fprintf(stderr, "%s: %s: cannot read the %s blocks: %s\n", v->who, path, k->what, errmsg(db));
        bad = 1;
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    if (bad)
        return 1;
    if (kept)
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE rowid NOT IN (SELECT r FROM temp.kept_block)", k->table);
    else
        snprintf(sql, sizeof sql, "DELETE FROM %s", k->table);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(db, "DELETE FROM temp.kept_block", NULL, NULL, NULL) != SQLITE_OK) {
        fprintf(stderr, "%s: %s: cannot finish: %s\n", v->who, path, errmsg(db));
        return 1;
    }
    if (kept)
        fprintf(stderr, "%s: %s: %lld %s block(s) of another format or damaged: kept as they are, not made"
                        " rows\n", v->who, path, kept, k->what);
    return 0;
}

/* Every table expand reads or writes. */
static const char *const expand_tables[] = { "api_call_block", "nvtx_range_block", "cupti_api_block", "gpu_op_block",
                                             "api_call", "nvtx_range", "cupti_api", "gpu_op", "label", NULL };

/* 0 if the file holds nothing of its own that expanding would run; else
 * -1 after one line saying what. */
static int refuse_untrusted(const struct voice *v, sqlite3 *db, const char *path)
{
    char why[512];
    int n = gt_guard_triggers(db, why, sizeof why);
    if (n < 0) {
        fprintf(stderr, "%s: %s: cannot read the schema: %s\n", v->who, path, errmsg(db));
        return -1;
    }
    if (n > 0) {
        fprintf(stderr, "%s: %s: it has a trigger (%s), which gputrace never makes and expanding would"
                        " run: %s (DROP TRIGGER it first if it is yours)\n", v->who, path, why, v->undone);
        return -1;
    }
    if (gt_guard_tables(db, expand_tables, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s: not a gputrace database (%s): %s\n", v->who, path, why, v->undone);
        return -1;
    }
    return 0;
}

static int expand(const char *path, const struct voice *v);

int gt_expand(const char *path)
{
    return expand(path, &as_expand);
}

int gt_expand_quiet(const char *path)
{
    return expand(path, &as_merge);
}

static int expand(const char *path, const struct voice *v)
{
    sqlite3 *db = NULL;
    char why[512];
    if (gt_guard_regular(path, why, sizeof why) != 0) {
        fprintf(stderr, "%s: %s\n", v->who, why);
        return 1;
    }
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return fail(v, db, path, "cannot open");
    gt_guard_connection(db);
    sqlite3_busy_timeout(db, 10000);
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(v, db, path, "cannot lock");
    if (refuse_untrusted(v, db, path) != 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
        return 1;
    }
    if (sqlite3_exec(db, "CREATE TEMP TABLE kept_block(r INTEGER PRIMARY KEY)", NULL, NULL, NULL) != SQLITE_OK)
        return fail(v, db, path, "cannot begin");
    sqlite3_stmt *label = NULL;
    sqlite3_prepare_v2(db, "SELECT value FROM label WHERE process_id = ? AND id = ?", -1, &label, NULL);
    enum { NKINDS = sizeof kinds / sizeof *kinds };
    long long rows[NKINDS] = { 0 }, blocks[NKINDS] = { 0 };
    for (size_t k = 0; k < NKINDS; k++)
        if (expand_kind(v, db, path, &kinds[k], label, &rows[k], &blocks[k]) != 0) {
            sqlite3_finalize(label);
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            sqlite3_close(db);
            return 1;
        }
    sqlite3_finalize(label);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(v, db, path, "cannot finish");
    sqlite3_close(db);
    if (!v->quiet)
        printf("gputrace expand: %s: %lld calls from %lld blocks are now api_call rows, %lld NVTX ranges and marks from"
           " %lld blocks nvtx_range rows, %lld CUPTI API records from %lld blocks cupti_api rows, %lld GPU operations"
           " from %lld blocks gpu_op rows\n", path, rows[0], blocks[0], rows[1], blocks[1], rows[2], blocks[2], rows[3],
           blocks[3]);
    return 0;
}
