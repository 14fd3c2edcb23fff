/* test_replay.c: the dependency graph replay (viewer/analyse/replay.c) on
 * fixed graphs: as measured it gives the measured times back; a sync
 * removed lets the host run ahead only as far as the GPU lets it; an
 * event wait orders two streams; an operation moved to a stream of its
 * own overlaps; a delay the graph does not explain is capped.  And the
 * ranks' summaries replayed together (whatif_joint.c): a collective ends
 * when its last member arrived plus its transfer, and a straggler's host
 * time cut moves every rank. */
#include "viewer/analyse/replay.h"
#include "viewer/analyse/whatif_joint.h"
#include "viewer/model/tmpstore.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

void model_out_of_memory(void)
{
    abort();
}

static struct rp_times times(const struct rp_graph *g)
{
    struct rp_times t = { calloc(g->ncalls, 8), calloc(g->ncalls, 8), calloc(g->nops + 1, 8), calloc(g->nops + 1, 8),
                          NULL, NULL, NULL, NULL, calloc(g->nops + 1, 8) };
    return t;
}

static void times_free(struct rp_times *t)
{
    free(t->call_start);
    free(t->call_end);
    free(t->op_start);
    free(t->op_end);
    free(t->op_unexpl);
}

/* a loop of two steps: launch a kernel, read its result (a sync), 100 ns
 * of host work, again */
static struct rp_call calls[] = {
    { 0, 10, 0, 0, 0 },       /* launch K1 */
    { 20, 1005, 0, 0, 1 },    /* sync: waits for K1 (ended 1000), returns 5 later */
    { 1105, 1115, 0, 0, 0 },  /* launch K2 */
    { 1120, 2120, 0, 1, 1 },  /* sync: waits for K2 */
};
static struct rp_op ops[] = {
    { 10, 1000, 1, 0, { 0 }, 0, 0 },
    { 1115, 2115, 1, 2, { 0 }, 0, 0 },
};
static int32_t waits[] = { 0, 1 };
static struct rp_graph loop = { calls, 4, ops, 2, waits, 2, 1000, 0, 0, NULL };

Test(replay, as_measured_gives_the_measured_times)
{
    struct rp_times t = times(&loop);
    cr_assert_eq(rp_replay(&loop, NULL, &t), 0);
    for (size_t i = 0; i < loop.ncalls; i++) {
        cr_expect_eq(t.call_start[i], calls[i].start, "call %zu", i);
        cr_expect_eq(t.call_end[i], calls[i].end, "call %zu", i);
    }
    for (size_t i = 0; i < loop.nops; i++)
        cr_expect_eq(t.op_end[i], ops[i].end, "op %zu", i);
    times_free(&t);
}

Test(replay, a_removed_sync_runs_ahead_as_far_as_the_gpu_lets_it)
{
    struct rp_times t = times(&loop);
    uint8_t mode[4] = { 0, RP_REMOVE, 0, 0 };
    struct rp_fix fx = { .call_mode = mode };
    cr_assert_eq(rp_replay(&loop, &fx, &t), 0);
    /* the host reaches K2's launch at 20 + 100, but K2 waits for K1 */
    cr_expect_eq(t.call_start[2], 120);
    cr_expect_eq(t.op_start[1], 1000);
    cr_expect_eq(t.op_end[1], 2000);
    cr_expect_eq(t.call_end[3], 2005, "the last sync ends when K2 does, and returns as measured");
    /* the same with the sync made not to wait: its own 5 ns stay */
    mode[1] = RP_NO_WAIT;
    cr_assert_eq(rp_replay(&loop, &fx, &t), 0);
    cr_expect_eq(t.call_start[2], 125);
    times_free(&t);
}

/* The loop read in two windows, cut after the first sync: the second
 * window's graph has the first's kernel as a ghost (its stream's last),
 * the threads' and streams' state carried. */
