/* cu_train.cu: the training step of cu_train.h.  Each kernel takes the
 * time it should last on the simulator (us) as its last argument, which
 * the real GPU ignores: its body does the real work (cu_kernels_sim.c has
 * the simulator's).  The pattern is app_train.c's clean one: the batch
 * uploaded from pinned memory on a copy stream ordered by an event; the
 * backward in buckets whose gradients are all-reduced on a communication
 * stream (PyTorch's ProcessGroupNCCL pattern: an event on the compute
 * stream, a wait on the NCCL stream) while the next bucket computes; an
 * independent kernel beside the last all-reduce; the loss read a step late
 * once cudaEventQuery says it is there; one event wait at the end. */
#include "cu_train.h"

#include <cuda_runtime.h>
#include <nccl.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <cstdlib>

#define BUCKETS 4
#define BUCKET_ELEMS (64 * 1024)
#define BATCH_BYTES (1u << 20)

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t rc_ = (call);                                                         \
        if (rc_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, (int)rc_);  \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)
#define CKN(call)                                                                         \
    do {                                                                                  \
        ncclResult_t rc_ = (call);                                                        \
        if (rc_ != ncclSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, (int)rc_);  \
            std::exit(1);                                                                 \
        }                                                                                 \
    } while (0)

extern "C" __global__ void train_fwd(const float *x, float *y, int n, int us)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        y[i] = 0.5f * x[i] + 1.0f;
}

extern "C" __global__ void train_loss(const float *y, float *loss, int us)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *loss = y[0];
}

extern "C" __global__ void train_bwd(float *grad, int n, float value, int us)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        grad[i] = value;
}

extern "C" __global__ void train_ema(float *avg, const float *y, int n, int us)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        avg[i] = 0.9f * avg[i] + 0.1f * y[i];
}

extern "C" __global__ void train_update(const float *grad, int n, float expected, int *err, int us)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        if (grad[i] != expected)
            *err = 1;
}

static int env_int(const char *name, int def)
{
    const char *v = std::getenv(name);
    return v && *v ? std::atoi(v) : def;
}

