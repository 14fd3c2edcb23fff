/* writer.c: the writer thread (see writer.h for the design, writer_int.h
 * for how its files divide the work): opening, its loop, each pass, and
 * the final pass. */
#define _GNU_SOURCE
#include "collector/writer_int.h"
#include "format/api_ids.h"
#include "format/call_block.h"
#include "format/capi_block.h"
#include "format/nvtx_block.h"
#include "collector/callsite.h"
#include "collector/modules.h"
#include "collector/clock.h"
#include "collector/cupti_sub.h"
#include "collector/fdguard.h"
#include "collector/mon_agg.h"
#include "collector/mon_gpu.h"
#include "collector/mon_prom.h"
#include "collector/monitor.h"
#include "collector/xfsz.h"
#include "collector/pyframes.h"
#include "collector/plugin_ring.h"
#include "collector/plugin_store.h"
#include "collector/strtab.h"
#include "collector/stage.h"
#include "collector/state.h"
#include "collector/tbuf.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

struct gt_writer_state gt_w = { .req_pipe = { -1, -1 }, .ack_pipe = { -1, -1 }, .fork_mu = PTHREAD_MUTEX_INITIALIZER,
        .fork_cv = PTHREAD_COND_INITIALIZER };

GT_TLS int gt_w_is_writer;

int gt_writer_is_self(void)
{
    return gt_w_is_writer;
}

static uint64_t now_ms(void)
{
    return gt_mono_ns() / 1000000;
}

/* Commits the open transaction early once about this much was stored in
 * it: the checkpoint that follows a commit copies all of it into the
 * database.  200 ms at a million calls a second with CUPTI's API records
 * (~20 MiB) took a commit 30 ms; 4 MiB take ~6 ms.  The rings no longer
 * wait for a commit (stage.h), but CUPTI's buffers and a flush asked for
 * from a signal handler still do. */
#define COMMIT_BYTES (4u << 20)

/* Whether this pass was asked for from a signal handler (writer thread). */
static int pass_for_signal;

/* After a commit: the device's name asked of the runtime, unless a signal's
 * flush or the end waits for this pass (writer_rows.c note_device).  A
 * program that floods the writer sees its commits only here, mid-pass. */
static void after_commit(void)
{
    if (!gt_w.name_device || pass_for_signal || atomic_load(&gt_w.stop))
        return;
    struct pollfd p = { .fd = gt_w.req_pipe[0], .events = POLLIN };
    if (poll(&p, 1, 0) == 0)
        gt_wr_look_up_gpu_name();
}

static void commit_if_big(void)
{
    if (gt_w.stored_bytes < COMMIT_BYTES)
        return;
    gt_db_commit(&gt_w.db);
    gt_db_begin(&gt_w.db);
    gt_w.stored_bytes = 0;
    after_commit();
}

/* Up to quota of the threads' queued records, within what the pass took
 * on (*todo), and the blocks they filled. */
#define HOST_SLICE 16384 /* a few ms of work: CUPTI's queue is looked at this often */
static size_t store_host(uint64_t quota, uint64_t *todo)
{
    size_t stored = 0;
    for (size_t got; quota && *todo && (got = gt_stage_store_one(gt_wr_on_record, NULL)) != 0;) {
        stored += got;
        *todo -= got < *todo ? got : *todo;
        quota -= got < quota ? got : quota;
        gt_w.stored_bytes += got * sizeof(struct gt_record);
        commit_if_big();
    }
    size_t plug = gt_plug_store(&gt_w.db); /* NCCL's, as its plugin */
    gt_w.stored_bytes += plug * sizeof(struct gt_plug_rec);
    gt_w.stored_recs += plug;
    gt_wr_flush_blocks();
    commit_if_big();
    return stored;
}

/* The threads' records (what the drain thread queued, and what it has not
 * taken yet) and CUPTI's buffers, in turns: CUPTI's queue is the smaller
 * (stage.h), and a pass that stored every queued host record first let it
 * fill.  Only as many host records as were queued when it began, so that
 * a writer slower than the program still commits; past a full queue (cut),
 * again, as many times as that takes, so that the final pass stores all. */
