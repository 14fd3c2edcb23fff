/* test_db_batch.c: the writer's batched rows (collector/db_batch.c): every
 * row stored, in the order it came, whatever the batch boundaries; a
 * commit holds every row queued before it; the late indexes made at a
 * process's end, a table at a time. */
#include "collector/db.h"
#include "collector/fdguard.h"
#include "collector/strtab.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* the modules db.c calls that these tests do not exercise: descriptors
 * never taken, no interned strings */
int gt_fd_revoked(void) { return 0; }
int gt_fd_hold_std(void) { return 0; }
void gt_fd_release_std(int held) { (void)held; }
const char *gt_strtab_get(uint32_t id) { (void)id; return NULL; }

static char path[64];
static struct gt_db d;

static void open_db(void)
{
    snprintf(path, sizeof path, "/tmp/gt_db_batch_%d.db", (int)getpid());
    unlink(path);
    struct gt_process_info p = { .run_id = "r", .launcher = "test", .host = "h", .cmdline = "t", .clock_source = "mono",
                                 .pid = getpid(), .rank = -1, .local_rank = -1, .device = -1 };
    char err[256] = "";
    cr_assert_eq(gt_db_open(&d, path, &p, err, sizeof err), 0, "open: %s", err);
}

static void close_db(void)
{
    gt_db_close(&d);
    const char *const suffix[] = { "", "-wal", "-shm" };
    for (int i = 0; i < 3; i++) {
        char f[80];
        snprintf(f, sizeof f, "%s%s", path, suffix[i]);
        unlink(f);
    }
}

static int64_t scalar(const char *sql)
{
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(d.db, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(d.db));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return v;
}

static void gpu_row(int64_t corr)
{
    int64_t v[14] = { 1, 0, 1, 7, 3, 1000 * corr, 1000 * corr + 500, 0, 0, 0, 0, corr, 0, 0 };
    cr_assert_eq(gt_db_row(&d, GT_ST_GPU, v), 0);
}

TestSuite(db_batch, .init = open_db, .fini = close_db);

/* 150 = two full batches and 22 left over, with ext_corr rows between:
 * all stored by the commit, each table in its own order */
Test(db_batch, every_row_in_order)
{
    gt_db_begin(&d);
    for (int i = 1; i <= 150; i++) {
        gpu_row(i);
        if (i % 30 == 0) {
            int64_t x[2] = { 9000 + i, i };
            cr_assert_eq(gt_db_row(&d, GT_ST_EXT, x), 0);
        }
    }
    cr_assert_eq(gt_db_commit(&d), 0);
    cr_expect_eq(scalar("SELECT count(*) FROM gpu_op"), 150);
    cr_expect_eq(scalar("SELECT count(*) FROM gpu_op g JOIN gpu_op h ON h.rowid = g.rowid + 1"
                        " WHERE h.correlation != g.correlation + 1"), 0, "rows out of order");
    cr_expect_eq(scalar("SELECT min(correlation) FROM gpu_op"), 1);
    cr_expect_eq(scalar("SELECT max(end_ns) FROM gpu_op"), 150500);
    cr_expect_eq(scalar("SELECT count(*) FROM ext_corr"), 5);
    cr_expect_eq(scalar("SELECT group_concat(correlation) = '30,60,90,120,150' FROM (SELECT correlation FROM ext_corr ORDER BY rowid)"),
                 1);
    cr_expect_eq(scalar("SELECT count(DISTINCT process_id) FROM gpu_op"), 1);
    cr_expect_eq(scalar("SELECT process_id FROM gpu_op LIMIT 1"), d.process_id);
}

/* a row of a table not batched goes in at once, not at the commit */
Test(db_batch, other_tables_at_once)
{
    int64_t c[6] = { 0x1234, 77, 0, 2, 0, 5 };
    cr_assert_eq(gt_db_row(&d, GT_ST_COMM, c), 0);
    gpu_row(1);
    cr_expect_eq(scalar("SELECT count(*) FROM comm WHERE comm_id = 77"), 1);
    cr_expect_eq(scalar("SELECT count(*) FROM gpu_op"), 0, "a batched row is stored before its batch is full");
    gt_db_flush_rows(&d);
    cr_expect_eq(scalar("SELECT count(*) FROM gpu_op"), 1);
}

/* the insert-only tables' indexes: none while the process runs, all at
 * its end when the tables are small */
Test(db_batch, late_indexes)
{
    cr_expect_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('gpu_op_by_process', 'gpu_op_by_corr',"
                        " 'cupti_api_by_corr', 'ext_corr_by_ext', 'api_call_by_process')"), 0);
    gpu_row(1);
    gt_db_commit(&d);
    gt_db_make_late_indexes(&d);
    cr_expect_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name IN ('gpu_op_by_process', 'gpu_op_by_corr',"
                        " 'cupti_api_by_corr', 'ext_corr_by_ext', 'api_call_by_process')"), 5);
    cr_expect_eq(scalar("SELECT count(*) FROM sqlite_master WHERE name = 'nccl_op_by_event'"), 1,
                 "the indexes the writer's updates use are there from the start");
}
