/* test_mon_gpu.c: monitor mode's live GPU ledger (collector/mon_gpu.c) on
 * fixed operations: each state's time, idle gaps by cause, the last
 * step's shares, NCCL kernels given to their communicator through
 * CUPTI's external correlation in either order, and bounded tables. */
#include "collector/mon_agg.h"
#include "collector/mon_gpu.h"
#include "format/api_ids.h"
#include "format/schema.h"

#include <criterion/criterion.h>

/* what mon_agg.c takes from the rest of the tracer */
int gt_clock_use_tsc;
int gt_db_begin(struct gt_db *d) { (void)d; return 0; }
int gt_db_commit(struct gt_db *d) { (void)d; return 0; }

#define T0 1000000000LL /* the records' times are after the start of the clock */

static void start(void)
{
    gt_mon_agg_start(NULL, 0);
    gt_mon_gpu_start();
}

/* compute 0-1000; an NCCL kernel 500-1500 (hidden half, exposed half); a
 * 50 ns launch gap; a copy 1550-2000; a 1 ms gap the host was blocked in
 * for its first half; compute 1,002,000-1,003,000 (ns after T0) */
static void plant(void)
{
    gt_mon_gpu_op(GT_GPU_KERNEL, "gemm", T0, T0 + 1000, 1);
    gt_mon_gpu_op(GT_GPU_KERNEL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", T0 + 500, T0 + 1500, 2);
    gt_mon_gpu_op(GT_GPU_MEMCPY, NULL, T0 + 1550, T0 + 2000, 3);
    gt_mon_gpu_op(GT_GPU_KERNEL, "gemm", T0 + 1002000, T0 + 1003000, 4);
    gt_mon_gpu_blocked(T0 + 2000, T0 + 502000);
}

Test(mon_gpu, states_and_idle_causes)
{
    start();
    plant();
    gt_mon_gpu_account(T0 + 1003000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 1500);
    cr_expect_eq(g.ns[GT_MS_COMM_HIDDEN], 500);
    cr_expect_eq(g.ns[GT_MS_COMM_EXPOSED], 500);
    cr_expect_eq(g.ns[GT_MS_COPY], 450);
    cr_expect_eq(g.ns[GT_MS_IDLE_LAUNCH], 50);
    cr_expect_eq(g.ns[GT_MS_IDLE_BLOCKED], 500000);
    cr_expect_eq(g.ns[GT_MS_IDLE_HOST], 500000);
    cr_expect_eq(g.step_len, 0, "no step yet");
}

/* the program's own profiler held CUPTI 200,000-700,000 ns into the 1 ms
 * gap: neither work nor idle, and the idle either side keeps its cause */
Test(mon_gpu, stretch_without_records_is_not_idle)
{
    start();
    plant();
    const int64_t gaps[1][2] = { { T0 + 200000, T0 + 700000 } };
    gt_mon_gpu_unrecorded(gaps, 1);
    gt_mon_gpu_account(T0 + 1003000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_NOT_RECORDED], 500000);
    cr_expect_eq(g.ns[GT_MS_IDLE_BLOCKED], 198000, "blocked 2,000-502,000, recorded to 200,000");
    cr_expect_eq(g.ns[GT_MS_IDLE_HOST], 302000);
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 1500, "work as before");
    cr_expect_eq(g.ns[GT_MS_IDLE_LAUNCH], 50);
}

/* one it still holds (to 0): to the account's end */
Test(mon_gpu, stretch_still_held_runs_to_the_end)
{
    start();
    plant();
    const int64_t gaps[2][2] = { { T0 + 100, T0 + 200 }, { T0 + 602000, 0 } };
    gt_mon_gpu_unrecorded(gaps, 2);
    gt_mon_gpu_account(T0 + 1003000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_NOT_RECORDED], 400000, "602,000-1,002,000: the work after is work");
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 1500, "the first stretch lies under work");
    cr_expect_eq(g.ns[GT_MS_IDLE_BLOCKED] + g.ns[GT_MS_IDLE_HOST], 600000);
}

