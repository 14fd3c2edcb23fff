/* test_writer_fork.c: the writer's side of fork (collector/writer_ctl.c).
 * fork's prepare handler must not let the fork copy the writer mid-way:
 * a writer that is stopping, or whose writes failed, is still running its
 * final pass, and a child that copied it then freed a buffer the writer
 * was replacing.  The prepare handler waits until the writer parks, and
 * gives up on a writer stuck in CUPTI's flush, or blocked past
 * FORK_WAIT_MS, whose buffers the child then leaves alone.  The writer here is a thread of the test that
 * plays its part of the handshake (fork_mu, parked, fork_cv); the rest of
 * the collector is stubbed. */
#include "collector/writer_int.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct gt_writer_state gt_w = { .req_pipe = { -1, -1 }, .ack_pipe = { -1, -1 },
        .fork_mu = PTHREAD_MUTEX_INITIALIZER, .fork_cv = PTHREAD_COND_INITIALIZER };
GT_TLS int gt_w_is_writer;

/* what writer_ctl.c calls besides the handshake: nothing to do here */
int gt_fd_enter(void) { return 1; }
void gt_fd_leave(void) {}
void gt_fd_forget_after_fork(void) {}
void gt_stage_fork_prepare(void) {}
void gt_stage_fork_parent(void) {}
void gt_stage_forget(int child) { (void)child; }
void gt_callsite_reset_reported(void) {}
void gt_modules_reset_reported(void) {}
void gt_strtab_reset_reported(void) {}
void gt_pystack_reset_reported(void) {}
void gt_cupti_names_reset_reported(void) {}
void gt_plug_forget_after_fork(void) {}
void gt_plug_store_forget_after_fork(void) {}

/* free, wrapped at link time: which pointer writer_ctl.c let go of last */
void __real_free(void *p);
static void *freed;
void __wrap_free(void *p)
{
    if (p)
        freed = p;
    __real_free(p);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A writer on its way out: after park_ms it parks, as gt_wr_main does
 * after its final pass (never, for park_ms < 0). */
static int park_ms;
static void *writer_ending(void *arg)
{
    (void)arg;
    if (park_ms < 0)
        return NULL;
    struct timespec d = { park_ms / 1000, (long)(park_ms % 1000) * 1000000L };
    nanosleep(&d, NULL);
    pthread_mutex_lock(&gt_w.fork_mu);
    gt_w.parked = 1;
    pthread_cond_broadcast(&gt_w.fork_cv);
    pthread_mutex_unlock(&gt_w.fork_mu);
    return NULL;
}

/* A writer running (its pipes, a pipe of the test's) and ending: the
 * prepare handler is called as fork calls it; returns how long it took
 * and leaves the handshake as the parent's handler does. */
static double prepare_against(int ms, pthread_t *t)
{
    int req[2];
    cr_assert_eq(pipe(req), 0);
    gt_w.req_pipe[0] = req[0];
    gt_w.req_pipe[1] = req[1];
    gt_w.running = 1;
    gt_w.owner_pid = getpid();
    gt_w.parked = 0;
    park_ms = ms;
    cr_assert_eq(pthread_create(t, NULL, writer_ending, NULL), 0);
    double t0 = now_s();
    gt_writer_fork_prepare();
    double took = now_s() - t0;
    close(req[0]);
    close(req[1]);
    return took;
}

/* The writer set up as on its way out: the prepare handler must not
 * return before it parks (150 ms on). */
static void expect_waited_for(const char *state)
{
    pthread_t t;
    double took = prepare_against(150, &t);
    int parked = gt_w.parked;
    gt_writer_fork_parent();
    pthread_join(t, NULL);
    cr_expect(parked, "the fork went ahead while the %s writer was in its final pass", state);
    cr_expect(took >= 0.1, "the prepare handler returned after %.3f s, before the writer parked", took);
}

Test(writer_fork, a_stopping_writer_is_waited_for, .timeout = 20)
{
    atomic_store(&gt_w.stop, 1); /* gt_writer_stop asked for the final pass */
    expect_waited_for("stopping");
}

Test(writer_fork, a_failed_writer_is_waited_for, .timeout = 20)
{
    gt_w.db.failed = 13; /* SQLITE_FULL: its loop ends, it lets go of the file, then parks */
    expect_waited_for("failed");
}

/* The writer set up as never parking: the prepare handler must give up
 * after limit_s (and not much later), and the child, as its handler calls
 * gt_writer_forget_after_fork, must free none of what the writer may have
 * been replacing. */
static void expect_given_up_after(double limit_s, const char *why)
{
    pthread_t t;
    double took = prepare_against(-1, &t);
    gt_writer_fork_parent();
    pthread_join(t, NULL);
    cr_expect(took >= limit_s * 0.9 && took < limit_s + 5, "gave up after %.3f s (%s)", took, why);
    freed = NULL;
    gt_writer_forget_after_fork();
    cr_expect(freed == NULL, "the child freed what a writer copied mid-way may have been replacing");
    cr_expect(gt_w.db.codebuf == NULL && gt_w.running == 0);
}

/* A writer stuck in CUPTI's flush may wait on the very thread that forks:
 * given up on after STUCK_MS. */
Test(writer_fork, a_writer_stuck_in_cupti_is_given_up_on, .timeout = 20)
{
    static unsigned char not_from_malloc[64];
    gt_w.db.codebuf = not_from_malloc; /* a free of it would abort */
    atomic_store(&gt_w.in_cupti_flush, 1);
    expect_given_up_after(STUCK_MS / 1000.0, "STUCK_MS");
}

/* A writer blocked anywhere else (the runtime's lock, asked for the
 * device's name, held by the thread that forks from a signal handler):
 * given up on after FORK_WAIT_MS, a fork never hangs on it; the child
 * starts its marks anew. */
Test(writer_fork, a_writer_blocked_elsewhere_is_given_up_on, .timeout = 20)
{
    static unsigned char not_from_malloc[64];
    static struct mark marks_not_from_malloc[4];
    gt_w.db.codebuf = not_from_malloc;
    gt_w.marks = marks_not_from_malloc;
    gt_w.cap_marks = 4;
    atomic_store(&gt_w.stop, 1);
    expect_given_up_after(FORK_WAIT_MS / 1000.0, "FORK_WAIT_MS");
    cr_expect(gt_w.marks == NULL && gt_w.cap_marks == 0, "the child kept the marks' array");
}

/* The usual case: the writer parked, the child lets its buffer go. */
Test(writer_fork, a_parked_writers_buffer_is_freed_in_the_child, .timeout = 20)
{
    void *buf = malloc(64);
    gt_w.db.codebuf = buf;
    pthread_t t;
    prepare_against(0, &t);
    gt_writer_fork_parent();
    pthread_join(t, NULL);
    gt_w.parked = 1; /* as the child's copy saw it (fork_parent let the writer go on) */
    freed = NULL;
    gt_writer_forget_after_fork();
    cr_expect(freed == buf, "the buffer was not let go");
    cr_expect(gt_w.db.codebuf == NULL);
}
