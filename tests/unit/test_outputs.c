/* test_outputs.c: what an output path names (collector/config.c) and what
 * `gputrace record` finds of an earlier run there (cli/outputs.c):
 * the layouts, a process's file in a run directory, and the files a
 * %h/%p/%r pattern can have made, refused and with force removed, and
 * only those that are gputrace databases by content (format/ours.c);
 * the host name in file names, and values echoed in messages
 * (common/printable.c). */
#define _GNU_SOURCE
#include "collector/config.h"
#include "format/ours.h"
#include "cli/outputs.h"
#include "common/printable.h"

#include <criterion/criterion.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char dir[256];

static void make_dir(void)
{
    const char *t = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/gputrace-test-outputs-XXXXXX", t && *t ? t : "/tmp");
    cr_assert(mkdtemp(dir));
}

static void touch(const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fclose(f);
}

/* An SQLite file of the given SQL at dir/name. */
static void sql_file(const char *name, const char *sql)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, sql, NULL, NULL, NULL), SQLITE_OK, "%s", sqlite3_errmsg(db));
    sqlite3_close(db);
}

/* What every writer of ours puts in meta (collector/db.c, merge, import). */
#define OURS_SQL "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);" \
                 "INSERT INTO meta VALUES('schema_version', '1'), ('writer', 'gputrace test');"

static void ours(const char *name)
{
    sql_file(name, OURS_SQL);
}

/* a user's own SQLite database */
static void theirs(const char *name)
{
    sql_file(name, "CREATE TABLE accounts(id INTEGER PRIMARY KEY, owner TEXT); INSERT INTO accounts VALUES(1, 'ada');");
}

/* a user's text file */
static void text(const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fputs("twenty bytes of text", f);
    fclose(f);
}

static void sub(const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    cr_assert_eq(mkdir(p, 0777), 0);
}

static int there(const char *name)
{
    char p[600];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    return access(p, F_OK) == 0;
}

static void clean(void)
{
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}

Test(outputs, layouts)
{
    cr_assert_eq(gt_config_layout("run.db", 0), GT_LAYOUT_DIR);
    cr_assert_eq(gt_config_layout("run.db", 1), GT_LAYOUT_FILE);
    cr_assert_eq(gt_config_layout("run-%r.db", 1), GT_LAYOUT_PATTERN);
    cr_assert_eq(gt_config_layout("a/%h/b.db", 0), GT_LAYOUT_PATTERN);
    cr_assert_eq(gt_config_layout("100%%.db", 0), GT_LAYOUT_DIR, "%% names no process");
    cr_assert_eq(gt_config_layout("x%q.db", 0), GT_LAYOUT_DIR);
}

Test(outputs, a_process_file_in_the_run_directory, .init = make_dir, .fini = clean)
{
    char out[512], host[256], want[1024];
    snprintf(out, sizeof out, "%s/run.db/", dir);
    setenv("GPUTRACE_OUTPUT", out, 1);
    unsetenv("GPUTRACE_ONE_FILE");
    struct gt_config cfg;
    gt_config_load(&cfg, 3);
    gethostname(host, sizeof host);
    snprintf(want, sizeof want, "%s/run.db/%s-%d.db", dir, host, (int)getpid());
    cr_assert_str_eq(cfg.output, want);
    struct stat st;
    cr_assert(stat(out, &st) == 0 && S_ISDIR(st.st_mode), "the run directory is made");
    setenv("GPUTRACE_ONE_FILE", "1", 1);
    gt_config_load(&cfg, 3);
    snprintf(want, sizeof want, "%s/run.db/", dir);
    cr_assert_str_eq(cfg.output, want, "one file: the path as given");
    snprintf(out, sizeof out, "%s/r-%%r.db", dir);
    setenv("GPUTRACE_OUTPUT", out, 1);
    gt_config_load(&cfg, 3);
    snprintf(want, sizeof want, "%s/r-3.db", dir);
    cr_assert_str_eq(cfg.output, want, "a pattern, whatever GPUTRACE_ONE_FILE says");
    unsetenv("GPUTRACE_ONE_FILE");
    unsetenv("GPUTRACE_OUTPUT");
}