static void drain_all(void)
{
    int cut, rounds = 0;
    do {
        gt_stage_pull(&cut, 1);
        uint64_t todo = gt_stage_backlog();
        for (;;) {
            /* todo may count records the drain thread is filling a chunk
             * with: those come in the next pass */
            size_t host = store_host(HOST_SLICE, &todo);
            size_t got = gt_cupti_drain_one(&gt_w.db, gt_w.bulk, gt_w.bulk_after);
            gt_w.stored_bytes += got * sizeof(struct gt_capi_packed);
            gt_w.stored_recs += host + got;
            if (!got && (!todo || !host))
                break;
        }
    } while (cut && ++rounds < 64);
}

void gt_wr_drain(void)
{
    gt_db_begin(&gt_w.db);
    drain_all();
    gt_wr_store_names();
}

/* Why tracing stops, in one line (gt_turn_off says it once). */
static void say_off(void)
{
    char why[4400];
    if (gt_fd_taken())
        snprintf(why, sizeof why, "the program closed or replaced the descriptors of %s; tracing is off, the "
                 "program runs on", gt_w.path);
    else
        snprintf(why, sizeof why, "writing %s failed (%s); tracing is off, the program runs on",
                 gt_w.path, sqlite3_errstr(gt_w.db.failed));
    gt_turn_off(why);
}

static void close_db(void)
{
    gt_db_close(&gt_w.db);
    gt_mon_agg_stop();
    gt_db_close(&gt_w.disk);
}

/* Tracing is off: the database and the pipes are closed, or, those the
 * program took, left alone (fdguard.h); nothing touches them again. */
static void release_descriptors(void)
{
    if (atomic_exchange(&gt_w.released, 1))
        return;
    gt_fd_release(close_db);
    /* a connection whose descriptors the program took is left unclosed
     * (its memory for compact blocks is ours: let go) */
    free(gt_w.db.codebuf);
    free(gt_w.disk.codebuf);
    memset(&gt_w.db, 0, sizeof gt_w.db);
    memset(&gt_w.disk, 0, sizeof gt_w.disk);
    gt_w.db.failed = SQLITE_ABORT;
    gt_w.req_pipe[0] = gt_w.req_pipe[1] = gt_w.ack_pipe[0] = gt_w.ack_pipe[1] = -1;
}

uint64_t gt_wr_dropped(void)
{
    return gt_tbuf_dropped() + gt_strtab_lost() + gt_plug_dropped() + gt_w.lost + gt_mon_agg_lost() +
           gt_mon_gpu_lost();
}

/* The drop counts into the process row, where they changed since written. */
static void store_dropped(void)
{
    static const char *const column[2] = { "dropped_host", "dropped_cupti" };
    int64_t now[2] = { (int64_t)gt_wr_dropped(), (int64_t)gt_cupti_dropped() };
    for (int i = 0; i < 2; i++)
        if (!(gt_w.dropped_known & (1 << i)) || now[i] != gt_w.dropped_stored[i]) {
            gt_w.dropped_known &= ~(1 << i);
            if (gt_db_set_process_i64(&gt_w.db, column[i], now[i], 0) == 0) { /* else tried again next commit */
                gt_w.dropped_stored[i] = now[i];
                gt_w.dropped_known |= 1 << i;
            }
        }
}

/* The program's own profiler took CUPTI (cupti_sub.h, gt_cupti_hand_over):
 * each stretch it held it is a gpu_gap row (its end NULL while it holds
 * it), and the process row says when the first began, once: "active until
 * NS", what a report that knows no gpu_gap reads (the GPU records after it
 * left out: less than there is, nothing wrong). */
static void store_handover(void)
{
    int64_t gaps[GT_CUPTI_MAX_GAPS][2];
    int n = gt_cupti_gaps(gaps, GT_CUPTI_MAX_GAPS);
    if (!n)
        return;
    if (!gt_w.handover_stored) {
        char status[160];
        snprintf(status, sizeof status, "active until %lld (the program's own profiler took CUPTI)",
                 (long long)gaps[0][0]);
        if (gt_db_set_process_text(&gt_w.db, "cupti_status", status) == 0) /* else tried again next commit */
            gt_w.handover_stored = 1;
    }
    for (int i = gt_w.gaps_closed; i < n; i++) {
        int64_t v[] = { i, gaps[i][0], gaps[i][1] };
        if (gt_db_exec_i64(&gt_w.db, GT_ST_GPU_GAP, v, 3) != 0)
            return; /* again next commit */
        if (gaps[i][1] && gt_w.gaps_closed == i)
            gt_w.gaps_closed = i + 1;
    }
}