static struct rp_graph w1 = { calls, 2, ops, 1, waits, 1, 1000, 0, 0, NULL };
static struct rp_call c2[] = { { 1105, 1115, 0, 0, 0 }, { 1120, 2120, 0, 0, 1 } };
static struct rp_op o2[] = { { 10, 1000, 1, -1, { 0 }, 0, 0 }, { 1115, 2115, 1, 0, { 0 }, 0, 0 } };
static int32_t w2waits[] = { 1 };
static struct rp_graph w2 = { c2, 2, o2, 2, w2waits, 1, 1000, 0, 1, NULL };

/* With the first sync removed it replays as the whole graph does
 * (a_removed_sync_runs_ahead...). */
Test(replay, a_graph_read_in_windows_replays_as_if_whole)
{
    struct rp_carry c = { 0 };
    struct rp_times t1 = times(&w1), t2 = times(&w2);
    uint8_t mode1[2] = { 0, RP_REMOVE };
    struct rp_fix fx1 = { .call_mode = mode1 };
    cr_assert_eq(rp_replay_carry(&w1, &fx1, &t1, &c), 0);
    t2.op_start[0] = t1.op_start[0]; /* the ghost's times, the caller's to carry */
    t2.op_end[0] = t1.op_end[0];
    cr_assert_eq(rp_replay_carry(&w2, NULL, &t2, &c), 0);
    cr_expect_eq(t2.call_start[0], 120, "the host ran ahead from the first window's removed sync");
    cr_expect_eq(t2.op_start[1], 1000, "K2 waits for the first window's K1 on its stream");
    cr_expect_eq(t2.op_end[1], 2000);
    cr_expect_eq(t2.call_end[1], 2005);
    rp_carry_free(&c);
    times_free(&t1);
    times_free(&t2);
}

/* A stream's last operation, carried as the next window's ghost (the
 * caller renumbers it): the stream's next operation is said to follow it,
 * so that a path back from it goes on into the window before
 * (whatif_paths.c); unknown, it is said to follow nothing. */
Test(replay, a_streams_next_operation_follows_its_last_across_a_cut)
{
    for (int known = 0; known < 2; known++) {
        struct rp_carry c = { 0 };
        struct rp_times t1 = times(&w1), t2 = times(&w2);
        int32_t by[2] = { 7, 7 }, prev[2] = { 7, 7 };
        t2.op_by = by;
        t2.op_prev = prev;
        uint8_t mode1[2] = { 0, RP_REMOVE }; /* the host runs ahead: K2 waits for K1 on its stream */
        struct rp_fix fx1 = { .call_mode = mode1 };
        cr_assert_eq(rp_replay_carry(&w1, &fx1, &t1, &c), 0);
        cr_assert_eq(c.nstr, 1);
        cr_expect_eq(c.str[0].last, 0, "exported: the window's operation");
        c.str[0].last = known ? 0 : -1; /* the ghost it is made, or none */
        t2.op_start[0] = t1.op_start[0];
        t2.op_end[0] = t1.op_end[0];
        cr_assert_eq(rp_replay_carry(&w2, NULL, &t2, &c), 0);
        cr_expect_eq(t2.op_start[1], 1000, "the times are the same either way");
        cr_expect_eq(t2.op_by[1], known ? 0 : -1);
        cr_expect_eq(t2.op_prev[1], known ? 0 : -1);
        rp_carry_free(&c);
        times_free(&t1);
        times_free(&t2);
    }
}

Test(replay, event_wait_orders_streams_and_moving_an_op_overlaps)
{
    /* K1 on stream 1 (0-1000); a copy on stream 1 behind it (1000-1500);
     * K2 on stream 2 waits for the copy (event); a device sync */
    struct rp_call c[] = {
        { 0, 5, 0, 0, 0 }, { 10, 15, 0, 0, 0 }, { 20, 25, 0, 0, 0 }, { 30, 2505, 0, 0, 2 },
    };
    struct rp_op o[] = {
        { 5, 1000, 1, 0, { 0 }, 0, 0 },
        { 1000, 1500, 1, 1, { 0 }, 0, 0 },
        { 1500, 2500, 2, 2, { 1 }, 1, 0 },
    };
    int32_t w[] = { 1, 2 };
    struct rp_graph g = { c, 4, o, 3, w, 2, 1000, 0, 0, NULL };
    struct rp_times t = times(&g);
    cr_assert_eq(rp_replay(&g, NULL, &t), 0);
    cr_expect_eq(t.op_start[2], 1500);
    cr_expect_eq(t.call_end[3], 2505);
    /* the copy on a stream of its own: it starts at once, K2 still waits for it */
    int64_t st[3] = { INT64_MIN, 99, INT64_MIN };
    struct rp_fix fx = { .op_stream = st };
    cr_assert_eq(rp_replay(&g, &fx, &t), 0);
    cr_expect_eq(t.op_start[1], 10);
    cr_expect_eq(t.op_start[2], 510);
    cr_expect_eq(t.call_end[3], 1515, "K2 ends at 1510; the sync returns 5 after");
    /* ... and twice as fast */
    float sc[3] = { 0, 0.5f, 0 };
    fx.op_scale = sc;
    cr_assert_eq(rp_replay(&g, &fx, &t), 0);
    cr_expect_eq(t.op_end[1], 260);
    times_free(&t);
}

