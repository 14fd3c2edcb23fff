/* expand.c: `gputrace expand FILE`: turns the calls a writer stored in bulk
 * (api_call_block, collector/call_block.h) into api_call rows, for SQL
 * users; gputrace-report reads both and needs no expanding.  One
 * transaction: on any error nothing changes. */
#define _GNU_SOURCE
#include "collector/call_block.h"
#include "collector/expand.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

static int fail(sqlite3 *db, const char *path, const char *what)
{
    fprintf(stderr, "gputrace expand: %s: %s: %s\n", path, what, db ? sqlite3_errmsg(db) : "out of memory");
    if (db) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        sqlite3_close(db);
    }
    return 1;
}

int gt_expand(const char *path)
{
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
        return fail(db, path, "cannot open");
    sqlite3_busy_timeout(db, 10000);
    sqlite3_stmt *sel = NULL, *ins = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, path, "cannot lock");
    if (sqlite3_prepare_v2(db, "SELECT process_id, format, n, data FROM api_call_block", -1, &sel, NULL) != SQLITE_OK)
        return fail(db, path, "not a gputrace database with call blocks");
    if (sqlite3_prepare_v2(db, "INSERT INTO api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes,"
                               " copy_kind, mem_kind, result, callsite, call_id, pystack)"
                               " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &ins, NULL) != SQLITE_OK) {
        sqlite3_finalize(sel);
        return fail(db, path, "cannot insert");
    }
    long long rows = 0, blocks = 0;
    int rc;
    while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
        const void *data = sqlite3_column_blob(sel, 3);
        int n = sqlite3_column_int(sel, 2);
        if (!gt_call_block_valid(sqlite3_column_int(sel, 1), n, data, sqlite3_column_bytes(sel, 3))) {
            sqlite3_finalize(sel);
            sqlite3_finalize(ins);
            fprintf(stderr, "gputrace expand: %s: a call block of another format or damaged; nothing changed\n", path);
            sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
            sqlite3_close(db);
            return 1;
        }
        for (int i = 0; i < n; i++) {
            struct gt_call_packed r = gt_call_block_row(data, i);
            int64_t cols[] = { sqlite3_column_int64(sel, 0), r.tid, r.api, r.start_ns, r.end_ns, r.stream, r.event,
                               r.bytes, r.copy_kind, r.mem_kind, r.result, r.callsite, r.call_id, r.pystack };
            for (int k = 0; k < 14; k++)
                sqlite3_bind_int64(ins, k + 1, cols[k]);
            if (sqlite3_step(ins) != SQLITE_DONE) {
                sqlite3_finalize(sel);
                sqlite3_finalize(ins);
                return fail(db, path, "cannot insert");
            }
            sqlite3_reset(ins);
            rows++;
        }
        blocks++;
    }
    sqlite3_finalize(sel);
    sqlite3_finalize(ins);
    if (rc != SQLITE_DONE || sqlite3_exec(db, "DELETE FROM api_call_block; COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        return fail(db, path, "cannot finish");
    sqlite3_close(db);
    printf("gputrace expand: %s: %lld calls from %lld blocks are now api_call rows\n", path, rows, blocks);
    return 0;
}