Test(mon_gpu, accounted_in_parts_the_same)
{
    start();
    plant();
    /* three accounts, one cutting the 1 ms gap 10 ns before its end: that
     * piece is not a launch gap (the gap is long, GPU work does not bound
     * it on the left within the account) */
    gt_mon_gpu_account(T0 + 300000, NULL, 0);
    gt_mon_gpu_account(T0 + 1001990, NULL, 0);
    gt_mon_gpu_account(T0 + 1003000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    int64_t all = 0;
    for (int k = 0; k < GT_MS_COUNT; k++)
        all += g.ns[k];
    cr_expect_eq(all, 1003000, "the span accounted once: %lld", (long long)all);
    cr_expect_eq(g.ns[GT_MS_IDLE_LAUNCH], 50);
    cr_expect_eq(g.ns[GT_MS_IDLE_BLOCKED], 500000);
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 1500);
}

Test(mon_gpu, in_flight_call_counts_as_blocked)
{
    start();
    gt_mon_gpu_op(GT_GPU_KERNEL, "gemm", T0, T0 + 1000, 1);
    int64_t from = T0 + 1000;
    gt_mon_gpu_account(T0 + 5000000, &from, 1);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_IDLE_BLOCKED], 4999000, "a hang in a sync: idle while blocked");
    cr_expect_eq(g.ns[GT_MS_IDLE_HOST], 0);
}

Test(mon_gpu, last_step_shares)
{
    start();
    plant();
    gt_mon_gpu_step(T0, T0 + 2000);
    gt_mon_gpu_step(T0 + 2000, T0 + 2000000); /* not ended by the account: waits */
    gt_mon_gpu_account(T0 + 1003000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.step_len, 2000);
    cr_expect_eq(g.step_ns[GT_MS_COMPUTE], 500);
    cr_expect_eq(g.step_ns[GT_MS_COMM_HIDDEN], 500);
    cr_expect_eq(g.step_ns[GT_MS_COMM_EXPOSED], 500);
    cr_expect_eq(g.step_ns[GT_MS_COPY], 450);
    cr_expect_eq(g.step_ns[GT_MS_IDLE_LAUNCH], 50);
    /* the second step once accounted past its end, its records kept */
    gt_mon_gpu_account(T0 + 2000000, NULL, 0);
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.step_len, 1998000);
    cr_expect_eq(g.step_ns[GT_MS_COMPUTE], 1000);
    cr_expect_eq(g.step_ns[GT_MS_IDLE_BLOCKED], 500000);
}

Test(mon_gpu, steps_faster_than_the_lag)
{
    start();
    plant();
    /* a thousand 2 us steps end before any is accounted, half of them
     * after the time accounted: those that ended before it are */
    for (int i = 0; i < 1000; i++)
        gt_mon_gpu_step(T0 + i * 2000LL, T0 + (i + 1) * 2000LL);
    gt_mon_gpu_account(T0 + 1003000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.step_len, 2000);
}

static struct gt_mon_comm seen;
static void take(const struct gt_mon_comm *c, void *ctx)
{
    (void)ctx;
    seen = *c;
}

Test(mon_gpu, nccl_kernel_to_its_communicator_either_order)
{
    start();
    int slot = gt_mon_agg_collective(0xabc, GT_API_ncclAllReduce, 4, 1000, 0, T0);
    cr_assert_geq(slot, 0);
    gt_mon_gpu_call(77, 0, slot, 1000);
    gt_mon_gpu_xcorr(77, 5);
    gt_mon_gpu_op(GT_GPU_KERNEL, "a_kernel_named_otherwise", T0, T0 + 3000, 5);
    /* the second call's kernel comes before its external correlation */
    gt_mon_gpu_call(78, 0, slot, 1000);
    gt_mon_gpu_op(GT_GPU_KERNEL, "ncclDevKernel_AllReduce", T0 + 4000, T0 + 9000, 6);
    gt_mon_gpu_xcorr(78, 6);
    gt_mon_agg_each_comm(take, NULL);
    cr_expect_eq(seen.comm_id, 0xabc);
    cr_expect_eq(seen.kernels, 2);
    cr_expect_eq(seen.gpu_ns, 8000);
    cr_expect_float_eq(seen.bus_bytes, 2 * 1000 * 1.5, 1e-9, "all-reduce on 4 ranks: 2(n-1)/n");
    cr_expect_eq(seen.bucket[0], 2, "both under 10 us");
    /* the kernel linked to a collective is communication whatever its name */
    gt_mon_gpu_account(T0 + 9000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_COMM_EXPOSED], 8000);
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 0);
}

