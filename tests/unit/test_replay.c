/* test_replay.c: the dependency graph replay (viewer/analyse/replay.c) on
 * fixed graphs: as measured it gives the measured times back; a sync
 * removed lets the host run ahead only as far as the GPU lets it; an
 * event wait orders two streams; an operation moved to a stream of its
 * own overlaps; a delay the graph does not explain is capped. */
#include "viewer/analyse/replay.h"

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>

static struct rp_times times(const struct rp_graph *g)
{
    struct rp_times t = { calloc(g->ncalls, 8), calloc(g->ncalls, 8), calloc(g->nops + 1, 8), calloc(g->nops + 1, 8),
                          NULL, NULL, NULL };
    return t;
}

static void times_free(struct rp_times *t)
{
    free(t->call_start);
    free(t->call_end);
    free(t->op_start);
    free(t->op_end);
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
static struct rp_graph loop = { calls, 4, ops, 2, waits, 2, 1000, 0 };

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
    struct rp_graph g = { c, 4, o, 3, w, 2, 1000, 0 };
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

Test(replay, unexplained_delay_is_capped)
{
    /* the kernel starts 5000 after its launch with nothing before it: the
     * replay keeps lat_cap of that */
    struct rp_call c[] = { { 0, 5, 0, 0, 0 }, { 10, 7005, 0, 0, 1 } };
    struct rp_op o[] = { { 5000, 7000, 1, 0, { 0 }, 0, 0 } };
    int32_t w[] = { 0 };
    struct rp_graph g = { c, 2, o, 1, w, 1, 1000, 0 };
    struct rp_times t = times(&g);
    cr_assert_eq(rp_replay(&g, NULL, &t), 0);
    cr_expect_eq(t.op_start[0], 1000);
    cr_expect_eq(t.call_end[1], 3005);
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
