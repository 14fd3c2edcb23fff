/* rowruns.c: finding and reading each process's runs of rows (rowruns.h). */
#include "viewer/read/rowruns.h"
#include "format/call_block.h"
#include "format/gpu_block.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Runs this close together are read as one, the rows between filtered out:
 * a query costs about as much as reading this many rows. */
#define RUN_GAP 256

#define STR_(x) #x
#define STR(x) STR_(x)

/* The pass when no process needs its end: fewer columns to decode (about
 * a third of the pass's time on api_call). */
static const char *const pass_sql_light[RT_TABLES] = {
    [RT_API_CALL] = "SELECT rowid, process_id FROM api_call NOT INDEXED",
    [RT_CALL_BLOCK] = "SELECT rowid, process_id, format, n FROM api_call_block NOT INDEXED",
    [RT_GPU_OP] = "SELECT rowid, process_id FROM gpu_op NOT INDEXED",
    [RT_CUPTI_API] = "SELECT rowid, process_id FROM cupti_api NOT INDEXED",
    [RT_EXT_CORR] = "SELECT rowid, process_id FROM ext_corr NOT INDEXED",
    [RT_CAPI_BLOCK] = "SELECT rowid, process_id, format, n FROM cupti_api_block NOT INDEXED",
    [RT_GPU_BLOCK] = "SELECT rowid, process_id, format, n FROM gpu_op_block NOT INDEXED",
};

static const char *const pass_sql[RT_TABLES] = {
    [RT_API_CALL] = "SELECT rowid, process_id, end_ns FROM api_call NOT INDEXED",
    [RT_CALL_BLOCK] = "SELECT rowid, process_id, format, n, data FROM api_call_block NOT INDEXED",
    /* the end of a killed process counts the GPU operations the report loads */
    [RT_GPU_OP] = "SELECT rowid, process_id, CASE WHEN kind BETWEEN 1 AND 3 THEN end_ns ELSE 0 END FROM gpu_op NOT INDEXED",
    [RT_CUPTI_API] = "SELECT rowid, process_id, 0 FROM cupti_api NOT INDEXED",
    [RT_EXT_CORR] = "SELECT rowid, process_id, 0 FROM ext_corr NOT INDEXED",
    [RT_CAPI_BLOCK] = "SELECT rowid, process_id, format, n FROM cupti_api_block NOT INDEXED",
    [RT_GPU_BLOCK] = "SELECT rowid, process_id, format, n, data FROM gpu_op_block NOT INDEXED",
};

/* What rowruns_find counts when it skips the pass: cheap questions, an
 * upper bound (a table's rowids have holes where rows were deleted).  The
 * largest and smallest rowid are asked apart: SQLite finds a lone min() or
 * max() of the rowid at the b-tree's edge, but "max(rowid) - min(rowid)"
 * in one select scans the whole table (a third of the report's own
 * thread on a run directory). */
#define ROWID_SPAN(t) "SELECT (SELECT max(rowid) FROM " t ") - (SELECT min(rowid) FROM " t ") + 1"
static const char *const count_sql[RT_TABLES] = {
    [RT_API_CALL] = ROWID_SPAN("api_call"),
    [RT_CALL_BLOCK] = "SELECT sum(n) FROM api_call_block WHERE n BETWEEN 1 AND " STR(GT_CALL_BLOCK_ROWS),
    [RT_GPU_OP] = ROWID_SPAN("gpu_op"),
    [RT_CUPTI_API] = ROWID_SPAN("cupti_api"),
    [RT_EXT_CORR] = ROWID_SPAN("ext_corr"),
    [RT_CAPI_BLOCK] = "SELECT sum(n) FROM cupti_api_block WHERE n BETWEEN 1 AND " STR(GT_BLOCK_ROWS),
    [RT_GPU_BLOCK] = "SELECT sum(n) FROM gpu_op_block WHERE n BETWEEN 1 AND " STR(GT_BLOCK_ROWS),
};

/* Whether the passes and reads may start a thread for the second
 * connection's share (rowruns_set_threads). */
static int threads_on = 1;

void rowruns_set_threads(int on)
{
    threads_on = on;
}

int rowruns_threads(void)
{
    return threads_on;
}

int rowruns_is_block(int t)
{
    return t == RT_CALL_BLOCK || t == RT_CAPI_BLOCK || t == RT_GPU_BLOCK;
}

