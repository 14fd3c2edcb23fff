/* comm_kinds.c: the loop the comm_* workloads share (comm_kinds.h). */
#include "comm_kinds.h"

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define STEPS 12
#define ELEMS (64 * 1024)

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

/* Waits as NCCL's documentation says: ncclCommGetAsyncError on `poll`
 * until it is no longer ncclInProgress. */
static void wait_ready(ncclComm_t poll)
{
    ncclResult_t state = ncclInProgress;
    int polls = 0;
    while (state == ncclInProgress) {
        CK(ncclCommGetAsyncError(poll, &state));
        polls++;
    }
    CK(state);
    if (polls < 2)
        fprintf(stderr, "note: the non-blocking communicator was ready at the first poll\n");
}

static ncclConfig_t nonblocking(void)
{
    ncclConfig_t c = NCCL_CONFIG_INITIALIZER;
    c.blocking = 0;
    return c;
}

int comm_kinds_main(enum comm_kind kind)
{
    const char *r = getenv("RANK"), *w = getenv("WORLD_SIZE");
    int rank = r ? atoi(r) : 0, world = w ? atoi(w) : 1;
    CK(cudaSetDevice(rank));
    ncclComm_t world_comm = NULL, comm = NULL;
    ncclUniqueId ids[2];
    CK(ncclGetUniqueId(&ids[0]));
    CK(ncclGetUniqueId(&ids[1]));
    if (kind == COMM_SCALABLE) {
        CK(ncclCommInitRankScalable(&comm, world, rank, 2, ids, NULL));
    } else if (kind == COMM_INIT_NB) {
        ncclConfig_t c = nonblocking();
        ncclResult_t rc = ncclCommInitRankConfig(&comm, world, ids[0], rank, &c);
        if (rc != ncclInProgress && rc != ncclSuccess)
            CK(rc);
        wait_ready(comm);
    } else if (kind == COMM_UNKNOWN) {
        CK(pncclCommInitRank(&comm, world, ids[0], rank));
    } else {
        CK(ncclCommInitRank(&world_comm, world, ids[0], rank));
        if (kind == COMM_SHRINK) {
            if (rank == world - 1) { /* the rank left out: it does not call ncclCommShrink */
                CK(ncclCommDestroy(world_comm));
                printf("rank %d: left out\n", rank);
                return 0;
            }
            int excluded[1] = { world - 1 };
            CK(ncclCommShrink(world_comm, excluded, 1, &comm, NULL, NCCL_SHRINK_DEFAULT));
        } else {
            ncclConfig_t c = nonblocking();
            ncclResult_t rc = ncclCommSplit(world_comm, 0, rank, &comm, &c);
            if (rc != ncclInProgress && rc != ncclSuccess)
                CK(rc);
            if (kind == COMM_SPLIT_NB_SPIN) /* NCCL stores it once made: the first operation finds it ready */
                while (!__atomic_load_n(&comm, __ATOMIC_ACQUIRE))
                    usleep(100);
            else
                wait_ready(world_comm); /* a split is done when its parent says so */
            if (!comm) {
                fprintf(stderr, "rank %d: no communicator from the split\n", rank);
                return 1;
            }
        }
    }
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    float *buf;
    CK(cudaMalloc((void **)&buf, ELEMS * sizeof(float)));
    /* APP_DESYNC_STEP=N: at step N rank 1 all-reduces half the count, a
     * mismatch the report must find on this communicator too */
    const char *d = getenv("APP_DESYNC_STEP");
    int desync = d && *d ? atoi(d) : -1;
    for (int step = 0; step < STEPS; step++) {
        if (rank == 2)
            spin_us(15000); /* a slow data loader on this rank */
        size_t count = step == desync && rank == 1 ? ELEMS / 2 : ELEMS;
        CK(ncclAllReduce(buf, buf, count, ncclFloat32, ncclSum, comm, s));
        CK(cudaStreamSynchronize(s));
    }
    CK(cudaFree(buf));
    CK(cudaStreamDestroy(s));
    CK(ncclCommDestroy(comm));
    if (world_comm)
        CK(ncclCommDestroy(world_comm));
    printf("rank %d: %d steps\n", rank, STEPS);
    return 0;
}
