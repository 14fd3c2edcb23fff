/* sim_stream.c: simulated streams, their worker threads, and events.
 *
 * DESIGN
 *   Each stream owns a FIFO of operations and one worker thread.  The worker
 *   pops the head, waits (on sim_cond) until every dependency ticket of the op
 *   is completed, runs the op outside the lock, then bumps `completed` and
 *   broadcasts.  The API thread enqueues under sim_lock and returns, unless the
 *   call is synchronous, in which case it waits for the ticket sim_enqueue
 *   returned.
 *
 *   Legacy default stream rules (CUDA "stream synchronization behavior"):
 *     - work on the legacy stream waits for all prior work on the blocking
 *       streams of its device;
 *     - work on a blocking stream waits for all prior work on the legacy stream;
 *     - streams made with cudaStreamNonBlocking take part in neither.
 *   The per-thread default stream (cudaStreamPerThread) is a blocking stream
 *   of its own for each thread.
 *
 *   Streams are never freed, since dependencies of later ops may still name
 *   a destroyed stream; they stay on their device's list, marked exiting.
 */
#include "sim_internal.h"


#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

pthread_mutex_t sim_lock = PTHREAD_MUTEX_INITIALIZER;
pthread_cond_t sim_cond = PTHREAD_COND_INITIALIZER;

/* fork while a stream thread holds sim_lock left the child a lock no
 * thread of its own would ever release: its first call into the simulator
 * hung (seen under load).  The fork waits for the lock and both sides of
 * it let go: the child's streams are as they were, their threads gone. */
static void fork_prepare(void) { pthread_mutex_lock(&sim_lock); }
static void fork_release(void) { pthread_mutex_unlock(&sim_lock); }
__attribute__((constructor)) static void sim_fork_guard(void)
{
    pthread_atfork(fork_prepare, fork_release, fork_release);
}

static struct sim_stream *legacy[SIM_MAX_DEVICES];        /* guarded by sim_lock */
static struct sim_stream *device_streams[SIM_MAX_DEVICES]; /* guarded by sim_lock */
/* CUPTI's stream ids are unique within a context only (cupti_activity.h,
 * cuptiGetStreamIdEx: "a context-unique ID"): each device numbers its own
 * streams, from the same first id, so that two devices' streams share ids
 * as two contexts' may on a real machine (one process driving two GPUs:
 * their default streams alike) */
static uint32_t next_stream_id[SIM_MAX_DEVICES];           /* guarded by sim_lock */
static _Thread_local struct sim_stream *per_thread[SIM_MAX_DEVICES];

uint64_t sim_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void sim_sleep_until(uint64_t mono_ns)
{
    struct timespec ts = { (time_t)(mono_ns / 1000000000ull), (long)(mono_ns % 1000000000ull) };
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
        ;
}

struct sim_op *sim_op_new(sim_op_kind kind)
{
    struct sim_op *op = calloc(1, sizeof *op);
    if (!op)
        abort(); /* the simulator is a test double: out of memory is fatal */
    op->kind = kind;
    op->correlation = sim_current_correlation();
    return op;
}

static void free_op(struct sim_op *op)
{
    free(op->deps);
    free(op);
}

static void event_unref_locked(struct sim_event *ev)
{
    if (--ev->refs == 0)
        free(ev);
}

_Thread_local uint64_t sim_kernel_ended_mono;

/* The end stamp of a kernel begun at start that says when it ended
 * (sim_kernel_ended_mono): the CUPTI clock now, less how long ago that
 * was, never before start.  In ns: CUPTI's default
 * clock and the tracer's count ns; a program's own timestamp callback in
 * other units (tests/apps/own_activity.c) gets its collectives' ends off by
 * the wake-up's delay in those units. */
static uint64_t kernel_end_ts(uint64_t start)
{
    uint64_t end = sim_cupti_ts(), at = sim_kernel_ended_mono, now = sim_mono_ns();
    sim_kernel_ended_mono = 0;
    if (at && at < now && now - at < end)
        end -= now - at;
    return end < start ? start : end;
}