static int64_t table_count(sqlite3 *db, int t)
{
    sqlite3_stmt *s;
    int64_t n = -1;
    if (sqlite3_prepare_v2(db, count_sql[t], -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(s) == SQLITE_ROW)
        n = sqlite3_column_type(s, 0) == SQLITE_NULL ? 0 : sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    return n;
}

int rowruns_push(struct rowruns *r, int64_t first, int64_t last)
{
    if (r->n == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 16;
        struct rowrun *v = realloc(r->v, cap * sizeof *v);
        if (!v)
            return -1;
        r->v = v;
        r->cap = cap;
    }
    r->v[r->n++] = (struct rowrun){ first, last };
    return 0;
}

static int add_row(struct rowruns *r, int64_t rowid)
{
    if (r->n && rowid >= r->v[r->n - 1].first && rowid - r->v[r->n - 1].last <= RUN_GAP) {
        if (rowid > r->v[r->n - 1].last)
            r->v[r->n - 1].last = rowid;
        return 0;
    }
    return rowruns_push(r, rowid, rowid);
}

static struct rows_of *lookup(struct rows_of *v, size_t n, size_t *last, int64_t id)
{
    if (n && v[*last].id == id)
        return &v[*last];
    for (size_t i = 0; i < n; i++)
        if (v[i].id == id) {
            *last = i;
            return &v[i];
        }
    return NULL;
}

int rowruns_block(sqlite3_stmt *s, int col, const struct gt_block_layout *l, struct gt_block_cur *c)
{
    const void *data = sqlite3_column_blob(s, col + 2);
    int n = gt_block_open(c, l, sqlite3_column_int64(s, col), sqlite3_column_int64(s, col + 1), data,
                          sqlite3_column_bytes(s, col + 2));
    return n < 0 ? 0 : n;
}

/* The latest end among the GPU operations of a block that the report
 * loads (kernels, copies, memsets), as for gpu_op rows. */
static int64_t gpu_block_end(sqlite3_stmt *s)
{
    struct gt_block_cur c;
    int n = rowruns_block(s, 2, &gt_gpu_layout, &c);
    int64_t end = 0;
    for (int i = 0; i < n; i++) {
        struct gt_gpu_packed r;
        gt_block_next(&c, &r);
        if (r.kind >= 1 && r.kind <= 3 && r.end_ns > end)
            end = r.end_ns;
    }
    return end;
}

/* The latest end among the calls of a block (a killed process only). */
static int64_t block_end(sqlite3_stmt *s)
{
    struct gt_block_cur c;
    int n = rowruns_block(s, 2, &gt_call_layout, &c);
    int64_t end = 0;
    for (int i = 0; i < n; i++) {
        struct gt_call_packed r;
        gt_block_next(&c, &r);
        if (r.end_ns > end)
            end = r.end_ns;
    }
    return end;
}

static int only_these(sqlite3 *db, const struct rows_of *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].want_end)
            return 0;
    sqlite3_stmt *s;
    int64_t count = -1;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM process", -1, &s, NULL) == SQLITE_OK) {
        if (sqlite3_step(s) == SQLITE_ROW)
            count = sqlite3_column_int64(s, 0);
        sqlite3_finalize(s);
    }
    return count == (int64_t)n;
}

/* The pass over table t: each row of the n processes in v goes to its
 * runs; ends[i]: the latest end of process v[i]'s rows read here (when it
 * wants one).  Touches only v[*].rows.t[t] and ends, so that two threads
 * can pass over different tables at once. */
static int pass_table(sqlite3 *db, struct rows_of *v, size_t n, int t, int want_ends, int64_t *ends)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, want_ends ? pass_sql[t] : pass_sql_light[t], -1, &s, NULL) != SQLITE_OK)
        return SQLITE_OK; /* a table this file lacks: nothing to read there */
    size_t last = 0;
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        struct rows_of *p = lookup(v, n, &last, sqlite3_column_int64(s, 1));
        if (!p)
            continue;
        if (add_row(&p->rows.t[t], sqlite3_column_int64(s, 0)) != 0) {
            sqlite3_finalize(s);
            return SQLITE_NOMEM;
        }
        if (!rowruns_is_block(t))
            p->rows.t[t].count++;
        else if (sqlite3_column_int(s, 3) > 0 && sqlite3_column_int(s, 3) <= GT_BLOCK_ROWS)
            p->rows.t[t].count += sqlite3_column_int(s, 3);
        /* (CUPTI's API records lie inside the calls: no later end) */
        if (p->want_end && t != RT_CAPI_BLOCK) {
            int64_t end = t == RT_CALL_BLOCK ? block_end(s) : t == RT_GPU_BLOCK ? gpu_block_end(s)
                                                                                 : sqlite3_column_int64(s, 2);
            if (end > ends[p - v])
                ends[p - v] = end;
        }
    }
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

/* The tables the second thread passes over, when there is one: about half
 * the rows of a run (CUPTI's records and the GPU's beside the calls). */
