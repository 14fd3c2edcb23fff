/* cpu_copy.c: tensor.cpu() into pageable memory each step, as c10 does it: a cudaMemcpyAsync device-to-host into malloc'd memory (which the runtime makes synchronous) and the cudaStreamSynchronize c10 always adds after it.
 *
 * Per step: a 3 ms kernel on the compute stream, then the copy of 8 MiB
 * (CPU_COPY_MB sets it; it waits for the kernel) and the stream sync (nothing left to wait
 * for).  One finding: the pageable copy, with the wait in it.  Its twin
 * (DEPS_FIX=1) copies into pinned memory (cudaMallocHost, pin_memory()).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/cpu_copy
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: copy.pageable ranks=0,1,2,3 callsite=cpu_copy cost_ms=1..1000
 * allow: gpu.idle
 */
#include "deps_app.h"

#include <string.h>


void cpu_model_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t compute;
    CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    int fix = deps_fix();
    const char *mb = getenv("CPU_COPY_MB");
    size_t OUT_BYTES = (size_t)(mb && atoi(mb) > 0 ? atoi(mb) : 8) << 20;
    float *d_out, *h_out = NULL;
    if (fix)
        CHECK_CUDA(cudaMallocHost((void **)&h_out, OUT_BYTES));
    else
        h_out = malloc(OUT_BYTES);
    if (!h_out)
        return 1;
    memset(h_out, 0, OUT_BYTES);
    CHECK_CUDA(cudaMalloc((void **)&d_out, OUT_BYTES));
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        deps_launch(cpu_model_kernel, compute, 3000);
        CHECK_CUDA(cudaMemcpyAsync(h_out, d_out, OUT_BYTES, cudaMemcpyDeviceToHost, compute)); /* .cpu() */
        CHECK_CUDA(cudaStreamSynchronize(compute));
        nvtxRangePop();
    }
    nvtxRangePushA("drain"); /* nothing left: the loop synchronised each step */
    nvtxRangePop();
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaStreamDestroy(compute));
    if (fix)
        CHECK_CUDA(cudaFreeHost(h_out));
    else
        free(h_out);
    return 0;
}
