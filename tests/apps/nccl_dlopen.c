/* nccl_dlopen.c: a program that reaches CUDA and NCCL only through a
 * library handle, as ctypes, vLLM's pynccl and launchers do: it links
 * neither; it opens the simulator (GPUSIM_LIB) with RTLD_LOCAL, so that
 * nothing of it is in the global scope, and calls every function through
 * a pointer from dlsym.  Its all-reduces run on a communicator split from
 * the world one (whose rank the tracer must ask of the library behind the
 * handle); rank 2 arrives 15 ms late to each.
 *
 * Run as 4 ranks: GPUSIM_LIB=.../libgpusim.so gpusim-run -n 4 tests/apps/nccl_dlopen
 * What a correct report finds here; tests/e2e/report_workloads.py reads these
 * lines (see straggler.c):
 * expect: comm.straggler ranks=2 cost_ms=20..5000
 * allow: comm.exposed gpu.idle (nothing overlaps the all-reduces) sync.no_consumer sync.redundant (the stream sync after each one reads nothing back)
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define STEPS 12
#define ELEMS (64 * 1024)

static void *lib;

static void *fn(const char *name)
{
    void *p = dlsym(lib, name);
    if (!p) {
        fprintf(stderr, "dlsym %s: %s\n", name, dlerror());
        exit(1);
    }
    return p;
}

#define CK(x) do {                                                                        \
        int rc_ = (int)(x);                                                               \
        if (rc_ != 0) {                                                                   \
            fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #x, rc_);              \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static void spin_us(long us)
{
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

int main(void)
{
    const char *path = getenv("GPUSIM_LIB"), *r = getenv("RANK"), *w = getenv("WORLD_SIZE");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1;
    lib = path ? dlopen(path, RTLD_NOW | RTLD_LOCAL) : NULL;
    if (!lib) {
        fprintf(stderr, "cannot open the simulator (GPUSIM_LIB): %s\n", path ? dlerror() : "not set");
        return 1;
    }
    cudaError_t (*set_device)(int) = (cudaError_t (*)(int))fn("cudaSetDevice");
    cudaError_t (*stream_create)(cudaStream_t *, unsigned) = (cudaError_t (*)(cudaStream_t *, unsigned))fn("cudaStreamCreateWithFlags");
    cudaError_t (*stream_sync)(cudaStream_t) = (cudaError_t (*)(cudaStream_t))fn("cudaStreamSynchronize");
    cudaError_t (*dmalloc)(void **, size_t) = (cudaError_t (*)(void **, size_t))fn("cudaMalloc");
    ncclResult_t (*get_id)(ncclUniqueId *) = (ncclResult_t (*)(ncclUniqueId *))fn("ncclGetUniqueId");
    ncclResult_t (*init_rank)(ncclComm_t *, int, ncclUniqueId, int) = (ncclResult_t (*)(ncclComm_t *, int, ncclUniqueId, int))fn("ncclCommInitRank");
    ncclResult_t (*split)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *) =
        (ncclResult_t (*)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *))fn("ncclCommSplit");
    ncclResult_t (*all_reduce)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) =
        (ncclResult_t (*)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t))fn("ncclAllReduce");
    ncclResult_t (*destroy)(ncclComm_t) = (ncclResult_t (*)(ncclComm_t))fn("ncclCommDestroy");

    CK(set_device(rank));
    ncclUniqueId id;
    ncclComm_t world_comm, comm;
    CK(get_id(&id));
    CK(init_rank(&world_comm, world, id, rank));
    CK(split(world_comm, 0, rank, &comm, NULL));
    cudaStream_t s;
    CK(stream_create(&s, cudaStreamNonBlocking));
    float *buf;
    CK(dmalloc((void **)&buf, ELEMS * sizeof(float)));
    for (int step = 0; step < STEPS; step++) {
        if (rank == 2)
            spin_us(15000);
        CK(all_reduce(buf, buf, ELEMS, ncclFloat32, ncclSum, comm, s));
        CK(stream_sync(s));
    }
    CK(destroy(comm));
    CK(destroy(world_comm));
    printf("rank %d: %d steps\n", rank, STEPS);
    return 0;
}
