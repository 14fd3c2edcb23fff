/* test_join_clock.c: the parts of the report's join of wrapped calls to
 * CUPTI's API records that do not go by time alone
 * (viewer/read/join_clock.h): the exact join by external correlation id
 * (a blocking call's, an NCCL operation's, an NCCL group's), the offset
 * between the two clocks' conversions that the pairs agree on, by stretch
 * of a thread's calls, and the second chance of a call whose record moved
 * by another stretch's offset.  Records are given in no particular order
 * where the code allows it (CUPTI gives no ordering guarantee), and the
 * clocks skewed by more than the time join's slack. */
#include "tests/unit/join_test_util.h"
#include "viewer/read/load_internal.h"
#include "viewer/model/sort_by_time.h"

#include <criterion/criterion.h>

static struct model m;
static struct proc p;
static struct call calls[16];
static struct cupti_rec recs[16];
static uint8_t exact[16];
static struct sort_key co[16];

static void setup(void)
{
    jt_model(&m);
    memset(&p, 0, sizeof p);
    memset(calls, 0, sizeof calls);
    memset(recs, 0, sizeof recs);
    memset(exact, 0, sizeof exact);
    p.calls = calls;
}

static void teardown(void)
{
    jt_model_free(&m);
}

TestSuite(join_clock, .init = setup, .fini = teardown);

/* The calls' keys in (thread, start) order, as correlate.c makes them. */
static void order_calls(void)
{
    for (size_t i = 0; i < p.ncalls; i++)
        co[i] = (struct sort_key){ calls[i].start, i };
    cr_assert_eq(sort_keys(co, p.ncalls), 0);
    for (size_t i = 0; i < p.ncalls; i++)
        co[i].t = calls[co[i].i].tid;
    cr_assert_eq(sort_keys(co, p.ncalls), 0);
}

Test(join_clock, ext_first_finds_the_first_row_of_an_id)
{
    const struct ext x[] = { { 3, 30 }, { 5, 50 }, { 5, 51 }, { 5, 52 }, { 9, 90 } };
    cr_expect_eq(ext_first(x, 5, 5), &x[1]);
    cr_expect_eq(ext_first(x, 5, 3), &x[0]);
    cr_expect_eq(ext_first(x, 5, 9), &x[4]);
    cr_expect_null(ext_first(x, 5, 4));
    cr_expect_null(ext_first(x, 5, 10));
    cr_expect_null(ext_first(x, 0, 3));
}

/* A call's latest end: its own when known; else the next call's start on
 * its thread; else MATCH_WIDE_NS after its start. */
Test(join_clock, call_end_bound_by_the_next_call_of_its_thread)
{
    calls[0] = jt_call(1, API_LAUNCH, 1, 1000, 1000);
    calls[1] = jt_call(2, API_LAUNCH, 2, 1500, 1500);
    calls[2] = jt_call(1, API_STREAM_SYNC, 3, 3000, 9000);
    calls[3] = jt_call(1, API_LAUNCH, 4, 9500, 9500);
    p.ncalls = 4;
    order_calls(); /* tid 1: 0, 2, 3; tid 2: 1 */
    cr_expect_eq(call_end_bound(&p, co, 0), 3000, "a launch: until the sync after it began");
    cr_expect_eq(call_end_bound(&p, co, 1), 9000, "a blocking call: its own end");
    cr_expect_eq(call_end_bound(&p, co, 2), 9500 + MATCH_WIDE_NS, "the last of its thread");
    cr_expect_eq(call_end_bound(&p, co, 3), 1500 + MATCH_WIDE_NS, "thread 2's only call");
}

Test(join_clock, untimed_end_is_its_start_plus_the_records_length_within_bounds)
{
    struct call c = jt_call(1, API_LAUNCH, 1, 1000, 1000);
    cr_expect_eq(untimed_end(&c, 5000, 5400, 99999), 1400);
    cr_expect_eq(untimed_end(&c, 5000, 5400, 1200), 1200, "never past the next call");
    cr_expect_eq(untimed_end(&c, 5000, 5000, 99999), 1001, "never back to unknown");
    cr_expect_eq(untimed_end(&c, 5000, 4000, 99999), 1001, "a record ending before it starts");
}

