/* to_device.c: tensor.to('cuda') from pageable memory each step, as c10 does it: a cudaMemcpyAsync host-to-device from malloc'd memory, which returns once the source is staged (the DMA of its last chunk still running), and the cudaStreamSynchronize c10 adds after every blocking copy, which waits for that tail.
 *
 * Per step: the upload of 2 MiB and its sync, then a 3 ms kernel that
 * reads the batch.  One finding: the pageable copy, its sync's wait one of
 * its facts (not sync.no_consumer: the sync is c10's, and the fix removes
 * both), and copy.serialized (the upload is on the compute stream, its
 * time charged to the copy already).  Its twin (DEPS_FIX=1) fixes both:
 * the upload from pinned memory with non_blocking=True (no sync), on a
 * copy stream ordered by events, into two buffers by turns.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/to_device
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: copy.pageable ranks=0,1,2,3 callsite=to_device cost_ms=1..1000
 * expect: copy.serialized ranks=0,1,2,3 callsite=to_device
 * allow: gpu.idle
 */
#include "deps_app.h"

#include <string.h>

#define BATCH_BYTES (2u << 20) /* small enough that its host memmove stays inside the pinned copy's model on a busy machine */
#define RESULT_BYTES (64u << 10)

void to_device_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t compute, copy;
    CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    int fix = deps_fix();
    float *d_batch[2], *h_batch = NULL;
    cudaEvent_t up[2], used[2];
    if (fix)
        CHECK_CUDA(cudaMallocHost((void **)&h_batch, BATCH_BYTES));
    else
        h_batch = malloc(BATCH_BYTES);
    if (!h_batch)
        return 1;
    memset(h_batch, 0, BATCH_BYTES);
    for (int i = 0; i < 2; i++) {
        CHECK_CUDA(cudaMalloc((void **)&d_batch[i], BATCH_BYTES));
        CHECK_CUDA(cudaEventCreateWithFlags(&up[i], cudaEventDisableTiming));
        CHECK_CUDA(cudaEventCreateWithFlags(&used[i], cudaEventDisableTiming));
    }
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        float *d = d_batch[fix ? step % 2 : 0];
        if (fix) { /* both findings' fixes: pinned, non_blocking=True, on a copy stream (double-buffered) */
            CHECK_CUDA(cudaStreamWaitEvent(copy, used[step % 2], 0));
            CHECK_CUDA(cudaMemcpyAsync(d, h_batch, BATCH_BYTES, cudaMemcpyHostToDevice, copy));
            CHECK_CUDA(cudaEventRecord(up[step % 2], copy));
            CHECK_CUDA(cudaStreamWaitEvent(compute, up[step % 2], 0));
        } else {
            CHECK_CUDA(cudaMemcpyAsync(d, h_batch, BATCH_BYTES, cudaMemcpyHostToDevice, compute)); /* .to('cuda') */
            CHECK_CUDA(cudaStreamSynchronize(compute)); /* c10's, after a blocking copy */
        }
        deps_launch(to_device_kernel, compute, 3000);
        if (fix)
            CHECK_CUDA(cudaEventRecord(used[step % 2], compute));
        nvtxRangePop();
    }
    nvtxRangePushA("drain"); /* the steps' GPU work done: the result read back */
    float *h_result;
    CHECK_CUDA(cudaMallocHost((void **)&h_result, RESULT_BYTES));
    CHECK_CUDA(cudaMemcpyAsync(h_result, d_batch[0], RESULT_BYTES, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();
    CHECK_CUDA(cudaFreeHost(h_result));
    for (int i = 0; i < 2; i++) {
        CHECK_CUDA(cudaFree(d_batch[i]));
        CHECK_CUDA(cudaEventDestroy(up[i]));
        CHECK_CUDA(cudaEventDestroy(used[i]));
    }
    CHECK_CUDA(cudaStreamDestroy(compute));
    CHECK_CUDA(cudaStreamDestroy(copy));
    if (fix)
        CHECK_CUDA(cudaFreeHost(h_batch));
    else
        free(h_batch);
    return 0;
}
