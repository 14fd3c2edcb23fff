/* writer.c: the writer thread (see writer.h for the design). */
#define _GNU_SOURCE
#include "collector/writer.h"
#include "collector/api_ids.h"
#include "collector/call_block.h"
#include "collector/capi_block.h"
#include "collector/nvtx_block.h"
#include "collector/callsite.h"
#include "collector/modules.h"
#include "collector/clock.h"
#include "collector/cupti_sub.h"
#include "collector/fdguard.h"
#include "collector/xfsz.h"
#include "collector/pyframes.h"
#include "collector/plugin_ring.h"
#include "collector/plugin_store.h"
#include "collector/strtab.h"
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
#include <time.h>
#include <unistd.h>

#define TICK_MS 5
#define STUCK_MS 500
#define SIGNAL_GRACE_MS 200 /* in a signal handler, for CUPTI's last records after the host's */
/* Ends kept for starts not read yet: a start that never comes (dropped)
 * leaves its end here, so they are bounded; past this an end is counted
 * as dropped. */
#define MAX_EARLY_ENDS 65536

struct mark { uint64_t call_id; int64_t tid, api, start_ns, callsite, pystack; int written; };

static struct {
    struct gt_db db;
    pthread_t thread;
    int running;
    int flush_ms;
    _Atomic int end_signal;
    /* fork handshake (see gt_writer_fork_prepare): guarded by fork_mu */
    pthread_mutex_t fork_mu;
    pthread_cond_t fork_cv;
    int pause_req, parked;
    int req_pipe[2], ack_pipe[2];
    _Atomic int stop;
    /* the final pass (gt_writer_stop): claimed by one caller, done by the
     * writer itself, which sets `stopped` when it has closed the database */
    _Atomic int stop_claimed, stopped;
    _Atomic int host_stopped; /* the final pass stored the host's records and the end */
    /* the writer is inside cuptiActivityFlushAll: a waiter gives up once it
     * has been there for STUCK_MS (it may wait on a lock of the very thread
     * that waits for it, interrupted by a signal inside CUDA) */
    _Atomic int in_cupti_flush;
    _Atomic int want_gpu_flush; /* a flush request asks for CUPTI's records too */
    struct gt_end_info end;
    int has_end;
    struct mark *marks; /* calls in flight, as many as the program has (grown as needed) */
    int nmarks, cap_marks;
    /* ends of start/end ranges read before their start (another thread's
     * ring was drained first) */
    struct early_end { uint64_t id; int64_t end_ns; } *early_ends;
    int nearly, cap_early;
    uint64_t lost; /* marks and ends memory could not hold: counted in dropped_host */
    /* calls, NVTX ranges and marks stored in bulk: this pass does so, and the blocks being filled */
    int bulk, bulk_after; /* bulk_after: GPUTRACE_BULK_AFTER, more rows than SQLite takes in a tick or two */
    struct gt_call_packed block[GT_CALL_BLOCK_ROWS];
    int nblock;
    struct gt_nvtx_packed nvtx_block[GT_BLOCK_ROWS]; /* ranges and marks, the same way */
    int nnvtx_block;
    int device_seen;
    size_t stored_bytes; /* about how much the open transaction holds */
    char path[4096];
    pid_t owner_pid;
    _Atomic int released; /* tracing turned off and our descriptors were let go (fdguard.h) */
} w = { .req_pipe = { -1, -1 }, .ack_pipe = { -1, -1 }, .fork_mu = PTHREAD_MUTEX_INITIALIZER,
        .fork_cv = PTHREAD_COND_INITIALIZER };

static GT_TLS int is_writer;

int gt_writer_is_self(void)
{
    return is_writer;
}

/* Room for one more element in a writer-side array (writer thread only). */
static int room_for(void **arr, int *cap, int n, size_t elem, int limit)
{
    if (n < *cap)
        return 1;
    int want = *cap ? *cap * 2 : 256;
    if (want > limit)
        want = limit;
    void *p = n < want ? realloc(*arr, (size_t)want * elem) : NULL;
    if (!p) {
        w.lost++;
        return 0;
    }
    *arr = p;
    *cap = want;
    return 1;
}

