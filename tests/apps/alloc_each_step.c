/* alloc_each_step.c: a buffer allocated every step (a tensor made fresh each step where no caching allocator keeps one, a workspace sized each time): the allocation holds the host while the GPU runs dry.
 *
 * Per step: cudaMalloc of a buffer, which holds the host 3 ms (a real
 * driver maps a large buffer's pages inside the call; the simulator, whose
 * device memory is the host's, allocates 1 MiB and is told the time,
 * GPUSIM_MALLOC_US, unless the environment already says), a
 * 2 ms kernel on a non-blocking stream, then 1 ms of host work: the host
 * takes 4 ms a step and the GPU idles 2 ms of them, inside the allocation.
 * The buffers are freed after the loop's drain (a sync the frees make
 * needless: sync.no_consumer, below --min-cost), with nothing pending.  Its
 * twin (DEPS_FIX=1) allocates one buffer before the loop: 2 ms a step, the
 * kernel's (tests/e2e/report_twins.py).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/alloc_each_step
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: host.setup ranks=0,1,2,3 callsite=alloc_each_step cost_ms=1..1000
 * allow: gpu.idle sync.no_consumer
 */
#include "deps_app.h"

#define BUFFER_BYTES (1u << 20)

void alloc_step_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    setenv("GPUSIM_MALLOC_US", "3000", 0);
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    int fix = deps_fix();
    void *buf[DEPS_STEPS] = { 0 };
    if (fix)
        CHECK_CUDA(cudaMalloc(&buf[0], BUFFER_BYTES));
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        if (!fix)
            CHECK_CUDA(cudaMalloc(&buf[step], BUFFER_BYTES));
        deps_launch(alloc_step_kernel, s, 2000);
        deps_spin_us(1000);
        nvtxRangePop();
    }
    nvtxRangePushA("drain");
    CHECK_CUDA(cudaStreamSynchronize(s));
    nvtxRangePop();
    for (int step = 0; step < DEPS_STEPS; step++)
        if (buf[step])
            CHECK_CUDA(cudaFree(buf[step]));
    CHECK_CUDA(cudaStreamDestroy(s));
    return 0;
}
