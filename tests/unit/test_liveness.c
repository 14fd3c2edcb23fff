/* test_liveness.c: whether a process without an end was running when its
 * file was read (viewer/model/liveness.c), judged by its own file's
 * moment: a run's files are read one after another, and a file read later
 * holds later times (another rank's end) that say nothing of one read
 * before it.  Judged by the first file's moment and every file's ends, a
 * rank read while it ran was called killed. */
#include "viewer/model/model.h"

#include <criterion/criterion.h>
#include <string.h>

#define S 1000000000LL

static struct proc procs[3];
static struct model m;

static void make_run(int64_t a_read, int64_t a_end, int64_t b_end)
{
    memset(procs, 0, sizeof procs);
    /* A: no end, beating until a_end, its file read at a_read */
    procs[0] = (struct proc){ .end = a_end, .has_heartbeat = 1, .read_ns = a_read, .db = 0 };
    /* B: ended normally at b_end, in a file read later */
    procs[1] = (struct proc){ .end = b_end, .has_end = 1, .has_heartbeat = 1, .read_ns = b_end + S, .db = 1 };
    m = (struct model){ .procs = procs, .nprocs = 2, .t0 = 0 };
}

Test(liveness, judged_by_its_own_files_moment)
{
    make_run(101 * S, 100 * S, 200 * S);
    cr_assert(model_proc_running(&m, 0, model_latest_end(&m)),
              "beat 1 s before its file was read: running, whatever a file read later holds");
}

Test(liveness, stale_when_its_own_file_was_read)
{
    make_run(105 * S, 100 * S, 102 * S);
    cr_assert(!model_proc_running(&m, 0, model_latest_end(&m)), "beat 5 s before its file was read: stopped");
}

Test(liveness, moment_unknown_the_latest_of_all)
{
    make_run(0, 100 * S, 200 * S);
    cr_assert(!model_proc_running(&m, 0, model_latest_end(&m)), "100 s before another's end: stopped");
    make_run(0, 100 * S, 101 * S);
    cr_assert(model_proc_running(&m, 0, model_latest_end(&m)));
}

Test(liveness, an_end_or_a_signal_is_no_run)
{
    make_run(101 * S, 100 * S, 200 * S);
    procs[0].has_signal = 1;
    cr_assert(!model_proc_running(&m, 0, model_latest_end(&m)));
    procs[0].has_signal = 0;
    procs[0].has_heartbeat = 0;
    cr_assert(!model_proc_running(&m, 0, model_latest_end(&m)), "no heartbeat: nothing says it ran on");
}