static int is_collective(unsigned api)
{
    return api >= GT_API_ncclAllReduce && api <= GT_API_ncclRecv;
}

static void forget_mark(uint64_t call_id)
{
    for (int i = 0; i < w.nmarks; i++)
        if (w.marks[i].call_id == call_id) {
            if (w.marks[i].written) {
                int64_t v[] = { (int64_t)call_id };
                gt_db_exec_i64(&w.db, GT_ST_UNMARK, v, 1);
            }
            w.marks[i] = w.marks[--w.nmarks];
            return;
        }
}

/* The device and its name, the first time the program picks one. */
static void note_device(int device)
{
    if (w.device_seen)
        return;
    w.device_seen = 1;
    gt_db_set_process_i64(&w.db, "device", device, 0);
    /* cudaDeviceProp starts with char name[256]; the buffer leaves room for
     * the larger struct of newer runtimes */
    static char prop[4096];
    int (*get_props)(void *, int) = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties");
    if (get_props && get_props(prop, device) == 0) {
        prop[255] = 0;
        gt_db_set_process_text(&w.db, "gpu_name", prop);
    }
}

static void flush_block(void)
{
    if (w.nblock)
        gt_db_call_block(&w.db, w.block, w.nblock);
    w.nblock = 0;
}

static void flush_nvtx_block(void)
{
    if (w.nnvtx_block)
        gt_db_nvtx_block(&w.db, w.nvtx_block, w.nnvtx_block);
    w.nnvtx_block = 0;
}

static void on_nvtx(const struct gt_record *r, uint32_t tid, int64_t start)
{
    switch (r->api) {
    case GT_NVTX_RANGE:
    case GT_NVTX_MARK:
    case GT_NVTX_START: {
        int64_t end = r->api == GT_NVTX_START ? 0 : (int64_t)gt_ticks_to_ns(r->t_end);
        if (w.bulk && r->api != GT_NVTX_START) { /* a start's row is updated by its end: never in bulk */
            w.nvtx_block[w.nnvtx_block++] = (struct gt_nvtx_packed){
                start, end, r->nvtx.payload, tid, r->nvtx.domain, r->nvtx.name, r->nvtx.category, r->depth,
                r->nvtx.payload_type, (uint8_t)r->api, { 0 } };
            if (w.nnvtx_block == GT_BLOCK_ROWS)
                flush_nvtx_block();
            break;
        }
        int no_end = r->api == GT_NVTX_START;
        for (int i = 0; no_end && i < w.nearly; i++)
            if (w.early_ends[i].id == r->nvtx.range_id) {
                end = w.early_ends[i].end_ns;
                no_end = 0;
                w.early_ends[i] = w.early_ends[--w.nearly];
            }
        int64_t v[] = { tid, r->api, r->nvtx.domain, r->nvtx.name, r->nvtx.category, start, end,
                        r->depth, (int64_t)r->nvtx.range_id };
        gt_db_nvtx_row(&w.db, v, no_end, r->nvtx.payload_type, r->nvtx.payload);
        break;
    }
    case GT_NVTX_END: {
        int64_t v[] = { (int64_t)r->nvtx.range_id, (int64_t)gt_ticks_to_ns(r->t_end) };
        gt_db_exec_i64(&w.db, GT_ST_NVTX_END, v, 2);
        if (sqlite3_changes(w.db.db) == 0 &&
            room_for((void **)&w.early_ends, &w.cap_early, w.nearly, sizeof *w.early_ends, MAX_EARLY_ENDS)) {
            w.early_ends[w.nearly].id = r->nvtx.range_id;
            w.early_ends[w.nearly++].end_ns = v[1];
        }
        break;
    }
    case GT_NVTX_NAME_CATEGORY: {
        int64_t v[] = { r->nvtx.domain, r->nvtx.category, r->nvtx.name };
        gt_db_exec_i64(&w.db, GT_ST_NVTX_CATEGORY, v, 3);
        break;
    }
    case GT_NVTX_NAME_THREAD: {
        int64_t v[] = { (int64_t)r->nvtx.range_id, r->nvtx.name };
        gt_db_exec_i64(&w.db, GT_ST_THREAD_NAME, v, 2);
        break;
    }
    default:
        break;
    }
}

