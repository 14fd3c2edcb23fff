/* model_parallel_default.c: model_parallel.c as PyTorch runs it: each GPU's
 * work on its default stream (the legacy stream, handle 0, on both), and
 * the activation moved from GPU 0 to GPU 1 as PyTorch's cross-device copy
 * orders it (aten/src/ATen/native/cuda/Copy.cu, copy_device_to_device): an
 * event recorded on the destination's current stream that the source's
 * waits for, the copy on the source's stream, an event recorded there
 * that the destination's waits for.  Every call names stream 0, which is
 * another stream on each device: a report that took a handle for one
 * stream of the process put both GPUs' work on GPU 0's stream, saw no
 * wait across GPUs, and so no pipeline (no gpu.pipeline_bubble: the
 * idle was gpu.idle's, the simulator's stalls gpu.stalled's).
 *
 * Each step GPU 0 runs a 3 ms kernel, the activation goes to GPU 1, GPU 1
 * runs a 3 ms kernel and the host reads the loss (.item() as PyTorch
 * does it, aten/src/ATen/native/cuda/CUDAScalar.cu: a copy into pinned
 * memory and a sync of GPU 1's stream).  Its twin (DEPS_FIX=1) reads the
 * loss once, at the end.
 *
 * With the argument "torch" it also chooses a device as PyTorch does,
 * only where it is not the current one already (c10::cuda::SetDevice asks
 * cudaGetDevice first), and first copies each layer's weights to its GPU
 * (model.to(): on the stream the kernels run on, a copy.serialized of
 * the first step's): GPU 0's work then starts with no cudaSetDevice, the
 * first one recorded choosing GPU 1.
 *
 * Run as one process: gpusim-run -n 1 tests/apps/model_parallel_default [torch]
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [waited_for=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * run: -n 1
 * expect: gpu.pipeline_bubble ranks=0 cost_ms=10..1000
 * allow: gpu.idle sync.redundant sync.no_consumer sync.scalar_read gpu.stalled copy.serialized
 */
#include "deps_app.h"

#include <string.h>

#define NDEV 2

static int as_torch;

/* cudaSetDevice, or as c10::cuda::SetDevice: only to change the device */
static void set_device(int d)
{
    int cur = -1;
    if (as_torch) {
        CHECK_CUDA(cudaGetDevice(&cur));
        if (cur == d)
            return;
    }
    CHECK_CUDA(cudaSetDevice(d));
}

void mpd_layer0_kernel(void **args) { deps_spin_us(deps_us(args)); }
void mpd_layer1_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(int argc, char **argv)
{
    cudaEvent_t dst_ready, src_ready;
    void *act[NDEV];
    float *loss;
    void *weights;
    as_torch = argc > 1 && !strcmp(argv[1], "torch");
    CHECK_CUDA(cudaMallocHost(&weights, 1 << 16));
    for (int d = 0; d < NDEV; d++) {
        set_device(d);
        CHECK_CUDA(cudaMalloc(&act[d], 1 << 16));
        if (as_torch) /* the layer's weights to its GPU, on its stream 0 */
            CHECK_CUDA(cudaMemcpyAsync(act[d], weights, 1 << 16, cudaMemcpyHostToDevice, 0));
    }
    CHECK_CUDA(cudaMallocHost((void **)&loss, sizeof *loss));
    set_device(0);
    CHECK_CUDA(cudaEventCreateWithFlags(&dst_ready, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&src_ready, cudaEventDisableTiming));
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        set_device(0);
        deps_launch(mpd_layer0_kernel, 0, 3000);
        /* x.to("cuda:1"): the two-way barrier around the copy */
        set_device(1);
        CHECK_CUDA(cudaEventRecord(dst_ready, 0));
        set_device(0);
        CHECK_CUDA(cudaStreamWaitEvent(0, dst_ready, 0));
        CHECK_CUDA(cudaMemcpyAsync(act[1], act[0], 1 << 16, cudaMemcpyDeviceToDevice, 0));
        CHECK_CUDA(cudaEventRecord(src_ready, 0));
        set_device(1);
        CHECK_CUDA(cudaStreamWaitEvent(0, src_ready, 0));
        deps_launch(mpd_layer1_kernel, 0, 3000);
        if (!deps_fix()) { /* loss.item() */
            CHECK_CUDA(cudaMemcpyAsync(loss, act[1], sizeof *loss, cudaMemcpyDeviceToHost, 0));
            CHECK_CUDA(cudaStreamSynchronize(0));
        }
        nvtxRangePop();
    }
    nvtxRangePushA("drain");
    set_device(1);
    CHECK_CUDA(cudaStreamSynchronize(0));
    nvtxRangePop();
    CHECK_CUDA(cudaEventDestroy(dst_ready));
    CHECK_CUDA(cudaEventDestroy(src_ready));
    CHECK_CUDA(cudaFreeHost(loss));
    CHECK_CUDA(cudaFreeHost(weights));
    for (int d = 0; d < NDEV; d++) {
        set_device(d);
        CHECK_CUDA(cudaFree(act[d]));
    }
    return 0;
}
