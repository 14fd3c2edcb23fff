/* free_each_step.c: a scratch buffer allocated and freed every step, as code without a caching allocator does: cudaFree synchronises the device, so the host waits for the step's kernel before its own work.
 *
 * Per step: a 3 ms kernel on a non-blocking stream, cudaMalloc of a 1 MiB
 * scratch buffer, cudaFree of it (which waits for the kernel), then 2 ms
 * of host work (the GPU idles meanwhile).  Its twin (DEPS_FIX=1)
 * allocates the buffer once, before the loop, and frees it after.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/free_each_step
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: sync.implicit ranks=0,1,2,3 callsite=free_each_step cost_ms=0.01..1000
 * allow: gpu.idle sync.redundant
 */
#include "deps_app.h"

void free_step_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int fix = deps_fix();
    void *scratch = NULL;
    if (fix)
        CHECK_CUDA(cudaMalloc(&scratch, 1 << 20));
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        deps_launch(free_step_kernel, s, 3000);
        if (!fix) {
            CHECK_CUDA(cudaMalloc(&scratch, 1 << 20));
            CHECK_CUDA(cudaFree(scratch)); /* waits for the kernel: the whole device */
        }
        deps_spin_us(2000);
        nvtxRangePop();
    }
    nvtxRangePushA("drain");
    CHECK_CUDA(cudaStreamSynchronize(s));
    nvtxRangePop();
    if (fix)
        CHECK_CUDA(cudaFree(scratch));
    CHECK_CUDA(cudaStreamDestroy(s));
    return 0;
}