Test(mon_gpu, bounded)
{
    start();
    for (int i = 0; i < 200000; i++)
        gt_mon_gpu_op(GT_GPU_KERNEL, "k", T0 + i * 10LL, T0 + i * 10LL + 5, (uint32_t)i);
    cr_expect_gt(gt_mon_gpu_lost(), 0, "past its room, records are counted, not kept");
    for (int i = 0; i < 20000; i++)
        gt_mon_gpu_blocked(T0 + i, T0 + i + 1);
    gt_mon_gpu_account(T0 + 3000000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_gt(g.ns[GT_MS_COMPUTE], 0);
    gt_mon_gpu_stop();
}

/* a process whose GPU sends no records (CUPTI off: GPUTRACE_CUPTI=0, or
 * held by another tool) and whose host blocks, a sync each 10 ms step:
 * accounted once a second as the monitor does, nothing is lost however
 * long it runs (its blocking calls were kept until the first GPU
 * operation: past 16,384 of them each one counted a dropped record) */
Test(mon_gpu, blocking_calls_without_gpu_work_are_not_lost)
{
    start();
    const int64_t ms = 1000000;
    for (int64_t i = 0; i < 30000; i++) {
        int64_t t = T0 + i * 10 * ms;
        gt_mon_gpu_blocked(t, t + 2 * ms);
        gt_mon_gpu_step(t, t + 10 * ms);
        if (i % 100 == 99)
            gt_mon_gpu_account(t - GT_MON_GPU_LAG_NS, NULL, 0);
    }
    cr_expect_eq(gt_mon_gpu_lost(), 0, "%llu blocking calls counted lost", (unsigned long long)gt_mon_gpu_lost());
    /* GPU work then: the ledger begins there, as before */
    int64_t t = T0 + 30000 * 10 * ms;
    gt_mon_gpu_op(GT_GPU_KERNEL, "gemm", t, t + 1000, 1);
    gt_mon_gpu_account(t + 1000, NULL, 0);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 1000);
}

/* The ledger's not_recorded and idle.host_busy, as expected. */
static void expect_ledger(int64_t not_recorded, int64_t idle_host)
{
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_NOT_RECORDED], not_recorded, "not recorded: %lld, not %lld",
                 (long long)g.ns[GT_MS_NOT_RECORDED], (long long)not_recorded);
    if (idle_host >= 0)
        cr_expect_eq(g.ns[GT_MS_IDLE_HOST], idle_host, "idle: %lld, not %lld", (long long)g.ns[GT_MS_IDLE_HOST],
                     (long long)idle_host);
}

/* The golden hand-inflight_gap's run, live: a profiler held CUPTI 8.00-
 * 12.00 ms and from 20.50 ms on; the tracer's forced flush at each
 * hand-over lost the records of the work in flight then (K3 and K4,
 * launched at 1.20 and 1.30 ms, running from 7.00; K7, launched at 20.00).
 * Each stretch begins where that work did: 7.00 (the end of the last work
 * recorded, K2's, after the launches) and 20.00 (the launch, after K6's
 * end), not at the hand-over: the GPU was busy, not idle.  The report's
 * ledger of the same run: not_recorded 7.00 ms (5.00 + 2.00 to 22.00 ms),
 * idle 4.20 (host 3.70 in the span: 12.00-12.60, 16.00-19.10, 19.50-20.00
 * less the launch gaps under 100 us, none here), compute 9.70. */
