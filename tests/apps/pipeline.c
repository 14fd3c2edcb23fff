/* pipeline.c: a 4-stage pipeline (pipeline parallelism, forward only):
 * each rank is a stage that, for each of MICRO micro-batches, receives its
 * activations from the stage before (ncclRecv), runs its layers (a
 * kernel: 2 ms, but stage 2 is slower, 6 ms), and sends the result on to
 * the stage after (ncclSend), all on one stream.  Activations are 64 KiB,
 * which a send leaves in the receiver's buffer, one deep, so every stage
 * but the slow one waits for it: downstream for data, upstream for room.  The first send/recv between two neighbours sets up
 * their connection (the simulator blocks the host as NCCL's lazy
 * connection does); every later one returns once enqueued.
 *
 * Run as 4 ranks: gpusim-run -n 4 tests/apps/pipeline [PLANT]
 * What a correct report finds (tests/e2e/crossrank.py checks it): 3 pairs
 * (0->1, 1->2, 2->3) with MICRO operations matched each; the slow stage the
 * one with the least bubble time; comm.lazy_connect once for each rank and
 * neighbour.  PLANT:
 *   drop-recv   stage 2 skips its last receive, and activations are 256 KiB
 *               (more than is sent eagerly): stage 1's last send has no
 *               match and never completes (run with a short --timeout: the
 *               launcher kills the hung rank); comm.hang names ranks 1 and 2
 *   wrong-type  stage 2 receives its first micro-batch as int32 (the same
 *               bytes): comm.mismatch names ranks 1 and 2
 *   grouped     not a problem: each send and receive in a group of its own
 *               (as torch.distributed.batch_isend_irecv makes them), so
 *               that NCCL connects in ncclGroupEnd
 * Each rank checks the data it received and prints "pipeline ok". */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MICRO 8
#define ACT_ELEMS (16 * 1024) /* 64 KiB of floats: what NCCL (and the simulator) sends eagerly */
#define STAGE_US 2000
#define SLOW_STAGE 2
#define SLOW_US 6000

#define CHECK(x, ok) do {                                                                 \
        int r_ = (int)(x);                                                                \
        if (r_ != (ok)) {                                                                 \
            fprintf(stderr, "%s:%d: %s: %d\n", __FILE__, __LINE__, #x, r_);               \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

struct stage_arg { float *act; size_t n; int us; float value; int check; float expect; int *err; };

/* A stage's layers: checks what it received (the stage before wrote
 * micro-batch + stage), then writes its own output. */
void stage_kernel(void **args)
{
    struct stage_arg *a = *(struct stage_arg **)args[0];
    if (a->check)
        for (size_t i = 0; i < a->n; i++)
            if (a->act[i] != a->expect) {
                *a->err = 1;
                break;
            }
    for (size_t i = 0; i < a->n; i++)
        a->act[i] = a->value;
    struct timespec ts = { a->us / 1000000, (long)(a->us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

int main(int argc, char **argv)
{
    const char *plant = argc > 1 ? argv[1] : "";
    int rank = atoi(getenv("RANK") ? getenv("RANK") : "0");
    int world = atoi(getenv("WORLD_SIZE") ? getenv("WORLD_SIZE") : "1");
    int local = atoi(getenv("LOCAL_RANK") ? getenv("LOCAL_RANK") : "0");
    CHECK(cudaSetDevice(local), cudaSuccess);
    ncclUniqueId id;
    CHECK(ncclGetUniqueId(&id), ncclSuccess);
    ncclComm_t comm;
    CHECK(ncclCommInitRank(&comm, world, id, rank), ncclSuccess);
    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), cudaSuccess);
    size_t elems = !strcmp(plant, "drop-recv") ? 4 * ACT_ELEMS : ACT_ELEMS;
    float *act[MICRO], *out;
    static struct stage_arg args[MICRO];
    static struct stage_arg *argp[MICRO];
    static void *argv_k[MICRO][1];
    static int err; /* kernels are host functions here: they set it directly */
    int *derr = &err;
    for (int mb = 0; mb < MICRO; mb++)
        CHECK(cudaMalloc((void **)&act[mb], elems * sizeof(float)), cudaSuccess);
    CHECK(cudaMallocHost((void **)&out, sizeof *out), cudaSuccess);
    for (int mb = 0; mb < MICRO; mb++) {
        int wrong = !strcmp(plant, "wrong-type") && rank == SLOW_STAGE && mb == 0;
        int skip = !strcmp(plant, "drop-recv") && rank == SLOW_STAGE && mb == MICRO - 1;
        int grouped = !strcmp(plant, "grouped");
        if (rank > 0 && !skip) {
            if (grouped)
                CHECK(ncclGroupStart(), ncclSuccess);
            CHECK(ncclRecv(act[mb], elems, wrong ? ncclInt32 : ncclFloat32, rank - 1, comm, s), ncclSuccess);
            if (grouped)
                CHECK(ncclGroupEnd(), ncclSuccess);
        }
        args[mb] = (struct stage_arg){ act[mb], elems, rank == SLOW_STAGE ? SLOW_US : STAGE_US,
                                       (float)(mb + rank + 1), rank > 0 && !skip, (float)(mb + rank), derr };
        argp[mb] = &args[mb];
        argv_k[mb][0] = &argp[mb];
        CHECK(cudaLaunchKernel((const void *)stage_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_k[mb], 0, s), cudaSuccess);
        if (rank < world - 1) {
            if (grouped)
                CHECK(ncclGroupStart(), ncclSuccess);
            CHECK(ncclSend(act[mb], elems, ncclFloat32, rank + 1, comm, s), ncclSuccess);
            if (grouped)
                CHECK(ncclGroupEnd(), ncclSuccess);
        }
    }
    /* the last output, read back: what the final sync waits for */
    CHECK(cudaMemcpyAsync(out, act[MICRO - 1], sizeof *out, cudaMemcpyDeviceToHost, s), cudaSuccess);
    CHECK(cudaStreamSynchronize(s), cudaSuccess);
    err |= *out != (float)(MICRO + rank);
    for (int mb = 0; mb < MICRO; mb++)
        cudaFree(act[mb]);
    cudaFreeHost(out);
    ncclCommDestroy(comm);
    printf("rank %d: pipeline %s\n", rank, err ? "data wrong" : "ok");
    return err;
}
