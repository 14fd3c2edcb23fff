/* cu_scalar_read.cu: a training-like loop written as CUDA C++ and compiled
 * by nvcc, whose kernels are launched with <<<>>> on a stream of their own:
 * nvcc 13 turns each launch into __cudaGetKernel + __cudaLaunchKernel, not
 * cudaLaunchKernel.  Each step reads the loss on the host (loss.item()): an
 * async copy of 4 bytes and a cudaStreamSynchronize right after it, then
 * 2 ms of host work (the next batch) while the GPU has nothing queued.
 * Before that, a side stream that only ever runs <<<>>> kernels (an EMA of
 * the weights) is waited for with cudaStreamSynchronize and nothing read
 * back: a sync whose stream the wrappers know only from __cudaLaunchKernel.
 *
 * Built twice from this one file: with `nvcc -cudart none` against the
 * simulator (whose kernel bodies are in cu_kernels_sim.c), and unchanged
 * against the real runtime for tests/gpu/.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/cu_scalar_read
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [range=..] [iterations=A..B]
 *   [cost_ms=LO..HI] [seq=N]
 * [names=..] [missing=..]; allow: kinds that may also appear; nothing else may):
 * expect: sync.scalar_read ranks=0,1,2,3 callsite=cu_scalar_read range=log_loss iterations=1..20 cost_ms=0.05..1000
 * expect: sync.no_consumer ranks=0,1,2,3 callsite=cu_scalar_read range=ema iterations=1..20
 * allow: gpu.idle
 */
#include <cuda_runtime.h>
#include <nvtx3/nvToolsExt.h>

#include <cstdio>
#include <ctime>

#define STEPS 20
#define N (1 << 16)

/* C linkage, so that the simulator finds each body by its plain name */
extern "C" __global__ void fwd_kernel(float *x, int n, float scale)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        x[i] = x[i] * scale + 1.0f;
}

extern "C" __global__ void ema_kernel(float *avg, const float *x, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        avg[i] = 0.9f * avg[i] + 0.1f * x[i];
}

extern "C" __global__ void loss_kernel(const float *x, int n, float *loss)
{
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *loss = x[0] + x[n - 1];
}

static void host_work_us(long us)
{
    struct timespec t = { 0, us * 1000 };
    nanosleep(&t, NULL);
}

#define CK(call)                                                                        \
    do {                                                                                \
        cudaError_t rc_ = (call);                                                       \
        if (rc_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #call, (int)rc_); \
            return 1;                                                                   \
        }                                                                               \
    } while (0)

int main()
{
    cudaStream_t s, side;
    float *x, *avg, *d_loss, *h_loss;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    CK(cudaMalloc(&x, N * sizeof(float)));
    CK(cudaMalloc(&avg, N * sizeof(float)));
    CK(cudaMalloc(&d_loss, sizeof(float)));
    CK(cudaMallocHost(&h_loss, sizeof(float)));
    CK(cudaMemsetAsync(x, 0, N * sizeof(float), s));
    float total = 0;
    for (int step = 1; step <= STEPS; step++) {
        char name[32];
        std::snprintf(name, sizeof name, "iteration %d", step);
        nvtxRangePushA(name);
        nvtxRangePushA("forward");
        for (int k = 0; k < 4; k++)
            fwd_kernel<<<64, 256, 0, s>>>(x, N, 0.5f);
        loss_kernel<<<1, 1, 0, s>>>(x, N, d_loss);
        nvtxRangePop();
        nvtxRangePushA("ema");
        ema_kernel<<<64, 256, 0, side>>>(avg, x, N);
        CK(cudaStreamSynchronize(side)); /* waits for the EMA, reads nothing */
        nvtxRangePop();
        nvtxRangePushA("log_loss");
        CK(cudaMemcpyAsync(h_loss, d_loss, sizeof(float), cudaMemcpyDeviceToHost, s));
        CK(cudaStreamSynchronize(s));
        total += *h_loss;
        nvtxRangePop();
        host_work_us(2000); /* the next batch, while the GPU has nothing queued */
        nvtxRangePop();
    }
    std::printf("cu_scalar_read: %d steps, loss sum %g\n", STEPS, total);
    CK(cudaFreeHost(h_loss));
    CK(cudaFree(d_loss));
    CK(cudaFree(avg));
    CK(cudaFree(x));
    CK(cudaStreamDestroy(side));
    CK(cudaStreamDestroy(s));
    return 0;
}
