/* test_outputs.c: what an output path names (collector/config.c) and what
 * `gputrace record` finds of an earlier run there (collector/outputs.c):
 * the layouts, a process's file in a run directory, and the files a
 * %h/%p/%r pattern can have made, refused and with force removed, and
 * only those. */
#define _GNU_SOURCE
#include "collector/config.h"
#include "collector/outputs.h"

#include <criterion/criterion.h>
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
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "w");
    cr_assert(f);
    fclose(f);
}

static int there(const char *name)
{
    char p[512];
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
    touch("r-x-host.db");   /* %r is a number */
    touch("r-1-.db");       /* %h is one character at least */
    touch("r-1-a-b.db.bak"); /* not a trace's file */
    cr_assert_eq(gt_outputs_clear(pat, "r", GT_LAYOUT_PATTERN, 0), 0, "nothing of ours");
    touch("r-12-a-b.db-shm");
    cr_assert_eq(gt_outputs_clear(pat, "r", GT_LAYOUT_PATTERN, 0), -1, "a -shm it names");
    touch("r-0-h.db");
    cr_assert_eq(gt_outputs_clear(pat, "r", GT_LAYOUT_PATTERN, 1), 0);
    cr_assert(!there("r-12-a-b.db-shm") && !there("r-0-h.db"), "removed with force");
    cr_assert(there("r-x-host.db") && there("r-1-.db") && there("r-1-a-b.db.bak"), "and nothing else");
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
    touch("run.db/h-1.db");
    touch("run.db/h-1.db-wal");
    touch("run.db/my-host-22.db");
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 0), -1, "refused without force");
    touch("run.db/all.db");
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 1), -1, "a file no process names: refused");
    cr_assert(there("run.db/h-1.db") && there("run.db/all.db"), "and nothing removed");
    char all[600];
    snprintf(all, sizeof all, "%s/all.db", run);
    unlink(all);
    cr_assert_eq(gt_outputs_clear(run, "run.db", GT_LAYOUT_DIR, 1), 0);
    cr_assert(!there("run.db"), "removed, files and directory");
}
