/* db_batch.c: multi-row INSERTs for the tables written at the highest
 * rates (see db_batch.h). */
#include "collector/db.h"

#include <stdio.h>
#include <string.h>

static const enum gt_stmt single[GT_BATCH_COUNT] = {
    [GT_BATCH_CALL] = GT_ST_CALL,
    [GT_BATCH_GPU] = GT_ST_GPU,
    [GT_BATCH_CUPTI_API] = GT_ST_CUPTI_API,
    [GT_BATCH_EXT] = GT_ST_EXT,
};

static int kind_of(enum gt_stmt s)
{
    for (int k = 0; k < GT_BATCH_COUNT; k++)
        if (single[k] == s)
            return k;
    return -1;
}

/* The multi-row form of a prepared one-row INSERT ("... VALUES(?,?,?)"):
 * its text up to VALUES, then the row's tuple GT_BATCH_ROWS times. */
static int prepare_one(struct gt_db *d, struct gt_row_batch *b, sqlite3_stmt *one)
{
    const char *sql = sqlite3_sql(one);
    const char *tuple = sql ? strstr(sql, "VALUES(") : NULL;
    if (!tuple)
        return -1;
    tuple += strlen("VALUES");
    int vars = sqlite3_bind_parameter_count(one);
    if (vars < 2 || vars - 1 > GT_BATCH_COLS)
        return -1;
    size_t head = (size_t)(tuple - sql), row = strlen(tuple);
    char text[GT_BATCH_ROWS * (2 * (GT_BATCH_COLS + 1) + 2) + 512];
    if (head + GT_BATCH_ROWS * (row + 1) >= sizeof text)
        return -1;
    memcpy(text, sql, head);
    size_t o = head;
    for (int i = 0; i < GT_BATCH_ROWS; i++) {
        if (i)
            text[o++] = ',';
        memcpy(text + o, tuple, row);
        o += row;
    }
    text[o] = 0;
    b->cols = vars - 1;
    b->n = 0;
    return sqlite3_prepare_v3(d->db, text, (int)o, SQLITE_PREPARE_PERSISTENT, &b->multi, NULL) == SQLITE_OK ? 0 : -1;
}

int gt_db_batch_prepare(struct gt_db *d)
{
    for (int k = 0; k < GT_BATCH_COUNT; k++)
        if (prepare_one(d, &d->batch[k], d->st[single[k]]) != 0)
            return -1;
    return 0;
}

int gt_db_row(struct gt_db *d, enum gt_stmt s, const int64_t *v)
{
    int k = kind_of(s);
    if (k < 0) /* not a batched table: stored at once */
        return gt_db_exec_i64(d, s, v, sqlite3_bind_parameter_count(d->st[s]) - 1);
    if (d->failed)
        return -1;
    struct gt_row_batch *b = &d->batch[k];
    memcpy(b->v[b->n++], v, (size_t)b->cols * sizeof v[0]);
    if (b->n < GT_BATCH_ROWS)
        return 0;
    sqlite3_stmt *st = b->multi;
    int p = 1;
    for (int i = 0; i < GT_BATCH_ROWS; i++) {
        sqlite3_bind_int64(st, p++, d->process_id);
        for (int c = 0; c < b->cols; c++)
            sqlite3_bind_int64(st, p++, b->v[i][c]);
    }
    b->n = 0;
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) {
        if (!d->failed)
            d->failed = rc;
        return -1;
    }
    return 0;
}

int gt_db_flush_rows(struct gt_db *d)
{
    int rc = 0;
    for (int k = 0; k < GT_BATCH_COUNT; k++) {
        struct gt_row_batch *b = &d->batch[k];
        int n = b->n;
        b->n = 0;
        for (int i = 0; i < n && rc == 0; i++)
            rc = gt_db_exec_i64(d, single[k], b->v[i], b->cols);
    }
    return rc;
}

void gt_db_batch_finalize(struct gt_db *d)
{
    for (int k = 0; k < GT_BATCH_COUNT; k++)
        if (d->batch[k].multi)
            sqlite3_finalize(d->batch[k].multi);
}