/* PyTorch's backward pass: the main thread (1) launches the forward
 * kernel, waits for the last step's result (a sync), then hands over to
 * the autograd thread (2), which launches 100 ns later and hands back
 * 100 ns after its launch; the main thread then launches again.  Thread
 * 2's gaps are waiting, not work: with the sync removed, its launch
 * moves with the main thread's, and the main thread's next with it.
 * NCCL's watchdog (3) queries an event just before, enqueueing nothing:
 * it wakes no one. */
static struct rp_call hand_calls[] = {
    { 0, 10, 2, 0, 0 },        /* 0: thread 2's previous launch (an earlier step's) */
    { 20, 30, 1, 0, 0 },       /* 1: main: launch F */
    { 40, 1040, 1, 0, 1 },     /* 2: main: sync, waits for F (ends 1030) */
    { 1050, 1060, 1, 0, 0 },   /* 3: main: launch F2 */
    { 1155, 1158, 3, 0, 0 },   /* 4: watchdog: an event query, no work */
    { 1160, 1170, 2, 0, 0 },   /* 5: autograd: launch B, 100 after 3 */
    { 1270, 1280, 1, 0, 0 },   /* 6: main: launch O, 100 after 5 */
};
static struct rp_op hand_ops[] = {
    { 10, 20, 1, 0, { 0 }, 0, 0 },
    { 30, 1030, 1, 1, { 0 }, 0, 0 },
    { 1060, 1070, 1, 3, { 0 }, 0, 0 },
    { 1170, 1180, 1, 5, { 0 }, 0, 0 },
    { 1280, 1290, 1, 6, { 0 }, 0, 0 },
};
static int32_t hand_waits[] = { 1 };

Test(replay, a_thread_another_woke_moves_with_it)
{
    struct rp_graph g = { hand_calls, 7, hand_ops, 5, hand_waits, 1, 1000, 0, 0, NULL };
    cr_assert_eq(rp_wakes(&g, NULL), 0);
    cr_expect_eq(g.wake[5], 3, "the autograd thread's launch woken by the main thread's");
    cr_expect_eq(g.wake[6], 5, "the main thread's launch woken by the autograd thread's");
    cr_expect_eq(g.wake[3], -1, "a call right after its own thread's: not woken");
    cr_expect_eq(g.wake[4], -1);
    cr_expect_eq(g.wake[1], 0 - 1, "thread 2's call ended 10 before, in no gap of thread 1's");
    struct rp_times t = times(&g);
    t.call_prev = calloc(7, sizeof *t.call_prev);
    cr_assert_eq(rp_replay(&g, NULL, &t), 0);
    for (size_t i = 0; i < 7; i++)
        cr_expect_eq(t.call_start[i], hand_calls[i].start, "as measured: call %zu", i);
    cr_expect_eq(t.call_prev[6], 5, "the host's time before it counted from the call that woke it");
    uint8_t mode[7] = { 0, 0, RP_REMOVE, 0, 0, 0, 0 };
    struct rp_fix fx = { .call_mode = mode };
    cr_assert_eq(rp_replay(&g, &fx, &t), 0);
    cr_expect_eq(t.call_start[3], 50, "the main thread 1000 ahead");
    cr_expect_eq(t.call_start[5], 160, "the autograd thread's launch with it");
    cr_expect_eq(t.call_start[6], 270, "and the main thread's next after it");
    /* without the wakes, the autograd thread's gap pinned it where it was */
    free(g.wake);
    g.wake = NULL;
    cr_assert_eq(rp_replay(&g, &fx, &t), 0);
    cr_expect_eq(t.call_start[5], 1160);
    free(t.call_prev);
    times_free(&t);
}

