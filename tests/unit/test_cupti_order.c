/* test_cupti_order.c: the calls only CUPTI saw put in their place by
 * CUPTI's correlation order among the joined calls of their thread
 * (viewer/read/cupti_order.h): one outside the gap between the joined
 * calls before and after it (by correlation) is moved to the gap's edge as
 * a point, one inside it stays, and threads are apart.  CUPTI's records
 * come in no particular order and their times carry the clocks' offset, so
 * the cases are those a skewed offset makes. */
#include "viewer/read/cupti_order.h"

#include <criterion/criterion.h>
#include <string.h>

static struct call calls[8];
static struct proc p;

static void setup(void)
{
    memset(calls, 0, sizeof calls);
    memset(&p, 0, sizeof p);
    p.calls = calls;
}

TestSuite(cupti_order, .init = setup);

static void add(int tid, uint32_t corr, int64_t start, int64_t end)
{
    calls[p.ncalls++] = (struct call){ .tid = tid, .corr = corr, .start = start, .end = end };
}

/* A cudaEventRecord (corr 5) made between two joined calls (corr 4, ending
 * at 200; corr 6, starting at 300) but moved by a skewed offset to 350,
 * after the sync it came before: put back at the gap's end, as a point. */
Test(cupti_order, a_call_moved_late_goes_back_before_the_next_joined_call)
{
    add(1, 4, 100, 200);
    add(1, 6, 300, 400);
    add(1, 5, 350, 360);
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 299);
    cr_expect_eq(calls[2].end, 299);
    cr_expect_eq(calls[0].start, 100, "joined calls are never moved");
    cr_expect_eq(calls[1].start, 300);
}

/* Moved early, into the call before it: put at that call's end. */
Test(cupti_order, a_call_moved_early_goes_after_the_joined_call_before)
{
    add(1, 4, 100, 200);
    add(1, 6, 300, 400);
    add(1, 5, 150, 170);
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 200);
    cr_expect_eq(calls[2].end, 200);
}

/* Inside its gap: left as it is, length and all. */
Test(cupti_order, a_call_in_its_gap_stays)
{
    add(1, 4, 100, 200);
    add(1, 6, 300, 400);
    add(1, 5, 220, 250);
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 220);
    cr_expect_eq(calls[2].end, 250);
}

/* The joined calls come in time order, not correlation order (CUPTI gives
 * no ordering guarantee, and the recorded calls are sorted by start):
 * the anchors are found by correlation all the same. */
Test(cupti_order, anchors_found_by_correlation_whatever_their_order)
{
    add(1, 9, 500, 600);
    add(1, 2, 100, 200);
    add(1, 3, 700, 800); /* only CUPTI saw it: between corr 2 (ends 200) and 9 (starts 500) */
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 499);
    cr_expect_eq(calls[2].end, 499);
}

/* A joined call with no end of its own (end == start: a launch) bounds
 * the gap at its start + 1. */
Test(cupti_order, a_joined_point_call_bounds_the_gap_after_its_start)
{
    add(1, 4, 100, 100);
    add(1, 5, 50, 60);
    cupti_calls_order(&p, 1);
    cr_expect_eq(calls[1].start, 101);
    cr_expect_eq(calls[1].end, 101);
}

/* Past the last joined call of its thread, and before the first: only one
 * edge bounds it. */
Test(cupti_order, only_one_edge_at_the_ends_of_a_thread)
{
    add(1, 4, 100, 200);
    add(1, 6, 300, 400);
    add(1, 7, 250, 260); /* after corr 6, whose end is 400 */
    add(1, 1, 900, 950); /* before corr 4, which starts at 100 */
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 400);
    cr_expect_eq(calls[3].start, 99);
    cr_expect_eq(calls[3].end, 99);
}

/* Another thread's joined calls do not bound it, nor do recorded calls
 * without a correlation id. */
Test(cupti_order, other_threads_and_unjoined_calls_are_no_anchors)
{
    add(2, 4, 100, 200); /* thread 2 */
    add(1, 0, 500, 600); /* thread 1, not joined */
    add(1, 5, 150, 170);
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 150);
    cr_expect_eq(calls[2].end, 170);
}

/* Joined calls whose own times disagree with their order (corr 6 began
 * before corr 4 ended): no gap, the call is left where it is. */
Test(cupti_order, no_gap_leaves_it)
{
    add(1, 4, 100, 300);
    add(1, 6, 200, 400);
    add(1, 5, 500, 510);
    cupti_calls_order(&p, 2);
    cr_expect_eq(calls[2].start, 500);
    cr_expect_eq(calls[2].end, 510);
}

Test(cupti_order, nothing_to_do_without_recorded_or_cupti_calls)
{
    add(1, 5, 150, 170);
    cupti_calls_order(&p, 0);
    cr_expect_eq(calls[0].start, 150);
    setup();
    add(1, 4, 100, 200);
    cupti_calls_order(&p, 1);
    cr_expect_eq(calls[0].start, 100);
    cr_expect_eq(calls[0].end, 200);
}
