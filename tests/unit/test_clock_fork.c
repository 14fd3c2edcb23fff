/* test_clock_fork.c: the clock map made anew where a forked child caught
 * its sequence counter odd (its parent's writer was adding a segment at
 * the fork): conversions work afterwards.  Built with collector/clock.c
 * itself included, to set the counter as the fork left it. */
#include "collector/clock.c"

#include <criterion/criterion.h>

/* (a conversion that spins forever fails by the timeout) */
Test(clock_fork, a_child_that_caught_the_map_mid_write_converts, .timeout = 10)
{
    gt_clock_init(0);
    uint64_t before = gt_clock_now_ns();
    atomic_fetch_add(&seq, 1); /* as the fork found it: inside write_begin .. write_end */
    gt_clock_init(0);          /* the child's: made anew */
    cr_assert_eq(atomic_load(&seq) & 1, 0, "the sequence left odd");
    uint64_t after = gt_clock_now_ns();
    cr_assert_geq(after, before);
}