/* The same loop read in two windows, cut between the main thread's launch
 * (3) and the autograd thread's launch it woke (5): the first window's
 * replay carries the calls that may wake one in the next (rp_carry's
 * wk), and the wake, and so the fix's gain, is kept across the cut (it
 * was lost: the autograd thread went back to its measured shift). */
Test(replay, a_wake_across_a_cut_is_kept)
{
    static struct rp_call c1[] = { { 0, 10, 2, 0, 0 }, { 20, 30, 1, 0, 0 }, { 40, 1040, 1, 0, 1 }, { 1050, 1060, 1, 0, 0 } };
    static struct rp_op o1[] = { { 10, 20, 1, 0, { 0 }, 0, 0 }, { 30, 1030, 1, 1, { 0 }, 0, 0 },
                                 { 1060, 1070, 1, 3, { 0 }, 0, 0 } };
    static int32_t w1[] = { 1 };
    static struct rp_call c2[] = { { 1155, 1158, 3, 0, 0 }, { 1160, 1170, 2, 0, 0 }, { 1270, 1280, 1, 0, 0 } };
    static struct rp_op o2[] = { { 1170, 1180, 1, 1, { 0 }, 0, 0 }, { 1280, 1290, 1, 2, { 0 }, 0, 0 } };
    struct rp_graph g1 = { c1, 4, o1, 3, w1, 1, 1000, 0, 0, NULL }, g2 = { c2, 3, o2, 2, NULL, 0, 1000, 0, 0, NULL };
    uint8_t mode[4] = { 0, 0, RP_REMOVE, 0 };
    struct rp_fix fx = { .call_mode = mode };
    for (int carried = 1; carried >= 0; carried--) {
        struct rp_carry rc = { 0 };
        struct rp_times t1 = times(&g1), t2 = times(&g2);
        cr_assert_eq(rp_wakes(&g1, NULL), 0);
        cr_assert_eq(rp_replay_carry(&g1, &fx, &t1, &rc), 0);
        cr_expect_eq(t1.call_start[3], 50, "the main thread 1000 ahead");
        cr_assert_eq(rp_wakes(&g2, carried ? &rc : NULL), 0);
        cr_assert_eq(rp_replay_carry(&g2, NULL, &t2, &rc), 0);
        if (carried) {
            cr_expect_lt(g2.wake[1], -1, "woken by a call of the window before");
            cr_expect_eq(g2.wake[2], 1);
            cr_expect_eq(t2.call_start[1], 160, "the autograd thread's launch with the main thread's, as read whole");
            cr_expect_eq(t2.call_start[2], 270);
        } else {
            cr_expect_eq(t2.call_start[1], 1160, "without it, pinned where it was");
        }
        free(g1.wake);
        free(g2.wake);
        g1.wake = g2.wake = NULL;
        rp_carry_free(&rc);
        times_free(&t1);
        times_free(&t2);
    }
}

/* A call woken by another thread still waits for its own thread's
 * previous call, and a thread busy through its gap (the other's call in
 * its earlier half, or too long before) is not woken. */
Test(replay, a_wake_needs_the_later_half_of_a_gap)
{
    static struct rp_call c[] = {
        { 0, 10, 1, 0, 0 },      /* 0: thread 1 */
        { 20, 30, 2, 0, 0 },     /* 1: thread 2 launches, early in thread 1's gap */
        { 900, 910, 1, 0, 0 },   /* 2: thread 1, 870 after it: its own work */
        { 1000, 1010, 2, 0, 0 }, /* 3: thread 2 launches */
        { 1000000, 1000010, 1, 0, 0 }, /* 4: thread 1, 998,990 after: too long */
    };
    static struct rp_op o[] = { { 30, 40, 1, 1, { 0 }, 0, 0 }, { 1010, 1020, 1, 3, { 0 }, 0, 0 } };
    struct rp_graph g = { c, 5, o, 2, NULL, 0, 1000, 0, 0, NULL };
    cr_assert_eq(rp_wakes(&g, NULL), 0);
    cr_expect_eq(g.wake[2], -1);
    cr_expect_eq(g.wake[4], -1);
    free(g.wake);
}