static void inflight_run(int launches)
{
    const int64_t ms = 1000000;
    const int64_t k[][4] = { /* launch, start, end, correlation; start 0: no record */
        { 1000000, 1100000, 4000000, 10 }, { 1100000, 4000000, 7000000, 11 },
        { 1200000, 0, 0, 12 }, { 1300000, 0, 0, 13 },
        { 12500000, 12600000, 16000000, 14 }, { 19000000, 19100000, 19500000, 15 },
        { 20000000, 0, 0, 16 } };
    for (size_t i = 0; i < sizeof k / sizeof *k; i++) {
        if (launches)
            gt_mon_gpu_launch(T0 + k[i][0], (uint32_t)k[i][3]);
        if (k[i][1])
            gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + k[i][1], T0 + k[i][2], (uint32_t)k[i][3]);
    }
    const int64_t gaps[2][2] = { { T0 + 8 * ms, T0 + 12 * ms }, { T0 + 20500000, 0 } };
    gt_mon_gpu_unrecorded(gaps, 2);
}

Test(mon_gpu, stretch_begins_where_work_in_flight_did)
{
    start();
    inflight_run(1);
    gt_mon_gpu_account(T0 + 22000000, NULL, 0);
    expect_ledger(7000000, 4200000);
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    cr_expect_eq(g.ns[GT_MS_COMPUTE], 9700000);
    gt_mon_gpu_stop();
}

/* without the launches' records (CUPTI's API records lost too): each
 * stretch from its hand-over, as before */
Test(mon_gpu, stretch_without_launches_begins_at_the_hand_over)
{
    start();
    inflight_run(0);
    gt_mon_gpu_account(T0 + 22000000, NULL, 0);
    expect_ledger(5500000, 5700000);
    gt_mon_gpu_stop();
}

/* accounted a second at a time as the monitor does (the stretches seen
 * anew at each account, as gt_cupti_gaps gives them), and with the second
 * account cut inside the first stretch's 100 ms before its hand-over: the
 * same ledger, each stretch moved once and kept so */
Test(mon_gpu, stretch_read_back_once_in_parts)
{
    start();
    inflight_run(1);
    const int64_t gaps[2][2] = { { T0 + 8000000, T0 + 12000000 }, { T0 + 20500000, 0 } };
    const int64_t cuts[] = { T0 + 1500000, T0 + 6000000, T0 + 10000000, T0 + 20200000, T0 + 22000000 };
    for (size_t i = 0; i < sizeof cuts / sizeof *cuts; i++) {
        gt_mon_gpu_unrecorded(gaps, 2);
        gt_mon_gpu_account(cuts[i], NULL, 0);
    }
    expect_ledger(7000000, 4200000);
    gt_mon_gpu_stop();
}

/* a launch in flight on another stream, the GPU idle meanwhile: the
 * stretch begins at the end of the last recorded work (7.00), not at the
 * launch (1.20), so the idle 2.00-5.00 stays idle */
Test(mon_gpu, stretch_begins_no_earlier_than_the_last_recorded_end)
{
    start();
    const int64_t ms = 1000000;
    gt_mon_gpu_launch(T0 + 1 * ms, 10);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 1100000, T0 + 2 * ms, 10);
    gt_mon_gpu_launch(T0 + 1200000, 11); /* no record: in flight at 8.00 */
    gt_mon_gpu_launch(T0 + 4900000, 12);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 5 * ms, T0 + 7 * ms, 12);
    const int64_t gaps[1][2] = { { T0 + 8 * ms, T0 + 9 * ms } };
    gt_mon_gpu_unrecorded(gaps, 1);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 9 * ms, T0 + 10 * ms, 13);
    gt_mon_gpu_account(T0 + 10 * ms, NULL, 0);
    expect_ledger(2 * ms, 3 * ms);
    gt_mon_gpu_stop();
}

