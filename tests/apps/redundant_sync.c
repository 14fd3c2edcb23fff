/* redundant_sync.c: torch.cuda.synchronize() "to be safe" right after a sync that already waited for everything: the second sync has nothing to wait for.
 *
 * Per step: a 3 ms kernel on a stream, its 4 MiB result copied to pinned
 * host memory on the same stream, cudaStreamSynchronize on it (the host
 * reads the result: a sync that is needed), then cudaDeviceSynchronize
 * (nothing is pending: sync.redundant), then 2 ms of host work.  Its twin
 * (DEPS_FIX=1) leaves the second sync out.  A redundant sync costs its
 * call and nothing more (the host was not ahead of the GPU), so the twin
 * proves that the what-if predicts no more than that
 * (tests/e2e/report_twins.py).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/redundant_sync
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [waited_for=..] [fix=WORD] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: sync.redundant ranks=0,1,2,3 callsite=redundant_sync cost_ms=0..1
 * allow: gpu.idle
 */
#include "deps_app.h"

#define RESULT_BYTES (4u << 20)

void rs_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    void *d_result;
    unsigned char *h_result;
    CHECK_CUDA(cudaMalloc(&d_result, RESULT_BYTES));
    CHECK_CUDA(cudaMallocHost((void **)&h_result, RESULT_BYTES));
    CHECK_CUDA(cudaMemsetAsync(d_result, 1, RESULT_BYTES, s)); /* ordered before the copies by the stream */
    int fix = deps_fix();
    unsigned sum = 0;
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        deps_launch(rs_kernel, s, 3000);
        CHECK_CUDA(cudaMemcpyAsync(h_result, d_result, RESULT_BYTES, cudaMemcpyDeviceToHost, s));
        CHECK_CUDA(cudaStreamSynchronize(s));
        sum += h_result[step]; /* the result read: the stream sync was needed */
        if (!fix)
            CHECK_CUDA(cudaDeviceSynchronize());
        deps_spin_us(2000);
        nvtxRangePop();
    }
    nvtxRangePushA("drain");
    nvtxRangePop();
    if (sum != DEPS_STEPS) {
        fprintf(stderr, "redundant_sync: read %u, expected %u\n", sum, DEPS_STEPS);
        return 1;
    }
    CHECK_CUDA(cudaFreeHost(h_result));
    CHECK_CUDA(cudaFree(d_result));
    CHECK_CUDA(cudaStreamDestroy(s));
    return 0;
}