/* The waker is found however many calls of other threads came between:
 * the main thread's blocking copy (it enqueues the copy) ran long and
 * ended 200 before the autograd thread's launch, while a watchdog polled
 * 100 times, enqueueing nothing (the 64 calls looked back once missed it). */
Test(replay, a_waker_far_back_in_calls_is_found)
{
    enum { POLLS = 100, N = POLLS + 3 };
    struct rp_call c[N];
    c[0] = (struct rp_call){ 0, 10, 2, 0, 0 };        /* thread 2's previous launch */
    c[1] = (struct rp_call){ 20, 100000, 1, 0, 0 };   /* main: a blocking copy, 100 us */
    for (int i = 0; i < POLLS; i++)                   /* watchdog: queries */
        c[2 + i] = (struct rp_call){ 1000 + 10 * i, 1005 + 10 * i, 3, 0, 0 };
    c[N - 1] = (struct rp_call){ 100200, 100210, 2, 0, 0 }; /* autograd: launch */
    static struct rp_op o[] = { { 30, 99990, 1, 1, { 0 }, 0, 0 }, { 100210, 100220, 1, N - 1, { 0 }, 0, 0 },
                                { 10, 20, 1, 0, { 0 }, 0, 0 } };
    struct rp_graph g = { c, N, o, 3, NULL, 0, 1000, 0, 0, NULL };
    cr_assert_eq(rp_wakes(&g, NULL), 0);
    cr_expect_eq(g.wake[N - 1], 1, "woken by the copy %d calls back", N - 2);
    for (int i = 2; i < N - 1; i++)
        cr_expect_eq(g.wake[i], -1);
    free(g.wake);
}

Test(replay, unexplained_delay_is_capped)
{
    /* the kernel starts 5000 after its launch with nothing before it: the
     * replay keeps lat_cap of that */
    struct rp_call c[] = { { 0, 5, 0, 0, 0 }, { 10, 7005, 0, 0, 1 } };
    struct rp_op o[] = { { 5000, 7000, 1, 0, { 0 }, 0, 0 } };
    int32_t w[] = { 0 };
    struct rp_graph g = { c, 2, o, 1, w, 1, 1000, 0, 0, NULL };
    struct rp_times t = times(&g);
    cr_assert_eq(rp_replay(&g, NULL, &t), 0);
    cr_expect_eq(t.op_start[0], 1000);
    cr_expect_eq(t.call_end[1], 3005);
    /* what it could not explain: 5000 after the launch, less the 1000 kept */
    cr_expect_eq(t.op_unexpl[0], 4000);
    times_free(&t);
}

Test(replay, a_start_its_stream_decided_is_explained)
{
    /* K2 is launched at 10 and starts at 3000, when K1 (launched at 0,
     * started at 5, 2995 long) ended: its stream explains the wait */
    struct rp_call c[] = { { 0, 5, 0, 0, 0 }, { 10, 15, 0, 0, 0 }, { 20, 4005, 0, 0, 1 } };
    struct rp_op o[] = { { 5, 3000, 1, 0, { 0 }, 0, 0 }, { 3000, 4000, 1, 1, { 0 }, 0, 0 } };
    int32_t w[] = { 1 };
    struct rp_graph g = { c, 3, o, 2, w, 1, 1000, 0, 0, NULL };
    struct rp_times t = times(&g);
    t.op_unexpl[1] = -1; /* written by the replay */
    cr_assert_eq(rp_replay(&g, NULL, &t), 0);
    cr_expect_eq(t.op_start[1], 3000);
    cr_expect_eq(t.op_unexpl[0], 0);
    cr_expect_eq(t.op_unexpl[1], 0);
    times_free(&t);
}

