/* pg_sync.c: PyTorch ProcessGroupNCCL's stream pattern, then torch.cuda.current_stream().synchronize(): the compute stream's work is done by then, and the sync waits for the all-reduce it reached through the end event.
 *
 * Per step: forward on the compute stream; an event recorded there and
 * waited for by a side stream, which packs the gradients (3 ms); an event
 * recorded there and waited for by the NCCL stream, which all-reduces; an
 * end event recorded there and waited for by the compute stream; 1.5 ms of
 * host work (the compute stream's kernel ends meanwhile);
 * cudaStreamSynchronize(compute); 3 ms more of host work (the GPU idles
 * meanwhile).  The sync reaches the all-reduce through two events, and the
 * pack through three.  Its twin (DEPS_FIX=1) does not synchronise: the end
 * event already orders the compute stream after the all-reduce.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/pg_sync
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [waited_for=..] [fix=WORD] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * expect: sync.no_consumer ranks=0,1,2,3 callsite=pg_sync waited_for=AllReduce fix=already cost_ms=0.01..1000
 * allow: gpu.idle comm.exposed comm.straggler
 */
#include "deps_app.h"

void pg_forward_kernel(void **args) { deps_spin_us(deps_us(args)); }
void pg_pack_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    int rank = atoi(getenv("RANK") ? getenv("RANK") : "0"), world = atoi(getenv("WORLD_SIZE") ? getenv("WORLD_SIZE") : "1");
    CHECK_CUDA(cudaSetDevice(atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0")));
    ncclUniqueId id;
    ncclComm_t comm;
    CHECK_NCCL(ncclGetUniqueId(&id));
    CHECK_NCCL(ncclCommInitRank(&comm, world, id, rank));
    cudaStream_t compute, side, nccl;
    CHECK_CUDA(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamCreateWithFlags(&nccl, cudaStreamNonBlocking));
    cudaEvent_t start, packed, end;
    CHECK_CUDA(cudaEventCreateWithFlags(&start, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&packed, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventCreateWithFlags(&end, cudaEventDisableTiming));
    float *grad;
    CHECK_CUDA(cudaMalloc((void **)&grad, 64 * 1024 * sizeof(float)));
    int fix = deps_fix();
    for (int step = 0; step < DEPS_STEPS; step++) {
        nvtxRangePushA("train_step");
        deps_launch(pg_forward_kernel, compute, 500);
        CHECK_CUDA(cudaEventRecord(start, compute));
        CHECK_CUDA(cudaStreamWaitEvent(side, start, 0));
        deps_launch(pg_pack_kernel, side, 3000);
        CHECK_CUDA(cudaEventRecord(packed, side));
        CHECK_CUDA(cudaStreamWaitEvent(nccl, packed, 0));
        CHECK_NCCL(ncclAllReduce(grad, grad, 64 * 1024, ncclFloat32, ncclSum, comm, nccl));
        CHECK_CUDA(cudaEventRecord(end, nccl));
        CHECK_CUDA(cudaStreamWaitEvent(compute, end, 0));
        deps_spin_us(1500);
        if (!fix)
            CHECK_CUDA(cudaStreamSynchronize(compute)); /* torch.cuda.current_stream().synchronize() */
        deps_spin_us(3000);
        nvtxRangePop();
    }
    nvtxRangePushA("drain");
    if (fix) /* the twin's queue, still running */
        CHECK_CUDA(cudaStreamSynchronize(compute));
    nvtxRangePop();
    CHECK_CUDA(cudaFree(grad));
    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(packed));
    CHECK_CUDA(cudaStreamDestroy(side));
    CHECK_CUDA(cudaEventDestroy(end));
    CHECK_CUDA(cudaStreamDestroy(compute));
    CHECK_CUDA(cudaStreamDestroy(nccl));
    CHECK_NCCL(ncclCommDestroy(comm));
    return 0;
}
