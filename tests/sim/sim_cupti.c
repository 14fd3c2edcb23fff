/* sim_cupti.c: the CUPTI activity API of the simulator.
 *
 * Delivers CONCURRENT_KERNEL, MEMCPY, MEMSET, SYNCHRONIZATION and CUDA_EVENT
 * (made in sim_cupti_events.c), RUNTIME, DRIVER and EXTERNAL_CORRELATION records in the structs of the installed
 * cupti_activity.h, through the real buffer protocol:
 *   - a buffer comes from the client's "requested" callback when the current
 *     one cannot hold the next record;
 *   - full buffers go to a delivery thread that calls the "completed"
 *     callback, as CUPTI's own worker thread does;
 *   - a buffer per thread that makes records (API records on the calling
 *     thread, GPU records on each stream's worker thread), as CUPTI 12.3
 *     and newer keep by default (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER):
 *     a client holds as many buffers at once as threads make records;
 *   - a kernel's, copy's or memset's record is reserved at its launch, in
 *     the launching thread's buffer, and completed when it ends.
 *     cuptiActivityFlushAll delivers the threads' buffers, partly filled
 *     ones included, from the calling thread, and returns only when every
 *     buffer handed out so far has been delivered.  A default flush holds
 *     back a buffer that holds a record not completed (CUPTI returns only
 *     buffers whose records are all complete: on an H200, a running
 *     kernel kept the records of the 20 before it out of a default flush);
 *     CUPTI_ACTIVITY_FLAG_FLUSH_FORCED hands them all over, the records of
 *     work still queued or running incomplete (start and end 0, as CUPTI
 *     delivers them), and those never come again (seen: a 6 s kernel
 *     under a forced flush every 200 ms came out as 0-0, once).
 * Callbacks are never called with cupti_lock held, except "requested",
 * which only has to hand out memory.
 *
 * GPUSIM_CUPTI_REFUSE=1 makes subscription fail with
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, as when another tool holds
 * CUPTI; GPUSIM_CUPTI_VERSION overrides what cuptiGetVersion reports.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

#include <cupti_version.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct full_buf { uint8_t *buf; size_t size, valid; struct full_buf *next; };

static pthread_mutex_t cupti_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cupti_cond = PTHREAD_COND_INITIALIZER;
static int enabled[CUPTI_ACTIVITY_KIND_COUNT];        /* guarded by cupti_lock */
static CUpti_BuffersCallbackRequestFunc on_request;    /* guarded by cupti_lock */
static CUpti_BuffersCallbackCompleteFunc on_complete;  /* guarded by cupti_lock */
/* each thread's buffer, on a list for the flushes: the slot outlives the
 * thread, as a buffer CUPTI holds outlives its thread until a flush */
struct thread_buf {
    uint8_t *buf;
    size_t size, used;
    int pending; /* records of GPU work this thread launched that have not ended */
    struct thread_buf *next;
};
static struct thread_buf *thread_bufs;                 /* guarded by cupti_lock */
static _Thread_local struct thread_buf *my_buf;
/* the GPU operations whose records are reserved, launch to end */
static struct sim_op *reserved;                        /* guarded by cupti_lock */
static struct full_buf *queue_head, *queue_tail;       /* guarded by cupti_lock */
static int delivering;                                 /* guarded by cupti_lock */
static int delivery_thread_started;                    /* guarded by cupti_lock */
static uint32_t dropped;                               /* guarded by cupti_lock */
static _Atomic(CUpti_TimestampCallbackFunc) ts_callback;
static atomic_uint correlation_counter;

#define EXT_DEPTH 32
static _Thread_local uint32_t cur_correlation;
static _Thread_local uint64_t ext_stack[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE][EXT_DEPTH];
static _Thread_local int ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];

static int refused(void)
{
    const char *v = getenv("GPUSIM_CUPTI_REFUSE");
    return v && *v && strcmp(v, "0") != 0;
}