Test(replay, time_mapping_follows_the_thread)
{
    struct rp_times t = times(&loop);
    uint8_t mode[4] = { 0, RP_REMOVE, 0, 0 };
    struct rp_fix fx = { .call_mode = mode };
    cr_assert_eq(rp_replay(&loop, &fx, &t), 0);
    uint32_t idx[] = { 0, 1, 2, 3 };
    cr_expect_eq(rp_map_time(&loop, &t, idx, 4, 0), 0, "before any call");
    cr_expect_eq(rp_map_time(&loop, &t, idx, 4, 3000), 3000 - 115, "after the last: its shift");
    times_free(&t);
}

struct path { int kind[32]; int32_t index[32]; int64_t ns[32]; int n; int64_t sum; };
static void on_path(void *ctx, int kind, int32_t index, int64_t a, int64_t b)
{
    struct path *p = ctx;
    int64_t ns = b - a;
    if (p->n < 32) {
        p->kind[p->n] = kind;
        p->index[p->n] = index;
        p->ns[p->n] = ns;
        p->n++;
    }
    p->sum += ns;
}

Test(replay, critical_path_covers_the_span_from_the_end_back)
{
    struct rp_times t = times(&loop);
    int32_t by_op[2], by_call[4], prev[4];
    t.op_by = by_op;
    t.call_by = by_call;
    t.call_prev = prev;
    cr_assert_eq(rp_replay(&loop, NULL, &t), 0);
    struct path p = { 0 };
    rp_critical(&loop, &t, RP_PATH_CALL, 3, 0, on_path, &p);
    /* the last sync's return, K2, its launch, the host's 100 ns, the first
     * sync's return, K1, its launch: the whole 2120 ns */
    cr_expect_eq(p.sum, 2120);
    cr_assert_geq(p.n, 7);
    int want[] = { RP_PATH_CALL, RP_PATH_OP, RP_PATH_LAUNCH, RP_PATH_HOST, RP_PATH_CALL, RP_PATH_OP, RP_PATH_LAUNCH };
    for (int i = 0; i < 7; i++)
        cr_expect_eq(p.kind[i], want[i], "element %d", i);
    cr_expect_eq(p.ns[1], 1000, "K2 on the path whole");
    cr_expect_eq(p.ns[3], 100, "the host's time between the syncs");
    /* from t0 = 1500 on, only the part after it */
    struct path q = { 0 };
    rp_critical(&loop, &t, RP_PATH_CALL, 3, 1500, on_path, &q);
    /* from K2's end: the same less the last sync's return */
    struct path r = { 0 };
    rp_critical(&loop, &t, RP_PATH_OP, 1, 0, on_path, &r);
    cr_expect_eq(r.sum, 2115);
    cr_expect_eq(q.sum, 620);
    times_free(&t);
}

/* Two ranks, three steps of a collective each: rank 0 reaches each 2 ns
 * of GPU work after the last one ended; rank 1, the straggler, when its
 * host gets there, 10 ns a step of which 8 are in the range tracked.  As
 * measured rank 0's kernels wait (10, 8, 8 ns), then transfer for 2 ns as
 * rank 1's do. */
static struct wj_probe fast[5], slow[5];
static struct wj_member mem[6];
static struct wj_group grp[3];

static void two_ranks(struct wj_rank *r0, struct wj_rank *r1)
{
    int64_t dur0[] = { 10, 8, 8 };
    for (int k = 0; k < 3; k++) {
        fast[k] = (struct wj_probe){ .at = 2 + 10 * k + 2 * (k > 0), .dur = dur0[k], .coll = k };
        if (k == 0)
            fast[k].host = (struct wj_pred){ 2, { 0 }, 1 };
        else
            fast[k].pred[fast[k].npred++] = (struct wj_pred){ 2, { 0 }, k - 1 };
        slow[k] = (struct wj_probe){ .at = 10 * (k + 1), .dur = 2, .coll = k,
                                     .host = { 10 * (k + 1), { 8 * (k + 1), 0 }, 1 } };
        mem[2 * k] = (struct wj_member){ 0, k, 2, 0, 0 }; /* the transfer: its time less its wait */
        mem[2 * k + 1] = (struct wj_member){ 1, k, 2, 0, 0 };
        grp[k] = (struct wj_group){ (size_t)(2 * k), 2, 12 + 10 * k };
    }
    /* the steps: from the start to the last collective's end */
    for (int r = 0; r < 2; r++) {
        struct wj_probe *v = r ? slow : fast;
        v[3] = (struct wj_probe){ .at = 0, .host = { 0, { 0 }, 1 }, .coll = -1 };
        v[4] = (struct wj_probe){ .at = 32, .pred = { { 0, { 0 }, 2 } }, .npred = 1, .coll = -1 };
    }
    *r0 = (struct wj_rank){ .v = fast, .ncoll = 3, .label = { 7, -1 }, .steps = 3 };
    *r1 = (struct wj_rank){ .v = slow, .ncoll = 3, .label = { 7, -1 }, .steps = 3 };
}

