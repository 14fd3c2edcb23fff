/* test_sim_nccl.c: every simulated collective across 4 ranks (forked
 * processes), with sizes beyond one staging chunk; a late rank holding the
 * others; grouped send/recv; split and single-process communicators; the
 * NCCL kernel's records. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <nccl.h>
#include <stdlib.h>
#include <string.h>

#include "sim_test_util.h"

#define N 4
#define COUNT 100000 /* floats: 400 KB, more than one 256 KiB chunk */

static ncclComm_t init_comm(int rank, int n)
{
    ncclUniqueId id;
    ncclComm_t c = NULL;
    cudaSetDevice(rank);
    if (ncclGetUniqueId(&id) != ncclSuccess || ncclCommInitRank(&c, n, id, rank) != ncclSuccess)
        return NULL;
    return c;
}

static float *dev_floats(size_t n, float (*f)(size_t i, int rank), int rank)
{
    float *d;
    cudaMalloc((void **)&d, n * sizeof(float));
    for (size_t i = 0; i < n; i++)
        d[i] = f ? f(i, rank) : 0.0f;
    return d;
}

static float val(size_t i, int rank) { return (float)(rank + 1) + (float)(i % 7); }

#define FAIL_IF(cond) do { if (cond) { fprintf(stderr, "rank %d: %s (line %d)\n", rank, #cond, __LINE__); return 1; } } while (0)

