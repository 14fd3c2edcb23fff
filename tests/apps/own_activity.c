/* own_activity.c: a program that runs a profiler of its own on CUPTI's
 * activity API between two stretches of work, in the order torch.profiler's
 * Kineto does (libkineto's CuptiActivityApi: a timestamp callback of its
 * own, its buffer callbacks, its kinds; at the stop its kinds disabled and
 * a forced flush).  Its clock is not the tracer's: raw ticks, as Kineto's
 * getApproximateTime is.
 *
 * 20 kernels of 1 ms, then the profiled 10, then 20 more, twice (two
 * sessions), on one stream, each stretch waited for.  Prints what its
 * profiler got each session: the kernel records, whether each lies inside
 * the profiled stretch on its clock, records of kinds it did not enable,
 * buffers completed that were not its own.  With "once", its clock and
 * callbacks are registered at the first session only (a profiler that
 * keeps them).  With "again", its kind disabled once more after each stop.
 * With "context", its kind enabled and disabled for one context, and
 * disabled for it once more after each stop.
 * With "inflight", two kernels of 1 ms and one of 200 ms launched and
 * not waited for, 3.5 ms before each session's start: the long one
 * running at the hand-over (its record, the tracer's, lost to its forced
 * flush).
 * With "keep", one session that never stops.  With
 * "blocked", another profiler: runtime records and external
 * correlation only, no clock of its own, while a second thread is blocked
 * in a sync (a blocking call: the tracer pushes an external id around it)
 * across its start and then makes 5 calls; it prints the external
 * correlation records of kind CUSTOM0 it got (Kineto's own kind, which the
 * tracer's ids are too) and the buffers not its own.
 * Traced, the output must be what it is untraced
 * (tests/e2e/tracer_own_activity.sh).  Exit status 0 if every call
 * succeeded. */
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <pthread.h>
#include <string.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define BUF (64u << 10)
#define MAX_BUFS 64

static uint8_t *mine[MAX_BUFS];
static int nmine;
static int kernels, inside, other_kinds, foreign, custom0;
static int blocked_mode;
static uint64_t from, to; /* the profiled stretch, on its clock */

/* Its clock: CLOCK_MONOTONIC_RAW ticks from a far origin (not ns of any
 * clock the tracer reads). */
static uint64_t CUPTIAPI its_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) * 3 + (1ull << 60);
}

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = nmine < MAX_BUFS ? malloc(BUF) : NULL;
    if (*buffer)
        mine[nmine++] = *buffer;
    *size = *buffer ? BUF : 0;
    *max_records = 0;
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx; (void)stream; (void)size;
    int ours = 0;
    for (int i = 0; i < nmine; i++)
        ours |= mine[i] == buffer;
    if (!ours) { /* not ours: Kineto logs it and leaves it */
        foreign++;
        return;
    }
    CUpti_Activity *rec = NULL;
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
            ((const CUpti_ActivityExternalCorrelation *)rec)->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
            custom0++;
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            other_kinds++;
            continue;
        }
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        kernels++;
        inside += k->start >= from && k->end <= to && k->start <= k->end;
    }
}

static void sleep_ms(void **args)
{
    (void)args;
    struct timespec ts = { 0, 1000000L };
    nanosleep(&ts, NULL);
}

static int stretch(cudaStream_t s, int n)
{
    void *args[1] = { NULL };
    for (int i = 0; i < n; i++)
        if (cudaLaunchKernel((const void *)sleep_ms, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, s) != cudaSuccess)
            return 1;
    return cudaStreamSynchronize(s) != cudaSuccess;
}

static void sleep_200ms(void **args)
{
    (void)args;
    struct timespec ts = { 0, 200000000L };
    nanosleep(&ts, NULL);
}

/* blocked across the profiler's start, then 5 calls while it runs */
static void *blocked(void *arg)
{
    cudaStream_t s = arg;
    void *args[1] = { NULL };
    int bad = cudaLaunchKernel((const void *)sleep_200ms, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, s) != cudaSuccess;
    bad |= cudaStreamSynchronize(s) != cudaSuccess;
    for (int i = 0; i < 5; i++)
        bad |= cudaStreamQuery(s) != cudaSuccess;
    return bad ? (void *)1 : NULL;
}