Test(joint, as_measured_gives_the_measured_steps)
{
    struct wj_rank r0, r1;
    two_ranks(&r0, &r1);
    const struct wj_rank *rv[] = { &r0, &r1 };
    double step[2];
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, NULL, step), 0);
    cr_expect_float_eq(step[0], 32.0 / 3, 1e-9);
    cr_expect_float_eq(step[1], 32.0 / 3, 1e-9);
}

Test(joint, the_stragglers_host_cut_moves_every_rank)
{
    struct wj_rank r0, r1;
    two_ranks(&r0, &r1);
    const struct wj_rank *rv[] = { &r0, &r1 };
    double cut[2 * WJ_LABELS] = { [WJ_LABELS] = 1 }, step[2]; /* rank 1's first range */
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, cut, step), 0);
    /* rank 1 arrives at 2, 4, 6; each collective ends 2 after the later
     * member: 4, 8, 12 (rank 0 the later from the second on) */
    cr_expect_float_eq(step[0], 4.0, 1e-9);
    cr_expect_float_eq(step[1], 4.0, 1e-9);
    /* half the cut: rank 1 at 6, 12, 18; ends 8, 14, 20 */
    double half[2 * WJ_LABELS] = { [WJ_LABELS] = 0.5 };
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, half, step), 0);
    cr_expect_float_eq(step[0], 20.0 / 3, 1e-9);
}

/* A rank's cuts in both its tracked ranges add up: rank 1's 8 ns of host
 * time a step split 4 and 4 between them (a data loader's wait and the
 * forward's host work, say), each cut by its own finding.  Before, a rank
 * took one range's cut (its first finding's), so that a small finding
 * found first (a GPU idle in log_loss) kept a large one's from the job's
 * prediction. */
Test(joint, cuts_in_two_ranges_of_a_rank_add_up)
{
    struct wj_rank r0, r1;
    two_ranks(&r0, &r1);
    struct wj_probe split[5];
    for (int k = 0; k < 5; k++) {
        split[k] = slow[k];
        split[k].host.host[0] = split[k].host.host[1] = slow[k].host.host[0] / 2;
    }
    r1.v = split;
    r1.label[1] = 9;
    const struct wj_rank *rv[] = { &r0, &r1 };
    double step[2], one[2 * WJ_LABELS] = { [WJ_LABELS] = 1 };
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, one, step), 0);
    /* half its host time gone: as the straggler's half cut above */
    cr_expect_float_eq(step[0], 20.0 / 3, 1e-9);
    double both[2 * WJ_LABELS] = { [WJ_LABELS] = 1, [WJ_LABELS + 1] = 1 };
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, both, step), 0);
    cr_expect_float_eq(step[0], 4.0, 1e-9);
    cr_expect_float_eq(step[1], 4.0, 1e-9);
}

Test(joint, a_rank_not_replayed_keeps_its_measured_arrivals)
{
    struct wj_rank r0, r1;
    two_ranks(&r0, &r1);
    const struct wj_rank *rv[] = { &r0, NULL };
    struct wj_member m2[6];
    for (int i = 0; i < 6; i++) {
        m2[i] = mem[i];
        if (i % 2) /* rank 1 read a window at a time: its measured arrivals stand */
            m2[i] = (struct wj_member){ -1, -1, 2, 0, 10 * (i / 2 + 1) };
    }
    double step[2];
    cr_assert_eq(wj_solve(rv, 2, m2, grp, 3, NULL, step), 0);
    cr_expect_float_eq(step[0], 32.0 / 3, 1e-9);
    cr_expect_float_eq(step[1], -1, 1e-9);
}