/* At the end: push/pop ranges never closed, with no end. */
static void on_open_range(uint32_t tid, const struct gt_nvtx_open *o, int depth, void *ctx)
{
    (void)ctx;
    int64_t v[] = { tid, GT_NVTX_RANGE, o->domain, o->name, o->category, (int64_t)gt_ticks_to_ns(o->t_start), 0,
                    depth, 0 };
    gt_db_nvtx_row(&w.db, v, 1, o->payload_type, o->payload);
}

static void on_record(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)ctx;
    int64_t start = (int64_t)gt_ticks_to_ns(r->t_start);
    uint64_t call_id = ((uint64_t)tid << 32) | r->call_seq;
    switch (r->type) {
    case GT_REC_MARK:
        if (room_for((void **)&w.marks, &w.cap_marks, w.nmarks, sizeof *w.marks, 1 << 30))
            w.marks[w.nmarks++] = (struct mark){ call_id, tid, r->api, start, r->callsite, r->pystack, 0 };
        break;
    case GT_REC_COMM: {
        int64_t v[] = { (int64_t)r->comm.handle, (int64_t)r->comm.comm_id, r->comm.rank, r->comm.nranks,
                        (int64_t)r->comm.parent, start };
        gt_db_exec_i64(&w.db, GT_ST_COMM, v, 6);
        break;
    }
    case GT_REC_CALL: {
        int64_t end = (int64_t)gt_ticks_to_ns(r->t_end);
        int64_t bytes = (int64_t)r->bytes;
        if (w.bulk) {
            w.block[w.nblock++] = (struct gt_call_packed){
                start, end, (int64_t)r->stream, (int64_t)r->event, bytes, (int64_t)call_id,
                tid, r->callsite, r->pystack, r->result, r->api, r->copy_kind, r->mem_kind, 0 };
            if (w.nblock == GT_CALL_BLOCK_ROWS)
                flush_block();
        } else {
            int64_t v[] = { tid, r->api, start, end, (int64_t)r->stream, (int64_t)r->event, bytes,
                            r->copy_kind, r->mem_kind, r->result, r->callsite, (int64_t)call_id, r->pystack };
            gt_db_call_row(&w.db, v);
        }
        if (nccl && is_collective(r->api)) {
            int64_t c[] = { (int64_t)call_id, r->api, (int64_t)nccl->nccl.comm_id, (int64_t)nccl->nccl.seq,
                            (int64_t)nccl->nccl.count, nccl->nccl.dtype, bytes, nccl->nccl.op, nccl->nccl.peer,
                            nccl->nccl.rank, nccl->nccl.nranks, (int64_t)r->stream, start, end, r->callsite,
                            (int64_t)nccl->nccl.group_id, r->result, r->pystack };
            gt_db_exec_i64(&w.db, GT_ST_COLL, c, 18);
        }
        if (r->api == GT_API_cudaSetDevice && r->result == 0)
            note_device(r->device);
        forget_mark(call_id);
        break;
    }
    case GT_REC_NVTX:
        on_nvtx(r, tid, start);
        break;
    default: /* GT_REC_NCCL comes with its call */
        break;
    }
}

static void on_callsite(uint32_t id, const char *text, void *ctx)
{
    (void)ctx;
    gt_db_exec_text(&w.db, GT_ST_CALLSITE, id, text);
}

static void on_module(uint32_t id, const char *name, const char *path, const char *build_id, void *ctx)
{
    (void)ctx;
    gt_db_module_row(&w.db, id, name, path, build_id);
}

static void on_label(uint32_t id, const char *text, void *ctx)
{
    (void)ctx;
    gt_db_exec_text(&w.db, GT_ST_LABEL, id, text);
}

