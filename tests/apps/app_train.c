/* app_train.c: the shared data-parallel training step of the workloads
 * (see app_train.h for the clean pattern and the problems that can be
 * planted).  Kernels are exported host functions, as the simulator's
 * contract says; their names are what the report shows. */
#define _GNU_SOURCE
#include "app_train.h"

#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUCKETS 4
#define BUCKET_ELEMS (64 * 1024)          /* one simulator staging slot of floats */
#define HOST_LOG_US 3000                  /* host work after reading the loss: formatting, logging */
#define METRICS_BYTES (64u << 10)

/* Kernel arguments must stay alive until the stream thread runs the kernel.
 * Nothing bounds how far the host runs ahead of the GPU in a loop without a
 * sync (on a busy machine it enqueued all 400 steps before the GPU ran the
 * first few), so every launch of the run gets a slot of its own. */
struct karg { float *buf; size_t n; int us; float value; int *err; };
struct kslot { struct karg k; struct karg *kp; void *argv[1]; };
#define LAUNCHES_PER_STEP 16 /* forward, loss, a backward and an update per bucket, EMA, decode: 12 */
static struct kslot *slots;
static size_t slots_used, slots_total;

static void spin_us(int us)
{
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

static struct karg *kernel_arg(void **args)
{
    return *(struct karg **)args[0];
}

void fwd_kernel(void **args)
{
    spin_us(kernel_arg(args)->us);
}

void loss_kernel(void **args)
{
    struct karg *a = kernel_arg(args);
    a->buf[0] = a->value;
    spin_us(a->us);
}

void bwd_kernel(void **args)
{
    struct karg *a = kernel_arg(args);
    for (size_t i = 0; i < a->n; i++)
        a->buf[i] = a->value;
    spin_us(a->us);
}

void decode_kernel(void **args)
{
    spin_us(kernel_arg(args)->us);
}

/* A kernel that never ends (a GPU hang, a deadlocked kernel). */
void stuck_kernel(void **args)
{
    (void)args;
    for (;;)
        pause();
}

void ema_kernel(void **args)
{
    spin_us(kernel_arg(args)->us);
}

/* Checks that every gradient is the all-reduced sum of the ranks' values. */
void sgd_update_kernel(void **args)
{
    struct karg *a = kernel_arg(args);
    for (size_t i = 0; i < a->n; i++)
        if (a->buf[i] != a->value && a->err)
            *a->err = 1;
    spin_us(a->us);
}

static void launch(void (*fn)(void **), cudaStream_t s, float *buf, size_t n, int us, float value, int *err)
{
    if (slots_used == slots_total) {
        fprintf(stderr, "app_train: more launches than LAUNCHES_PER_STEP allows\n");
        exit(1);
    }
    struct kslot *k = &slots[slots_used++];
    k->k = (struct karg){ buf, n, us, value, err };
    k->kp = &k->k;
    k->argv[0] = &k->kp;
    CHECK_CUDA(cudaLaunchKernel((const void *)fn, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, k->argv, 0, s));
}

/* What backward needs of the step: its buckets' launches and all-reduces,
 * made by the caller or by the backward thread (plant.backward_thread). */
struct bwd {
    const struct plant *p;
    int rank, world, local, step;
    ncclComm_t comm;
    cudaStream_t compute, comm_s;
    cudaEvent_t *ev_grad;
    float **d_grad;
    /* the hand-over: the main thread sets `go` and waits for `done` */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int go, done, quit;
};

static void backward_buckets(const struct bwd *w)
{
    const struct plant *p = w->p;
    int rank = w->rank, world = w->world, step = w->step;
    for (int b = 0; b < BUCKETS; b++) {
        launch(bwd_kernel, w->compute, w->d_grad[b], BUCKET_ELEMS, 1500, (float)(rank + 1), NULL);
        if (step == p->hang_inside_step && rank == world - 1 && b == 0) {
            fprintf(stderr, "rank %d: its GPU hangs before the all-reduce of step %d\n", rank, step);
            launch(stuck_kernel, w->compute, NULL, 0, 0, 0, NULL);
        }
        if (step == p->hang_step && rank == world - 1 && b == 0) {
            fprintf(stderr, "rank %d: stuck before the all-reduce of step %d\n", rank, step);
            for (;;)
                pause();
        }
        size_t count = (step == p->desync_step && rank == 1 && b == 0) ? BUCKET_ELEMS / 2 : BUCKET_ELEMS;
        if (p->allreduce_on_compute) {
            CHECK_NCCL(ncclAllReduce(w->d_grad[b], w->d_grad[b], count, ncclFloat32, ncclSum, w->comm, w->compute));
        } else {
            CHECK_CUDA(cudaEventRecord(w->ev_grad[b], w->compute));
            CHECK_CUDA(cudaStreamWaitEvent(w->comm_s, w->ev_grad[b], 0));
            CHECK_NCCL(ncclAllReduce(w->d_grad[b], w->d_grad[b], count, ncclFloat32, ncclSum, w->comm, w->comm_s));
        }
    }
}

/* The backward thread: each hand-over, the step's buckets, then back. */
static void *backward_thread(void *arg)
{
    struct bwd *w = arg;
    CHECK_CUDA(cudaSetDevice(w->local)); /* a thread's device is its own, as autograd's worker sets it */
    pthread_mutex_lock(&w->mu);
    for (;;) {
        while (!w->go && !w->quit)
            pthread_cond_wait(&w->cv, &w->mu);
        if (w->quit)
            break;
        w->go = 0;
        pthread_mutex_unlock(&w->mu);
        backward_buckets(w);
        pthread_mutex_lock(&w->mu);
        w->done = 1;
        pthread_cond_broadcast(&w->cv);
    }
    pthread_mutex_unlock(&w->mu);
    return NULL;
}

/* Backward of step `step`: here, or handed to the backward thread and
 * waited for, as loss.backward() does. */
static void backward(struct bwd *w, int step)
{
    w->step = step;
    if (!w->p->backward_thread) {
        backward_buckets(w);
        return;
    }
    pthread_mutex_lock(&w->mu);
    w->go = 1;
    w->done = 0;
    pthread_cond_broadcast(&w->cv);
    while (!w->done)
        pthread_cond_wait(&w->cv, &w->mu);
    pthread_mutex_unlock(&w->mu);
}

static int env_int(const char *name, int def)
{
    const char *v = getenv(name);
    return v && *v ? atoi(v) : def;
}

int app_train(const struct plant *planted)
{
    int rank = env_int("RANK", 0), world = env_int("WORLD_SIZE", 1), local = env_int("LOCAL_RANK", 0);
    int steps = env_int("APP_STEPS", 12);
    /* APP_WARMUP_MS: a first step that compiles, as torch.compile's does,
     * on rank APP_WARMUP_RANK (every rank when unset) */
    int warmup_ms = env_int("APP_WARMUP_MS", 0), warmup_rank = env_int("APP_WARMUP_RANK", -1);
    /* APP_LOSS_PAGEABLE=1: the loss read into pageable memory (below) */
    int loss_pageable = env_int("APP_LOSS_PAGEABLE", 0);
    /* APP_FIX=1: the twin with each planted problem fixed as its finding
     * suggests (tests/e2e/report_twins.py measures what the fix saves) */
    struct plant fixed = *planted;
    const struct plant *p = planted;
    if (env_int("APP_FIX", 0)) {
        fixed.scalar_read = 0;          /* the loss read a step late, without blocking */
        fixed.device_sync = planted->device_sync ? 2 : 0; /* a sync of the compute stream alone */
        fixed.pageable_upload = 0;      /* the batch in pinned memory */
        fixed.upload_on_compute = 0;    /* on the copy stream, ordered by an event */
        fixed.allreduce_on_compute = 0; /* on the communication stream */
        fixed.straggler_rank = -1;      /* no extra host work */
        fixed.data_stall_us = 0;        /* the batch loaded ahead, by worker processes */
        p = &fixed;
    }
    size_t batch_bytes = (size_t)(env_int("APP_BATCH_MB", 1) > 0 ? env_int("APP_BATCH_MB", 1) : 1) << 20;
    slots_total = (size_t)(steps > 0 ? steps : 0) * LAUNCHES_PER_STEP;
    slots = calloc(slots_total ? slots_total : 1, sizeof *slots);
    if (!slots)
        return 1;
    nvtxRangePushA("setup"); /* NVTX before the first CUDA call, as frameworks do */
    CHECK_CUDA(cudaSetDevice(local));

    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, world, id, rank));

    cudaStream_t compute, comm_s, copy, prefetch;
    CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&comm_s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&prefetch, cudaStreamNonBlocking));
    cudaEvent_t ev_up, ev_comm, ev_loss[2], ev_update, ev_done, ev_grad[BUCKETS];
    CHECK_CUDA(cudaEventCreateWithFlags(&ev_up, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&ev_comm, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&ev_update, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreate(&ev_done));
    for (int i = 0; i < 2; i++)
        CHECK_CUDA(cudaEventCreateWithFlags(&ev_loss[i], cudaEventDisableTiming));
    for (int b = 0; b < BUCKETS; b++)
        CHECK_CUDA(cudaEventCreateWithFlags(&ev_grad[b], cudaEventDisableTiming));

    float *d_batch, *d_loss, *d_metrics, *d_grad[BUCKETS];
    float *h_batch_pinned, *h_loss, *h_metrics;
    int *d_err;
    CHECK_CUDA(cudaMalloc((void **)&d_batch, batch_bytes));
    CHECK_CUDA(cudaMalloc((void **)&d_loss, sizeof(float)));
    CHECK_CUDA(cudaMalloc((void **)&d_metrics, METRICS_BYTES));
    CHECK_CUDA(cudaMalloc((void **)&d_err, sizeof(int)));
    for (int b = 0; b < BUCKETS; b++)
        CHECK_CUDA(cudaMalloc((void **)&d_grad[b], BUCKET_ELEMS * sizeof(float)));
    CHECK_CUDA(cudaMallocHost((void **)&h_batch_pinned, batch_bytes));
    CHECK_CUDA(cudaMallocHost((void **)&h_loss, 2 * sizeof(float)));
    CHECK_CUDA(cudaMallocHost((void **)&h_metrics, METRICS_BYTES));
    float *h_batch_pageable = malloc(batch_bytes);
    if (!h_batch_pageable)
        return 1;
    memset(h_batch_pageable, 0, batch_bytes);
    float *h_batch = p->pageable_upload ? h_batch_pageable : h_batch_pinned;
    float expected = (float)world * (float)(world + 1) / 2;
    double loss_sum = 0;
    struct bwd bw = { .p = p, .rank = rank, .world = world, .local = local, .comm = comm, .compute = compute,
                      .comm_s = comm_s, .ev_grad = ev_grad, .d_grad = d_grad };
    pthread_t bwd_tid;
    pthread_mutex_init(&bw.mu, NULL);
    pthread_cond_init(&bw.cv, NULL);
    if (p->backward_thread && pthread_create(&bwd_tid, NULL, backward_thread, &bw) != 0)
        return 1;
    nvtxRangePop();

    for (int step = 0; step < steps; step++) {
        nvtxRangePushA("train_step");
        if (p->data_stall_us) { /* the host waits for its batch; the GPU, with nothing queued, for the host */
            nvtxRangePushA("load_batch");
            spin_us(p->data_stall_us);
            nvtxRangePop();
        }
        nvtxRangePushA("forward");
        if (rank == p->straggler_rank)
            spin_us(15000); /* e.g. a slow data loader on this rank: longer than a step on the GPU */
        if (p->step_host_us)
            spin_us(p->step_host_us);
        if (step == 0 && warmup_ms > 0 && (warmup_rank < 0 || rank == warmup_rank))
            spin_us(warmup_ms * 1000);
        if ((rank == p->slow_rank || p->slow_rank == SLOW_EVERY_RANK) && step >= p->slow_from_step && (!p->slow_until_step || step < p->slow_until_step))
            spin_us(p->slow_us); /* e.g. a rank whose input pipeline degrades hours into the job */

        if (p->upload_on_compute) { /* in stream order with the kernels: nothing overlaps it */
            CHECK_CUDA(cudaMemcpyAsync(d_batch, h_batch, batch_bytes, cudaMemcpyHostToDevice, compute));
        } else {
            CHECK_CUDA(cudaMemcpyAsync(d_batch, h_batch, batch_bytes, cudaMemcpyHostToDevice, copy));
            CHECK_CUDA(cudaEventRecord(ev_up, copy));
            CHECK_CUDA(cudaStreamWaitEvent(compute, ev_up, 0));
        }
        launch(fwd_kernel, compute, NULL, 0, 1500, 0, NULL);
        launch(loss_kernel, compute, d_loss, 1, 50, (float)step, NULL);
        nvtxRangePop();
        nvtxRangePushA("backward");
        backward(&bw, step);
        nvtxRangePop();
        nvtxRangePushA("optimizer.step");
        /* independent of the gradients: in the twin it runs beside the
         * last all-reduces, in the planted run after them (the same work
         * both ways, so that the twin measures the fix alone) */
        launch(ema_kernel, compute, NULL, 0, 2000, 0, NULL);
        if (!p->allreduce_on_compute) {
            CHECK_CUDA(cudaEventRecord(ev_comm, comm_s));
            CHECK_CUDA(cudaStreamWaitEvent(compute, ev_comm, 0));
        }
        for (int b = 0; b < BUCKETS; b++)
            launch(sgd_update_kernel, compute, d_grad[b], BUCKET_ELEMS, 75, expected,
                   p->desync_step < 0 ? d_err : NULL);

        nvtxRangePop();
        nvtxRangePushA("log_loss");
        float *loss_slot = &h_loss[step % 2];
        CHECK_CUDA(cudaMemcpyAsync(loss_slot, d_loss, sizeof(float), cudaMemcpyDeviceToHost, compute));
        CHECK_CUDA(cudaEventRecord(ev_loss[step % 2], compute));
        if (p->scalar_read && loss_pageable) {
            /* loss.item() as PyTorch before its pinned scalar (ATen's
             * memcpy_and_sync into a pageable stack scalar): the copy
             * itself waits for the step's kernels, the sync for nothing */
            float v;
            CHECK_CUDA(cudaMemcpyAsync(&v, d_loss, sizeof v, cudaMemcpyDeviceToHost, compute));
            CHECK_CUDA(cudaStreamSynchronize(compute));
            loss_sum += v;
        } else if (p->scalar_read) {
            CHECK_CUDA(cudaStreamSynchronize(compute)); /* loss.item() */
            loss_sum += *loss_slot;
        } else if (step > 0 && cudaEventQuery(ev_loss[(step + 1) % 2]) == cudaSuccess) {
            loss_sum += h_loss[(step + 1) % 2];
        }
        spin_us(HOST_LOG_US); /* the host logs it: hidden while the GPU has work queued */

        nvtxRangePop();
        if (p->device_sync) {
            nvtxRangePushA("log_metrics");
            /* the next epoch's data decoded on a stream of its own once the
             * update is done: nothing this step reads */
            CHECK_CUDA(cudaEventRecord(ev_update, compute));
            CHECK_CUDA(cudaStreamWaitEvent(prefetch, ev_update, 0));
            launch(decode_kernel, prefetch, NULL, 0, 3000, 0, NULL);
            CHECK_CUDA(cudaMemcpyAsync(h_metrics, d_metrics, METRICS_BYTES, cudaMemcpyDeviceToHost, compute));
            if (p->device_sync == 2)
                CHECK_CUDA(cudaStreamSynchronize(compute)); /* the fix: what the metrics needed */
            else
                CHECK_CUDA(cudaDeviceSynchronize()); /* only the metrics on `compute` were needed */
            nvtxRangePop();
        }
        nvtxRangePop();
    }
    if (p->backward_thread) {
        pthread_mutex_lock(&bw.mu);
        bw.quit = 1;
        pthread_cond_broadcast(&bw.cv);
        pthread_mutex_unlock(&bw.mu);
        pthread_join(bwd_tid, NULL);
    }
    nvtxRangePushA("drain"); /* the steps' GPU work done: train_step + drain is the loop's time */
    if (!p->scalar_read && !p->device_sync) { /* a planted per-step sync already drained the GPU */
        CHECK_CUDA(cudaEventRecord(ev_done, compute));
        CHECK_CUDA(cudaEventSynchronize(ev_done));
    }
    if (p->device_sync == 2) /* the fixed twin: the last prefetch may still run */
        CHECK_CUDA(cudaStreamSynchronize(prefetch));
    nvtxRangePop();

    int err = 0;
    CHECK_CUDA(cudaMemcpy(&err, d_err, sizeof err, cudaMemcpyDeviceToHost));
    printf("rank %d: %d steps, loss sum %.1f, gradients %s\n", rank, steps, loss_sum,
           p->desync_step >= 0 ? "unchecked" : err ? "WRONG" : "ok");

    for (int b = 0; b < BUCKETS; b++)
        CHECK_CUDA(cudaFree(d_grad[b]));
    CHECK_CUDA(cudaFree(d_batch));
    CHECK_CUDA(cudaFree(d_loss));
    CHECK_CUDA(cudaFree(d_metrics));
    CHECK_CUDA(cudaFree(d_err));
    CHECK_CUDA(cudaFreeHost(h_batch_pinned));
    CHECK_CUDA(cudaFreeHost(h_loss));
    CHECK_CUDA(cudaFreeHost(h_metrics));
    free(h_batch_pageable);
    free(slots);
    cudaEvent_t events[] = { ev_up, ev_comm, ev_loss[0], ev_loss[1], ev_update, ev_done };
    for (size_t i = 0; i < sizeof events / sizeof *events; i++)
        CHECK_CUDA(cudaEventDestroy(events[i]));
    for (int b = 0; b < BUCKETS; b++)
        CHECK_CUDA(cudaEventDestroy(ev_grad[b]));
    CHECK_CUDA(cudaStreamDestroy(compute));
    CHECK_CUDA(cudaStreamDestroy(comm_s));
    CHECK_CUDA(cudaStreamDestroy(copy));
    CHECK_CUDA(cudaStreamDestroy(prefetch));
    CHECK_NCCL(ncclCommDestroy(comm));
    return err ? 1 : 0;
}