/* A blocking call's id ties three records to it: its own (of its API, on
 * its thread), a driver record made for it, and one of its API on another
 * thread; all are claimed, the first gives its correlation and is the
 * offset's anchor (claimed 2). */
Test(join_clock, a_blocking_call_joined_by_its_tagged_id)
{
    calls[0] = jt_call(1, API_STREAM_SYNC, 7, 1000, 9000);
    p.ncalls = 1;
    recs[0] = jt_rec(2, RT, CB_STREAM_SYNC, 22, 1200, 1300); /* another thread's, first */
    recs[1] = jt_rec(1, DRV, CB_CU_LAUNCH, 21, 1300, 1400);
    recs[2] = jt_rec(1, RT, CB_STREAM_SYNC, 20, 1100, 8900);
    recs[3] = jt_rec(1, RT, CB_STREAM_SYNC, 23, 9100, 9200); /* not tied */
    const struct ext x[] = { jt_ext_cuda(7, 20), jt_ext_cuda(7, 21), jt_ext_cuda(7, 22) };
    cr_expect_eq(join_by_ext(&m, &p, recs, 4, x, 3, exact), 1);
    cr_expect_eq(exact[0], 1);
    cr_expect_eq(calls[0].corr, 20);
    cr_expect_eq(recs[2].claimed, 2, "its own record anchors the offset");
    cr_expect_eq(recs[1].claimed, 1);
    cr_expect_eq(recs[0].claimed, 1);
    cr_expect_eq(recs[3].claimed, 0);
}

/* The id is pushed tagged (GT_XCORR_TAG) for a CUDA call: a row of the
 * untagged id (an NCCL operation's of the same number) is not the call's. */
Test(join_clock, a_blocking_calls_untagged_id_is_not_its)
{
    calls[0] = jt_call(1, API_STREAM_SYNC, 7, 1000, 9000);
    p.ncalls = 1;
    recs[0] = jt_rec(1, RT, CB_STREAM_SYNC, 20, 1100, 8900);
    const struct ext x[] = { { 7, 20 } };
    cr_expect_eq(join_by_ext(&m, &p, recs, 1, x, 1, exact), 0);
    cr_expect_eq(calls[0].corr, 0);
    cr_expect_eq(recs[0].claimed, 0);
}

/* An ungrouped NCCL operation (its own id, untagged): its records are
 * claimed, the first on its thread gives its correlation (its kernel's
 * launch), no anchor, not counted as joined. */
Test(join_clock, an_nccl_operation_takes_its_first_launch)
{
    calls[0] = jt_call(1, API_ALLREDUCE, 9, 1000, 5000);
    p.ncalls = 1;
    recs[0] = jt_rec(1, RT, CB_LAUNCH, 30, 1100, 1200);
    recs[1] = jt_rec(1, DRV, CB_CU_LAUNCH, 31, 1120, 1180);
    const struct ext x[] = { { 9, 30 }, { 9, 31 } };
    cr_expect_eq(join_by_ext(&m, &p, recs, 2, x, 2, exact), 0);
    cr_expect_eq(exact[0], 0);
    cr_expect_eq(calls[0].corr, 30);
    cr_expect_eq(recs[0].claimed, 1);
    cr_expect_eq(recs[1].claimed, 1);
}

/* A group's records are pushed under its outermost ncclGroupStart's id,
 * made in the ncclGroupEnd that closes it (depth counted): that
 * ncclGroupEnd takes the first; the inner group's calls and the
 * collective inside take none. */
Test(join_clock, a_groups_records_go_to_the_group_end_that_closes_it)
{
    calls[0] = jt_call(1, API_GROUP_START, 40, 1000, 1010);
    calls[1] = jt_call(1, API_ALLREDUCE, 41, 1100, 1200);
    calls[2] = jt_call(1, API_GROUP_START, 42, 1300, 1310);
    calls[3] = jt_call(1, API_GROUP_END, 43, 1400, 1410); /* closes the inner one */
    calls[4] = jt_call(1, API_GROUP_END, 44, 1500, 3000); /* closes the group: launches */
    p.ncalls = 5;
    recs[0] = jt_rec(1, RT, CB_LAUNCH, 50, 1600, 1700);
    recs[1] = jt_rec(1, RT, CB_LAUNCH, 51, 1800, 1900);
    const struct ext x[] = { { 40, 50 }, { 40, 51 } };
    cr_expect_eq(join_by_ext(&m, &p, recs, 2, x, 2, exact), 0);
    cr_expect_eq(calls[4].corr, 50);
    cr_expect_eq(calls[0].corr, 0);
    cr_expect_eq(calls[1].corr, 0);
    cr_expect_eq(calls[3].corr, 0);
    cr_expect_eq(recs[0].claimed, 1);
    cr_expect_eq(recs[1].claimed, 1);
}