static int second_half(int t)
{
    return t == RT_CUPTI_API || t == RT_GPU_OP || t == RT_CAPI_BLOCK || t == RT_GPU_BLOCK;
}

struct pass_job {
    sqlite3 *db;
    struct rows_of *v;
    size_t n;
    int want_ends, rc;
    int64_t *ends;
};

static int pass_tables(struct pass_job *j, int second)
{
    int err = SQLITE_OK;
    for (int t = 0; t < RT_TABLES && err != SQLITE_NOMEM; t++) {
        if (second_half(t) != second)
            continue;
        int rc = pass_table(j->db, j->v, j->n, t, j->want_ends, j->ends);
        if (rc != SQLITE_OK && (err == SQLITE_OK || rc == SQLITE_NOMEM))
            err = rc;
    }
    return err;
}

static void *pass_second(void *arg)
{
    struct pass_job *j = arg;
    j->rc = pass_tables(j, 1);
    return NULL;
}

int rowruns_find(sqlite3 *db, sqlite3 *db2, struct rows_of *v, size_t n, int spare)
{
    if (n == 1 && only_these(db, v, n)) {
        for (int t = 0; t < RT_TABLES; t++) {
            if (add_row(&v[0].rows.t[t], INT64_MIN) != 0)
                return SQLITE_NOMEM;
            v[0].rows.t[t].v[0].last = INT64_MAX; /* the whole table */
            v[0].rows.t[t].count = table_count(db, t);
        }
        return SQLITE_OK;
    }
    int want_ends = 0;
    for (size_t i = 0; i < n; i++)
        want_ends |= v[i].want_end;
    struct pass_job one = { db, v, n, want_ends, SQLITE_OK, calloc(n + 1, sizeof(int64_t)) };
    struct pass_job two = { db2 ? db2 : db, v, n, want_ends, SQLITE_OK, calloc(n + 1, sizeof(int64_t)) };
    if (!one.ends || !two.ends) {
        free(one.ends);
        free(two.ends);
        return SQLITE_NOMEM;
    }
    pthread_t th;
    int threaded = db2 && (threads_on || spare) && pthread_create(&th, NULL, pass_second, &two) == 0;
    one.rc = pass_tables(&one, 0);
    if (threaded)
        pthread_join(th, NULL);
    else
        two.rc = pass_tables(&two, 1);
    for (size_t i = 0; i < n; i++) {
        int64_t end = one.ends[i] > two.ends[i] ? one.ends[i] : two.ends[i];
        if (end > v[i].last_end)
            v[i].last_end = end;
    }
    free(one.ends);
    free(two.ends);
    if (one.rc == SQLITE_NOMEM || two.rc == SQLITE_NOMEM)
        return SQLITE_NOMEM;
    return one.rc != SQLITE_OK ? one.rc : two.rc;
}

int rowruns_each(sqlite3 *db, const char *sql, const struct rowruns *r, int64_t id,
                 void (*fn)(sqlite3_stmt *s, void *ctx), void *ctx)
{
    sqlite3_stmt *s;
    if (!r->n || sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return SQLITE_OK;
    int err = SQLITE_OK;
    for (size_t k = 0; k < r->n && err == SQLITE_OK; k++) {
        sqlite3_bind_int64(s, 1, r->v[k].first);
        sqlite3_bind_int64(s, 2, r->v[k].last);
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW)
            if (sqlite3_column_int64(s, 0) == id)
                fn(s, ctx);
        if (rc != SQLITE_DONE)
            err = rc;
        sqlite3_reset(s);
    }
    sqlite3_finalize(s);
    return err;
}

static const char *const table_name[RT_TABLES] = {
    [RT_API_CALL] = "api_call", [RT_CALL_BLOCK] = "api_call_block", [RT_GPU_OP] = "gpu_op",
    [RT_CUPTI_API] = "cupti_api", [RT_EXT_CORR] = "ext_corr", [RT_CAPI_BLOCK] = "cupti_api_block",
    [RT_GPU_BLOCK] = "gpu_op_block",
};

/* The table's lowest and highest rowid: the bounds of a run that stands
 * for the whole table.  Returns -1 if the table is empty or unreadable. */
static int rowid_bounds(sqlite3 *db, enum row_table t, int64_t *lo, int64_t *hi)
{
    char sql[128]; /* asked apart, each at the b-tree's edge (count_sql) */
    snprintf(sql, sizeof sql, "SELECT (SELECT min(rowid) FROM %s), (SELECT max(rowid) FROM %s)", table_name[t],
             table_name[t]);
    sqlite3_stmt *s;
    int ok = 0;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
        *lo = sqlite3_column_int64(s, 0);
        *hi = sqlite3_column_int64(s, 1);
        ok = *lo <= *hi;
    }
    sqlite3_finalize(s);
    return ok ? 0 : -1;
}