Test(outputs, what_a_pattern_can_have_made, .init = make_dir, .fini = clean)
{
    char pat[512];
    snprintf(pat, sizeof pat, "%s/r-%%r-%%h.db", dir);
    ours("r-x-host.db");    /* %r is a number */
    ours("r-1-.db");        /* %h is one character at least */
    ours("r-1-.h.db");      /* and never starts with '.' */
    ours("r-1-a-b.db.bak"); /* not a trace's file */
    cr_assert_eq(gt_outputs_clear(pat, "r", GT_LAYOUT_PATTERN, 0), 0, "nothing of ours");
    ours("r-12-a-b.db");
    touch("r-12-a-b.db-shm");
    cr_assert_eq(gt_outputs_clear(pat, "r", GT_LAYOUT_PATTERN, 0), -1, "a database it names");
    ours("r-0-h.db");
    touch("r-3-h.db-wal"); /* a -wal without its database: nothing says it is ours */
    cr_assert_eq(gt_outputs_clear(pat, "r", GT_LAYOUT_PATTERN, 1), 0);
    cr_assert(!there("r-12-a-b.db-shm") && !there("r-12-a-b.db") && !there("r-0-h.db"), "removed with force");
    cr_assert(there("r-x-host.db") && there("r-1-.db") && there("r-1-.h.db") && there("r-1-a-b.db.bak") &&
              there("r-3-h.db-wal"), "and nothing else");
}

/* %h matches every name without '/': only the gputrace databases among
 * them, and their side files, may go (before: every file of the
 * directory, exit 0). */
Test(outputs, a_host_pattern_removes_only_databases_of_ours, .init = make_dir, .fini = clean)
{
    char pat[512];
    snprintf(pat, sizeof pat, "%s/%%h", dir);
    ours("node7");
    touch("node7-wal");
    touch("node7-shm");
    text("notes.txt");
    theirs("accounts-2024.db");
    touch("empty");
    touch("stray-wal");
    char sub[600];
    snprintf(sub, sizeof sub, "%s/subdir", dir);
    cr_assert_eq(mkdir(sub, 0777), 0);
    cr_assert_eq(gt_outputs_clear(pat, "%h", GT_LAYOUT_PATTERN, 0), -1, "a database of ours: refused without -f");
    cr_assert(there("node7") && there("notes.txt"), "and nothing removed");
    cr_assert_eq(gt_outputs_clear(pat, "%h", GT_LAYOUT_PATTERN, 1), 0);
    cr_assert(!there("node7") && !there("node7-wal") && !there("node7-shm"), "ours removed with its side files");
    cr_assert(there("notes.txt") && there("accounts-2024.db") && there("empty") && there("stray-wal") &&
              there("subdir"), "everything else left as it is");
    snprintf(pat, sizeof pat, "%s/%%h.db", dir);
    ours("n1.db");
    theirs("ledger.db");
    text("backup-20240101.db");
    cr_assert_eq(gt_outputs_clear(pat, "%h.db", GT_LAYOUT_PATTERN, 1), 0);
    cr_assert(!there("n1.db") && there("ledger.db") && there("backup-20240101.db") && there("accounts-2024.db"),
              "%%h.db: only the database of ours");
}

Test(outputs, a_run_directory, .init = make_dir, .fini = clean)
{
    char run[512];
    snprintf(run, sizeof run, "%s/run.db", dir);
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 0), 0, "nothing there");
    mkdir(run, 0777);
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 0), 0, "an empty directory is no run's");
    cr_assert(there("run.db"), "and stays");
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_FILE, 0), -1, "but is not one file");
    ours("run.db/h-1.db");
    touch("run.db/h-1.db-wal");
    ours("run.db/my-host-22.db");
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 0), -1, "refused without force");
    ours("run.db/all.db");
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 1), -1, "a file no process names: refused");
    cr_assert(there("run.db/h-1.db") && there("run.db/all.db"), "and nothing removed");
    char all[600];
    snprintf(all, sizeof all, "%s/all.db", run);
    unlink(all);
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 1), 0);
    cr_assert(!there("run.db"), "removed, files and directory");
}

/* Files named as a process's but not gputrace databases: the directory is
 * refused even with -f and nothing in it removed (before: both deleted,
 * then the directory). */