static void run_op(struct sim_stream *s, struct sim_op *op)
{
    uint64_t start = sim_cupti_ts(), end;

    switch (op->kind) {
    case SIM_OP_KERNEL:
        op->fn(op->args);
        end = kernel_end_ts(start);
        sim_cupti_op_ended(op, s, start, end);
        break;
    case SIM_OP_HOSTFN:
        op->hostfn(op);
        end = kernel_end_ts(start);
        if (!op->no_record)
            sim_cupti_op_ended(op, s, start, end);
        break;
    case SIM_OP_MEMCPY: {
        /* the copy lasts the model's time, so that its duration does not
         * depend on how fast (or how loaded) this machine is, and its record
         * spans all the time it held the stream: the host's memmove counts
         * inside it.  A record begun after the memmove left the stream busy
         * with no record (a 16 MiB upload: milliseconds a step), so fixing
         * a serialised upload saved twice what its records showed. */
        uint64_t t0 = sim_mono_ns();
        if (op->height)
            for (size_t r = 0; r < op->height; r++)
                memmove((char *)op->dst + r * op->dpitch, (const char *)op->src + r * op->spitch, op->width);
        else
            memmove(op->dst, op->src, op->bytes);
        if (op->stage_ns) { /* a pageable upload: its caller returns now (sim_wait_staged) */
            sim_sleep_until(t0 + op->stage_ns);
            pthread_mutex_lock(&sim_lock);
            s->staged = s->completed + 1;
            pthread_cond_broadcast(&sim_cond);
            pthread_mutex_unlock(&sim_lock);
        }
        sim_sleep_until(t0 + op->model_ns);
        end = sim_cupti_ts();
        sim_cupti_op_ended(op, s, start, end);
        break;
    }
    case SIM_OP_MEMSET: {
        uint64_t t0 = sim_mono_ns(); /* as a copy: the record spans the memset */
        memset(op->dst, op->value, op->bytes);
        sim_sleep_until(t0 + op->model_ns);
        end = sim_cupti_ts();
        sim_cupti_op_ended(op, s, start, end);
        break;
    }
    case SIM_OP_MARKER:
        if (op->event) {
            pthread_mutex_lock(&sim_lock);
            if (op->event->gen == op->event_gen)
                op->event->time_ns = start;
            event_unref_locked(op->event);
            pthread_mutex_unlock(&sim_lock);
        }
        break;
    case SIM_OP_EXIT:
        break;
    }
}

static void *stream_worker(void *arg)
{
    struct sim_stream *s = arg;
    pthread_mutex_lock(&sim_lock);
    for (;;) {
        while (!s->head)
            pthread_cond_wait(&sim_cond, &sim_lock);
        struct sim_op *op = s->head;
        s->head = op->next;
        if (!s->head)
            s->tail = NULL;
        for (int i = 0; i < op->ndeps; i++)
            while (op->deps[i].stream->completed < op->deps[i].ticket)
                pthread_cond_wait(&sim_cond, &sim_lock);
        pthread_mutex_unlock(&sim_lock);
        run_op(s, op);
        pthread_mutex_lock(&sim_lock);
        s->completed++;
        pthread_cond_broadcast(&sim_cond);
        int last = op->kind == SIM_OP_EXIT;
        free_op(op);
        if (last)
            break;
    }
    pthread_mutex_unlock(&sim_lock);
    return NULL;
}

/* Caller holds sim_lock. */
static struct sim_stream *stream_new_locked(int device, int blocking, int is_legacy, int priority)
{
    struct sim_stream *s = calloc(1, sizeof(struct CUstream_st));
    if (!s)
        abort();
    s->device = device;
    s->blocking = blocking;
    s->legacy = is_legacy;
    s->priority = priority;
    s->id = 7 + next_stream_id[device]++;
    s->next_on_device = device_streams[device];
    device_streams[device] = s;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&s->thread, &attr, stream_worker, s) != 0)
        abort();
    pthread_attr_destroy(&attr);
    return s;
}

