/* test_clock.c: the tracer's tick-to-ns map (collector/clock.c) on points
 * given, at 3 ticks a ns: a tick converts to the same ns before and after
 * a new point (records of one thread drained either side of a
 * recalibration, tens of ns apart, once crossed); later ticks never map
 * to earlier ns, whichever way the point is off; the map meets the
 * point's line within 10 ms; points closer than 10 ms apart are not
 * taken; a point far off never makes the map run backwards or slower than
 * half its rate; ticks older than every kept segment still convert, and
 * one in a segment far behind the newest (searched) the same as before. */
#include "collector/clock.h"

#include <criterion/criterion.h>

#define T0 1000ull
#define N0 1000000000ull
#define TICKS(ns) ((uint64_t)(ns) * 3ull)

/* the true line: 3 ticks a ns from (T0, N0) */
static uint64_t truth(uint64_t ticks)
{
    return N0 + (ticks - T0) / 3;
}

static void setup(void)
{
    gt_clock_use_tsc = 1;
    gt_clock_start_at(T0, N0, T0 + TICKS(1000000), truth(T0 + TICKS(1000000)));
}

TestSuite(clock, .init = setup);

Test(clock, a_tick_converts_the_same_either_side_of_a_point)
{
    uint64_t x = T0 + TICKS(20000000); /* 20 ms in */
    uint64_t before = gt_ticks_to_ns(x);
    cr_assert_eq(before, truth(x));
    uint64_t t = x + TICKS(40); /* the next call, 40 ns later */
    gt_clock_add_point(t, truth(t) + 300); /* a point 300 ns ahead */
    cr_assert_eq(gt_ticks_to_ns(x), before, "moved by %lld ns", (long long)(gt_ticks_to_ns(x) - before));
}

static void forward_across(int64_t off)
{
    uint64_t t = T0 + TICKS(20000000);
    gt_clock_add_point(t, (uint64_t)((int64_t)truth(t) + off));
    uint64_t prev = 0;
    for (uint64_t x = t - TICKS(3000); x < t + TICKS(3000); x += TICKS(10)) {
        uint64_t n = gt_ticks_to_ns(x);
        cr_assert_geq(n, prev, "off %lld: %llu ns after %llu", (long long)off, (unsigned long long)n,
                      (unsigned long long)prev);
        prev = n;
    }
}

Test(clock, later_ticks_never_map_earlier_a_point_behind)
{
    forward_across(-300);
}

Test(clock, later_ticks_never_map_earlier_a_point_ahead)
{
    forward_across(300);
}

/* where the map goes once a point's gap is closed: the point's line, at
 * the long-run rate (the first point to this one) */
static uint64_t line(uint64_t t, uint64_t n, uint64_t x)
{
    return n + (uint64_t)((double)(x - t) * (double)(n - N0) / (double)(t - T0) + 0.5);
}

Test(clock, the_map_meets_the_points_line_within_10_ms)
{
    uint64_t t = T0 + TICKS(20000000);
    gt_clock_add_point(t, truth(t) + 500);
    uint64_t x = t + TICKS(10000001);
    int64_t d = (int64_t)gt_ticks_to_ns(x) - (int64_t)line(t, truth(t) + 500, x);
    cr_assert(d >= -2 && d <= 2, "%lld ns off the point's line", (long long)d);
    /* halfway, halfway there */
    uint64_t h = t + TICKS(5000000);
    d = (int64_t)gt_ticks_to_ns(h) - (int64_t)(line(t, truth(t) + 500, h) - 250);
    cr_assert(d >= -2 && d <= 2, "%lld ns off halfway", (long long)d);
}

Test(clock, points_closer_than_10_ms_are_not_taken)
{
    uint64_t t = T0 + TICKS(20000000);
    gt_clock_add_point(t, truth(t));
    uint64_t u = t + TICKS(5000000);
    gt_clock_add_point(u, truth(u) + 1000);
    uint64_t x = u + TICKS(20000000);
    cr_assert_eq(gt_ticks_to_ns(x), truth(x));
}

Test(clock, a_point_far_off_never_halves_the_rate)
{
    uint64_t t = T0 + TICKS(200000000), n = truth(t) - 50000000; /* 50 ms behind */
    gt_clock_add_point(t, n);
    uint64_t prev = gt_ticks_to_ns(t);
    cr_assert_eq(prev, truth(t), "the map jumped to the point");
    for (uint64_t x = t + TICKS(1000000); x < t + TICKS(200000000); x += TICKS(1000000)) {
        uint64_t now = gt_ticks_to_ns(x);
        cr_assert_geq(now - prev, 1000000 / 2 * 0.75 - 2, "%llu ns in 1 ms", (unsigned long long)(now - prev));
        prev = now;
    }
    uint64_t end = t + TICKS(200000000);
    int64_t d = (int64_t)gt_ticks_to_ns(end) - (int64_t)line(t, n, end);
    cr_assert(d >= -2 && d <= 2, "%lld ns off the point's line after 200 ms", (long long)d);
}

Test(clock, ticks_older_than_every_kept_segment_still_convert)
{
    uint64_t early = T0 + TICKS(5000000);
    uint64_t before = gt_ticks_to_ns(early);
    for (int i = 1; i <= 1500; i++) {
        uint64_t t = T0 + TICKS(10000000ull * (uint64_t)i + 1);
        gt_clock_add_point(t, truth(t) + (uint64_t)(i % 7));
    }
    int64_t d = (int64_t)gt_ticks_to_ns(early) - (int64_t)before;
    cr_assert(d >= -10 && d <= 10, "an old tick moved %lld ns", (long long)d);
    uint64_t late = T0 + TICKS(15000000000ull);
    d = (int64_t)gt_ticks_to_ns(late) - (int64_t)truth(late);
    cr_assert(d >= -10 && d <= 10, "%lld ns off at the end", (long long)d);
}

Test(clock, a_tick_in_a_middle_segment_converts_the_same_as_more_are_made)
{
    uint64_t x = 0, before = 0;
    for (int i = 1; i <= 60; i++) {
        uint64_t t = T0 + TICKS(10000000ull * (uint64_t)i + 1);
        gt_clock_add_point(t, truth(t) + (uint64_t)(i % 2) * 200); /* every other point 200 ns ahead */
        if (i == 20) {
            x = t + TICKS(3000000); /* 3 ms into the 20th segment */
            before = gt_ticks_to_ns(x);
        }
    }
    cr_assert_eq(gt_ticks_to_ns(x), before, "moved by %lld ns", (long long)(gt_ticks_to_ns(x) - before));
}