uint64_t sim_cupti_ts(void)
{
    CUpti_TimestampCallbackFunc f = atomic_load(&ts_callback);
    if (f)
        return f();
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts); /* CUPTI's default clock on Linux */
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint32_t sim_current_correlation(void)
{
    return cur_correlation;
}

int sim_cupti_enabled(CUpti_ActivityKind kind)
{
    pthread_mutex_lock(&cupti_lock);
    int on = (int)kind < CUPTI_ACTIVITY_KIND_COUNT && enabled[kind];
    pthread_mutex_unlock(&cupti_lock);
    return on;
}

static size_t record_size(CUpti_ActivityKind kind)
{
    size_t s;
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:    s = sizeof(CUpti_ActivityKernel10); break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:               s = sizeof(CUpti_ActivityMemcpy6); break;
    case CUPTI_ACTIVITY_KIND_MEMSET:               s = sizeof(CUpti_ActivityMemset4); break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:      s = sizeof(CUpti_ActivitySynchronization2); break;
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT:           s = sizeof(CUpti_ActivityCudaEvent2); break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:               s = sizeof(CUpti_ActivityAPI); break;
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: s = sizeof(CUpti_ActivityExternalCorrelation); break;
    default:                                       s = sizeof(CUpti_Activity); break;
    }
    return (s + 7) & ~(size_t)7;
}

/* Caller holds cupti_lock. */
static void queue_full_locked(struct thread_buf *t)
{
    if (!t->buf)
        return;
    struct full_buf *f = malloc(sizeof *f);
    if (!f)
        abort();
    *f = (struct full_buf){ t->buf, t->size, t->used, NULL };
    if (queue_tail)
        queue_tail->next = f;
    else
        queue_head = f;
    queue_tail = f;
    t->buf = NULL;
    t->size = t->used = 0;
    pthread_cond_broadcast(&cupti_cond);
}

/* This thread's buffer slot (NULL: no memory for one, its records are
 * dropped, as CUPTI's are).  Caller holds cupti_lock. */
static struct thread_buf *my_buf_locked(void)
{
    if (!my_buf) {
        my_buf = calloc(1, sizeof *my_buf);
        if (!my_buf)
            return NULL;
        my_buf->next = thread_bufs;
        thread_bufs = my_buf;
    }
    return my_buf;
}

/* Appends one record (rec_size bytes at rec) to thread buffer t if its
 * kind is enabled.  Caller holds cupti_lock. */
static void emit_to(struct thread_buf *t, const void *rec, size_t rec_size, CUpti_ActivityKind kind)
{
    size_t size = record_size(kind);
    if (!enabled[kind])
        return;
    if (!on_request) {
        dropped++;
        return;
    }
    if (!t) {
        dropped++;
        return;
    }
    if (!t->buf || t->used + size > t->size) {
        queue_full_locked(t);
        uint8_t *buf = NULL;
        size_t bsize = 0, maxrec = 0;
        on_request(&buf, &bsize, &maxrec);
        if (!buf || bsize < size || ((uintptr_t)buf & 7)) {
            dropped++;
            return;
        }
        t->buf = buf;
        t->size = bsize;
        t->used = 0;
    }
    memset(t->buf + t->used, 0, size);
    memcpy(t->buf + t->used, rec, rec_size < size ? rec_size : size);
    t->used += size;
}

/* ... to this thread's buffer */
static void emit_locked(const void *rec, size_t rec_size, CUpti_ActivityKind kind)
{
    emit_to(my_buf_locked(), rec, rec_size, kind);
}

static void emit_sized(const void *rec, size_t rec_size, CUpti_ActivityKind kind)
{
    pthread_mutex_lock(&cupti_lock);
    emit_locked(rec, rec_size, kind);
    pthread_mutex_unlock(&cupti_lock);
}

#define emit(rec, kind) emit_sized((rec), sizeof *(rec), (kind))

/* for the records made in other files (sim_cupti_events.c) */
void sim_cupti_emit(const void *rec, size_t rec_size, CUpti_ActivityKind kind)
{
    emit_sized(rec, rec_size, kind);
}