struct sim_stream *sim_legacy_stream(int device)
{
    pthread_mutex_lock(&sim_lock);
    if (!legacy[device])
        legacy[device] = stream_new_locked(device, 1, 1, 0);
    struct sim_stream *s = legacy[device];
    pthread_mutex_unlock(&sim_lock);
    return s;
}

struct sim_stream *sim_resolve_stream(cudaStream_t handle)
{
    int dev = sim_current_device();
    if (handle == NULL || handle == cudaStreamLegacy)
        return sim_legacy_stream(dev);
    if (handle == cudaStreamPerThread) {
        if (!per_thread[dev]) {
            sim_legacy_stream(dev); /* the device must have its legacy stream first */
            pthread_mutex_lock(&sim_lock);
            per_thread[dev] = stream_new_locked(dev, 1, 0, 0);
            pthread_mutex_unlock(&sim_lock);
        }
        return per_thread[dev];
    }
    return &handle->s;
}

static void add_dep(struct sim_op *op, struct sim_stream *s, uint64_t ticket)
{
    if (s->completed >= ticket)
        return;
    op->deps = realloc(op->deps, (size_t)(op->ndeps + 1) * sizeof *op->deps);
    if (!op->deps)
        abort();
    op->deps[op->ndeps].stream = s;
    op->deps[op->ndeps].ticket = ticket;
    op->ndeps++;
}

/* Caller holds sim_lock. */
static uint64_t enqueue_locked(struct sim_stream *s, struct sim_op *op)
{
    if (s->legacy) {
        for (struct sim_stream *o = device_streams[s->device]; o; o = o->next_on_device)
            if (o != s && o->blocking && !o->exiting)
                add_dep(op, o, o->enqueued);
    } else if (s->blocking && legacy[s->device]) {
        struct sim_stream *l = legacy[s->device];
        add_dep(op, l, l->enqueued);
    }
    op->next = NULL;
    if (op->kind == SIM_OP_KERNEL || op->kind == SIM_OP_MEMCPY || op->kind == SIM_OP_MEMSET ||
        (op->kind == SIM_OP_HOSTFN && !op->no_record))
        sim_cupti_reserve(op, s);
    if (s->tail)
        s->tail->next = op;
    else
        s->head = op;
    s->tail = op;
    pthread_cond_broadcast(&sim_cond);
    return ++s->enqueued;
}

uint64_t sim_enqueue(struct sim_stream *s, struct sim_op *op)
{
    pthread_mutex_lock(&sim_lock);
    uint64_t t = enqueue_locked(s, op);
    pthread_mutex_unlock(&sim_lock);
    return t;
}

void sim_wait_ticket(struct sim_stream *s, uint64_t ticket)
{
    pthread_mutex_lock(&sim_lock);
    while (s->completed < ticket)
        pthread_cond_wait(&sim_cond, &sim_lock);
    pthread_mutex_unlock(&sim_lock);
}

void sim_wait_staged(struct sim_stream *s, uint64_t ticket)
{
    pthread_mutex_lock(&sim_lock);
    while (s->completed < ticket && s->staged < ticket)
        pthread_cond_wait(&sim_cond, &sim_lock);
    pthread_mutex_unlock(&sim_lock);
}

void sim_device_drain(int device)
{
    pthread_mutex_lock(&sim_lock);
    for (struct sim_stream *s = device_streams[device]; s; s = s->next_on_device) {
        /* a destroyed stream's work counts, not the exit of its worker
         * thread: a child forked before that thread ran its exit would wait
         * for it forever (the thread is not in the child) */
        uint64_t target = s->enqueued - (s->exiting ? 1 : 0);
        while (s->completed < target)
            pthread_cond_wait(&sim_cond, &sim_lock);
    }
    pthread_mutex_unlock(&sim_lock);
}

/* A marker in stream order; returns its ticket. */
static uint64_t enqueue_marker(struct sim_stream *s)
{
    return sim_enqueue(s, sim_op_new(SIM_OP_MARKER));
}

/* ---- stream API -------------------------------------------------------- */