Test(outputs, a_run_directory_holding_files_named_like_ours, .init = make_dir, .fini = clean)
{
    char run[512];
    snprintf(run, sizeof run, "%s/run.db", dir);
    mkdir(run, 0777);
    ours("run.db/h-1.db");
    const char *const others[] = { "accounts-2024.db", "backup-20240101.db", "h-2.db-wal" };
    for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
        char name[300];
        snprintf(name, sizeof name, "run.db/%s", others[k]);
        if (k == 0)
            theirs(name);
        else if (k == 1)
            text(name);
        else
            touch(name); /* a side file without its database */
        cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 1), -1, "%s: refused", others[k]);
        cr_assert(there("run.db/h-1.db") && there(name), "%s: nothing removed", others[k]);
        char p[600];
        snprintf(p, sizeof p, "%s/%s", dir, name);
        unlink(p);
    }
    /* an empty process file (killed as it made it) holds nothing to lose */
    touch("run.db/h-3.db");
    touch("run.db/h-3.db-shm");
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 1), 0);
    cr_assert(!there("run.db"));
}

/* A monitored run's directory (docs/monitor.md): its requests/ and
 * window-<request>/ folders go with it when they hold only what the
 * monitor writes; a folder holding anything else, or a folder of another
 * name, keeps the whole directory, nothing in it removed. */
Test(outputs, a_monitored_run_directory, .init = make_dir, .fini = clean)
{
    char run[512];
    snprintf(run, sizeof run, "%s/run", dir);
    mkdir(run, 0777);
    ours("run/h-1.db");
    sub("run/requests");
    touch("run/requests/1796277594444-request-cli-h-9");
    sub("run/window-1796277594444-request-cli-h-9");
    ours("run/window-1796277594444-request-cli-h-9/h-1.db");
    /* a user's file in a window folder, in requests/, or a folder of theirs */
    const char *const others[] = { "run/window-1796277594444-request-cli-h-9/notes.txt", "run/requests/todo",
                                   "run/window-notes" };
    for (size_t k = 0; k < sizeof others / sizeof *others; k++) {
        char p[600];
        snprintf(p, sizeof p, "%s/%s", dir, others[k]);
        if (k == 2)
            sub(others[k]);
        else
            text(others[k]);
        cr_assert_eq(gt_outputs_clear(run, "run", GT_LAYOUT_DIR, 1), -1, "%s: refused", others[k]);
        cr_assert(there("run/h-1.db") && there("run/window-1796277594444-request-cli-h-9/h-1.db") &&
                  there("run/requests/1796277594444-request-cli-h-9") && there(others[k]),
                  "%s: nothing removed", others[k]);
        if (k == 2)
            rmdir(p);
        else
            unlink(p);
    }
    cr_assert_eq(gt_outputs_clear(run, "run", GT_LAYOUT_DIR, 0), -1, "refused without -f");
    cr_assert_eq(gt_outputs_clear(run, "run", GT_LAYOUT_DIR, 1), 0);
    cr_assert(!there("run"), "removed: files, folders and directory");
}

/* One file (--one-file, or a run directory's path holding a file): -f
 * removes a gputrace database only. */
Test(outputs, one_file, .init = make_dir, .fini = clean)
{
    char p[512];
    snprintf(p, sizeof p, "%s/one.db", dir);
    theirs("one.db");
    cr_assert_eq(gt_outputs_clear(p, "one.db", GT_LAYOUT_FILE, 1), -1, "another program's database");
    cr_assert_eq(gt_outputs_clear(p, "one.db", GT_LAYOUT_DIR, 1), -1, "... whatever the layout");
    cr_assert(there("one.db"));
    unlink(p);
    ours("one.db");
    touch("one.db-wal");
    cr_assert_eq(gt_outputs_clear(p, "one.db", GT_LAYOUT_FILE, 0), -1, "ours: refused without force");
    cr_assert_eq(gt_outputs_clear(p, "one.db", GT_LAYOUT_FILE, 1), 0);
    cr_assert(!there("one.db") && !there("one.db-wal"), "removed with its -wal");
}

/* A process killed before its first checkpoint: its meta table is in the
 * -wal only.  Still ours; and looking adds no side file. */