/* A rank's probes put aside in the scratch store, a window's at a time
 * (whatif.c: a rank read a window at a time): read back by index, across
 * chunks, the same steps solved. */
Test(joint, probes_put_aside_solve_as_in_memory)
{
    struct wj_rank r0, r1;
    two_ranks(&r0, &r1);
    struct tmpstore store;
    tmpstore_open(&store);
    int64_t ends[3];
    for (int k = 0; k < 3; k++)
        ends[k] = fast[k].at + fast[k].dur;
    struct wj_rank a = { .v = malloc(3 * sizeof *a.v), .ncoll = 2, .ends = ends, .label = { 7, -1 }, .steps = 3 };
    memcpy(a.v, fast, 2 * sizeof *a.v);
    wj_spill(&a, &store); /* a first window's two */
    a.v[0] = fast[2];
    a.ncoll = 3;
    wj_spill(&a, &store); /* ... and a second's one */
    cr_assert_eq(a.nchunks, 2);
    cr_assert_eq(a.nspilled, 3);
    a.v[0] = fast[3]; /* the steps' probes stay */
    a.v[1] = fast[4];
    struct wj_cache c = { 0 };
    for (size_t k = 5; k-- > 0;) /* backwards: each chunk read again */
        cr_expect_eq(memcmp(wj_probe_at(&a, &c, k), &fast[k], sizeof fast[k]), 0, "probe %zu", k);
    wj_cache_free(&c);
    const struct wj_rank *rv[] = { &a, &r1 };
    double step[2], cut[2 * WJ_LABELS] = { [WJ_LABELS] = 1 };
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, NULL, step), 0);
    cr_expect_float_eq(step[0], 32.0 / 3, 1e-9);
    cr_assert_eq(wj_solve(rv, 2, mem, grp, 3, cut, step), 0);
    cr_expect_float_eq(step[0], 4.0, 1e-9);
    cr_expect_float_eq(step[1], 4.0, 1e-9);
    free(a.v);
    free(a.chunks);
    tmpstore_close(&store);
}

/* One cache read for two ranks in turn, each put aside as one chunk from
 * probe 0: each read gives that rank's probe, never the other's held in
 * the cache (whatif_job.c's members_of once read rank 1's collectives
 * through rank 0's chunk). */
Test(joint, a_cache_read_for_two_ranks_gives_each_its_own)
{
    struct wj_rank r0, r1;
    two_ranks(&r0, &r1);
    struct tmpstore store;
    tmpstore_open(&store);
    int64_t ends[5] = { 0 };
    struct wj_rank a = { .v = malloc(5 * sizeof *a.v), .ncoll = 3, .ends = ends, .label = { 7, -1 }, .steps = 3 };
    struct wj_rank b = { .v = malloc(5 * sizeof *b.v), .ncoll = 3, .ends = ends, .label = { 7, -1 }, .steps = 3 };
    memcpy(a.v, fast, 5 * sizeof *a.v);
    memcpy(b.v, slow, 5 * sizeof *b.v);
    for (int k = 0; k < 3; k++)
        b.v[k].coll = 10 + k; /* rank b numbers its collectives otherwise */
    wj_spill(&a, &store);
    wj_spill(&b, &store);
    cr_assert_eq(a.nspilled, 3);
    cr_assert_eq(b.nspilled, 3);
    struct wj_cache c = { 0 };
    for (size_t k = 0; k < 3; k++) {
        cr_expect_eq(wj_probe_at(&a, &c, k)->coll, (int)k, "rank a, probe %zu", k);
        cr_expect_eq(wj_probe_at(&b, &c, k)->coll, 10 + (int)k, "rank b, probe %zu", k);
    }
    wj_cache_free(&c);
    free(a.v);
    free(a.chunks);
    free(b.v);
    free(b.chunks);
    tmpstore_close(&store);
}