static void on_pystack(uint32_t id, const char *text, void *ctx)
{
    (void)ctx;
    gt_db_exec_text(&w.db, GT_ST_PYSTACK, id, text);
}

static uint64_t now_ms(void)
{
    return gt_mono_ns() / 1000000;
}

/* Commits the open transaction early once about this much was stored in
 * it: the checkpoint that follows a commit copies all of it into the
 * database.  200 ms at a million calls a second with CUPTI's API records
 * (~20 MiB) took a commit 30 ms, long enough for a thread's ring to fill
 * (1-2% of the calls dropped, bench/run.sh); 4 MiB take ~6 ms. */
#define COMMIT_BYTES (4u << 20)

static void commit_if_big(void)
{
    if (w.stored_bytes < COMMIT_BYTES)
        return;
    gt_db_commit(&w.db);
    gt_db_begin(&w.db);
    w.stored_bytes = 0;
}

/* The threads' records, and the blocks they filled. */
static void drain_rings(void)
{
    w.stored_bytes += gt_tbuf_drain(on_record, NULL) * sizeof(struct gt_record);
    w.stored_bytes += gt_plug_store(&w.db) * sizeof(struct gt_plug_rec); /* NCCL's, as its plugin */
    flush_block();
    flush_nvtx_block();
    commit_if_big();
}

/* Why tracing stops, in one line (gt_turn_off says it once). */
static void say_off(void)
{
    char why[4400];
    if (gt_fd_taken())
        snprintf(why, sizeof why, "the program closed or replaced the descriptors of %s; tracing is off, the "
                 "program runs on", w.path);
    else
        snprintf(why, sizeof why, "writing %s failed (%s); tracing is off, the program runs on",
                 w.path, sqlite3_errstr(w.db.failed));
    gt_turn_off(why);
}

static void close_db(void)
{
    gt_db_close(&w.db);
}

/* Tracing is off: the database and the pipes are closed, or, those the
 * program took, left alone (fdguard.h); nothing touches them again. */
static void release_descriptors(void)
{
    if (atomic_exchange(&w.released, 1))
        return;
    gt_fd_release(close_db);
    /* a connection whose descriptors the program took is left unclosed */
    memset(&w.db, 0, sizeof w.db);
    w.db.failed = SQLITE_ABORT;
    w.req_pipe[0] = w.req_pipe[1] = w.ack_pipe[0] = w.ack_pipe[1] = -1;
}

/* One pass: everything pending into the open transaction; commit if asked. */
static void cycle(int commit)
{
    if (w.db.failed)
        return;
    gt_db_begin(&w.db);
    gt_clock_recalibrate();
    w.bulk = w.bulk_after == 0 || gt_tbuf_backlog() > (uint64_t)w.bulk_after;
    drain_rings();
    for (size_t got; (got = gt_cupti_drain_one(&w.db, w.bulk, w.bulk_after)) != 0;) {
        w.stored_bytes += got * sizeof(struct gt_capi_packed);
        drain_rings(); /* the threads' records between CUPTI's buffers */
    }
    gt_callsite_flush_new(on_callsite, NULL);
    gt_modules_flush_new(on_module, NULL);
    gt_strtab_flush_new(on_label, NULL);
    gt_pystack_flush_new(on_pystack, NULL);
    if (commit) {
        for (int i = 0; i < w.nmarks; i++)
            if (!w.marks[i].written) {
                struct mark *m = &w.marks[i];
                int64_t v[] = { m->tid, m->api, m->start_ns, (int64_t)m->call_id, m->callsite, m->pystack };
                gt_db_exec_i64(&w.db, GT_ST_MARK, v, 6);
                m->written = 1;
            }
        gt_db_set_process_i64(&w.db, "dropped_host", (int64_t)(gt_tbuf_dropped() + gt_strtab_lost() + gt_plug_dropped() + w.lost), 0);
        gt_db_set_process_i64(&w.db, "dropped_cupti", (int64_t)gt_cupti_dropped(), 0);
        int sig = atomic_exchange(&w.end_signal, 0);
        if (sig) {
            gt_db_set_process_i64(&w.db, "end_ns", (int64_t)gt_mono_ns(), 0);
            gt_db_set_process_i64(&w.db, "exit_signal", sig, 0);
            gt_db_set_process_text(&w.db, "end_reason", "signal");
        }
        gt_db_commit(&w.db);
        w.stored_bytes = 0;
    }
    if (w.db.failed)
        say_off();
}