int cu_train(const struct cu_plant *p)
{
    int rank = env_int("RANK", 0), world = env_int("WORLD_SIZE", 1), local = env_int("LOCAL_RANK", 0);
    int steps = env_int("APP_STEPS", 12);
    nvtxRangePushA("setup");
    CK(cudaSetDevice(local));
    ncclUniqueId id;
    ncclComm_t comm;
    CKN(ncclGetUniqueId(&id));
    CKN(ncclCommInitRank(&comm, world, id, rank));

    cudaStream_t compute, comm_s, copy;
    CK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&comm_s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    cudaEvent_t ev_up, ev_comm, ev_loss[2], ev_done, ev_grad[BUCKETS];
    CK(cudaEventCreateWithFlags(&ev_up, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&ev_comm, cudaEventDisableTiming));
    CK(cudaEventCreate(&ev_done));
    for (int i = 0; i < 2; i++)
        CK(cudaEventCreateWithFlags(&ev_loss[i], cudaEventDisableTiming));
    for (int b = 0; b < BUCKETS; b++)
        CK(cudaEventCreateWithFlags(&ev_grad[b], cudaEventDisableTiming));

    const int n = BATCH_BYTES / sizeof(float);
    float *d_batch, *d_out, *d_avg, *d_loss, *d_grad[BUCKETS], *h_batch, *h_loss;
    int *d_err;
    CK(cudaMalloc(&d_batch, BATCH_BYTES));
    CK(cudaMalloc(&d_out, BATCH_BYTES));
    CK(cudaMalloc(&d_avg, BATCH_BYTES));
    CK(cudaMalloc(&d_loss, sizeof(float)));
    CK(cudaMalloc(&d_err, sizeof(int)));
    CK(cudaMemset(d_err, 0, sizeof(int)));
    for (int b = 0; b < BUCKETS; b++)
        CK(cudaMalloc(&d_grad[b], BUCKET_ELEMS * sizeof(float)));
    CK(cudaMallocHost(&h_batch, BATCH_BYTES));
    CK(cudaMallocHost(&h_loss, 2 * sizeof(float)));
    float expected = (float)world * (float)(world + 1) / 2;
    double loss_sum = 0;
    nvtxRangePop();

    for (int step = 0; step < steps; step++) {
        nvtxRangePushA("train_step");
        nvtxRangePushA("forward");
        CK(cudaMemcpyAsync(d_batch, h_batch, BATCH_BYTES, cudaMemcpyHostToDevice, copy));
        CK(cudaEventRecord(ev_up, copy));
        CK(cudaStreamWaitEvent(compute, ev_up, 0));
        train_fwd<<<64, 256, 0, compute>>>(d_batch, d_out, n, 1500);
        train_loss<<<1, 1, 0, compute>>>(d_out, d_loss, 50);
        nvtxRangePop();
        nvtxRangePushA("backward");
        for (int b = 0; b < BUCKETS; b++) {
            train_bwd<<<64, 256, 0, compute>>>(d_grad[b], BUCKET_ELEMS, (float)(rank + 1), 1500);
            if (p->allreduce_on_compute) {
                CKN(ncclAllReduce(d_grad[b], d_grad[b], BUCKET_ELEMS, ncclFloat32, ncclSum, comm, compute));
            } else {
                CK(cudaEventRecord(ev_grad[b], compute));
                CK(cudaStreamWaitEvent(comm_s, ev_grad[b], 0));
                CKN(ncclAllReduce(d_grad[b], d_grad[b], BUCKET_ELEMS, ncclFloat32, ncclSum, comm, comm_s));
            }
        }
        nvtxRangePop();
        nvtxRangePushA("optimizer.step");
        if (!p->allreduce_on_compute) {
            train_ema<<<64, 256, 0, compute>>>(d_avg, d_out, n, 2000); /* independent of the gradients */
            CK(cudaEventRecord(ev_comm, comm_s));
            CK(cudaStreamWaitEvent(compute, ev_comm, 0));
        }
        for (int b = 0; b < BUCKETS; b++)
            train_update<<<64, 256, 0, compute>>>(d_grad[b], BUCKET_ELEMS, expected, d_err, 75);
        nvtxRangePop();
        nvtxRangePushA("log_loss");
        CK(cudaMemcpyAsync(&h_loss[step % 2], d_loss, sizeof(float), cudaMemcpyDeviceToHost, compute));
        CK(cudaEventRecord(ev_loss[step % 2], compute));
        if (step > 0 && cudaEventQuery(ev_loss[(step + 1) % 2]) == cudaSuccess)
            loss_sum += h_loss[(step + 1) % 2];
        nvtxRangePop();
        nvtxRangePop();
    }
    CK(cudaEventRecord(ev_done, compute));
    CK(cudaEventSynchronize(ev_done));
    int err = 0;
    CK(cudaMemcpy(&err, d_err, sizeof err, cudaMemcpyDeviceToHost));
    std::printf("rank %d: %d steps, loss sum %.1f, gradients %s\n", rank, steps, loss_sum, err ? "WRONG" : "ok");

    for (int b = 0; b < BUCKETS; b++)
        CK(cudaFree(d_grad[b]));
    CK(cudaFree(d_batch));
    CK(cudaFree(d_out));
    CK(cudaFree(d_avg));
    CK(cudaFree(d_loss));
    CK(cudaFree(d_err));
    CK(cudaFreeHost(h_batch));
    CK(cudaFreeHost(h_loss));
    cudaEvent_t events[] = { ev_up, ev_comm, ev_loss[0], ev_loss[1], ev_done };
    for (cudaEvent_t e : events)
        CK(cudaEventDestroy(e));
    for (int b = 0; b < BUCKETS; b++)
        CK(cudaEventDestroy(ev_grad[b]));
    CK(cudaStreamDestroy(compute));
    CK(cudaStreamDestroy(comm_s));
    CK(cudaStreamDestroy(copy));
    CKN(ncclCommDestroy(comm));
    return err ? 1 : 0;
}
