/* test_sim_nccl_comms.c: the simulated NCCL's communicators beyond
 * ncclCommInitRank/ncclCommSplit, as NCCL 2.28 documents them
 * (tests/sim/sim_nccl_comms.c): ncclCommInitRankScalable, ncclCommShrink,
 * non-blocking init and split (ncclInProgress, then ready later), and
 * ncclGroupSimulateEnd; across 4 forked ranks. */
#include <criterion/criterion.h>
#include <nccl.h>
#include <stdio.h>

#include "sim_test_util.h"

#define N 4

#define FAIL_IF(cond) do { if (cond) { fprintf(stderr, "rank %d: %s (line %d)\n", rank, #cond, __LINE__); return 1; } } while (0)

/* The sum of (rank + 1) over the communicator's members, all-reduced. */
static int sum_of_ranks(ncclComm_t c, int rank, int want)
{
    int *v;
    cudaMalloc((void **)&v, sizeof *v);
    *v = rank + 1;
    FAIL_IF(ncclAllReduce(v, v, 1, ncclInt32, ncclSum, c, 0) != ncclSuccess);
    cudaStreamSynchronize(0);
    FAIL_IF(*v != want);
    cudaFree(v);
    return 0;
}

static int scalable(int rank, int n)
{
    ncclUniqueId ids[2];
    ncclComm_t c = NULL;
    cudaSetDevice(rank);
    FAIL_IF(ncclGetUniqueId(&ids[0]) || ncclGetUniqueId(&ids[1]));
    FAIL_IF(ncclCommInitRankScalable(&c, n, rank, 0, ids, NULL) != ncclInvalidArgument); /* nId in 1..nranks */
    FAIL_IF(ncclCommInitRankScalable(&c, n, rank, 2, ids, NULL) != ncclSuccess);
    int r = -1, cnt = -1;
    ncclCommUserRank(c, &r);
    ncclCommCount(c, &cnt);
    FAIL_IF(r != rank || cnt != n);
    FAIL_IF(sum_of_ranks(c, rank, n * (n + 1) / 2));
    return ncclCommDestroy(c) != ncclSuccess;
}

Test(sim_nccl_comms, init_rank_scalable)
{
    cr_expect_eq(tu_run_ranks(N, scalable), 0);
}

static int shrink(int rank, int n)
{
    ncclUniqueId id;
    ncclComm_t world, c = NULL;
    cudaSetDevice(rank);
    FAIL_IF(ncclGetUniqueId(&id) || ncclCommInitRank(&world, n, id, rank));
    int excluded[2] = { 3, 1 };  /* NCCL sorts the list in place */
    if (rank == 1 || rank == 3) { /* left out: they do not call it, and one that did is refused */
        FAIL_IF(ncclCommShrink(world, excluded, 2, &c, NULL, NCCL_SHRINK_DEFAULT) != ncclInvalidArgument);
        return 0;
    }
    FAIL_IF(ncclCommShrink(world, excluded, 0, &c, NULL, NCCL_SHRINK_DEFAULT) != ncclInvalidArgument);
    FAIL_IF(ncclCommShrink(world, excluded, 2, &c, NULL, NCCL_SHRINK_DEFAULT) != ncclSuccess);
    FAIL_IF(excluded[0] != 1 || excluded[1] != 3);
    int r = -1, cnt = -1;
    ncclCommUserRank(c, &r);
    ncclCommCount(c, &cnt);
    FAIL_IF(cnt != 2 || r != rank / 2); /* ranks 0 and 2 become 0 and 1 */
    FAIL_IF(sum_of_ranks(c, rank, 1 + 3));
    return ncclCommDestroy(c) != ncclSuccess;
}

Test(sim_nccl_comms, shrink_leaves_out_the_excluded_ranks)
{
    cr_expect_eq(tu_run_ranks(N, shrink), 0);
}

/* Polls until state is no longer ncclInProgress; how many polls said it was. */
static int polls_in_progress(ncclComm_t c, ncclResult_t *state)
{
    int polls = 0;
    for (;;) {
        if (ncclCommGetAsyncError(c, state) != ncclSuccess)
            return -1;
        if (*state != ncclInProgress)
            return polls;
        polls++;
        tu_sleep_us(100);
    }
}

static int nonblocking(int rank, int n)
{
    ncclUniqueId id;
    ncclComm_t world = NULL, half = NULL;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    config.blocking = 0;
    ncclResult_t state;
    cudaSetDevice(rank);
    FAIL_IF(ncclGetUniqueId(&id));
    /* an init stores the communicator at once; it is ready later */
    FAIL_IF(ncclCommInitRankConfig(&world, n, id, rank, &config) != ncclInProgress);
    FAIL_IF(!world);
    int *v;
    cudaMalloc((void **)&v, sizeof *v);
    FAIL_IF(ncclAllReduce(v, v, 1, ncclInt32, ncclSum, world, 0) != ncclInvalidArgument); /* not ready yet */
    FAIL_IF(polls_in_progress(world, &state) < 1 || state != ncclSuccess);
    FAIL_IF(sum_of_ranks(world, rank, n * (n + 1) / 2));
    /* a split leaves *newcomm NULL until it is made; the parent says when
     * (its config inherited: NULL) */
    half = (ncclComm_t)1;
    FAIL_IF(ncclCommSplit(world, rank % 2, rank, &half, NULL) != ncclInProgress);
    ncclComm_t seen = __atomic_load_n(&half, __ATOMIC_ACQUIRE);
    int polls = polls_in_progress(world, &state);
    FAIL_IF(seen != NULL || polls < 1 || state != ncclSuccess || !half);
    FAIL_IF(sum_of_ranks(half, rank, rank % 2 ? 2 + 4 : 1 + 3));
    FAIL_IF(ncclCommDestroy(half) || ncclCommDestroy(world));
    return 0;
}

Test(sim_nccl_comms, nonblocking_init_and_split_are_in_progress_then_ready)
{
    cr_expect_eq(tu_run_ranks(N, nonblocking), 0);
}

static int simulate_end(int rank, int n)
{
    ncclUniqueId id;
    ncclComm_t c;
    cudaSetDevice(rank);
    FAIL_IF(ncclGetUniqueId(&id) || ncclCommInitRank(&c, n, id, rank));
    int *v;
    cudaMalloc((void **)&v, sizeof *v);
    *v = rank + 1;
    ncclSimInfo_t sim = NCCL_SIM_INFO_INITIALIZER;
    FAIL_IF(ncclGroupSimulateEnd(&sim) != ncclInvalidUsage); /* not in a group */
    FAIL_IF(ncclGroupStart() || ncclAllReduce(v, v, 1, ncclInt32, ncclSum, c, 0) || ncclGroupSimulateEnd(&sim));
    cudaStreamSynchronize(0);
    FAIL_IF(*v != rank + 1 || !(sim.estimatedTime > 0)); /* estimated, not run */
    FAIL_IF(sum_of_ranks(c, rank, n * (n + 1) / 2)); /* and the group is closed */
    return ncclCommDestroy(c) != ncclSuccess;
}

Test(sim_nccl_comms, group_simulate_end_runs_nothing_and_closes_the_group)
{
    cr_expect_eq(tu_run_ranks(N, simulate_end), 0);
}