/* As the monitor runs: the stretch first seen in a pass (its forced
 * flush's records not yet stored: K2's), decided at the next, before the
 * account (2 s behind) comes near it; then a burst of launches after the
 * take-back, more than the launches kept: the read-back stands (decided
 * at the account instead, the window's launches would be gone) */
Test(mon_gpu, stretch_decided_at_the_pass_after_it_is_seen)
{
    start();
    const int64_t ms = 1000000;
    gt_mon_gpu_launch(T0 + 1000000, 10);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 1100000, T0 + 4000000, 10);
    gt_mon_gpu_launch(T0 + 1100000, 11);
    gt_mon_gpu_launch(T0 + 1200000, 12); /* in flight at 8.00: no record ever */
    const int64_t gaps[1][2] = { { T0 + 8 * ms, T0 + 12 * ms } };
    gt_mon_gpu_unrecorded(gaps, 1); /* first seen: K2's record still to come */
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 4000000, T0 + 7000000, 11);
    gt_mon_gpu_unrecorded(gaps, 1); /* the next pass */
    for (uint32_t i = 0; i < 70000; i++) { /* after the take-back, kept apart from the window */
        int64_t t = T0 + 12 * ms + i * 100;
        gt_mon_gpu_launch(t, 1000 + i);
        if (i % 1000 == 0)
            gt_mon_gpu_op(GT_GPU_KERNEL, "K", t + 50, t + 100, 1000 + i);
    }
    gt_mon_gpu_unrecorded(gaps, 1);
    gt_mon_gpu_account(T0 + 12 * ms, NULL, 0);
    expect_ledger(5 * ms, -1);
    gt_mon_gpu_stop();
}

/* where records were lost (CUPTI's drops, or the ledger's table full), a
 * launch without a record says nothing: no read-back */
Test(mon_gpu, nothing_read_back_where_records_were_dropped)
{
    start();
    gt_mon_gpu_cupti_dropped(3); /* as the monitor's pass gives it, before the stretches */
    inflight_run(1);
    gt_mon_gpu_account(T0 + 22000000, NULL, 0);
    expect_ledger(5500000, -1);
    gt_mon_gpu_stop();

    start();
    const int64_t ms = 1000000;
    for (int i = 0; i < 65536; i++) /* the table's room, each 10 ns */
        gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + i * 10, T0 + i * 10 + 10, (uint32_t)(100000 + i));
    gt_mon_gpu_launch(T0 + 1 * ms, 10);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 1 * ms, T0 + 2 * ms, 10); /* no room: lost */
    const int64_t gaps[1][2] = { { T0 + 3 * ms, T0 + 4 * ms } };
    gt_mon_gpu_unrecorded(gaps, 1);
    gt_mon_gpu_account(T0 + 4 * ms, NULL, 0);
    expect_ledger(1 * ms, -1);
    gt_mon_gpu_stop();
}

/* nothing in flight: K1's record comes in the forced flush's buffers,
 * stored after the pass that first saw the stretch.  Decided then, K1's
 * launch would read as lost and the idle 5.00-8.00 as not recorded */
Test(mon_gpu, stretch_not_decided_before_its_flush_is_stored)
{
    start();
    const int64_t ms = 1000000;
    gt_mon_gpu_launch(T0 + 50000, 9);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 100000, T0 + 500000, 9);
    gt_mon_gpu_launch(T0 + 1 * ms, 10);
    const int64_t gaps[1][2] = { { T0 + 8 * ms, T0 + 9 * ms } };
    gt_mon_gpu_unrecorded(gaps, 1);
    gt_mon_gpu_op(GT_GPU_KERNEL, "K", T0 + 1100000, T0 + 5 * ms, 10);
    gt_mon_gpu_unrecorded(gaps, 1);
    gt_mon_gpu_account(T0 + 9 * ms, NULL, 0);
    expect_ledger(1 * ms, 3600000);
    gt_mon_gpu_stop();
}
