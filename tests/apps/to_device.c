/* to_device.c: tensor.to('cuda') from pageable memory each step, as c10 does it: a cudaMemcpyAsync host-to-device from malloc'd memory, which returns once the source is staged (the DMA of its last chunk still running), and the cudaStreamSynchronize c10 adds after every blocking copy, which waits for that tail.
 *
 * Per step: the upload of 8 MiB and its sync, then a 3 ms kernel that
 * reads the batch.  One finding: the pageable copy, its sync's wait one of
 * its facts (not sync.no_consumer: the sync is c10's, and the fix removes
 * both).  Its twin (DEPS_FIX=1) uploads from pinned memory with
 * non_blocking=True: cudaMemcpyAsync and no sync.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/to_device
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: copy.pageable ranks=0,1,2,3 callsite=to_device cost_ms=1..1000
 * allow: gpu.idle
 * allow: copy.serialized (the upload is on the compute stream too: true, and charged to the copy already)
 */
#include "deps_app.h"

#include <string.h>

#define BATCH_BYTES (8u << 20)
#define RESULT_BYTES (64u << 10)

void to_device_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    cudaStream_t compute;
    CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    int fix = deps_fix();
    float *d_batch, *h_batch = NULL;
    if (fix)
        CHECK_CUDA(cudaMallocHost((void **)&h_batch, BATCH_BYTES));
    else
        h_batch = malloc(BATCH_BYTES);
    if (!h_batch)
        return 1;
    memset(h_batch, 0, BATCH_BYTES);
    CHECK_CUDA(cudaMalloc((void **)&d_batch, BATCH_BYTES));
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        CHECK_CUDA(cudaMemcpyAsync(d_batch, h_batch, BATCH_BYTES, cudaMemcpyHostToDevice, compute)); /* .to('cuda') */
        if (!fix)
            CHECK_CUDA(cudaStreamSynchronize(compute)); /* c10's, after a blocking copy */
        deps_launch(to_device_kernel, compute, 3000);
        nvtxRangePop();
    }
    nvtxRangePushA("drain"); /* the steps' GPU work done: the result read back */
    float *h_result;
    CHECK_CUDA(cudaMallocHost((void **)&h_result, RESULT_BYTES));
    CHECK_CUDA(cudaMemcpyAsync(h_result, d_batch, RESULT_BYTES, cudaMemcpyDeviceToHost, compute));
    CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();
    CHECK_CUDA(cudaFreeHost(h_result));
    CHECK_CUDA(cudaFree(d_batch));
    CHECK_CUDA(cudaStreamDestroy(compute));
    if (fix)
        CHECK_CUDA(cudaFreeHost(h_batch));
    else
        free(h_batch);
    return 0;
}
