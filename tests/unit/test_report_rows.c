/* test_report_rows.c: the report's reading of one process at a time
 * (viewer/read/rowruns.c) and its sorting by time (viewer/model/sort_by_time.c),
 * against plain SQL and qsort on the same data. */
#include "viewer/read/rowruns.h"
#include "viewer/model/sort_by_time.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ---- rowruns ----------------------------------------------------------- */

static sqlite3 *db;

static void exec(const char *sql)
{
    char *err = NULL;
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, &err), SQLITE_OK, "%s: %s", sql, err ? err : "");
}

/* The tables rowruns reads, with process rows for ids 1..nprocs, in a file
 * (path) or in memory (NULL). */
static void make_db_at(const char *path, int nprocs)
{
    cr_assert_eq(sqlite3_open(path ? path : ":memory:", &db), SQLITE_OK);
    exec("CREATE TABLE process(id INTEGER PRIMARY KEY);"
         "CREATE TABLE api_call(process_id INTEGER, end_ns INTEGER);"
         "CREATE TABLE api_call_block(process_id INTEGER, format INTEGER, n INTEGER, data BLOB);"
         "CREATE TABLE gpu_op(process_id INTEGER, kind INTEGER, end_ns INTEGER);"
         "CREATE TABLE cupti_api(process_id INTEGER);"
         "CREATE TABLE ext_corr(process_id INTEGER);");
    for (int p = 1; p <= nprocs; p++) {
        char sql[64];
        snprintf(sql, sizeof sql, "INSERT INTO process VALUES (%d)", p);
        exec(sql);
    }
}

/* Appends `rows` api_call rows of process p, with end_ns = their rowid * 10. */
static void append(int p, int rows)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < %d - 1)"
             " INSERT INTO api_call SELECT %d, ((SELECT coalesce(max(rowid), 0) FROM api_call) + 1 + k) * 10 FROM r",
             rows, p);
    exec(sql);
}

static void make_db(int nprocs)
{
    make_db_at(NULL, nprocs);
}

/* The same in a new file (a second connection can open it): path is a
 * mkstemp template, filled in. */
static void make_file_db(char *path, int nprocs)
{
    int fd = mkstemp(path);
    cr_assert_geq(fd, 0);
    close(fd);
    make_db_at(path, nprocs);
}

struct seen { int64_t *rowids; size_t n; };

static void collect(sqlite3_stmt *s, void *ctx)
{
    struct seen *v = ctx;
    v->rowids = realloc(v->rowids, (v->n + 1) * sizeof *v->rowids);
    v->rowids[v->n++] = sqlite3_column_int64(s, 1);
}

/* Reads process p through its runs and checks it got exactly the rows SQL
 * says are p's, in rowid order. */
static void check_reads(const struct rows_of *r, int p)
{
    struct seen got = { 0 };
    rowruns_each(db, "SELECT process_id, rowid FROM api_call WHERE rowid BETWEEN ?1 AND ?2", &r->rows.t[RT_API_CALL],
                 p, collect, &got);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "SELECT rowid FROM api_call WHERE process_id = ? ORDER BY rowid", -1, &s, NULL);
    sqlite3_bind_int(s, 1, p);
    size_t i = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        cr_assert_lt(i, got.n, "process %d: only %zu rows read", p, got.n);
        cr_assert_eq(got.rowids[i], sqlite3_column_int64(s, 0), "process %d, row %zu", p, i);
        i++;
    }
    sqlite3_finalize(s);
    cr_assert_eq(i, got.n, "process %d: %zu rows read, %zu are its", p, got.n, i);
    free(got.rowids);
}

Test(rowruns, interleaved_transactions_read_back_exactly)
{
    make_db(3);
    /* three writers taking turns, in transactions of varied size; process 3
     * writes rarely, so its runs are far apart */
    for (int round = 0; round < 20; round++) {
        append(1, 500 + round * 7);
        append(2, 1000);
        if (round % 5 == 0)
            append(3, 3);
    }
    struct rows_of v[3] = { { .id = 1 }, { .id = 2 }, { .id = 3, .want_end = 1 } };
    cr_assert_eq(rowruns_find(db, NULL, v, 3, 0), 0);
    for (int k = 0; k < 3; k++)
        check_reads(&v[k], (int)v[k].id);
    /* one run per transaction (runs of others are too long to merge) */
    cr_assert_eq(v[0].rows.t[RT_API_CALL].n, 20);
    cr_assert_eq(v[1].rows.t[RT_API_CALL].n, 20);
    /* the end of the process that wants one: its last row's */
    int64_t last;
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "SELECT max(end_ns) FROM api_call WHERE process_id = 3", -1, &s, NULL);
    sqlite3_step(s);
    last = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
    cr_assert_eq(v[2].last_end, last);
    cr_assert_eq(v[0].last_end, 0, "no end asked for, none noted");
    /* the counts the report sizes its arrays by: each process's own rows */
    int64_t want[3] = { 0, 20 * 1000, 4 * 3 };
    for (int round = 0; round < 20; round++)
        want[0] += 500 + round * 7;
    for (int k = 0; k < 3; k++)
        cr_assert_eq(v[k].rows.t[RT_API_CALL].count, want[k], "process %d", k + 1);
    for (int k = 0; k < 3; k++)
        rowruns_free(&v[k].rows);
    sqlite3_close(db);
}

