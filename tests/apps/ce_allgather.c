/* ce_allgather.c: all-gathers that NCCL 2.28 runs on the copy engines
 * (docs/nccl-ce.md): a communicator made with CTAPolicy
 * NCCL_CTA_POLICY_ZERO, buffers from ncclMemAlloc registered as symmetric
 * windows.  Each of 10 steps computes 2 ms on a compute stream, then
 * all-gathers 4 MiB per rank on a communication stream that waits for the
 * compute (an event): nothing overlaps the all-gather, whose copies are
 * NCCL's communication, exposed.  The gathered data is checked.
 * APP_CE=0 makes the communicator without the policy (NCCL's kernel path).
 * APP_NCCL_HANDLE=1 calls ncclAllGather through a handle of the NCCL
 * library (dlsym, as ctypes does), which no wrapper sees.
 * APP_CE_ALL=1 then runs NCCL's other CE collectives once each, checked:
 * an all-to-all, and a gather to rank 0 with a scatter from rank 1 in one
 * group.
 *
 * Run as N ranks: gpusim-run -n N tests/apps/ce_allgather
 * (tests/e2e/nccl_ce.sh; GPUSIM_NCCL_NVLS=1 gives NCCL's multicast flag
 * copies, 4 bytes from pageable host memory, in each sync)
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
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

#define E2 1024 /* floats per rank and peer in the other collectives */

/* Fills a window's buffer of n floats with f(j, i) (j: its chunk of E2). */
static void fill(float *dev, size_t n, float (*f)(int, int, int), int rank, float *host)
{
    for (size_t i = 0; i < n; i++)
        host[i] = f((int)(i / E2), (int)(i % E2), rank);
    CK(cudaMemcpy(dev, host, n * sizeof *host, cudaMemcpyHostToDevice));
}

static int check(const float *dev, size_t n, float (*f)(int, int, int), int rank, float *host, const char *what)
{
    CK(cudaMemcpy(host, dev, n * sizeof *host, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (host[i] != f((int)(i / E2), (int)(i % E2), rank)) {
            fprintf(stderr, "ce_allgather: rank %d: %s wrong at %zu\n", rank, what, i);
            return 1;
        }
    return 0;
}

static float a2a_in(int j, int i, int rank) { return (float)(rank * 100 + j) + (float)i / 4096; }
static float a2a_out(int j, int i, int rank) { return (float)(j * 100 + rank) + (float)i / 4096; }
static float gather_in(int j, int i, int rank) { (void)j; return (float)rank + (float)i / 4096; }
static float gather_out(int j, int i, int rank) { (void)rank; return (float)j + (float)i / 4096; }
static float scatter_in(int j, int i, int rank) { (void)rank; return (float)(7 * j) + (float)i / 4096; }
static float scatter_out(int j, int i, int rank) { (void)j; return (float)(7 * rank) + (float)i / 4096; }

/* An all-to-all, then a gather to rank 0 and a scatter from rank 1 in one group. */
static int others(ncclComm_t comm, int rank, int world, cudaStream_t s)
{
    size_t n = (size_t)world * E2, bytes = n * sizeof(float);
    float *a, *b, *host;
    ncclWindow_t wa, wb;
    CK(ncclMemAlloc((void **)&a, bytes));
    CK(ncclMemAlloc((void **)&b, bytes));
    CK(cudaMallocHost((void **)&host, bytes));
    CK(ncclCommWindowRegister(comm, a, bytes, &wa, NCCL_WIN_COLL_SYMMETRIC));
    CK(ncclCommWindowRegister(comm, b, bytes, &wb, NCCL_WIN_COLL_SYMMETRIC));
    int bad = 0;
    fill(a, n, a2a_in, rank, host);
    CK(ncclAlltoAll(a, b, E2, ncclFloat, comm, s));
    CK(cudaStreamSynchronize(s));
    bad |= check(b, n, a2a_out, rank, host, "all-to-all");
    fill(a, E2, gather_in, rank, host);
    if (rank == 1 % world) /* the scatter's root */
        fill(b, n, scatter_in, rank, host);
    float *g, *sc;
    CK(ncclMemAlloc((void **)&g, bytes));
    CK(ncclMemAlloc((void **)&sc, E2 * sizeof(float)));
    ncclWindow_t wg, wsc;
    CK(ncclCommWindowRegister(comm, g, bytes, &wg, NCCL_WIN_COLL_SYMMETRIC));
    CK(ncclCommWindowRegister(comm, sc, E2 * sizeof(float), &wsc, NCCL_WIN_COLL_SYMMETRIC));
    CK(ncclGroupStart());
    CK(ncclGather(a, g, E2, ncclFloat, 0, comm, s));
    CK(ncclScatter(b, sc, E2, ncclFloat, 1 % world, comm, s));
    CK(ncclGroupEnd());
    CK(cudaStreamSynchronize(s));
    if (rank == 0)
        bad |= check(g, n, gather_out, rank, host, "gather");
    bad |= check(sc, E2, scatter_out, rank, host, "scatter");
    CK(ncclCommWindowDeregister(comm, wg));
    CK(ncclCommWindowDeregister(comm, wsc));
    CK(ncclCommWindowDeregister(comm, wa));
    CK(ncclCommWindowDeregister(comm, wb));
    CK(ncclMemFree(g));
    CK(ncclMemFree(sc));
    CK(ncclMemFree(a));
    CK(ncclMemFree(b));
    CK(cudaFreeHost(host));
    return bad;
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
    ncclResult_t (*allgather)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) = ncclAllGather;
    const char *handle = getenv("APP_NCCL_HANDLE"), *lib = getenv("GPUSIM_LIB");
    if (handle && atoi(handle)) { /* the library's own symbol, past any interposed one */
        void *h = lib ? dlopen(lib, RTLD_NOW | RTLD_NOLOAD) : NULL;
        if (!h || !(*(void **)&allgather = dlsym(h, "ncclAllGather"))) {
            fprintf(stderr, "ce_allgather: no ncclAllGather in %s\n", lib ? lib : "(GPUSIM_LIB unset)");
            return 1;
        }
    }
    for (int step = 0; step < STEPS; step++) {
        CK(cudaLaunchKernel((const void *)fill_kernel, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, fargs, 0, comp));
        CK(cudaLaunchKernel((const void *)compute_kernel, (dim3){ 1, 1, 1 }, (dim3){ 128, 1, 1 }, NULL, 0, comp));
        CK(cudaEventRecord(done, comp));
        CK(cudaStreamWaitEvent(cs, done, 0));
        CK(allgather(send, recv, ELEMS, ncclFloat, comm, cs));
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
    const char *all = getenv("APP_CE_ALL");
    if (all && atoi(all) && others(comm, rank, world, cs) != 0)
        bad = 1;
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