/* One pass: everything pending into the open transaction; commit if asked. */
static void cycle(int commit)
{
    if (gt_w.db.failed)
        return;
    gt_db_begin(&gt_w.db);
    gt_clock_recalibrate();
    gt_w.bulk = gt_w.bulk_after == 0 || gt_tbuf_backlog() + gt_stage_backlog() > (uint64_t)gt_w.bulk_after;
    drain_all();
    gt_wr_store_names();
    if (commit) {
        gt_wr_store_marks();
        store_dropped();
        store_handover();
        int64_t alive[] = { (int64_t)gt_mono_ns() }; /* alive until now, whatever was recorded (docs/schema.md) */
        gt_db_exec_i64(&gt_w.db, GT_ST_HEARTBEAT, alive, 1);
        int sig = atomic_exchange(&gt_w.end_signal, 0);
        if (sig) {
            gt_db_set_process_i64(&gt_w.db, "end_ns", (int64_t)gt_mono_ns(), 0);
            gt_db_set_process_i64(&gt_w.db, "exit_signal", sig, 0);
            gt_db_set_process_text(&gt_w.db, "end_reason", "signal");
        }
        gt_db_commit(&gt_w.db);
        gt_w.stored_bytes = 0;
    }
    if (gt_w.monitor)
        gt_mon_pass(commit);
    if (gt_w.db.failed || gt_w.disk.failed)
        say_off();
}

/* CUPTI's records up to now (cuptiActivityFlushAll), marked for waiters. */
void gt_wr_cupti_flush(int forced)
{
    atomic_store(&gt_w.in_cupti_flush, 1);
    gt_cupti_flush(forced);
    atomic_store(&gt_w.in_cupti_flush, 0);
}

/* The end of the process, run by the writer thread itself whoever asked
 * for it: the thread that asks may be in a signal handler that interrupted
 * malloc or the stdio lock, and must run none of this.  First what the
 * host recorded and the end of the process row, committed; then CUPTI's
 * last records, which can block (see in_cupti_flush); then the database
 * closed.  After a write failed (tracing is off), only the close. */
static void final_pass(void)
{
    /* from here on only this thread drains the rings.  The wait is short
     * (a signal handler's exit waits for this pass): what the drain thread
     * still takes goes into the chunk this thread's own pulls hand over,
     * so nothing depends on its having stopped; only a failed exec's fresh
     * start reuses the queue once it has (gt_stage_forget). */
    gt_stage_stop(20);
    if (atomic_load(&gt_w.released))
        return; /* tracing turned off before: nothing of ours is left */
    int ours = gt_fd_intact() && gt_fd_enter(); /* the program may have taken our descriptors */
    if (ours)
        cycle(0);
    if (ours && !gt_w.db.failed) {
        gt_db_set_process_i64(&gt_w.db, "end_ns", (int64_t)gt_mono_ns(), 0);
        if (gt_w.has_end) {
            const struct gt_end_info *end = &gt_w.end;
            gt_db_set_process_i64(&gt_w.db, "exit_code", end->exit_code, end->signal != 0);
            gt_db_set_process_i64(&gt_w.db, "exit_signal", end->signal, end->signal == 0);
            gt_db_set_process_text(&gt_w.db, "end_reason", end->reason);
            if (end->nvtx_status)
                gt_db_set_process_text(&gt_w.db, "nvtx_status", end->nvtx_status);
        }
        if (gt_w.monitor) {
            cycle(1);
            gt_mon_final();
        }
        gt_tbuf_open_ranges(gt_wr_on_open_range, NULL);
        cycle(1);
        atomic_store(&gt_w.host_stopped, 1);
        gt_wr_cupti_flush(1);
        cycle(1);
        gt_wr_look_up_gpu_name(); /* last: what it may wait on costs nothing else */
        if (gt_w.monitor)
            gt_mon_final_gpu();
        if (!gt_w.monitor) /* a window is written whole when asked for; nobody queries it here */
            gt_db_make_late_indexes(&gt_w.db);
    }
    if (ours)
        gt_fd_leave();
    else
        say_off();
    release_descriptors();
}

/* The pause before the next pass: TICK_MS (shorter with a short
 * GPUTRACE_FLUSH_MS), or, after two passes in a row that found nothing to
 * store, IDLE_TICK_MS, but never past the next commit.  Not in monitor mode,
 * whose passes keep its aggregates and window. */