Test(rowruns, fine_interleaving_merges_runs_and_filters)
{
    make_db(2);
    for (int i = 0; i < 3000; i++)
        append(1 + i % 2, 1);
    struct rows_of v[2] = { { .id = 1 }, { .id = 2 } };
    cr_assert_eq(rowruns_find(db, NULL, v, 2, 0), 0);
    cr_assert_eq(v[0].rows.t[RT_API_CALL].n, 1, "rows one apart: one run, not a query per row");
    check_reads(&v[0], 1);
    check_reads(&v[1], 2);
    rowruns_free(&v[0].rows);
    rowruns_free(&v[1].rows);
    sqlite3_close(db);
}

Test(rowruns, a_process_alone_in_its_file_scans_it_whole)
{
    make_db(1);
    append(1, 100);
    append(7, 5); /* rows of a process the file does not list: filtered out */
    append(1, 100);
    struct rows_of v[1] = { { .id = 1 } };
    cr_assert_eq(rowruns_find(db, NULL, v, 1, 0), 0);
    cr_assert_eq(v[0].rows.t[RT_API_CALL].n, 1);
    cr_assert_eq(v[0].rows.t[RT_API_CALL].v[0].first, INT64_MIN);
    cr_assert_eq(v[0].rows.t[RT_API_CALL].v[0].last, INT64_MAX);
    cr_assert_eq(v[0].rows.t[RT_API_CALL].count, 205, "without the pass: the span of rowids, an upper bound");
    check_reads(&v[0], 1);
    rowruns_free(&v[0].rows);
    sqlite3_close(db);
}

Test(rowruns, call_blocks_count_the_calls_they_hold)
{
    make_db(2);
    exec("INSERT INTO api_call_block VALUES (1, 1, 4096, NULL), (2, 1, 7, NULL), (1, 1, 100, NULL),"
         " (1, 1, 5000, NULL), (1, 1, -3, NULL)"); /* the last two are damaged: no count */
    struct rows_of v[2] = { { .id = 1 }, { .id = 2 } };
    cr_assert_eq(rowruns_find(db, NULL, v, 2, 0), 0);
    cr_assert_eq(v[0].rows.t[RT_CALL_BLOCK].count, 4196);
    cr_assert_eq(v[1].rows.t[RT_CALL_BLOCK].count, 7);
    rowruns_free(&v[0].rows);
    rowruns_free(&v[1].rows);
    sqlite3_close(db);
}

/* rowruns_each_split on process p: the two halves, joined, are exactly
 * the rows SQL says are p's, in rowid order, each half holding a fair share. */
static void check_split(sqlite3 *db2, const struct rows_of *r, int p)
{
    struct seen a = { 0 }, b = { 0 };
    int rc, rc2;
    int split = rowruns_each_split(db, db2, RT_API_CALL, "SELECT process_id, rowid FROM api_call WHERE rowid BETWEEN ?1 AND ?2",
                                   &r->rows.t[RT_API_CALL], p, collect, &a, &b, &rc, &rc2);
    cr_assert_eq(split, 1, "process %d: read in two threads", p);
    cr_assert_eq(rc, SQLITE_OK);
    cr_assert_eq(rc2, SQLITE_OK);
    cr_assert_gt(a.n, (a.n + b.n) / 4, "process %d: first half %zu of %zu rows", p, a.n, a.n + b.n);
    cr_assert_gt(b.n, (a.n + b.n) / 4, "process %d: second half %zu of %zu rows", p, b.n, a.n + b.n);
    sqlite3_stmt *s;
    sqlite3_prepare_v2(db, "SELECT rowid FROM api_call WHERE process_id = ? ORDER BY rowid", -1, &s, NULL);
    sqlite3_bind_int(s, 1, p);
    size_t i = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        cr_assert_lt(i, a.n + b.n, "process %d: only %zu rows read", p, a.n + b.n);
        int64_t got = i < a.n ? a.rowids[i] : b.rowids[i - a.n];
        cr_assert_eq(got, sqlite3_column_int64(s, 0), "process %d, row %zu", p, i);
        i++;
    }
    sqlite3_finalize(s);
    cr_assert_eq(i, a.n + b.n, "process %d: %zu rows read, %zu are its", p, a.n + b.n, i);
    free(a.rowids);
    free(b.rowids);
}

