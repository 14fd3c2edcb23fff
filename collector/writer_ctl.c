/* writer_ctl.c: the writer seen from the program's threads (writer.h):
 * a flush asked for from a signal handler, the end of tracing, and fork.
 * Everything here that a signal handler may reach is async-signal-safe: a
 * flag, a pipe, nanosleep; the work itself is the writer thread's. */
#define _GNU_SOURCE
#include "collector/writer_int.h"
#include "collector/callsite.h"
#include "collector/cupti_sub.h"
#include "collector/fdguard.h"
#include "collector/modules.h"
#include "collector/plugin_ring.h"
#include "collector/plugin_store.h"
#include "collector/pyframes.h"
#include "collector/stage.h"
#include "collector/strtab.h"

#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts); /* async-signal-safe */
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* For a waiter: whether the writer has sat in CUPTI's flush for STUCK_MS
 * (*since: when it was last seen elsewhere). */
static int writer_stuck(int64_t now, int64_t *since)
{
    if (!atomic_load(&gt_w.in_cupti_flush))
        *since = now;
    return now - *since >= STUCK_MS;
}

void gt_writer_flush_from_signal(int timeout_ms, int with_gpu)
{
    if (!gt_w.running || gt_w.owner_pid != getpid() || gt_w_is_writer || atomic_load(&gt_w.stop))
        return;
    char c = 1;
    char junk;
    if (!gt_fd_enter()) /* the program took our descriptors: they are not ours to write */
        return;
    while (read(gt_w.ack_pipe[0], &junk, 1) == 1)
        ;
    if (with_gpu)
        atomic_store(&gt_w.want_gpu_flush, 1);
    int asked = write(gt_w.req_pipe[1], &c, 1) == 1;
    gt_fd_leave();
    if (!asked)
        return;
    /* poll only looks; a writer that lost its descriptors answers no more,
     * and the wait ends at the timeout */
    int64_t t0 = mono_ms(), since = t0;
    for (int64_t now = t0; now - t0 < timeout_ms && !writer_stuck(now, &since); now = mono_ms()) {
        struct pollfd p = { .fd = gt_w.ack_pipe[0], .events = POLLIN };
        if (poll(&p, 1, 5) > 0)
            return;
    }
}

/* Waits for the writer's final pass, up to timeout_ms; in_signal, only
 * SIGNAL_GRACE_MS past the host's part of it (async-signal-safe). */
static int wait_stopped(int timeout_ms, int in_signal)
{
    struct timespec pause = { 0, 1000 * 1000 };
    int64_t t0 = mono_ms(), since = t0, host_at = 0;
    for (int64_t now = t0; !atomic_load(&gt_w.stopped) && now - t0 < timeout_ms && !writer_stuck(now, &since);
         now = mono_ms()) {
        if (in_signal && !host_at && atomic_load(&gt_w.host_stopped))
            host_at = now;
        if (host_at && now - host_at >= SIGNAL_GRACE_MS)
            break;
        nanosleep(&pause, NULL);
    }
    return atomic_load(&gt_w.stopped) || atomic_load(&gt_w.host_stopped);
}

int gt_writer_stop(const struct gt_end_info *end, int timeout_ms, int in_signal)
{
    if (!gt_w.running || gt_w.owner_pid != getpid() || gt_w_is_writer)
        return 0;
    if (atomic_exchange(&gt_w.stop_claimed, 1)) /* another thread is stopping it: wait for that */
        return wait_stopped(timeout_ms, in_signal) && atomic_load(&gt_w.stopped) ? 0 : -1;
    if (end)
        gt_w.end = *end;
    gt_w.has_end = end != NULL;
    atomic_store(&gt_w.stop, 1); /* after the end info: the writer reads it once it sees this */
    char c = 1;
    if (gt_fd_enter()) {
        (void)!write(gt_w.req_pipe[1], &c, 1);
        gt_fd_leave();
    }
    wait_stopped(timeout_ms, in_signal);
    if (!atomic_load(&gt_w.stopped))
        return -1; /* a stuck writer must not hold up the program's exit */
    gt_w.running = 0; /* its final pass let go of the database and the pipes (release_descriptors) */
    return 0;
}

