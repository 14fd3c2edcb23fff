/* event_sync.c: cudaEventSynchronize on an event recorded on a stream that has no work of its own, only a wait for another stream's kernel: the sync waits for that kernel, through the event.
 *
 * Per step: a 3 ms kernel on stream A, an event recorded on A and waited
 * for by stream B, an event recorded on B, cudaEventSynchronize on it, then
 * 2 ms of host work (the GPU idles meanwhile).  Its twin (DEPS_FIX=1)
 * does not synchronise (stream B's later work is ordered by the event).
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/event_sync
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [waited_for=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: sync.no_consumer ranks=0,1,2,3 callsite=event_sync waited_for=ev_producer_kernel cost_ms=0.01..1000
 * allow: gpu.idle
 */
#include "deps_app.h"

void ev_producer_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t a, b;
    CHECK_CUDA(cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking));
    cudaEvent_t ea, eb;
    CHECK_CUDA(cudaEventCreateWithFlags(&ea, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&eb, cudaEventDisableTiming));
    int fix = deps_fix();
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        deps_launch(ev_producer_kernel, a, 3000);
        CHECK_CUDA(cudaEventRecord(ea, a));
        CHECK_CUDA(cudaStreamWaitEvent(b, ea, 0));
        CHECK_CUDA(cudaEventRecord(eb, b));
        if (!fix)
            CHECK_CUDA(cudaEventSynchronize(eb));
        deps_spin_us(2000);
        nvtxRangePop();
    }
    nvtxRangePushA("drain");
    if (fix) /* the twin's queue, still running */
        CHECK_CUDA(cudaEventSynchronize(eb));
    nvtxRangePop();
    CHECK_CUDA(cudaEventDestroy(ea));
    CHECK_CUDA(cudaEventDestroy(eb));
    CHECK_CUDA(cudaStreamDestroy(a));
    CHECK_CUDA(cudaStreamDestroy(b));
    return 0;
}
