/* api_table.c: the api table's rows (api_table.h).  A row that is there
 * already is kept: a process that appends to a file (an exec keeps its
 * pid and file) finds the table filled. */
#include "format/api_table.h"
#include "format/api_ids.h"

#include <stddef.h>

static const char *const names[GT_API_COUNT] = {
#define X(name, cls, flags) [GT_API_##name] = #name,
    GT_API_LIST(X)
#undef X
};

const char *gt_api_table_name(int api)
{
    return api >= 0 && api < GT_API_COUNT ? names[api] : NULL;
}

int gt_api_table_fill(sqlite3 *db)
{
    sqlite3_stmt *st;
    int rc = sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO api(id, name, class) VALUES(?,?,?)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;
#define X(name, cls, flags)                                                            \
    if (rc == SQLITE_OK) {                                                             \
        sqlite3_bind_int(st, 1, GT_API_##name);                                        \
        sqlite3_bind_text(st, 2, #name, -1, SQLITE_STATIC);                            \
        sqlite3_bind_text(st, 3, #cls, -1, SQLITE_STATIC);                             \
        rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);        \
        sqlite3_reset(st);                                                             \
    }
    GT_API_LIST(X)
#undef X
    sqlite3_finalize(st);
    return rc;
}
