/* pp_allreduce.c: pipeline stages that also share collectives, on one
 * communicator: each of STEPS steps sends MICRO micro-batches down the
 * pipeline (stage r receives from r-1 and sends to r+1, so the first and
 * last stages make half as many send/recv calls as the middle ones, and
 * the last stage also sends EXTRA acknowledgements back to stage 0), then
 * every rank all-reduces its gradients and all-gathers a flag.  The
 * collectives are the same on every rank; the point-to-point operations
 * before them are not: a tracer that numbers collectives and send/recv in
 * one sequence gives the same all-reduce different numbers on different
 * ranks (a false mismatch).
 *
 * Run as N >= 2 ranks: gpusim-run -n N tests/apps/pp_allreduce
 * (tests/e2e/nccl_plugin.sh, traced with the tracer only as NCCL's
 * profiler plugin).  Each rank checks every received activation and the
 * collectives' results, and prints "pp_allreduce: rank R ok".
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define STEPS 4
#define MICRO 3
#define EXTRA 2
#define ACT 1024  /* floats per micro-batch */
#define GRAD 4096 /* floats all-reduced per step */

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s:%d: %s failed\n", __FILE__, __LINE__, #x); exit(1); } } while (0)

static float host[GRAD];

static void fill(float *dev, size_t n, float v)
{
    for (size_t i = 0; i < n; i++)
        host[i] = v;
    CK(cudaMemcpy(dev, host, n * sizeof *host, cudaMemcpyHostToDevice));
}

/* Whether the n floats at dev all equal v. */
static int all_equal(const float *dev, size_t n, float v)
{
    CK(cudaMemcpy(host, dev, n * sizeof *host, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; i++)
        if (host[i] != v)
            return 0;
    return 1;
}

int main(void)
{
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1;
    CK(cudaSetDevice(rank));
    ncclUniqueId id;
    CK(ncclGetUniqueId(&id));
    ncclComm_t comm;
    CK(ncclCommInitRank(&comm, world, id, rank));
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *act, *grad, *flag, *flags;
    CK(cudaMalloc((void **)&act, ACT * sizeof(float)));
    CK(cudaMalloc((void **)&grad, GRAD * sizeof(float)));
    CK(cudaMalloc((void **)&flag, sizeof(float)));
    CK(cudaMalloc((void **)&flags, (size_t)world * sizeof(float)));
    int bad = 0, last = world - 1;
    for (int step = 0; step < STEPS; step++) {
        for (int mb = 0; mb < MICRO; mb++) {
            float v = (float)(step * 100 + mb * 10);
            if (rank > 0) {
                CK(ncclRecv(act, ACT, ncclFloat, rank - 1, comm, s));
                CK(cudaStreamSynchronize(s));
                bad |= !all_equal(act, ACT, v + (float)(rank - 1));
            }
            if (rank < last) {
                fill(act, ACT, v + (float)rank);
                CK(ncclSend(act, ACT, ncclFloat, rank + 1, comm, s));
                CK(cudaStreamSynchronize(s));
            }
        }
        for (int k = 0; k < EXTRA && last > 0; k++) { /* the last stage acknowledges to the first */
            if (rank == last) {
                fill(act, 1, (float)(step + k));
                CK(ncclSend(act, 1, ncclFloat, 0, comm, s));
            } else if (rank == 0) {
                CK(ncclRecv(act, 1, ncclFloat, last, comm, s));
            }
            CK(cudaStreamSynchronize(s));
            if (rank == 0)
                bad |= !all_equal(act, 1, (float)(step + k));
        }
        fill(grad, GRAD, (float)(rank + step));
        CK(ncclAllReduce(grad, grad, GRAD, ncclFloat, ncclSum, comm, s));
        fill(flag, 1, (float)rank);
        CK(ncclAllGather(flag, flags, 1, ncclFloat, comm, s));
        CK(cudaStreamSynchronize(s));
        bad |= !all_equal(grad, GRAD, (float)(world * (world - 1) / 2 + world * step));
        CK(cudaMemcpy(host, flags, (size_t)world * sizeof(float), cudaMemcpyDeviceToHost));
        for (int p = 0; p < world; p++)
            bad |= host[p] != (float)p;
    }
    CK(cudaFree(act));
    CK(cudaFree(grad));
    CK(cudaFree(flag));
    CK(cudaFree(flags));
    CK(ncclCommDestroy(comm));
    printf("pp_allreduce: rank %d %s\n", rank, bad ? "data wrong" : "ok");
    return bad;
}
