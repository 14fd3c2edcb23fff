/* model_parallel.c: one process drives two GPUs as naive model parallelism does (layers split across devices, as `device_map="auto"` places them), reading the loss every step.
 *
 * Each step GPU 0 runs a 3 ms kernel on its stream, GPU 1's stream waits
 * for it (an event) and runs a 3 ms kernel, and the host reads the loss:
 * a cudaStreamSynchronize of GPU 1's stream, which waits for both, so
 * each GPU idles while the other works (gpu.pipeline_bubble: a ledger per
 * GPU counts it, where their union hid it).  Its twin (DEPS_FIX=1) reads the
 * loss once, at the end: GPU 0 runs the next step's layer while GPU 1
 * runs this one's, and a step takes one kernel's time.  Each device
 * numbers its streams itself (CUPTI's ids are unique within a context
 * only), so the two streams have the same id: a report that told streams
 * by their id alone saw one stream running on two GPUs (one Chrome track
 * for both, and a replay that ran the two layers one after the other:
 * 6.4 ms a step predicted without the sync, where the twin runs 3.1).
 *
 * Run as one process: gpusim-run -n 1 tests/apps/model_parallel
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [waited_for=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * run: -n 1
 * expect: sync.no_consumer ranks=0 callsite=model_parallel waited_for=mp_layer1_kernel cost_ms=0.01..1000
 * expect: gpu.pipeline_bubble ranks=0 cost_ms=10..1000
 * allow: gpu.idle sync.redundant (the drain's sync, the GPUs done already)
 */
#include "deps_app.h"

#define NDEV 2

void mp_layer0_kernel(void **args) { deps_spin_us(deps_us(args)); }
void mp_layer1_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    cudaStream_t s[NDEV];
    cudaEvent_t done0;
    for (int d = 0; d < NDEV; d++) {
        CHECK_CUDA(cudaSetDevice(d));
        CHECK_CUDA(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
    }
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaEventCreateWithFlags(&done0, cudaEventDisableTiming));
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        CHECK_CUDA(cudaSetDevice(0));
        deps_launch(mp_layer0_kernel, s[0], 3000);
        CHECK_CUDA(cudaEventRecord(done0, s[0]));
        CHECK_CUDA(cudaSetDevice(1));
        CHECK_CUDA(cudaStreamWaitEvent(s[1], done0, 0));
        deps_launch(mp_layer1_kernel, s[1], 3000);
        if (!deps_fix())
            CHECK_CUDA(cudaStreamSynchronize(s[1])); /* the loss read */
        nvtxRangePop();
    }
    /* the twin (DEPS_FIX=1) reads the loss once, at the end: GPU 0 runs the
     * next step's layer while GPU 1 runs this one's */
    nvtxRangePushA("drain");
    CHECK_CUDA(cudaStreamSynchronize(s[1]));
    nvtxRangePop();
    for (int d = 0; d < NDEV; d++) {
        CHECK_CUDA(cudaSetDevice(d));
        CHECK_CUDA(cudaStreamDestroy(s[d]));
    }
    CHECK_CUDA(cudaEventDestroy(done0));
    return 0;
}