static int pause_ms(int idle_passes, uint64_t last_commit)
{
    int tick = gt_w.flush_ms < 4 * TICK_MS ? gt_w.flush_ms / 4 : TICK_MS;
    if (idle_passes < 2 || gt_w.monitor)
        return tick;
    uint64_t since = now_ms() - last_commit;
    int64_t to_commit = (int64_t)gt_w.flush_ms - (int64_t)since;
    int idle = to_commit < IDLE_TICK_MS ? (int)(to_commit > 0 ? to_commit : 0) : IDLE_TICK_MS;
    return idle > tick ? idle : tick;
}

void *gt_wr_main(void *arg)
{
    (void)arg;
    /* named, so that top -H, perf and a debugger tell the tracer's threads
     * from the program's (this thread's own name: no descriptor opened) */
    prctl(PR_SET_NAME, "gputrace-writer", 0, 0, 0);
    gt_w_is_writer = 1;
    gt_fd_set_self(1);
    uint64_t last_commit = now_ms();
    uint64_t stored_before = gt_w.stored_recs;
    int idle_passes = 0;
    while (!atomic_load(&gt_w.stop) && !gt_w.db.failed) {
        /* poll only looks: a number the program took is never read here */
        struct pollfd p = { .fd = gt_w.req_pipe[0], .events = POLLIN };
        /* behind (more queued than a pass of rows takes), no pause: on a
         * loaded machine the tick's sleep was time the writer did not get
         * back, while the queue grew */
        int behind = gt_stage_backlog() > (uint64_t)(gt_w.bulk_after > HOST_SLICE ? gt_w.bulk_after : HOST_SLICE);
        idle_passes = gt_w.stored_recs == stored_before ? idle_passes + 1 : 0;
        stored_before = gt_w.stored_recs;
        int tick = pause_ms(idle_passes, last_commit);
        int flush_req = poll(&p, 1, behind ? 0 : tick) > 0;
        /* our descriptors, still ours, for this pass (fdguard.h) */
        if (!gt_fd_intact() || !gt_fd_enter())
            break;
        if (flush_req) {
            char c;
            while (read(gt_w.req_pipe[0], &c, 1) == 1)
                ;
        }
        uint64_t began = now_ms();
        int commit = flush_req || began - last_commit >= (uint64_t)gt_w.flush_ms;
        pass_for_signal = flush_req;
        if (flush_req) {
            /* a signal: the host's records first, then CUPTI's if the
             * process is about to die (CUPTI's flush may wait on the thread
             * the signal interrupted; a handler that goes on to _exit gets
             * them from the final pass) */
            cycle(1);
            if (atomic_exchange(&gt_w.want_gpu_flush, 0)) {
                gt_wr_cupti_flush(1);
                cycle(1);
            }
        } else {
            /* GPU records up to now, so that a kill loses no more of them
             * than of the host's: CUPTI's buffers whose records are all
             * complete.  Not a forced flush: that hands over the records of
             * work still queued or running with their times zero, and
             * CUPTI never delivers them again (on an H200, a 6 s kernel
             * under a commit every 200 ms came out as 0-0); only the end
             * of the process forces one */
            if (commit)
                gt_wr_cupti_flush(0);
            cycle(commit);
            if (commit)
                after_commit();
        }
        /* commits start flush_ms apart, however long one takes: a kill
         * then loses at most flush_ms and one commit's records */
        if (commit)
            last_commit = began;
        pthread_mutex_lock(&gt_w.fork_mu);
        if (gt_w.pause_req) {
            /* a fork is coming: commit, so the connection holds no lock the
             * child would inherit a picture of, and wait until it is done */
            cycle(1);
            gt_w.parked = 1;
            pthread_cond_broadcast(&gt_w.fork_cv);
            while (gt_w.pause_req)
                pthread_cond_wait(&gt_w.fork_cv, &gt_w.fork_mu);
            gt_w.parked = 0;
        }
        pthread_mutex_unlock(&gt_w.fork_mu);
        if (flush_req) {
            char c = 1;
            (void)!write(gt_w.ack_pipe[1], &c, 1);
        }
        gt_fd_leave();
    }
    if (!atomic_load(&gt_w.stop)) { /* off by itself: say why, let go of the files */
        say_off();
        release_descriptors();
    }
    final_pass(); /* after a write failed, only the close */
    pthread_mutex_lock(&gt_w.fork_mu); /* a fork waiting for us must not wait forever */
    gt_w.parked = 1;
    pthread_cond_broadcast(&gt_w.fork_cv);
    pthread_mutex_unlock(&gt_w.fork_mu);
    /* the last touch of shared state: after it the thread only returns
     * (it is detached; nobody joins it) */
    atomic_store(&gt_w.stopped, 1);
    return NULL;
}