/* CUPTI's clock converted 8 us later than the wrappers' (more than the
 * time join's 2 us slack): a blocking call joined exactly (4 votes) and
 * three launches agree on [7900, 8100]; every record moves back by its
 * middle, 8000, and notes it in its shift. */
static void skewed_thread(int tid, int64_t t0, int64_t skew, uint32_t corr0)
{
    size_t i = p.ncalls;
    calls[i] = jt_call(tid, API_LAUNCH, 1, t0 + 1000, t0 + 1000);
    calls[i + 1] = jt_call(tid, API_STREAM_SYNC, 2, t0 + 2000, t0 + 10000);
    calls[i + 2] = jt_call(tid, API_LAUNCH, 3, t0 + 11000, t0 + 11000);
    calls[i + 3] = jt_call(tid, API_LAUNCH, 4, t0 + 12000, t0 + 12000);
    calls[i + 1].corr = corr0 + 1;
    exact[i + 1] = 1;
    p.ncalls += 4;
    /* each record 100 ns after its call began, in CUPTI's clock */
    size_t k = 0;
    while (recs[k].corr)
        k++;
    recs[k] = jt_rec(tid, RT, CB_LAUNCH, corr0, t0 + 1100 + skew, t0 + 1600 + skew);
    recs[k + 1] = jt_rec(tid, RT, CB_STREAM_SYNC, corr0 + 1, t0 + 2100 + skew, t0 + 9900 + skew);
    recs[k + 1].claimed = 2;
    recs[k + 2] = jt_rec(tid, RT, CB_LAUNCH, corr0 + 2, t0 + 11100 + skew, t0 + 11500 + skew);
    recs[k + 3] = jt_rec(tid, RT, CB_LAUNCH, corr0 + 3, t0 + 12100 + skew, t0 + 12400 + skew);
}

Test(join_clock, records_moved_by_the_offset_the_pairs_agree_on)
{
    skewed_thread(1, 0, 8000, 1);
    order_calls();
    struct join_offsets off;
    cr_expect_eq(join_shift_records(&m, &p, co, exact, recs, 4, &off), 1);
    cr_assert_eq(off.n, 1);
    cr_expect_eq(off.st[0].d, 8000);
    cr_expect_eq(off.st[0].from, 1000);
    cr_expect_eq(off.st[0].tid, 1);
    cr_expect_eq(recs[0].start, 1100);
    cr_expect_eq(recs[0].end, 1600);
    cr_expect_eq(recs[1].start, 2100);
    cr_expect_eq(recs[3].end, 12400);
    for (int k = 0; k < 4; k++)
        cr_expect_eq(recs[k].shift, 8000);
    free(off.st);
}

/* Records before their calls (a negative offset) move forward alike. */
Test(join_clock, a_negative_offset)
{
    skewed_thread(1, 0, -6000, 1);
    order_calls();
    struct join_offsets off;
    cr_expect_eq(join_shift_records(&m, &p, co, exact, recs, 4, &off), 1);
    cr_assert_eq(off.n, 1);
    cr_expect_eq(off.st[0].d, -6000);
    cr_expect_eq(recs[1].start, 2100);
    cr_expect_eq(recs[1].shift, -6000);
    free(off.st);
}

/* No drift: the range the pairs agree on holds 0, and nothing moves. */
Test(join_clock, no_offset_where_the_pairs_agree_on_none)
{
    skewed_thread(1, 0, 0, 1);
    order_calls();
    struct join_offsets off;
    cr_expect_eq(join_shift_records(&m, &p, co, exact, recs, 4, &off), 0);
    cr_assert_eq(off.n, 1);
    cr_expect_eq(off.st[0].d, 0);
    cr_expect_eq(recs[0].start, 1100);
    cr_expect_eq(recs[0].shift, 0);
    free(off.st);
}

/* Two stretches of one thread (more than 250 us apart), each with its own
 * offset, and another thread with its own: each record moves by the
 * stretch of its thread it began in. */