void gt_writer_fork_prepare(void)
{
    pthread_mutex_lock(&gt_w.fork_mu);
    if (!gt_w.running || gt_w.owner_pid != getpid() || gt_w_is_writer) {
        gt_stage_fork_prepare();
        return; /* fork_mu and the queue's locks stay held until after the fork, as in every case */
    }
    gt_w.pause_req = 1;
    char c = 1;
    if (gt_fd_enter()) {
        (void)!write(gt_w.req_pipe[1], &c, 1);
        gt_fd_leave();
    }
    /* Until the writer parks, whatever it is doing: its loop parks at the
     * end of a pass, and a writer that stops (or whose writes failed) parks
     * after its final pass.  Not waiting for the latter let the fork copy
     * it mid-way: a compact block's buffer between its realloc and the new
     * pointer's store (the child then freed the old one again), the
     * segment it held leaked.  Given up on, as a fork must not hang on us,
     * when the writer has sat in CUPTI's flush for STUCK_MS (writer_stuck)
     * or after FORK_WAIT_MS whatever it does (it may wait on a lock of the
     * very thread that forks: the runtime's, asked for the device's name,
     * with a signal handler forking); the child then lets go of nothing the
     * writer may have been replacing (gt_writer_forget_after_fork).  Looked
     * at every 0.2 ms, fork_mu let go between looks, rather than waited for
     * on fork_cv with a deadline of the real-time clock, which a step back
     * of that clock pushes out. */
    int64_t since = mono_ms(), began = since;
    struct timespec look = { 0, 200 * 1000 };
    for (int64_t now = began; !gt_w.parked && !writer_stuck(now, &since) && now - began < FORK_WAIT_MS;
         now = mono_ms()) {
        pthread_mutex_unlock(&gt_w.fork_mu);
        nanosleep(&look, NULL);
        pthread_mutex_lock(&gt_w.fork_mu);
    }
    gt_stage_fork_prepare();
}

void gt_writer_fork_parent(void)
{
    gt_stage_fork_parent();
    gt_w.pause_req = 0;
    pthread_cond_broadcast(&gt_w.fork_cv);
    pthread_mutex_unlock(&gt_w.fork_mu);
}

void gt_writer_forget_after_fork(void)
{
    int was_parked = gt_w.parked;
    gt_stage_forget(gt_w.owner_pid != getpid()); /* a child, or the same process after a failed exec */
    pthread_mutex_init(&gt_w.fork_mu, NULL);
    pthread_cond_init(&gt_w.fork_cv, NULL);
    gt_w.pause_req = gt_w.parked = 0;
    /* The parent's connection must not be used (nor closed) in the child;
     * its buffer for compact blocks is plain memory, let go where the
     * writer was parked at the fork.  Otherwise that pointer, and the
     * marks' and early ends' arrays, may be ones it was replacing (realloc,
     * then the store): left, a leak rather than a double free, and the
     * child's writer starts those arrays anew */
    if (was_parked) {
        free(gt_w.db.codebuf);
    } else {
        gt_w.marks = NULL;
        gt_w.cap_marks = 0;
        gt_w.early_ends = NULL;
        gt_w.cap_early = 0;
    }
    memset(&gt_w.db, 0, sizeof gt_w.db);
    gt_w.running = 0;
    gt_w.nmarks = 0;
    gt_w.nearly = 0;
    gt_w.lost = 0;
    gt_w.nblock = 0;
    gt_w.device_seen = gt_w.name_device = 0;
    atomic_store(&gt_w.stop, 0);
    atomic_store(&gt_w.stop_claimed, 0);
    atomic_store(&gt_w.stopped, 0);
    atomic_store(&gt_w.host_stopped, 0);
    atomic_store(&gt_w.in_cupti_flush, 0);
    atomic_store(&gt_w.want_gpu_flush, 0);
    gt_callsite_reset_reported();
    gt_modules_reset_reported();
    gt_strtab_reset_reported();
    gt_pystack_reset_reported();
    gt_cupti_names_reset_reported();
    gt_plug_forget_after_fork();
    gt_plug_store_forget_after_fork();
    gt_w.req_pipe[0] = gt_w.req_pipe[1] = gt_w.ack_pipe[0] = gt_w.ack_pipe[1] = -1;
    gt_fd_forget_after_fork(); /* the parent's descriptors: not ours to guard here */
    atomic_store(&gt_w.released, 0);
}
