/* ce_allgather.c: all-gathers that NCCL 2.28 runs on the copy engines
 * (docs/nccl-ce.md): a communicator made with CTAPolicy
 * NCCL_CTA_POLICY_ZERO, buffers from ncclMemAlloc registered as symmetric
 * windows.  Each of 10 steps computes 2 ms on a compute stream, then
 * all-gathers 4 MiB per rank on a communication stream that waits for the
 * compute (an event): nothing overlaps the all-gather, whose copies are
 * NCCL's communication, exposed.  The gathered data is checked.
 * APP_CE=0 makes the communicator without the policy (NCCL's kernel path).
 *
 * Run as N ranks: gpusim-run -n N tests/apps/ce_allgather
 * (tests/e2e/nccl_ce.sh; GPUSIM_NCCL_NVLS=1 gives NCCL's multicast flag
 * copies, 4 bytes from pageable host memory, in each sync)
 */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); exit(1); } } while (0)
#define STEPS 10
#define ELEMS (1u << 20) /* floats per rank: 4 MiB */

void compute_kernel(void **args);
void fill_kernel(void **args);

void compute_kernel(void **args)
{
    (void)args;
    struct timespec ts = { 0, 2000000 };
    nanosleep(&ts, NULL);
}

void fill_kernel(void **args)
{
    float *v = *(float **)args[0];
    int rank = *(int *)args[1];
    for (size_t i = 0; i < ELEMS; i++)
        v[i] = (float)(rank * 1000 + (int)(i % 7));
}

int main(void)
{
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE"), *ce = getenv("APP_CE");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1;
    CK(cudaSetDevice(rank));
    ncclUniqueId id;
    CK(ncclGetUniqueId(&id));
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    if (!ce || atoi(ce) != 0)
        cfg.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    ncclComm_t comm;
    CK(ncclCommInitRankConfig(&comm, world, id, rank, &cfg));
    cudaStream_t comp, cs;
    CK(cudaStreamCreateWithFlags(&comp, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&cs, cudaStreamNonBlocking));
    cudaEvent_t done;
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    float *send, *recv;
    size_t bytes = ELEMS * sizeof(float);
    CK(ncclMemAlloc((void **)&send, bytes));
    CK(ncclMemAlloc((void **)&recv, bytes * (size_t)world));
    ncclWindow_t sw, rw;
    CK(ncclCommWindowRegister(comm, send, bytes, &sw, NCCL_WIN_COLL_SYMMETRIC));
    CK(ncclCommWindowRegister(comm, recv, bytes * (size_t)world, &rw, NCCL_WIN_COLL_SYMMETRIC));
    void *fargs[] = { &send, &rank };
    for (int step = 0; step < STEPS; step++) {
        CK(cudaLaunchKernel((const void *)fill_kernel, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, fargs, 0, comp));
        CK(cudaLaunchKernel((const void *)compute_kernel, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, NULL, 0, comp));
        CK(cudaEventRecord(done, comp));
        CK(cudaStreamWaitEvent(cs, done, 0));
        CK(ncclAllGather(send, recv, ELEMS, ncclFloat, comm, cs));
        CK(cudaStreamSynchronize(cs));
    }
    float *host;
    CK(cudaMallocHost((void **)&host, bytes * (size_t)world));
    CK(cudaMemcpy(host, recv, bytes * (size_t)world, cudaMemcpyDeviceToHost));
    int bad = 0;
    for (int p = 0; p < world && !bad; p++)
        for (size_t i = 0; i < ELEMS; i += 4099)
            if (host[(size_t)p * ELEMS + i] != (float)(p * 1000 + (int)(i % 7)))
                bad = 1;
    CK(cudaFreeHost(host));
    CK(ncclCommWindowDeregister(comm, sw));
    CK(ncclCommWindowDeregister(comm, rw));
    CK(ncclMemFree(send));
    CK(ncclMemFree(recv));
    CK(ncclCommDestroy(comm));
    if (bad) {
        fprintf(stderr, "ce_allgather: rank %d gathered wrong data\n", rank);
        return 1;
    }
    printf("ce_allgather: rank %d done\n", rank);
    return 0;
}