/* Delivers queued buffers until the queue is empty.  Caller holds cupti_lock;
 * it is released around each callback. */
static void deliver_locked(void)
{
    while (queue_head) {
        struct full_buf *f = queue_head;
        queue_head = f->next;
        if (!queue_head)
            queue_tail = NULL;
        CUpti_BuffersCallbackCompleteFunc cb = on_complete;
        delivering++;
        pthread_mutex_unlock(&cupti_lock);
        if (cb)
            cb(NULL, 0, f->buf, f->size, f->valid);
        free(f);
        pthread_mutex_lock(&cupti_lock);
        delivering--;
        pthread_cond_broadcast(&cupti_cond);
    }
}

static void *delivery_thread(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&cupti_lock);
    for (;;) {
        while (!queue_head)
            pthread_cond_wait(&cupti_cond, &cupti_lock);
        deliver_locked();
    }
    return NULL;
}

/* ---- records the simulator emits --------------------------------------- */

void sim_api_begin(sim_api_ctx *ctx, CUpti_ActivityKind kind, CUpti_CallbackId cbid)
{
    sim_api_begin_params(ctx, kind, cbid, NULL);
}

void sim_api_begin_params(sim_api_ctx *ctx, CUpti_ActivityKind kind, CUpti_CallbackId cbid, const void *params)
{
    sim_driver_init(); /* the first call initialises the driver */
    ctx->kind = kind;
    ctx->params = params;
    ctx->cbid = cbid;
    ctx->correlation = atomic_fetch_add(&correlation_counter, 1) + 1;
    cur_correlation = ctx->correlation;
    /* as CUPTI does (cupti_activity.h, cuptiActivityPushExternalCorrelationId):
     * each API record made while an id of a kind is pushed is preceded by
     * one record tying that id to its correlation; none where the API
     * record is not made (its kind off) */
    int api_on = -1; /* asked only when an id is pushed: it takes cupti_lock */
    for (int k = 0; k < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; k++) {
        if (ext_depth[k] > 0 && (api_on < 0 ? (api_on = sim_cupti_enabled(kind)) : api_on)) {
            CUpti_ActivityExternalCorrelation r = {
                .kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
                .externalKind = (CUpti_ExternalCorrelationKind)k,
                .externalId = ext_stack[k][ext_depth[k] - 1],
                .correlationId = ctx->correlation,
            };
            emit(&r, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
        }
    }
    ctx->start = sim_cupti_ts();
    sim_cupti_callback(ctx, CUPTI_API_ENTER, NULL);
}

/* gettid() is a system call; CUPTI does not make one per API call either. */
static uint32_t thread_id(void)
{
    static _Thread_local uint32_t tid;
    if (!tid)
        tid = (uint32_t)gettid();
    return tid;
}

/* getpid() is a system call too (glibc caches it no more): taken once per
 * process, again in a forked child.  At a million calls a second it was a
 * sixth of the simulator's time, which a benchmark of the tracer then
 * counted against the tracer's writer. */
static _Atomic uint32_t pid_now;
static void forget_pid(void)
{
    atomic_store(&pid_now, 0);
}

/* fork while another thread held cupti_lock (a stream thread emitting a
 * record) left the child's first activity call waiting for it forever (a
 * traced child's activation, 1 fork in 100 or so): fork waits for the lock,
 * and both sides let go of it (the child after resetting what the parent's
 * threads had under way) */
static void fork_prepare(void)
{
    pthread_mutex_lock(&cupti_lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&cupti_lock);
}

/* The child has none of the parent's threads: not the delivery thread,
 * which a fork in the middle of a delivery left counted as delivering, so
 * that the child's cuptiActivityFlushAll waited for it forever (a traced
 * child's end then waited out the tracer's 10 s: 1 fork in about 600 under
 * the sanitizers on a loaded machine).  The buffers the parent had filled
 * are its records, not the child's: forgotten. */
static void fork_child(void)
{
    while (queue_head) {
        struct full_buf *f = queue_head;
        queue_head = f->next;
        free(f);
    }
    queue_tail = NULL;
    for (struct thread_buf *t = thread_bufs; t; t = t->next) {
        t->buf = NULL;
        t->size = t->used = 0;
        t->pending = 0;
    }
    reserved = NULL; /* the parent's GPU work: not the child's */
    delivering = 0;
    delivery_thread_started = 0;
    pthread_cond_init(&cupti_cond, NULL);
    pthread_mutex_unlock(&cupti_lock);
    forget_pid();
}

/* At load, before a tracer's first call registers its own handlers: the
 * prepare handlers run last-registered first, so the tracer's writer has
 * parked (out of cuptiActivityFlushAll, which takes cupti_lock) before
 * this one takes the lock */
__attribute__((constructor)) static void sim_register_fork_handlers(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static uint32_t process_id(void)
{
    uint32_t p = atomic_load_explicit(&pid_now, memory_order_relaxed);
    if (!p) {
        p = (uint32_t)getpid();
        atomic_store_explicit(&pid_now, p, memory_order_relaxed);
    }
    return p;
}

/* GPUSIM_SIGNAL_IN_CUPTI=N: a thread's Nth call raises SIGTERM while its
 * record is made, cupti_lock held: a signal that lands inside the runtime
 * finds the runtime's and CUPTI's locks held, and whatever a handler waits
 * for must not need them (tests/apps/lifecycle.c term_exit_cupti).  0: off */
static unsigned signal_at(void)
{
    static atomic_int at = -1;
    int v = atomic_load_explicit(&at, memory_order_relaxed);
    if (v < 0) {
        const char *e = getenv("GPUSIM_SIGNAL_IN_CUPTI");
        v = e ? atoi(e) : 0;
        atomic_store_explicit(&at, v > 0 ? v : 0, memory_order_relaxed);
    }
    return v > 0 ? (unsigned)v : 0;
}

void sim_api_end(sim_api_ctx *ctx, uint32_t result)
{
    sim_cupti_callback(ctx, CUPTI_API_EXIT, &result);
    CUpti_ActivityAPI r = {
        .kind = ctx->kind,
        .cbid = ctx->cbid,
        .start = ctx->start,
        .end = sim_cupti_ts(),
        .processId = process_id(),
        .threadId = thread_id(),
        .correlationId = ctx->correlation,
        .returnValue = result,
    };
    cur_correlation = 0;
    static _Thread_local unsigned calls_here;
    unsigned at = signal_at();
    if (at && ++calls_here == at) {
        pthread_mutex_lock(&cupti_lock);
        emit_locked(&r, sizeof r, ctx->kind);
        raise(SIGTERM);
        pthread_mutex_unlock(&cupti_lock);
        return;
    }
    emit(&r, ctx->kind);
}

static uint32_t context_of(const struct sim_stream *s)
{
    return (uint32_t)(s ? s->device : sim_current_device()) + 1;
}

/* The record of op as CUPTI makes it: start and end 0 while it has not
 * ended; in the buffer of the thread that launched it, where CUPTI
 * reserved it (seen on an H200: a kernel running held back that thread's
 * API records and the kernels before it from a default flush).  Caller
 * holds cupti_lock. */
static void emit_op_locked(const struct sim_op *op, const struct sim_stream *s, uint64_t start, uint64_t end)
{
    struct thread_buf *into = op->cupti_buf ? op->cupti_buf : my_buf_locked();
    switch (op->kind) {
    case SIM_OP_KERNEL:
    case SIM_OP_HOSTFN: {
        CUpti_ActivityKernel10 r = {
            .kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
            .start = start,
            .end = end,
            .completed = end,
            .deviceId = (uint32_t)s->device,
            .contextId = context_of(s),
            .streamId = s->id,
            .gridX = 1, .gridY = 1, .gridZ = 1,
            .blockX = 128, .blockY = 1, .blockZ = 1,
            .correlationId = op->correlation,
            .name = op->name,
        };
        /* A client enables one of the two kernel kinds; records come in that one. */
        if (!enabled[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL])
            r.kind = CUPTI_ACTIVITY_KIND_KERNEL;
        emit_to(into, &r, sizeof r, r.kind);
        break;
    }
    case SIM_OP_MEMCPY: {
        CUpti_ActivityMemcpy6 r = {
            .kind = CUPTI_ACTIVITY_KIND_MEMCPY,
            .copyKind = op->copy_kind,
            .srcKind = op->src_kind,
            .dstKind = op->dst_kind,
            .flags = op->async ? CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC : 0,
            .bytes = op->bytes,
            .start = start,
            .end = end,
            .deviceId = (uint32_t)s->device,
            .contextId = context_of(s),
            .streamId = s->id,
            .correlationId = op->correlation,
        };
        emit_to(into, &r, sizeof r, CUPTI_ACTIVITY_KIND_MEMCPY);
        break;
    }
    case SIM_OP_MEMSET: {
        CUpti_ActivityMemset4 r = {
            .kind = CUPTI_ACTIVITY_KIND_MEMSET,
            .value = (uint32_t)op->value,
            .bytes = op->bytes,
            .start = start,
            .end = end,
            .deviceId = (uint32_t)s->device,
            .contextId = context_of(s),
            .streamId = s->id,
            .correlationId = op->correlation,
            .flags = op->async ? CUPTI_ACTIVITY_FLAG_MEMSET_ASYNC : 0,
            .memoryKind = op->dst_kind,
        };
        emit_to(into, &r, sizeof r, CUPTI_ACTIVITY_KIND_MEMSET);
        break;
    }
    default:
        break;
    }
}

void sim_cupti_reserve(struct sim_op *op, struct sim_stream *s)
{
    pthread_mutex_lock(&cupti_lock);
    op->cupti_stream = s;
    op->cupti_out = 0;
    struct thread_buf *t = my_buf_locked();
    op->cupti_buf = t;
    if (t)
        t->pending++;
    op->cupti_prev = NULL;
    op->cupti_next = reserved;
    if (reserved)
        reserved->cupti_prev = op;
    reserved = op;
    pthread_mutex_unlock(&cupti_lock);
}

void sim_cupti_op_ended(struct sim_op *op, const struct sim_stream *s, uint64_t start, uint64_t end)
{
    pthread_mutex_lock(&cupti_lock);
    int out = 0;
    if (op->cupti_stream) {
        out = op->cupti_out;
        struct thread_buf *t = op->cupti_buf;
        if (t && !out && t->pending > 0)
            t->pending--;
        if (op->cupti_prev)
            op->cupti_prev->cupti_next = op->cupti_next;
        else if (reserved == op)
            reserved = op->cupti_next;
        if (op->cupti_next)
            op->cupti_next->cupti_prev = op->cupti_prev;
        op->cupti_stream = NULL;
    }
    if (!out)
        emit_op_locked(op, s, start, end);
    pthread_mutex_unlock(&cupti_lock);
}

/* ---- the public CUPTI API ---------------------------------------------- */

/* A kind on or off, for the public calls below: never through them (a
 * preloaded tracer wraps them, and a per-context call would reach its
 * wrapper of the global one) */
static CUptiResult set_kind(CUpti_ActivityKind kind, int on)
{
    if (on && refused())
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    if ((int)kind <= 0 || (int)kind >= CUPTI_ACTIVITY_KIND_COUNT)
        return CUPTI_ERROR_INVALID_KIND;
    pthread_mutex_lock(&cupti_lock);
    enabled[kind] = on;
    pthread_mutex_unlock(&cupti_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
    return set_kind(kind, 1);
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
    return set_kind(kind, 0);
}

/* Per context: the simulator has one context a process, so a kind on for
 * it is on for all (a client that enables per context and disables per
 * context sees what it would) */
CUptiResult cuptiActivityEnableContext(CUcontext context, CUpti_ActivityKind kind)
{
    (void)context;
    return set_kind(kind, 1);
}

CUptiResult cuptiActivityDisableContext(CUcontext context, CUpti_ActivityKind kind)
{
    (void)context;
    return set_kind(kind, 0);
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                           CUpti_BuffersCallbackCompleteFunc funcBufferCompleted)
{
    if (refused())
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    if (!funcBufferRequested || !funcBufferCompleted)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&cupti_lock);
    on_request = funcBufferRequested;
    on_complete = funcBufferCompleted;
    if (!delivery_thread_started) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        if (pthread_create(&t, &attr, delivery_thread, NULL) == 0)
            delivery_thread_started = 1;
        pthread_attr_destroy(&attr);
    }
    pthread_mutex_unlock(&cupti_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
    pthread_mutex_lock(&cupti_lock);
    if (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)
        for (struct sim_op *op = reserved; op; op = op->cupti_next)
            if (!op->cupti_out) {
                op->cupti_out = 1;
                struct thread_buf *t = op->cupti_buf;
                if (t && t->pending > 0)
                    t->pending--;
                emit_op_locked(op, op->cupti_stream, 0, 0);
            }
    for (struct thread_buf *t = thread_bufs; t; t = t->next)
        if (t->buf && t->used && !t->pending) /* a default flush holds back a buffer with a record incomplete */
            queue_full_locked(t);
    deliver_locked();
    while (delivering || queue_head)
        pthread_cond_wait(&cupti_cond, &cupti_lock);
    pthread_mutex_unlock(&cupti_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t validBufferSizeBytes, CUpti_Activity **record)
{
    if (!buffer || !record)
        return CUPTI_ERROR_INVALID_PARAMETER;
    size_t off = 0;
    if (*record)
        off = (size_t)((uint8_t *)*record - buffer) + record_size((*record)->kind);
    if (off + sizeof(CUpti_Activity) > validBufferSizeBytes)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    *record = (CUpti_Activity *)(buffer + off);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId, size_t *n)
{
    (void)context; (void)streamId;
    if (!n)
        return CUPTI_ERROR_INVALID_PARAMETER;
    pthread_mutex_lock(&cupti_lock);
    *n = dropped;
    dropped = 0;
    pthread_mutex_unlock(&cupti_lock);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
    if (!timestamp)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *timestamp = sim_cupti_ts();
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc funcTimestamp)
{
    atomic_store(&ts_callback, funcTimestamp);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t id)
{
    if ((int)kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || (int)kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (ext_depth[kind] == EXT_DEPTH)
        return CUPTI_ERROR_MAX_LIMIT_REACHED;
    ext_stack[kind][ext_depth[kind]++] = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind, uint64_t *lastId)
{
    if ((int)kind <= CUPTI_EXTERNAL_CORRELATION_KIND_INVALID || (int)kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    if (ext_depth[kind] == 0)
        return CUPTI_ERROR_QUEUE_EMPTY;
    uint64_t id = ext_stack[kind][--ext_depth[kind]];
    if (lastId)
        *lastId = id;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetVersion(uint32_t *version)
{
    if (!version)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const char *v = getenv("GPUSIM_CUPTI_VERSION");
    *version = v && *v ? (uint32_t)strtoul(v, NULL, 10) : CUPTI_API_VERSION;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
    if (!str)
        return CUPTI_ERROR_INVALID_PARAMETER;
    switch (result) {
    case CUPTI_SUCCESS: *str = "CUPTI_SUCCESS"; break;
    case CUPTI_ERROR_INVALID_PARAMETER: *str = "CUPTI_ERROR_INVALID_PARAMETER"; break;
    case CUPTI_ERROR_INVALID_KIND: *str = "CUPTI_ERROR_INVALID_KIND"; break;
    case CUPTI_ERROR_MAX_LIMIT_REACHED: *str = "CUPTI_ERROR_MAX_LIMIT_REACHED"; break;
    case CUPTI_ERROR_QUEUE_EMPTY: *str = "CUPTI_ERROR_QUEUE_EMPTY"; break;
    case CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED:
        *str = "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"; break;
    default: *str = "CUPTI_ERROR_UNKNOWN"; return CUPTI_ERROR_INVALID_PARAMETER;
    }
    return CUPTI_SUCCESS;
}