Test(rowruns, big_tables_are_read_in_two_halves_in_order)
{
    char path[] = "/tmp/test_report_rows_XXXXXX";
    make_file_db(path, 2);
    for (int round = 0; round < 10; round++) { /* two writers taking turns */
        append(1, 300 + round);
        append(2, 40);
    }
    sqlite3 *db2;
    cr_assert_eq(sqlite3_open_v2(path, &db2, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    struct rows_of v[2] = { { .id = 1 }, { .id = 2 } };
    cr_assert_eq(rowruns_find(db, NULL, v, 2, 0), 0);
    check_split(db2, &v[0], 1);
    check_split(db2, &v[1], 2);
    /* without a second connection, or with few rows: all on this thread */
    struct seen a = { 0 }, b = { 0 };
    int rc, rc2;
    const char *sql = "SELECT process_id, rowid FROM api_call WHERE rowid BETWEEN ?1 AND ?2";
    cr_assert_eq(rowruns_each_split(db, NULL, RT_API_CALL, sql, &v[0].rows.t[RT_API_CALL], 1, collect, &a, &b, &rc, &rc2), 0);
    cr_assert_eq(a.n, (size_t)v[0].rows.t[RT_API_CALL].count);
    cr_assert_eq(b.n, 0);
    free(a.rowids);
    a = (struct seen){ 0 };
    struct rowruns few = v[0].rows.t[RT_API_CALL];
    few.count = ROWRUNS_SPLIT_MIN - 1;
    cr_assert_eq(rowruns_each_split(db, db2, RT_API_CALL, sql, &few, 1, collect, &a, &b, &rc, &rc2), 0);
    cr_assert_eq(b.n, 0);
    free(a.rowids);
    for (int k = 0; k < 2; k++)
        rowruns_free(&v[k].rows);
    sqlite3_close(db);
    sqlite3_close(db2);
    /* a process alone in its file: the whole table, cut at half its rowids */
    unlink(path);
    make_db_at(path, 1);
    append(1, 2000);
    cr_assert_eq(sqlite3_open_v2(path, &db2, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    struct rows_of w[1] = { { .id = 1 } };
    cr_assert_eq(rowruns_find(db, NULL, w, 1, 0), 0);
    cr_assert_eq(w[0].rows.t[RT_API_CALL].v[0].first, INT64_MIN);
    check_split(db2, &w[0], 1);
    rowruns_free(&w[0].rows);
    sqlite3_close(db2);
    sqlite3_close(db);
    unlink(path);
}

Test(rowruns, the_pass_in_two_threads_finds_the_same_runs)
{
    char path[] = "/tmp/test_report_rows_XXXXXX";
    make_file_db(path, 2);
    for (int round = 0; round < 12; round++) { /* two writers taking turns, calls and GPU operations */
        append(1, 200 + round);
        append(2, 30);
        char sql[256];
        snprintf(sql, sizeof sql, "WITH RECURSIVE r(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM r WHERE k < 99)"
                                  " INSERT INTO gpu_op SELECT %d, 1, (%d * 1000 + k) * 7 FROM r", 1 + round % 2, round);
        exec(sql);
    }
    sqlite3 *db2;
    cr_assert_eq(sqlite3_open_v2(path, &db2, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    struct rows_of one[2] = { { .id = 1, .want_end = 1 }, { .id = 2, .want_end = 1 } };
    struct rows_of two[2] = { { .id = 1, .want_end = 1 }, { .id = 2, .want_end = 1 } };
    cr_assert_eq(rowruns_find(db, NULL, one, 2, 0), 0);
    cr_assert_eq(rowruns_find(db, db2, two, 2, 0), 0);
    for (int k = 0; k < 2; k++) {
        cr_assert_gt(two[k].rows.t[RT_GPU_OP].count, 0, "process %d: GPU operations found", k + 1);
        cr_assert_eq(one[k].last_end, two[k].last_end, "process %d: the same end", k + 1);
        cr_assert_gt(two[k].last_end, 0);
        for (int t = 0; t < RT_TABLES; t++) {
            const struct rowruns *x = &one[k].rows.t[t], *y = &two[k].rows.t[t];
            cr_assert_eq(x->n, y->n, "process %d table %d: %zu vs %zu runs", k + 1, t, x->n, y->n);
            cr_assert_eq(x->count, y->count, "process %d table %d: counts", k + 1, t);
            for (size_t i = 0; i < x->n; i++)
                cr_assert(x->v[i].first == y->v[i].first && x->v[i].last == y->v[i].last,
                          "process %d table %d run %zu", k + 1, t, i);
        }
        rowruns_free(&one[k].rows);
        rowruns_free(&two[k].rows);
    }
    sqlite3_close(db2);
    sqlite3_close(db);
    unlink(path);
}

Test(rowruns, tables_a_file_lacks_are_read_as_empty)
{
    cr_assert_eq(sqlite3_open(":memory:", &db), SQLITE_OK);
    exec("CREATE TABLE process(id INTEGER PRIMARY KEY); INSERT INTO process VALUES (1), (2);"
         "CREATE TABLE api_call(process_id INTEGER, end_ns INTEGER); INSERT INTO api_call VALUES (1, 5), (2, 6);");
    struct rows_of v[2] = { { .id = 1 }, { .id = 2 } };
    cr_assert_eq(rowruns_find(db, NULL, v, 2, 0), 0);
    cr_assert_eq(v[0].rows.t[RT_GPU_OP].n, 0);
    check_reads(&v[1], 2);
    rowruns_free(&v[0].rows);
    rowruns_free(&v[1].rows);
    sqlite3_close(db);
}

/* ---- sorting ----------------------------------------------------------- */

static int cmp_ref(const void *a, const void *b)
{
    const struct sort_key *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

/* sort_keys against qsort by (t, original index): equal results mean
 * sorted and stable. */
static void check_sort(size_t n, int64_t lo, uint64_t span)
{
    struct sort_key *k = malloc((n + 1) * sizeof *k), *ref = malloc((n + 1) * sizeof *ref);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = ((uint64_t)rand() << 32) ^ (uint64_t)rand();
        k[i] = ref[i] = (struct sort_key){ (int64_t)((uint64_t)lo + (span ? r % span : 0)), i };
    }
    cr_assert_eq(sort_keys(k, n), 0);
    qsort(ref, n, sizeof *ref, cmp_ref);
    for (size_t i = 0; i < n; i++)
        cr_assert(k[i].t == ref[i].t && k[i].i == ref[i].i, "n %zu span %llu: position %zu differs", n,
                  (unsigned long long)span, i);
    free(k);
    free(ref);
}

Test(sort_keys, sorts_stably_at_every_size_and_range)
{
    srand(7);
    check_sort(0, 0, 10);
    check_sort(1, 0, 10);
    check_sort(20, 0, 10);                          /* insertion sort, many ties */
    check_sort(5000, 0, 3);                         /* one radix pass, mostly ties */
    check_sort(100000, 1000000000, 1ull << 40);     /* timestamps: four passes */
    check_sort(50000, INT64_MIN, UINT64_MAX);       /* the whole range: no overflow */
    check_sort(50000, -5000, 10000);                /* negative keys */
    check_sort(1000, 42, 0);                        /* all equal */
}

Test(sort_keys, leaves_sorted_input_alone)
{
    struct sort_key k[100];
    for (size_t i = 0; i < 100; i++)
        k[i] = (struct sort_key){ (int64_t)(i / 3), 99 - i };
    cr_assert_eq(sort_keys(k, 100), 0);
    for (size_t i = 0; i < 100; i++)
        cr_assert_eq(k[i].i, 99 - i, "a tie kept its order");
}

struct rec { int64_t pad; int64_t t; char tag[40]; };

Test(sort_by_time, moves_whole_records)
{
    enum { N = 3000 };
    struct rec *v = malloc(N * sizeof *v);
    srand(11);
    for (int i = 0; i < N; i++) {
        v[i].t = rand() % 500;
        v[i].pad = -v[i].t;
        snprintf(v[i].tag, sizeof v[i].tag, "%lld:%d", (long long)v[i].t, i);
    }
    cr_assert_eq(sort_by_time(v, N, sizeof *v, offsetof(struct rec, t)), 0);
    for (int i = 0; i < N; i++) {
        cr_assert_eq(v[i].pad, -v[i].t, "record %d moved whole", i);
        int at = atoi(strchr(v[i].tag, ':') + 1);
        cr_assert_eq(atoll(v[i].tag), v[i].t);
        if (i)
            cr_assert(v[i - 1].t < v[i].t || (v[i - 1].t == v[i].t && atoi(strchr(v[i - 1].tag, ':') + 1) < at),
                      "record %d: in order, ties stable", i);
    }
    free(v);
}