/* CUPTI's records up to now (cuptiActivityFlushAll), marked for waiters. */
static void cupti_flush(void)
{
    atomic_store(&w.in_cupti_flush, 1);
    gt_cupti_flush();
    atomic_store(&w.in_cupti_flush, 0);
}

/* The end of the process, run by the writer thread itself whoever asked
 * for it: the thread that asks may be in a signal handler that interrupted
 * malloc or the stdio lock, and must run none of this.  First what the
 * host recorded and the end of the process row, committed; then CUPTI's
 * last records, which can block (see in_cupti_flush); then the database
 * closed.  After a write failed (tracing is off), only the close. */
static void final_pass(void)
{
    if (atomic_load(&w.released))
        return; /* tracing turned off before: nothing of ours is left */
    int ours = gt_fd_intact() && gt_fd_enter(); /* the program may have taken our descriptors */
    if (ours)
        cycle(0);
    if (ours && !w.db.failed) {
        gt_db_set_process_i64(&w.db, "end_ns", (int64_t)gt_mono_ns(), 0);
        if (w.has_end) {
            const struct gt_end_info *end = &w.end;
            gt_db_set_process_i64(&w.db, "exit_code", end->exit_code, end->signal != 0);
            gt_db_set_process_i64(&w.db, "exit_signal", end->signal, end->signal == 0);
            gt_db_set_process_text(&w.db, "end_reason", end->reason);
            if (end->nvtx_status)
                gt_db_set_process_text(&w.db, "nvtx_status", end->nvtx_status);
        }
        gt_tbuf_open_ranges(on_open_range, NULL);
        cycle(1);
        atomic_store(&w.host_stopped, 1);
        cupti_flush();
        cycle(1);
        gt_db_make_late_indexes(&w.db);
    }
    if (ours)
        gt_fd_leave();
    else
        say_off();
    release_descriptors();
}

static void *writer_main(void *arg)
{
    (void)arg;
    is_writer = 1;
    gt_fd_set_self(1);
    uint64_t last_commit = now_ms();
    while (!atomic_load(&w.stop) && !w.db.failed) {
        /* poll only looks: a number the program took is never read here */
        struct pollfd p = { .fd = w.req_pipe[0], .events = POLLIN };
        int flush_req = poll(&p, 1, TICK_MS) > 0;
        /* our descriptors, still ours, for this pass (fdguard.h) */
        if (!gt_fd_intact() || !gt_fd_enter())
            break;
        if (flush_req) {
            char c;
            while (read(w.req_pipe[0], &c, 1) == 1)
                ;
        }
        uint64_t began = now_ms();
        int commit = flush_req || began - last_commit >= (uint64_t)w.flush_ms;
        if (flush_req) {
            /* a signal: the host's records first, then CUPTI's if the
             * process is about to die (CUPTI's flush may wait on the thread
             * the signal interrupted; a handler that goes on to _exit gets
             * them from the final pass) */
            cycle(1);
            if (atomic_exchange(&w.want_gpu_flush, 0)) {
                cupti_flush();
                cycle(1);
            }
        } else {
            if (commit) /* GPU records up to now, so that a kill loses no more of them than of the host's */
                cupti_flush();
            cycle(commit);
        }
        /* commits start flush_ms apart, however long one takes: a kill
         * then loses at most flush_ms and one commit's records */
        if (commit)
            last_commit = began;
        pthread_mutex_lock(&w.fork_mu);
        if (w.pause_req) {
            /* a fork is coming: commit, so the connection holds no lock the
             * child would inherit a picture of, and wait until it is done */
            cycle(1);
            w.parked = 1;
            pthread_cond_broadcast(&w.fork_cv);
            while (w.pause_req)
                pthread_cond_wait(&w.fork_cv, &w.fork_mu);
            w.parked = 0;
        }
        pthread_mutex_unlock(&w.fork_mu);
        if (flush_req) {
            char c = 1;
            (void)!write(w.ack_pipe[1], &c, 1);
        }
        gt_fd_leave();
    }
    if (!atomic_load(&w.stop)) { /* off by itself: say why, let go of the files */
        say_off();
        release_descriptors();
    }
    final_pass(); /* after a write failed, only the close */
    pthread_mutex_lock(&w.fork_mu); /* a fork waiting for us must not wait forever */
    w.parked = 1;
    pthread_cond_broadcast(&w.fork_cv);
    pthread_mutex_unlock(&w.fork_mu);
    /* the last touch of shared state: after it the thread only returns
     * (it is detached; nobody joins it) */
    atomic_store(&w.stopped, 1);
    return NULL;
}