/* Cuts r at half its rowids (a run may be cut in two) into a and b. */
static int split_runs(sqlite3 *db, enum row_table t, const struct rowruns *r, struct rowruns *a, struct rowruns *b)
{
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if ((r->v[0].first == INT64_MIN || r->v[r->n - 1].last == INT64_MAX) && rowid_bounds(db, t, &lo, &hi) != 0)
        return -1;
    uint64_t total = 0;
    for (size_t k = 0; k < r->n; k++) {
        int64_t f = r->v[k].first > lo ? r->v[k].first : lo, l = r->v[k].last < hi ? r->v[k].last : hi;
        if (l >= f)
            total += (uint64_t)l - (uint64_t)f + 1;
    }
    uint64_t half = total / 2, seen = 0;
    for (size_t k = 0; k < r->n; k++) {
        int64_t f = r->v[k].first > lo ? r->v[k].first : lo, l = r->v[k].last < hi ? r->v[k].last : hi;
        if (l < f)
            continue;
        uint64_t len = (uint64_t)l - (uint64_t)f + 1;
        int rc = 0;
        if (seen + len <= half) {
            rc = rowruns_push(a, f, l);
        } else if (seen >= half) {
            rc = rowruns_push(b, f, l);
        } else {
            int64_t mid = (int64_t)((uint64_t)f + (half - seen) - 1);
            rc = rowruns_push(a, f, mid) | rowruns_push(b, mid + 1, l);
        }
        if (rc != 0)
            return -1;
        seen += len;
    }
    return a->n && b->n ? 0 : -1;
}

struct half_job {
    sqlite3 *db;
    const char *sql;
    const struct rowruns *runs;
    int64_t id;
    void (*fn)(sqlite3_stmt *s, void *ctx);
    void *ctx;
    int rc;
};

static void *read_half(void *arg)
{
    struct half_job *j = arg;
    j->rc = rowruns_each(j->db, j->sql, j->runs, j->id, j->fn, j->ctx);
    return NULL;
}

int rowruns_each_split(sqlite3 *db, sqlite3 *db2, enum row_table t, const char *sql, const struct rowruns *r,
                       int64_t id, void (*fn)(sqlite3_stmt *s, void *ctx), void *ctx, void *ctx2, int *rc, int *rc2)
{
    struct rowruns a = { 0 }, b = { 0 };
    pthread_t th;
    struct half_job j = { db2, sql, &b, id, fn, ctx2, SQLITE_OK };
    *rc2 = SQLITE_OK;
    if (!r->n || r->count < ROWRUNS_SPLIT_MIN || split_runs(db, t, r, &a, &b) != 0) {
        free(a.v);
        free(b.v);
        *rc = rowruns_each(db, sql, r, id, fn, ctx);
        return 0;
    }
    /* no second thread: both halves here, in turn, each on its connection
     * and read up to its own first error, so that a damaged table gives
     * the rows two threads get */
    if (!db2 || !threads_on || pthread_create(&th, NULL, read_half, &j) != 0) {
        *rc = rowruns_each(db, sql, &a, id, fn, ctx);
        *rc2 = rowruns_each(db2 ? db2 : db, sql, &b, id, fn, ctx);
        free(a.v);
        free(b.v);
        return 0;
    }
    *rc = rowruns_each(db, sql, &a, id, fn, ctx);
    pthread_join(th, NULL);
    *rc2 = j.rc;
    free(a.v);
    free(b.v);
    return 1;
}

int rowruns_pieces(sqlite3 *db, enum row_table t, const struct rowruns *r, int64_t piece, struct rowruns *out)
{
    memset(out, 0, sizeof *out);
    int64_t lo = INT64_MIN, hi = INT64_MAX;
    if (!r->n)
        return 0;
    if ((r->v[0].first == INT64_MIN || r->v[r->n - 1].last == INT64_MAX) && rowid_bounds(db, t, &lo, &hi) != 0)
        return 0; /* an empty table */
    for (size_t k = 0; k < r->n; k++) {
        int64_t f = r->v[k].first > lo ? r->v[k].first : lo, l = r->v[k].last < hi ? r->v[k].last : hi;
        for (int64_t a = f; a <= l;) {
            int64_t b = l - a >= piece ? a + piece - 1 : l;
            if (rowruns_push(out, a, b) != 0) {
                free(out->v);
                memset(out, 0, sizeof *out);
                return -1;
            }
            if (b == INT64_MAX)
                break;
            a = b + 1;
        }
    }
    return 0;
}

void rowruns_free(struct proc_rows *r)
{
    for (int t = 0; t < RT_TABLES; t++)
        free(r->t[t].v);
    memset(r, 0, sizeof *r);
}