int main(int argc, char **argv)
{
    blocked_mode = argc > 1 && strcmp(argv[1], "blocked") == 0;
    cudaStream_t s, s2;
    pthread_t t;
    if (cudaStreamCreate(&s) != cudaSuccess || cudaStreamCreate(&s2) != cudaSuccess || stretch(s, 20))
        return 1;
    int bad = 0;
    if (blocked_mode) {
        struct timespec ts = { 0, 50000000L }; /* into its sync */
        if (pthread_create(&t, NULL, blocked, s2) != 0)
            return 1;
        nanosleep(&ts, NULL);
        bad |= cuptiActivityRegisterCallbacks(on_request, on_complete) != CUPTI_SUCCESS;
        bad |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS;
        bad |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) != CUPTI_SUCCESS;
        void *tr = NULL;
        bad |= pthread_join(t, &tr) != 0 || tr != NULL;
        bad |= cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME) != CUPTI_SUCCESS;
        bad |= cuptiActivityDisable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) != CUPTI_SUCCESS;
        bad |= cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS;
        printf("own profiler: %d CUSTOM0 external ids, %d buffers not its own\n", custom0, foreign);
        return bad;
    }
    /* two sessions, each a start as Kineto orders it (with "once", a
     * profiler that registers its clock and callbacks at its first start
     * only) and a stop, 20 kernels before, between and after */
    int once = argc > 1 && strcmp(argv[1], "once") == 0, keep = argc > 1 && strcmp(argv[1], "keep") == 0;
    int again = argc > 1 && strcmp(argv[1], "again") == 0, per_ctx = argc > 1 && strcmp(argv[1], "context") == 0;
    int inflight = argc > 1 && strcmp(argv[1], "inflight") == 0;
    CUcontext ctx = NULL;
    for (int session = 0; session < (keep ? 1 : 2); session++) {
        kernels = inside = other_kinds = foreign = 0;
        void *none[1] = { NULL };
        for (int i = 0; inflight && i < 3; i++) /* not waited for: the last running at the profiler's start */
            bad |= cudaLaunchKernel((const void *)(i < 2 ? sleep_ms : sleep_200ms), (dim3){ 1, 1, 1 },
                                    (dim3){ 1, 1, 1 }, none, 0, s) != cudaSuccess;
        struct timespec host_work = { 0, 3500000L }; /* the host busy meanwhile */
        if (inflight)
            nanosleep(&host_work, NULL);
        if (session == 0 || !once) {
            bad |= cuptiActivityRegisterTimestampCallback(its_clock) != CUPTI_SUCCESS;
            bad |= cuptiActivityRegisterCallbacks(on_request, on_complete) != CUPTI_SUCCESS;
        }
        if (per_ctx)
            bad |= cuptiActivityEnableContext(ctx, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS;
        else
            bad |= cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS;
        from = its_clock();
        bad |= stretch(s, 10);
        to = its_clock();
        if (keep) { /* a profiler that never stops */
            printf("own profiler, session 1: not stopped\n");
            if (bad || stretch(s, 20))
                return 1;
            continue;
        }
        /* its stop */
        if (per_ctx)
            bad |= cuptiActivityDisableContext(ctx, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS;
        else
            bad |= cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS;
        bad |= cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS;
        if (again) /* its kind disabled once more, a no-op untraced */
            bad |= cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS;
        if (per_ctx) /* ... for its context */
            bad |= cuptiActivityDisableContext(ctx, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS;
        printf("own profiler, session %d: %d kernel records, %d inside the profiled stretch on its clock, "
               "%d of other kinds, %d buffers not its own\n", session + 1, kernels, inside, other_kinds, foreign);
        if (bad || stretch(s, 20))
            return 1;
    }
    printf("done\n");
    return 0;
}