int gt_writer_open(const char *path, const struct gt_process_info *p, char *err, size_t errlen)
{
    struct xfsz_quiet q;
    xfsz_quiet_begin(&q);
    gt_fd_set_self(1);
    int rc = gt_db_open(&w.db, path, p, err, errlen);
    if (rc == 0) {
        /* the files SQLite opened for us (fdguard.h) */
        const char *file = sqlite3_db_filename(w.db.db, "main");
        char side[4200];
        gt_fd_add_file(file);
        snprintf(side, sizeof side, "%s-wal", file);
        gt_fd_add_file(side);
        snprintf(side, sizeof side, "%s-shm", file);
        gt_fd_add_file(side);
        snprintf(w.path, sizeof w.path, "%s", path);
        w.owner_pid = getpid();
        atomic_store(&w.released, 0);
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
    gt_db_set_process_text(&w.db, "cupti_status", status);
    if (version)
        gt_db_set_process_i64(&w.db, "cupti_version", version, 0);
    gt_fd_set_self(0);
    xfsz_quiet_end(&q);
}

void gt_writer_set_status(const char *column, const char *status)
{
    struct xfsz_quiet q;
    xfsz_quiet_begin(&q);
    gt_fd_set_self(1);
    gt_db_set_process_text(&w.db, column, status);
    gt_fd_set_self(0);
    xfsz_quiet_end(&q);
}

void gt_writer_note_signal(int sig)
{
    atomic_store(&w.end_signal, sig);
}

int gt_writer_run(int flush_ms, int bulk_after, char *err, size_t errlen)
{
    w.flush_ms = flush_ms;
    w.bulk_after = bulk_after;
    if (pipe2(w.req_pipe, O_CLOEXEC | O_NONBLOCK) != 0 || pipe2(w.ack_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
        snprintf(err, errlen, "pipe: %s", strerror(errno));
        for (int i = 0; i < 2; i++) {
            gt_fd_add(w.req_pipe[i]);
            gt_fd_add(w.ack_pipe[i]);
        }
        release_descriptors();
        return -1;
    }
    for (int i = 0; i < 2; i++) {
        gt_fd_add(w.req_pipe[i]);
        gt_fd_add(w.ack_pipe[i]);
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
    int rc = pthread_create(&w.thread, &attr, writer_main, NULL);
    pthread_attr_destroy(&attr);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        snprintf(err, errlen, "cannot start the writer thread: %s", strerror(rc));
        release_descriptors();
        return -1;
    }
    w.running = 1;
    return 0;
}

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
    if (!atomic_load(&w.in_cupti_flush))
        *since = now;
    return now - *since >= STUCK_MS;
}

void gt_writer_flush_from_signal(int timeout_ms, int with_gpu)
{
    if (!w.running || w.owner_pid != getpid() || is_writer || atomic_load(&w.stop))
        return;
    char c = 1;
    char junk;
    if (!gt_fd_enter()) /* the program took our descriptors: they are not ours to write */
        return;
    while (read(w.ack_pipe[0], &junk, 1) == 1)
        ;
    if (with_gpu)
        atomic_store(&w.want_gpu_flush, 1);
    int asked = write(w.req_pipe[1], &c, 1) == 1;
    gt_fd_leave();
    if (!asked)
        return;
    /* poll only looks; a writer that lost its descriptors answers no more,
     * and the wait ends at the timeout */
    int64_t t0 = mono_ms(), since = t0;
    for (int64_t now = t0; now - t0 < timeout_ms && !writer_stuck(now, &since); now = mono_ms()) {
        struct pollfd p = { .fd = w.ack_pipe[0], .events = POLLIN };
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
    for (int64_t now = t0; !atomic_load(&w.stopped) && now - t0 < timeout_ms && !writer_stuck(now, &since);
         now = mono_ms()) {
        if (in_signal && !host_at && atomic_load(&w.host_stopped))
            host_at = now;
        if (host_at && now - host_at >= SIGNAL_GRACE_MS)
            break;
        nanosleep(&pause, NULL);
    }
    return atomic_load(&w.stopped) || atomic_load(&w.host_stopped);
}

int gt_writer_stop(const struct gt_end_info *end, int timeout_ms, int in_signal)
{
    if (!w.running || w.owner_pid != getpid() || is_writer)
        return 0;
    if (atomic_exchange(&w.stop_claimed, 1)) /* another thread is stopping it: wait for that */
        return wait_stopped(timeout_ms, in_signal) && atomic_load(&w.stopped) ? 0 : -1;
    if (end)
        w.end = *end;
    w.has_end = end != NULL;
    atomic_store(&w.stop, 1); /* after the end info: the writer reads it once it sees this */
    char c = 1;
    if (gt_fd_enter()) {
        (void)!write(w.req_pipe[1], &c, 1);
        gt_fd_leave();
    }
    wait_stopped(timeout_ms, in_signal);
    if (!atomic_load(&w.stopped))
        return -1; /* a stuck writer must not hold up the program's exit */
    w.running = 0; /* its final pass let go of the database and the pipes (release_descriptors) */
    return 0;
}

void gt_writer_fork_prepare(void)
{
    pthread_mutex_lock(&w.fork_mu);
    if (!w.running || w.owner_pid != getpid() || is_writer)
        return; /* fork_mu stays held until after the fork, as in every case */
    w.pause_req = 1;
    char c = 1;
    if (gt_fd_enter()) {
        (void)!write(w.req_pipe[1], &c, 1);
        gt_fd_leave();
    }
    while (!w.parked && !w.db.failed && !atomic_load(&w.stop))
        pthread_cond_wait(&w.fork_cv, &w.fork_mu);
}

void gt_writer_fork_parent(void)
{
    w.pause_req = 0;
    pthread_cond_broadcast(&w.fork_cv);
    pthread_mutex_unlock(&w.fork_mu);
}

void gt_writer_forget_after_fork(void)
{
    pthread_mutex_init(&w.fork_mu, NULL);
    pthread_cond_init(&w.fork_cv, NULL);
    w.pause_req = w.parked = 0;
    /* The parent's connection must not be used (nor closed) in the child. */
    memset(&w.db, 0, sizeof w.db);
    w.running = 0;
    w.nmarks = 0;
    w.nearly = 0;
    w.lost = 0;
    w.nblock = 0;
    w.device_seen = 0;
    atomic_store(&w.stop, 0);
    atomic_store(&w.stop_claimed, 0);
    atomic_store(&w.stopped, 0);
    atomic_store(&w.host_stopped, 0);
    atomic_store(&w.in_cupti_flush, 0);
    atomic_store(&w.want_gpu_flush, 0);
    gt_callsite_reset_reported();
    gt_modules_reset_reported();
    gt_strtab_reset_reported();
    gt_pystack_reset_reported();
    gt_cupti_names_reset_reported();
    gt_plug_forget_after_fork();
    gt_plug_store_forget_after_fork();
    w.req_pipe[0] = w.req_pipe[1] = w.ack_pipe[0] = w.ack_pipe[1] = -1;
    gt_fd_forget_after_fork(); /* the parent's descriptors: not ours to guard here */
    atomic_store(&w.released, 0);
}
