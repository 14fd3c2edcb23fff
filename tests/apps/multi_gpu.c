/* multi_gpu.c: one process drives two GPUs (ncclCommInitAll, as a single-process multi-GPU program does): GPU 0 runs a 6 ms kernel each step, GPU 1 a 1 ms one, and the host does 4 ms of work between steps without waiting, so GPU 1 sits idle most of each step while GPU 0 is busy; at the end one all-reduce over both.
 *
 * The union of the two GPUs is busy all the time: only a timeline per GPU
 * shows GPU 1's idle time (a summary row per GPU, gpu.idle on GPU 1).
 *
 * Run as one process: gpusim-run -n 1 tests/apps/multi_gpu
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (expect: KIND [ranks=..] [callsite=..] [cost_ms=LO..HI]; allow: kinds that may
 * also appear; nothing else may):
 * run: -n 1
 * expect: gpu.idle ranks=0 callsite=(GPU cost_ms=5..1000
 * allow: comm.exposed comm.same_stream sync.no_consumer sync.redundant (the all-reduce at the end, on the
 *   compute streams, and the syncs of both streams after it)
 */
#include "deps_app.h"

#define NDEV 2

void mg_big_kernel(void **args) { deps_spin_us(deps_us(args)); }
void mg_small_kernel(void **args) { deps_spin_us(deps_us(args)); }

int main(void)
{
    ncclComm_t comms[NDEV];
    int devs[NDEV] = { 0, 1 };
    CHECK_NCCL(ncclCommInitAll(comms, NDEV, devs));
    cudaStream_t s[NDEV];
    float *buf[NDEV];
    for (int d = 0; d < NDEV; d++) {
        CHECK_CUDA(cudaSetDevice(d));
        CHECK_CUDA(cudaStreamCreateWithFlags(&s[d], cudaStreamNonBlocking));
        CHECK_CUDA(cudaMalloc((void **)&buf[d], 1024 * sizeof(float)));
    }
    for (int step = 0; step < DEPS_STEPS; step++) {
        CHECK_CUDA(cudaSetDevice(0));
        deps_launch(mg_big_kernel, s[0], 6000);
        CHECK_CUDA(cudaSetDevice(1));
        deps_launch(mg_small_kernel, s[1], 1000);
        deps_spin_us(4000); /* the host's own work: it does not wait for either GPU */
    }
    CHECK_NCCL(ncclGroupStart());
    for (int d = 0; d < NDEV; d++)
        CHECK_NCCL(ncclAllReduce(buf[d], buf[d], 1024, ncclFloat32, ncclSum, comms[d], s[d]));
    CHECK_NCCL(ncclGroupEnd());
    for (int d = 0; d < NDEV; d++) {
        CHECK_CUDA(cudaSetDevice(d));
        CHECK_CUDA(cudaStreamSynchronize(s[d]));
        CHECK_CUDA(cudaFree(buf[d]));
        CHECK_CUDA(cudaStreamDestroy(s[d]));
        CHECK_NCCL(ncclCommDestroy(comms[d]));
    }
    return 0;
}