static cudaError_t stream_create(cudaStream_t *out, unsigned flags, int priority, CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    cudaError_t rc = cudaSuccess;
    if (!out) {
        rc = sim_set_error(cudaErrorInvalidValue);
    } else {
        int dev = sim_current_device();
        sim_legacy_stream(dev);
        pthread_mutex_lock(&sim_lock);
        struct sim_stream *s = stream_new_locked(dev, !(flags & cudaStreamNonBlocking), 0, priority);
        pthread_mutex_unlock(&sim_lock);
        *out = (cudaStream_t)s;
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaStreamCreate(cudaStream_t *pStream)
{
    return stream_create(pStream, cudaStreamDefault, 0, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreate_v3020);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags)
{
    return stream_create(pStream, flags, 0, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority)
{
    return stream_create(pStream, flags, priority, CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithPriority_v5050);
}

cudaError_t cudaStreamDestroy(cudaStream_t stream)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamDestroy_v5050);
    cudaError_t rc = cudaSuccess;
    if (stream == NULL || stream == cudaStreamLegacy || stream == cudaStreamPerThread) {
        rc = sim_set_error(cudaErrorInvalidResourceHandle);
    } else {
        struct sim_stream *s = &stream->s;
        pthread_mutex_lock(&sim_lock);
        if (s->exiting) {
            rc = sim_set_error(cudaErrorInvalidResourceHandle);
        } else {
            s->exiting = 1;
            enqueue_locked(s, sim_op_new(SIM_OP_EXIT));
        }
        pthread_mutex_unlock(&sim_lock);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaStreamSynchronize(cudaStream_t stream)
{
    sim_api_ctx api;
    cudaStreamSynchronize_v3020_params params = { stream };
    sim_api_begin_params(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020,
                         &params);
    struct sim_stream *s = sim_resolve_stream(stream);
    uint64_t start = sim_cupti_ts();
    sim_wait_ticket(s, enqueue_marker(s));
    sim_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, api.correlation, s, 0, 0,
                   start, sim_cupti_ts());
    sim_api_end(&api, cudaSuccess);
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t stream)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamQuery_v3020);
    struct sim_stream *s = sim_resolve_stream(stream);
    pthread_mutex_lock(&sim_lock);
    cudaError_t rc = s->completed == s->enqueued ? cudaSuccess : cudaErrorNotReady;
    pthread_mutex_unlock(&sim_lock);
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags)
{
    (void)flags;
    sim_api_ctx api;
    cudaStreamWaitEvent_v3020_params params = { stream, event, flags };
    sim_api_begin_params(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020,
                         &params);
    cudaError_t rc = cudaSuccess;
    if (!event) {
        rc = sim_set_error(cudaErrorInvalidResourceHandle);
    } else {
        struct sim_stream *s = sim_resolve_stream(stream);
        uint64_t start = sim_cupti_ts();
        struct sim_op *op = sim_op_new(SIM_OP_MARKER);
        pthread_mutex_lock(&sim_lock);
        if (event->ev.stream)
            add_dep(op, event->ev.stream, event->ev.ticket);
        enqueue_locked(s, op);
        uint64_t sync_id = event->ev.sync_id; /* the record it waits for */
        pthread_mutex_unlock(&sim_lock);
        sim_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, api.correlation, s,
                       event->ev.id, sync_id, start, sim_cupti_ts());
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaDeviceSynchronize(void)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
    uint64_t start = sim_cupti_ts();
    sim_device_drain(sim_current_device());
    sim_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, api.correlation, NULL, 0, 0,
                   start, sim_cupti_ts());
    sim_api_end(&api, cudaSuccess);
    return cudaSuccess;
}

/* ---- event API ---------------------------------------------------------- */

static uint32_t next_event_id = 1; /* guarded by sim_lock */