static int collectives(int rank, int n)
{
    ncclComm_t c = init_comm(rank, n);
    FAIL_IF(!c);
    int cnt = -1, ur = -1;
    ncclCommCount(c, &cnt);
    ncclCommUserRank(c, &ur);
    FAIL_IF(cnt != n || ur != rank);
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *in = dev_floats(COUNT, val, rank), *out = dev_floats((size_t)COUNT * n, NULL, rank);

    /* all-reduce sum, max, avg */
    FAIL_IF(ncclAllReduce(in, out, COUNT, ncclFloat32, ncclSum, c, s) != ncclSuccess);
    cudaStreamSynchronize(s);
    for (size_t i = 0; i < COUNT; i += 997)
        FAIL_IF(out[i] != (float)(n * (n + 1) / 2) + (float)n * (float)(i % 7));
    ncclAllReduce(in, out, COUNT, ncclFloat32, ncclMax, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(out[COUNT - 1] != (float)n + (float)((COUNT - 1) % 7));
    ncclAllReduce(in, out, COUNT, ncclFloat32, ncclAvg, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(fabsf(out[3] - ((float)(n + 1) / 2 + 3)) > 1e-5f);

    /* integer prod and min, double, bf16 and half sums */
    int32_t *ii = (int32_t *)dev_floats(8, NULL, rank), *io = (int32_t *)dev_floats(8, NULL, rank);
    for (int i = 0; i < 8; i++) ii[i] = rank + 2;
    ncclAllReduce(ii, io, 8, ncclInt32, ncclProd, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(io[7] != 2 * 3 * 4 * 5);
    ncclAllReduce(ii, io, 8, ncclInt32, ncclMin, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(io[0] != 2);
    double *di = (double *)dev_floats(16, NULL, rank);
    di[0] = 0.5 * rank;
    ncclAllReduce(di, di, 1, ncclFloat64, ncclSum, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(di[0] != 3.0);
    uint16_t *h = (uint16_t *)dev_floats(8, NULL, rank);
    h[0] = 0x3c00; /* half 1.0 */
    h[1] = 0x3f80; /* bfloat16 1.0 */
    ncclAllReduce(h, h, 1, ncclFloat16, ncclSum, c, s);
    ncclAllReduce(h + 1, h + 1, 1, ncclBfloat16, ncclSum, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(h[0] != 0x4400); /* half 4.0 */
    FAIL_IF(h[1] != 0x4080); /* bfloat16 4.0 */

    /* broadcast from rank 2, in-place bcast from 1 */
    ncclBroadcast(in, out, COUNT, ncclFloat32, 2, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(out[COUNT - 1] != val(COUNT - 1, 2));
    float *b = dev_floats(COUNT, val, rank);
    ncclBcast(b, COUNT, ncclFloat32, 1, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(b[5] != val(5, 1));

    /* reduce to rank 3 */
    memset(out, 0, sizeof(float) * COUNT);
    ncclReduce(in, out, COUNT, ncclFloat32, ncclSum, 3, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(rank == 3 && out[70001] != (float)(n * (n + 1) / 2) + (float)n * (float)(70001 % 7));
    FAIL_IF(rank != 3 && out[70001] != 0);

    /* all-gather */
    ncclAllGather(in, out, COUNT, ncclFloat32, c, s);
    cudaStreamSynchronize(s);
    for (int r = 0; r < n; r++)
        FAIL_IF(out[(size_t)r * COUNT + 99999] != val(99999, r));

    /* reduce-scatter: each rank contributes n segments */
    float *rs_in = dev_floats((size_t)COUNT * n, NULL, rank), *rs_out = dev_floats(COUNT, NULL, rank);
    for (size_t i = 0; i < (size_t)COUNT * n; i++)
        rs_in[i] = (float)(i / COUNT) * 10 + (float)rank;
    ncclReduceScatter(rs_in, rs_out, COUNT, ncclFloat32, ncclSum, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(rs_out[COUNT - 1] != (float)rank * 10 * n + (float)(n * (n - 1) / 2));

    /* all-to-all: rank r sends segment j to rank j */
    for (size_t i = 0; i < (size_t)COUNT * n; i++)
        rs_in[i] = (float)(rank * 100) + (float)(i / COUNT);
    ncclAlltoAll(rs_in, out, COUNT, ncclFloat32, c, s);
    cudaStreamSynchronize(s);
    for (int j = 0; j < n; j++)
        FAIL_IF(out[(size_t)j * COUNT + 17] != (float)(j * 100 + rank));

    /* gather to 0, scatter from 0 */
    ncclGather(in, out, COUNT, ncclFloat32, 0, c, s);
    cudaStreamSynchronize(s);
    if (rank == 0)
        for (int j = 0; j < n; j++)
            FAIL_IF(out[(size_t)j * COUNT + 1234] != val(1234, j));
    if (rank == 0)
        for (size_t i = 0; i < (size_t)COUNT * n; i++)
            rs_in[i] = (float)(i / COUNT) + 0.5f;
    ncclScatter(rs_in, rs_out, COUNT, ncclFloat32, 0, c, s);
    cudaStreamSynchronize(s);
    FAIL_IF(rs_out[COUNT - 1] != (float)rank + 0.5f);

    FAIL_IF(ncclAllReduce(in, out, 1, (ncclDataType_t)99, ncclSum, c, s) != ncclInvalidArgument);
    FAIL_IF(ncclBroadcast(in, out, 1, ncclFloat32, n, c, s) != ncclInvalidArgument);
    ncclCommDestroy(c);
    return 0;
}

Test(sim_nccl, every_collective_across_four_ranks)
{
    cr_expect_eq(tu_run_ranks(N, collectives), 0);
}

static int late_rank(int rank, int n)
{
    ncclComm_t c = init_comm(rank, n);
    FAIL_IF(!c);
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *buf = dev_floats(1024, val, rank);
    /* line the ranks up first: a rank that started late must not look
     * like one that waited less */
    ncclAllReduce(buf, buf, 1, ncclFloat32, ncclSum, c, s);
    cudaStreamSynchronize(s);
    tu_cupti_start(64 * 1024);
    if (rank == n - 1)
        tu_sleep_us(60000);
    uint64_t t0 = tu_now_ns();
    ncclAllReduce(buf, buf, 1024, ncclFloat32, ncclSum, c, s);
    cudaStreamSynchronize(s);
    uint64_t waited = tu_now_ns() - t0;
    struct tu_records r;
    tu_cupti_flush(&r);
    const CUpti_ActivityKernel10 *k = NULL;
    for (size_t i = 0; i < r.n; i++)
        if (r.rec[i]->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
            k = (const void *)r.rec[i];
    FAIL_IF(!k);
    FAIL_IF(strcmp(k->name, "ncclDevKernel_AllReduce_Sum_f32_RING_LL") != 0);
    if (rank != n - 1) {
        FAIL_IF(waited < 50000000ull);
        FAIL_IF(k->end - k->start < 50000000ull); /* the kernel itself waited */
    } else {
        FAIL_IF(waited > 50000000ull);
    }
    return 0;
}

Test(sim_nccl, a_late_rank_holds_the_others)
{
    cr_expect_eq(tu_run_ranks(N, late_rank), 0);
}

static int ring_exchange(int rank, int n)
{
    ncclComm_t c = init_comm(rank, n);
    FAIL_IF(!c);
    cudaStream_t s;
    cudaStreamCreate(&s);
    float *snd = dev_floats(COUNT, val, rank), *rcv = dev_floats(COUNT, NULL, rank);
    int next = (rank + 1) % n, prev = (rank + n - 1) % n;
    FAIL_IF(ncclGroupStart() != ncclSuccess);
    ncclSend(snd, COUNT, ncclFloat32, next, c, s);
    ncclRecv(rcv, COUNT, ncclFloat32, prev, c, s);
    FAIL_IF(ncclGroupEnd() != ncclSuccess);
    cudaStreamSynchronize(s);
    FAIL_IF(rcv[COUNT - 1] != val(COUNT - 1, prev));
    FAIL_IF(rcv[0] != val(0, prev));
    FAIL_IF(ncclGroupEnd() != ncclInvalidUsage);
    return 0;
}

Test(sim_nccl, grouped_send_recv_ring)
{
    cr_expect_eq(tu_run_ranks(N, ring_exchange), 0);
}

static int split(int rank, int n)
{
    ncclComm_t c = init_comm(rank, n), half;
    FAIL_IF(!c);
    FAIL_IF(ncclCommSplit(c, rank % 2, -rank, &half, NULL) != ncclSuccess);
    int cnt = 0, ur = -1;
    ncclCommCount(half, &cnt);
    ncclCommUserRank(half, &ur);
    FAIL_IF(cnt != n / 2);
    FAIL_IF(ur != (n / 2 - 1) - rank / 2); /* key -rank reverses the order */
    int *v;
    cudaMalloc((void **)&v, sizeof(int));
    *v = rank;
    ncclAllReduce(v, v, 1, ncclInt32, ncclSum, half, 0);
    cudaStreamSynchronize(0);
    FAIL_IF(*v != (rank % 2 == 0 ? 0 + 2 : 1 + 3));
    ncclComm_t none = (ncclComm_t)1;
    FAIL_IF(ncclCommSplit(c, rank == 0 ? NCCL_SPLIT_NOCOLOR : 1, 0, &none, NULL) != ncclSuccess);
    FAIL_IF(rank == 0 && none != NULL);
    return 0;
}

Test(sim_nccl, split_communicators)
{
    cr_expect_eq(tu_run_ranks(N, split), 0);
}

Test(sim_nccl, init_all_in_one_process_with_a_group)
{
    ncclComm_t comms[2];
    int devs[2] = { 0, 1 };
    cr_assert_eq(ncclCommInitAll(comms, 2, devs), ncclSuccess);
    int dev = -1;
    ncclCommCuDevice(comms[1], &dev);
    cr_expect_eq(dev, 1);
    cudaStream_t s[2];
    int *buf[2];
    for (int i = 0; i < 2; i++) {
        cudaSetDevice(i);
        cudaStreamCreate(&s[i]);
        cudaMalloc((void **)&buf[i], sizeof(int));
        *buf[i] = 10 + i;
    }
    cr_assert_eq(ncclGroupStart(), ncclSuccess);
    for (int i = 0; i < 2; i++)
        ncclAllReduce(buf[i], buf[i], 1, ncclInt32, ncclSum, comms[i], s[i]);
    cr_assert_eq(ncclGroupEnd(), ncclSuccess);
    for (int i = 0; i < 2; i++)
        cudaStreamSynchronize(s[i]);
    cr_expect_eq(*buf[0], 21);
    cr_expect_eq(*buf[1], 21);
    int version = 0;
    ncclGetVersion(&version);
    cr_expect_eq(version, NCCL_VERSION_CODE);
    for (int i = 0; i < 2; i++)
        cr_expect_eq(ncclCommDestroy(comms[i]), ncclSuccess);
}

static int nccl_records(int rank, int n)
{
    ncclComm_t c = init_comm(rank, n);
    FAIL_IF(!c);
    float *buf = dev_floats(64, val, rank);
    tu_cupti_start(64 * 1024);
    cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, 77);
    ncclAllGather(buf, dev_floats(64 * (size_t)n, NULL, rank), 64, ncclFloat32, c, 0);
    cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM1, NULL);
    cudaDeviceSynchronize();
    struct tu_records r;
    tu_cupti_flush(&r);
    uint32_t ext_corr = 0, drv_corr = 0, k_corr = 1;
    for (size_t i = 0; i < r.n; i++) {
        if (r.rec[i]->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
            ((CUpti_ActivityExternalCorrelation *)r.rec[i])->externalId == 77)
            ext_corr = ((CUpti_ActivityExternalCorrelation *)r.rec[i])->correlationId;
        if (r.rec[i]->kind == CUPTI_ACTIVITY_KIND_DRIVER &&
            ((CUpti_ActivityAPI *)r.rec[i])->cbid == CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx)
            drv_corr = ((CUpti_ActivityAPI *)r.rec[i])->correlationId;
        if (r.rec[i]->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            FAIL_IF(strcmp(((CUpti_ActivityKernel10 *)r.rec[i])->name, "ncclDevKernel_AllGather_RING_LL") != 0);
            k_corr = ((CUpti_ActivityKernel10 *)r.rec[i])->correlationId;
        }
    }
    FAIL_IF(!ext_corr || ext_corr != drv_corr || drv_corr != k_corr);
    return 0;
}

Test(sim_nccl, kernels_are_attributed_through_external_correlation)
{
    cr_expect_eq(tu_run_ranks(2, nccl_records), 0);
}
