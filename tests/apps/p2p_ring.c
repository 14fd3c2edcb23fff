/* p2p_ring.c: each rank sends to the next and receives from the previous,
 * in a group, 10 times, then one broadcast (as ncclBcast): point-to-point
 * operations for NCCL's profiler plugin to be joined to the wrappers' by
 * peer and order (tests/e2e/nccl_plugin.sh).
 * Run as N ranks: gpusim-run -n N tests/apps/p2p_ring */
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s failed\n", #x); return 1; } } while (0)

int main(void)
{
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1;
    CK(cudaSetDevice(rank));
    ncclUniqueId id;
    ncclComm_t comm;
    CK(ncclGetUniqueId(&id));
    CK(ncclCommInitRank(&comm, world, id, rank));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    float *a, *b;
    CK(cudaMalloc((void **)&a, 4096 * sizeof *a));
    CK(cudaMalloc((void **)&b, 4096 * sizeof *b));
    for (int i = 0; i < 10; i++) {
        CK(ncclGroupStart());
        CK(ncclSend(a, 1024 + (size_t)i, ncclFloat, (rank + 1) % world, comm, s));
        CK(ncclRecv(b, 1024 + (size_t)i, ncclFloat, (rank + world - 1) % world, comm, s));
        CK(ncclGroupEnd());
    }
    CK(ncclBcast(a, 256, ncclFloat, 0, comm, s));
    CK(cudaStreamSynchronize(s));
    CK(ncclCommDestroy(comm));
    printf("p2p_ring: rank %d done\n", rank);
    return 0;
}