static cudaError_t event_create(cudaEvent_t *out, unsigned flags, CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    cudaError_t rc = cudaSuccess;
    if (!out) {
        rc = sim_set_error(cudaErrorInvalidValue);
    } else {
        struct CUevent_st *e = calloc(1, sizeof *e);
        if (!e)
            abort();
        e->ev.timing = !(flags & cudaEventDisableTiming);
        e->ev.refs = 1;
        pthread_mutex_lock(&sim_lock);
        e->ev.id = next_event_id++;
        pthread_mutex_unlock(&sim_lock);
        *out = e;
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaEventCreate(cudaEvent_t *event)
{
    return event_create(event, cudaEventDefault, CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags)
{
    return event_create(event, flags, CUPTI_RUNTIME_TRACE_CBID_cudaEventCreateWithFlags_v3020);
}

static cudaError_t event_record(cudaEvent_t event, cudaStream_t stream, CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    cudaError_t rc = cudaSuccess;
    if (!event) {
        rc = sim_set_error(cudaErrorInvalidResourceHandle);
    } else {
        struct sim_stream *s = sim_resolve_stream(stream);
        struct sim_op *op = sim_op_new(SIM_OP_MARKER);
        pthread_mutex_lock(&sim_lock);
        struct sim_event *ev = &event->ev;
        op->event = ev;
        op->event_gen = ++ev->gen;
        ev->refs++;
        ev->stream = s;
        ev->ticket = enqueue_locked(s, op);
        uint64_t sync_id = ev->sync_id = sim_next_event_sync_id();
        uint32_t id = ev->id;
        pthread_mutex_unlock(&sim_lock);
        sim_cupti_event_record(api.correlation, s, id, sync_id);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream)
{
    return event_record(event, stream, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020);
}

cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags)
{
    (void)flags;
    return event_record(event, stream, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecordWithFlags_v11010);
}

/* Caller holds sim_lock. */
static int event_done_locked(const struct sim_event *ev)
{
    return !ev->stream || ev->stream->completed >= ev->ticket;
}

cudaError_t cudaEventQuery(cudaEvent_t event)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020);
    cudaError_t rc;
    if (!event) {
        rc = sim_set_error(cudaErrorInvalidResourceHandle);
    } else {
        pthread_mutex_lock(&sim_lock);
        rc = event_done_locked(&event->ev) ? cudaSuccess : cudaErrorNotReady;
        pthread_mutex_unlock(&sim_lock);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaEventSynchronize(cudaEvent_t event)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020);
    cudaError_t rc = cudaSuccess;
    if (!event) {
        rc = sim_set_error(cudaErrorInvalidResourceHandle);
    } else {
        uint64_t start = sim_cupti_ts();
        pthread_mutex_lock(&sim_lock);
        struct sim_stream *s = event->ev.stream;
        uint64_t sync_id = event->ev.sync_id; /* the record it waits for */
        while (!event_done_locked(&event->ev))
            pthread_cond_wait(&sim_cond, &sim_lock);
        pthread_mutex_unlock(&sim_lock);
        sim_cupti_sync(CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, api.correlation, s,
                       event->ev.id, sync_id, start, sim_cupti_ts());
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventElapsedTime_v3020);
    cudaError_t rc = cudaSuccess;
    if (!ms || !start || !end) {
        rc = sim_set_error(!ms ? cudaErrorInvalidValue : cudaErrorInvalidResourceHandle);
    } else {
        pthread_mutex_lock(&sim_lock);
        if (!start->ev.timing || !end->ev.timing || !start->ev.stream || !end->ev.stream)
            rc = cudaErrorInvalidResourceHandle;
        else if (!event_done_locked(&start->ev) || !event_done_locked(&end->ev))
            rc = cudaErrorNotReady;
        else
            *ms = (float)((double)((int64_t)end->ev.time_ns - (int64_t)start->ev.time_ns) / 1e6);
        pthread_mutex_unlock(&sim_lock);
        if (rc != cudaSuccess)
            sim_set_error(rc);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaEventDestroy(cudaEvent_t event)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaEventDestroy_v3020);
    cudaError_t rc = cudaSuccess;
    if (!event) {
        rc = sim_set_error(cudaErrorInvalidResourceHandle);
    } else {
        pthread_mutex_lock(&sim_lock);
        event->ev.destroyed = 1;
        event_unref_locked(&event->ev);
        pthread_mutex_unlock(&sim_lock);
    }
    sim_api_end(&api, rc);
    return rc;
}
