/* ce_mixed.c: one communicator whose all-gathers run some on the copy
 * engines, some as kernels (docs/nccl-ce.md): it is made with CTAPolicy
 * NCCL_CTA_POLICY_ZERO, and each of STEPS steps all-gathers once from
 * buffers in symmetric windows (NCCL 2.28: copy engines, nothing told to
 * its profiler plugin, no sequence number taken) and once from plain
 * cudaMalloc buffers (a kernel, a Coll event with NCCL's next all-gather
 * sequence number), then all-reduces.  Every result is checked.
 * APP_HANG=1: the last rank stops before the last kernel all-gather; the
 * others wait inside it until the launcher's timeout kills the job.
 * APP_UNKNOWN=1 makes the communicator with pncclCommInitRank (NCCL's
 * profiling-interface name, which no wrapper sees: the wrapped collectives
 * have no communicator until NCCL's plugin names it); run it with
 * NCCL_CTA_POLICY=2, which gives that communicator the copy engines.
 *
 * Run as N >= 2 ranks: gpusim-run -n N tests/apps/ce_mixed
 * (tests/e2e/nccl_ce.sh)
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define STEPS 4
#define ELEMS 4096 /* floats per rank */

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); exit(1); } } while (0)

static float host[ELEMS * 16];

static void fill(float *dev, size_t n, float v)
{
    for (size_t i = 0; i < n; i++)
        host[i] = v + (float)(i % 5);
    CK(cudaMemcpy(dev, host, n * sizeof *host, cudaMemcpyHostToDevice));
}

/* Whether every rank p's chunk of the gathered buffer holds its fill. */
static int gathered(const float *dev, int world, float base)
{
    CK(cudaMemcpy(host, dev, (size_t)world * ELEMS * sizeof *host, cudaMemcpyDeviceToHost));
    for (int p = 0; p < world; p++)
        for (size_t i = 0; i < ELEMS; i++)
            if (host[(size_t)p * ELEMS + i] != base + (float)p + (float)(i % 5))
                return 0;
    return 1;
}

int main(void)
{
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE"), *h = getenv("APP_HANG"), *u = getenv("APP_UNKNOWN");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1, hang = h && atoi(h), unknown = u && atoi(u);
    if (world > 16)
        return 2;
    CK(cudaSetDevice(rank));
    ncclUniqueId id;
    CK(ncclGetUniqueId(&id));
    ncclConfig_t cfg = NCCL_CONFIG_INITIALIZER;
    cfg.CTAPolicy = NCCL_CTA_POLICY_ZERO;
    ncclComm_t comm;
    if (unknown)
        CK(pncclCommInitRank(&comm, world, id, rank));
    else
        CK(ncclCommInitRankConfig(&comm, world, id, rank, &cfg));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    size_t bytes = ELEMS * sizeof(float);
    float *wsend, *wrecv, *psend, *precv, *sum;
    CK(ncclMemAlloc((void **)&wsend, bytes));
    CK(ncclMemAlloc((void **)&wrecv, bytes * (size_t)world));
    ncclWindow_t sw, rw;
    CK(ncclCommWindowRegister(comm, wsend, bytes, &sw, NCCL_WIN_COLL_SYMMETRIC));
    CK(ncclCommWindowRegister(comm, wrecv, bytes * (size_t)world, &rw, NCCL_WIN_COLL_SYMMETRIC));
    CK(cudaMalloc((void **)&psend, bytes));
    CK(cudaMalloc((void **)&precv, bytes * (size_t)world));
    CK(cudaMalloc((void **)&sum, sizeof(float)));
    int bad = 0;
    for (int step = 0; step < STEPS; step++) {
        float base = (float)(step * 100);
        fill(wsend, ELEMS, base + (float)rank);
        CK(ncclAllGather(wsend, wrecv, ELEMS, ncclFloat, comm, s)); /* copy engines */
        CK(cudaStreamSynchronize(s));
        bad |= !gathered(wrecv, world, base);
        if (hang && rank == world - 1 && step == STEPS - 1) {
            fprintf(stderr, "ce_mixed: rank %d stops before its last kernel all-gather\n", rank);
            for (;;)
                pause();
        }
        fill(psend, ELEMS, base + 50 + (float)rank);
        if (step < STEPS - 1)
            CK(ncclAllGather(psend, precv, ELEMS, ncclFloat, comm, s)); /* a kernel */
        else /* the last one has a call site of its own, for the hang's finding to name */
            CK(ncclAllGather(psend, precv, ELEMS, ncclFloat, comm, s)); /* the last kernel all-gather */
        CK(cudaStreamSynchronize(s));
        bad |= !gathered(precv, world, base + 50);
        host[0] = 1;
        CK(cudaMemcpy(sum, host, sizeof(float), cudaMemcpyHostToDevice));
        CK(ncclAllReduce(sum, sum, 1, ncclFloat, ncclSum, comm, s));
        CK(cudaStreamSynchronize(s)); /* s does not block with the legacy stream the copy back is on */
        CK(cudaMemcpy(host, sum, sizeof(float), cudaMemcpyDeviceToHost));
        bad |= host[0] != (float)world;
    }
    CK(ncclCommWindowDeregister(comm, sw));
    CK(ncclCommWindowDeregister(comm, rw));
    CK(ncclMemFree(wsend));
    CK(ncclMemFree(wrecv));
    CK(cudaFree(psend));
    CK(cudaFree(precv));
    CK(cudaFree(sum));
    CK(ncclCommDestroy(comm));
    printf("ce_mixed: rank %d %s\n", rank, bad ? "data wrong" : "done");
    return bad;
}
