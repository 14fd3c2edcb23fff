/* test_window.c: monitor mode's window in memory (collector/window.c)
 * keeps every row younger than the window, whatever the tables' rowids
 * do: a table a window leaves empty numbers its next rows from 1 again
 * (SQLite gives a new row the largest rowid plus one), below the marks
 * of the notes taken while it was quiet. */
#include "collector/db.h"
#include "collector/window.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* the modules db.c and window.c call that these tests do not exercise */
int gt_fd_revoked(void) { return 0; }
int gt_fd_hold_std(void) { return 0; }
void gt_fd_release_std(int held) { (void)held; }
int gt_fd_add(int fd) { (void)fd; return 0; }
int gt_fd_close(int fd) { return close(fd); }
const char *gt_strtab_get(uint32_t id) { (void)id; return NULL; }

#define MS 1000000LL
#define WINDOW (1000 * MS)

static struct gt_db d;

static void open_mem(void)
{
    struct gt_process_info p = { .run_id = "r", .launcher = "test", .host = "h", .cmdline = "t", .clock_source = "mono",
                                 .pid = getpid(), .rank = -1, .local_rank = -1, .device = -1 };
    char err[256] = "";
    cr_assert_eq(gt_db_open_memory(&d, &p, 64 << 20, err, sizeof err), 0, "open: %s", err);
    gt_window_begin(&d, WINDOW, 64 << 20, 0);
    gt_db_begin(&d);
}

static void close_mem(void)
{
    gt_db_close(&d);
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

/* n rows of ext_corr, external ids from first, stored now */
static void rows(int first, int n)
{
    for (int i = 0; i < n; i++) {
        int64_t x[2] = { first + i, first + i };
        cr_assert_eq(gt_db_row(&d, GT_ST_EXT, x), 0);
    }
    gt_db_flush_rows(&d);
}

/* the writer's passes, every 50 ms from from_ms to to_ms */
static void passes(int from_ms, int to_ms)
{
    for (int t = from_ms; t <= to_ms; t += 50)
        gt_window_keep(t * MS, 0);
}

TestSuite(window, .init = open_mem, .fini = close_mem);

/* rows older than the window go, the young ones stay */
Test(window, lets_go_of_the_old_only)
{
    passes(0, 100);
    rows(1, 10);
    passes(150, 900);
    rows(100, 5);
    passes(950, 1800);
    cr_expect_eq(scalar("SELECT count(*) FROM ext_corr WHERE external_id < 100"), 0, "rows 1.7 s old kept");
    cr_expect_eq(scalar("SELECT count(*) FROM ext_corr WHERE external_id >= 100"), 5, "rows 0.85 s old let go of");
}

/* a table quiet for longer than the window, emptied, then written again:
 * its new rows (rowids 1, 2, 3) are younger than every note of the quiet
 * time, whose marks (10) are above them */
Test(window, a_table_emptied_and_written_again)
{
    passes(0, 100);
    rows(1, 10);
    passes(150, 1500); /* the ten go at about 1.25 s: the table is empty */
    cr_expect_eq(scalar("SELECT count(*) FROM ext_corr"), 0);
    rows(500, 3);
    cr_expect_eq(scalar("SELECT max(rowid) FROM ext_corr"), 3, "SQLite numbers them from 1 again");
    passes(1550, 2300); /* the rows are at most 0.75 s old */
    cr_expect_eq(scalar("SELECT count(*) FROM ext_corr"), 3, "rows younger than the window let go of");
    passes(2350, 2900); /* now 1.3 s old: they go */
    cr_expect_eq(scalar("SELECT count(*) FROM ext_corr"), 0);
}

/* a push/pop range still open, as the writer stores it (no end) */
static void open_range(int64_t start_ns)
{
    char sql[200];
    snprintf(sql, sizeof sql, "INSERT INTO nvtx_range(process_id, tid, kind, name, start_ns, end_ns, depth)"
                              " VALUES(%lld, 1, 1, 7, %lld, NULL, 0)", (long long)d.process_id, (long long)start_ns);
    cr_assert_eq(sqlite3_exec(d.db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(d.db));
}

static int64_t scalar_in(const char *path, const char *sql)
{
    sqlite3 *f;
    cr_assert_eq(sqlite3_open_v2(path, &f, SQLITE_OPEN_READONLY, NULL), SQLITE_OK, "%s", path);
    sqlite3_stmt *st;
    cr_assert_eq(sqlite3_prepare_v2(f, sql, -1, &st, NULL), SQLITE_OK, "%s: %s", sql, sqlite3_errmsg(f));
    cr_assert_eq(sqlite3_step(st), SQLITE_ROW, "%s", sql);
    int64_t v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(f);
    return v;
}

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof dir, "/tmp/test_window.XXXXXX");
    cr_assert(mkdtemp(dir) != NULL);
}