Test(outputs, ours_told_by_content, .init = make_dir, .fini = clean)
{
    char p[512], q[512];
    ours("a.db");
    snprintf(p, sizeof p, "%s/a.db", dir);
    cr_assert(gt_ours_db(p));
    cr_assert(!there("a.db-wal") && !there("a.db-shm"), "looking made no side file");
    theirs("b.db");
    text("c.db");
    sql_file("d.db", "CREATE TABLE x(y); CREATE VIEW meta AS SELECT 'schema_version' AS key, 'gputrace' AS value");
    sql_file("e.db", "CREATE TABLE meta(key TEXT, value TEXT); INSERT INTO meta VALUES('writer', 'someone else'),"
                     " ('schema_version', '1');");
    const char *const no[] = { "b.db", "c.db", "d.db", "e.db", "none.db" };
    for (size_t k = 0; k < sizeof no / sizeof *no; k++) {
        snprintf(q, sizeof q, "%s/%s", dir, no[k]);
        cr_assert(!gt_ours_db(q), "%s is not ours", no[k]);
    }
    /* the WAL of a live connection, copied as a kill would leave it */
    snprintf(p, sizeof p, "%s/live.db", dir);
    sqlite3 *db;
    cr_assert_eq(sqlite3_open(p, &db), SQLITE_OK);
    cr_assert_eq(sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA wal_autocheckpoint=0; " OURS_SQL, NULL, NULL, NULL),
                 SQLITE_OK);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "cp '%s/live.db' '%s/killed.db' && cp '%s/live.db-wal' '%s/killed.db-wal'", dir, dir, dir,
             dir);
    cr_assert_eq(system(cmd), 0);
    sqlite3_close(db);
    snprintf(q, sizeof q, "%s/killed.db", dir);
    cr_assert(gt_ours_db(q), "meta in the -wal only: ours");
    cr_assert(!there("killed.db-shm"), "the -shm the look made is gone");
    snprintf(q, sizeof q, "%s/killed.db-wal", dir);
    cr_assert(gt_ours_file(q), "its -wal is ours");
    snprintf(q, sizeof q, "%s/c.db-wal", dir);
    touch("c.db-wal");
    cr_assert(!gt_ours_file(q), "the -wal of a file that is not ours is not ours");
}

/* The host name in file names: never a '/', a control byte or a leading
 * '.' (before: "../../../escaped" put each process's file outside the
 * run directory), and the names record matches agree. */
Test(outputs, host_names_in_file_names)
{
    char host[GT_HOST_MAX + 1];
    gt_config_host(host, sizeof host);
    cr_assert(host[0] && host[0] != '.' && !strchr(host, '/'), "%s", host);
    for (const char *c = host; *c; c++)
        cr_assert(strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-", *c), "%s", host);
    char name[300];
    snprintf(name, sizeof name, "%s-12.db", host);
    cr_assert(gt_config_name_matches(GT_RUN_DIR_FILE, name), "this host's file matches");
    cr_assert(!gt_config_name_matches(GT_RUN_DIR_FILE, "../x-1.db"));
    cr_assert(!gt_config_name_matches(GT_RUN_DIR_FILE, ".x-1.db"));
    cr_assert(!gt_config_name_matches(GT_RUN_DIR_FILE, "a\x1b-1.db"));
    cr_assert(!gt_config_name_matches(GT_RUN_DIR_FILE, "a b-1.db"));
    cr_assert(gt_config_name_matches(GT_RUN_DIR_FILE, "._.-1.db") == 0);
    cr_assert(gt_config_name_matches(GT_RUN_DIR_FILE, "_.._escaped-1.db"));
}

Test(outputs, values_echoed_in_messages)
{
    char buf[GT_PRINTABLE_LEN];
    cr_assert_str_eq(gt_printable("a\x1b[31mb\nc\\", buf, sizeof buf), "a\\x1b[31mb\\x0ac\\x5c");
    /* whole UTF-8 characters shown as they are; a stray byte, a cut one, a
     * C1 control or a bidi override escaped */
    cr_assert_str_eq(gt_printable("caf\xc3\xa9/\xe6\x97\xa5", buf, sizeof buf), "caf\xc3\xa9/\xe6\x97\xa5");
    cr_assert_str_eq(gt_printable("a\xc3" "b\xe2\x80\xae" "c\xc2\x9b" "d\xff", buf, sizeof buf),
                     "a\\xc3b\\xe2\\x80\\xaec\\xc2\\x9bd\\xff");
    cr_assert_str_eq(gt_printable("x\xe2\x80\x8f" "y", buf, sizeof buf), "x\\xe2\\x80\\x8fy"); /* U+200F */
    char big[10240];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    gt_printable(big, buf, sizeof buf);
    cr_assert(strlen(buf) < sizeof buf && !strcmp(buf + strlen(buf) - 3, "..."), "cut, marked");
    char tiny[8];
    cr_assert_str_eq(gt_printable("abcdefghij", tiny, sizeof tiny), "abcd...");
    cr_assert_str_eq(gt_printable("abc", tiny, sizeof tiny), "abc");
}
