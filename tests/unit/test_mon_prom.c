/* test_mon_prom.c: the monitor's metrics text (collector/mon_prom.c) from
 * aggregates fed directly (collector/mon_agg.c): its series stay bounded
 * whatever the program does (10,000 call sites, 2,000 communicators),
 * label values are escaped, and the step histogram is cumulative. */
#include "collector/mon_agg.h"
#include "collector/mon_prom.h"

#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* what mon_prom.c takes from the rest of the tracer */
int gt_clock_use_tsc;
const char *gt_mon_api_name(int64_t api)
{
    return api == 1 ? "cuda\"Sync\\\n" : "ncclAllReduce";
}
int gt_fd_add(int fd) { (void)fd; return 0; }
int gt_fd_close(int fd) { return close(fd); }
int gt_db_begin(struct gt_db *d) { (void)d; return 0; }
int gt_db_commit(struct gt_db *d) { (void)d; return 0; }

static char buf[1 << 20];

static int count(const char *text, const char *prefix)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, prefix)); p++)
        n += p == text || p[-1] == '\n';
    return n;
}

static int kept;
static void count_comm(const struct gt_mon_comm *c, void *ctx)
{
    (void)ctx;
    kept += (int)c->calls;
}

Test(mon_prom, series_are_bounded)
{
    gt_mon_agg_start(NULL, 0);
    gt_mon_prom_start(NULL, "/nonexistent", "h-1.db");
    for (int i = 0; i < 10000; i++)
        gt_mon_agg_blocking(i, 1, 0, 1000 + i);
    for (int i = 0; i < 2000; i++)
        gt_mon_agg_collective(0x1000u + (unsigned)i, 2, 4, 64, i, 0);
    struct gt_prom_state st = { 0 };
    kept = 0;
    gt_mon_agg_each_comm(count_comm, NULL);
    size_t n = gt_mon_prom_format(buf, sizeof buf, &st);
    cr_assert(n > 0 && n < sizeof buf - 1);
    /* the sites that blocked longest, and the rest as one series */
    cr_assert_eq(count(buf, "gputrace_host_blocked_seconds_total{"), GT_PROM_SITES + 1);
    cr_assert(strstr(buf, "site=\"other\""));
    cr_assert_eq(count(buf, "gputrace_collectives_total{"), GT_PROM_COMMS + 1);
    cr_assert_eq(count(buf, "gputrace_collective_gpu_seconds_count{"), GT_PROM_COMM_HISTS + 1);
    cr_assert_eq(count(buf, "gputrace_collective_gpu_seconds_bucket{"), (GT_PROM_COMM_HISTS + 1) * GT_COMM_BUCKETS);
    /* the rest folded once into "other": its calls are all the others' */
    char want[64];
    snprintf(want, sizeof want, "comm=\"other\",op=\"other\"} %d\n", kept - GT_PROM_COMMS);
    cr_assert(strstr(buf, want), "pairs of one call each, 32 shown: %s", want);
    /* the tables keep what they have room for, and count the rest as lost */
    cr_assert_gt(gt_mon_agg_lost(), 0);
}

Test(mon_prom, labels_escaped)
{
    gt_mon_agg_start(NULL, 0);
    gt_mon_prom_start(NULL, "/nonexistent", "h-1.db");
    gt_mon_agg_blocking(7, 1, 0, 5);
    struct gt_prom_state st = { .inflight_ns = 3000000000, .inflight_api = 1 };
    gt_mon_prom_format(buf, sizeof buf, &st);
    cr_assert(strstr(buf, "api=\"cuda\\\"Sync\\\\\\n\""), "%s", buf);
    cr_assert(strstr(buf, "gputrace_inflight_seconds{") && strstr(buf, "} 3.000\n"));
    for (const char *p = buf; *p; p++)
        cr_assert((*p >= 0x20 && *p < 0x7f) || *p == '\n', "a byte no exposition may hold");
}

Test(mon_prom, step_histogram_cumulative)
{
    gt_mon_agg_start(NULL, 0);
    gt_mon_prom_start(NULL, "/nonexistent", "h-1.db");
    for (int i = 0; i < 6; i++)
        gt_mon_agg_range(5, 0, 0, i < 3 ? 3000000 : 70000000); /* 3 of 3 ms, 3 of 70 ms */
    struct gt_prom_state st = { 0 };
    gt_mon_prom_format(buf, sizeof buf, &st);
    /* name 5 repeated: every step, the two before it was known for the
     * steps' name (at its third) too: 3 of 3 ms, then 3 of 70 ms */
    cr_assert(strstr(buf, "le=\"0.005\"} 3\n"), "%s", buf);
    cr_assert(strstr(buf, "le=\"0.1\"} 6\n"));
    cr_assert(strstr(buf, "le=\"+Inf\"} 6\n"));
    cr_assert(strstr(buf, "gputrace_step_seconds_count{") && strstr(buf, "} 6\n"));
    cr_assert(strstr(buf, "gputrace_steps_total{") && strstr(buf, "} 6\n"));
}

/* Names that take the lead in turn: every range of a name that led is
 * one step, once (X 10 times, then Y 20, then X 30 were counted 70 steps
 * for 60 ranges: X's first ten twice). */
Test(mon_prom, steps_of_names_that_lead_in_turn)
{
    gt_mon_agg_start(NULL, 0);
    int64_t t = 0;
    for (int i = 0; i < 10; i++, t += 2000000)
        gt_mon_agg_range(7, 0, t, t + 1000000);
    for (int i = 0; i < 20; i++, t += 2000000)
        gt_mon_agg_range(8, 0, t, t + 1000000);
    for (int i = 0; i < 30; i++, t += 2000000)
        gt_mon_agg_range(7, 0, t, t + 1000000);
    struct gt_mon_steps s;
    gt_mon_agg_steps(&s);
    cr_assert_eq(s.name, 7);
    cr_assert_eq(s.count, 60, "%lld steps for 60 ranges", (long long)s.count);
    gt_mon_agg_stop();
}

/* The file is written whole, and at the end removed only if it is still
 * the one this process wrote: another file put in its place stays. */
Test(mon_prom, removes_only_its_own_file)
{
    char dir[] = "/tmp/gputrace-test-prom-XXXXXX", path[128], other[128], err[256];
    cr_assert(mkdtemp(dir));
    gt_mon_agg_start(NULL, 0);
    gt_mon_prom_start(NULL, dir, "h-1.db");
    struct gt_prom_state st = { 0 };
    cr_assert_eq(gt_mon_prom_write(&st, err, sizeof err), 0, "%s", err);
    snprintf(path, sizeof path, "%s/" GT_PROM_DIR "/h-1.prom", dir);
    cr_assert_eq(access(path, F_OK), 0);
    gt_mon_prom_remove();
    cr_assert_neq(access(path, F_OK), 0, "its own file removed");
    gt_mon_prom_start(NULL, dir, "h-1.db");
    cr_assert_eq(gt_mon_prom_write(&st, err, sizeof err), 0, "%s", err);
    snprintf(other, sizeof other, "%s/theirs", dir);
    FILE *f = fopen(other, "w");
    cr_assert(f);
    fputs("someone else's\n", f);
    fclose(f);
    cr_assert_eq(rename(other, path), 0);
    gt_mon_prom_remove();
    cr_assert_eq(access(path, F_OK), 0, "a file put in its place stays");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(system(cmd), 0);
}