#define OPEN_RANGES "SELECT count(*) FROM nvtx_range WHERE kind = 1 AND end_ns IS NULL"

/* a window that could not be written (its directory not made: a full
 * disk, ENOSPC; here ENOTDIR) still lets go of the open ranges its caller
 * added for it: else each stays, a range that never ends, in every later
 * window (the report's step it began then holds all the steps after it) */
Test(window, a_window_not_written_leaves_no_open_range)
{
    make_dir();
    char file[128], err[512];
    snprintf(file, sizeof file, "%s/taken", dir);
    FILE *f = fopen(file, "w");
    cr_assert(f);
    fclose(f);
    passes(0, 100);
    gt_window_adding();
    open_range(50 * MS);
    char sub[160];
    snprintf(sub, sizeof sub, "%s/window-1", file);
    cr_assert_neq(gt_window_write(sub, "p.db", "1-request-x", "request", "", 0, 100 * MS, err, sizeof err), 0);
    cr_expect_eq(scalar(OPEN_RANGES), 0, "the open range added for a window not written stayed");
    /* the next window holds the one open range added for it, not two */
    char ok[128];
    snprintf(ok, sizeof ok, "%s/w2", dir);
    gt_window_adding();
    open_range(60 * MS);
    cr_assert_eq(gt_window_write(ok, "p.db", "2-request-x", "request", "", 0, 110 * MS, err, sizeof err), 0, "%s", err);
    char path[200];
    snprintf(path, sizeof path, "%s/p.db", ok);
    cr_expect_eq(scalar_in(path, OPEN_RANGES), 1, "the next window holds a range that never ended");
    cr_expect_eq(scalar(OPEN_RANGES), 0);
}

/* the final pass stores the ranges still open for good, then writes its
 * windows again with CUPTI's last records (gt_window_rewrite), one after
 * the other: each of them holds those ranges (where a hung rank still
 * was), the second as the first */
Test(window, each_window_written_again_holds_the_open_ranges)
{
    make_dir();
    passes(0, 100);
    open_range(50 * MS); /* stored for good, by the final pass */
    char a[128], b[128], err[512], path[200];
    snprintf(a, sizeof a, "%s/wa", dir);
    snprintf(b, sizeof b, "%s/wb", dir);
    cr_assert_eq(mkdir(a, 0777), 0);
    cr_assert_eq(mkdir(b, 0777), 0);
    cr_assert_eq(gt_window_rewrite(a, "p.db", "1-hang-x", "hang", "", 1, 100 * MS, err, sizeof err), 0, "%s", err);
    cr_assert_eq(gt_window_rewrite(b, "p.db", "2-request-x", "request", "", 1, 100 * MS, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/p.db", a);
    cr_expect_eq(scalar_in(path, OPEN_RANGES), 1, "the first window lacks the open range");
    snprintf(path, sizeof path, "%s/p.db", b);
    cr_expect_eq(scalar_in(path, OPEN_RANGES), 1, "the second window lacks the open range");
}