Test(join_clock, each_stretch_and_thread_its_own_offset)
{
    skewed_thread(1, 0, 8000, 1);
    skewed_thread(1, 400000, 3000, 11);
    skewed_thread(2, 0, -5000, 21);
    order_calls();
    /* the records in (thread, start) order, as correlate.c gives them */
    struct cupti_rec tmp;
    struct sort_key ko[12];
    for (size_t k = 0; k < 12; k++)
        ko[k] = (struct sort_key){ recs[k].start, k };
    sort_keys(ko, 12);
    for (size_t k = 0; k < 12; k++)
        ko[k].t = recs[ko[k].i].tid;
    sort_keys(ko, 12);
    permute_by_keys(recs, sizeof *recs, ko, 12, &tmp);
    struct join_offsets off;
    cr_expect_eq(join_shift_records(&m, &p, co, exact, recs, 12, &off), 1);
    cr_assert_eq(off.n, 3);
    cr_expect_eq(off.st[0].d, 8000);
    cr_expect_eq(off.st[1].d, 3000);
    cr_expect_eq(off.st[1].from, 401000);
    cr_expect_eq(off.st[2].d, -5000);
    cr_expect_eq(off.st[2].tid, 2);
    cr_expect_eq(jt_rec_of(recs, 12, 1)->start, 1100);
    cr_expect_eq(jt_rec_of(recs, 12, 12)->start, 402100);
    cr_expect_eq(jt_rec_of(recs, 12, 12)->shift, 3000);
    cr_expect_eq(jt_rec_of(recs, 12, 24)->start, 12100);
    cr_expect_eq(jt_rec_of(recs, 12, 24)->shift, -5000);
    free(off.st);
}

/* A launch whose record the offset of its own stretch (8 us) leaves
 * outside it, because the offset changed within the stretch: it takes the
 * record with the offset of the stretch before (5 us), and its length. */
Test(join_clock, second_chance_with_the_offset_of_the_stretch_before)
{
    calls[0] = jt_call(1, API_LAUNCH, 1, 1000, 1000);
    calls[1] = jt_call(1, API_LAUNCH, 2, 300000, 300000);
    calls[2] = jt_call(1, API_STREAM_SYNC, 3, 310000, 320000);
    p.ncalls = 3;
    calls[0].corr = 100;
    order_calls();
    /* in CUPTI's clock at 300000 + 100 + 5000, moved by 8000 */
    recs[0] = jt_rec(1, RT, CB_LAUNCH, 5, 305100 - 8000, 305500 - 8000);
    recs[0].shift = 8000;
    struct join_offsets off = { malloc(2 * sizeof(struct stretch)), 2 };
    off.st[0] = (struct stretch){ 1000, 5000, 1 };
    off.st[1] = (struct stretch){ 300000, 8000, 1 };
    join_second_chance(&m, &p, co, recs, 1, &off);
    cr_expect_eq(calls[1].corr, 5);
    cr_expect_eq(calls[1].end, 300400, "its start plus the record's length");
    cr_expect_eq(recs[0].claimed, 1);
    cr_expect_null(off.st, "freed");
    cr_expect_eq(calls[2].corr, 0);
}

/* None of the offsets around it puts the record inside the call: left
 * unjoined, the record unclaimed (a call CUPTI alone saw, later). */
Test(join_clock, no_second_chance_where_no_offset_fits)
{
    calls[0] = jt_call(1, API_LAUNCH, 1, 1000, 1000);
    calls[1] = jt_call(1, API_LAUNCH, 2, 300000, 300000);
    calls[2] = jt_call(1, API_STREAM_SYNC, 3, 310000, 320000);
    p.ncalls = 3;
    order_calls();
    recs[0] = jt_rec(1, RT, CB_LAUNCH, 5, 330000, 330400);
    struct join_offsets off = { malloc(2 * sizeof(struct stretch)), 2 };
    off.st[0] = (struct stretch){ 1000, 5000, 1 };
    off.st[1] = (struct stretch){ 300000, 8000, 1 };
    join_second_chance(&m, &p, co, recs, 1, &off);
    cr_expect_eq(calls[1].corr, 0);
    cr_expect_eq(calls[1].end, 300000);
    cr_expect_eq(recs[0].claimed, 0);
}