int gt_writer_open(const char *path, const struct gt_process_info *p, char *err, size_t errlen)
{
    struct xfsz_quiet q;
    xfsz_quiet_begin(&q);
    gt_fd_set_self(1);
    const struct gt_mon_cfg *mon = gt_mon_cfg();
    gt_w.monitor = mon->on;
    /* monitor mode: the file gets the process and its aggregates, the
     * records go to the window in memory (monitor.h) */
    int rc = gt_db_open(gt_w.monitor ? &gt_w.disk : &gt_w.db, path, p, err, errlen);
    if (rc == 0 && gt_w.monitor) {
        rc = gt_db_open_memory(&gt_w.db, p, (int64_t)mon->window_mb << 20, err, errlen);
        if (rc == 0) {
            gt_w.db.mirror = &gt_w.disk;
            gt_mon_start(&gt_w.db, &gt_w.disk, p->start_ns);
        } else {
            gt_db_close(&gt_w.disk);
        }
    }
    if (rc == 0) {
        /* the files SQLite opened for us (fdguard.h) */
        const char *file = sqlite3_db_filename(gt_w.monitor ? gt_w.disk.db : gt_w.db.db, "main");
        char side[4200];
        gt_fd_add_file(file);
        snprintf(side, sizeof side, "%s-wal", file);
        gt_fd_add_file(side);
        snprintf(side, sizeof side, "%s-shm", file);
        gt_fd_add_file(side);
        snprintf(gt_w.path, sizeof gt_w.path, "%s", path);
        gt_w.dropped_known = 0; /* a new database (this process's, or a forked child's) */
        gt_w.handover_stored = 0;
        gt_w.gaps_closed = 0;
        gt_w.owner_pid = getpid();
        atomic_store(&gt_w.released, 0);
    }
    gt_fd_set_self(0);
    xfsz_quiet_end(&q);
    return rc;
}

/* These run on the activating thread, before the writer starts. */
void gt_writer_set_cupti_status(const char *status, unsigned version)
{
    struct xfsz_quiet q;
    xfsz_quiet_begin(&q);
    gt_fd_set_self(1);
    gt_db_set_process_text(&gt_w.db, "cupti_status", status);
    if (version)
        gt_db_set_process_i64(&gt_w.db, "cupti_version", version, 0);
    gt_fd_set_self(0);
    xfsz_quiet_end(&q);
}

void gt_writer_set_status(const char *column, const char *status)
{
    struct xfsz_quiet q;
    xfsz_quiet_begin(&q);
    gt_fd_set_self(1);
    gt_db_set_process_text(&gt_w.db, column, status);
    gt_fd_set_self(0);
    xfsz_quiet_end(&q);
}

void gt_writer_note_signal(int sig)
{
    atomic_store(&gt_w.end_signal, sig);
    gt_mon_prom_remove_now(); /* its metrics end with it (unlink: async-signal-safe) */
}

int gt_writer_run(int flush_ms, int bulk_after, char *err, size_t errlen)
{
    gt_w.flush_ms = flush_ms;
    gt_w.bulk_after = bulk_after;
    int held = gt_fd_hold_std(), piped = pipe2(gt_w.req_pipe, O_CLOEXEC | O_NONBLOCK) == 0 &&
                                            pipe2(gt_w.ack_pipe, O_CLOEXEC | O_NONBLOCK) == 0;
    gt_fd_release_std(held);
    if (!piped) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            gt_fd_add(gt_w.req_pipe[i]);
            gt_fd_add(gt_w.ack_pipe[i]);
        }
        release_descriptors();
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        gt_fd_add(gt_w.req_pipe[i]);
        gt_fd_add(gt_w.ack_pipe[i]);
    }
    /* the writer never takes the program's signals: they go to its threads */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    /* detached: gt_writer_stop waits for it with an async-signal-safe flag,
     * never with pthread_join */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&gt_w.thread, &attr, gt_wr_main, NULL);
    pthread_attr_destroy(&attr);
    /* the rings' drain thread: without it (it could not start) the writer
     * drains them itself, between its commits, as it always does */
    char why[128];
    if (rc == 0)
        gt_stage_start(why, sizeof why);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
        release_descriptors();
        return -1;
    }
    gt_w.running = 1;
    return 0;
}

