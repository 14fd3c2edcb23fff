/* test_nest_claim.c: the records nested in a record (viewer/read/
 * nest_claim.h) are exactly those a scan of every record finds: records of
 * several threads in (thread, start) order, moved by stretches' offsets of
 * a few hundred ns and, now and then, one of hundreds of us (the search's
 * bounds are per run of records, and must hold across such a stretch, a
 * run shared by two threads and the short run at the end). */
#include "viewer/read/nest_claim.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* n records of nthreads threads (in (thread, start) order): calls about
 * 3 us apart, each with 0-3 records nested in it (a driver call inside a
 * runtime call), in CUPTI's clock; then moved by their stretch's offset
 * (shift: CUPTI's time less the moved one), a new stretch every ~40
 * records, one in `far` of them moved far. */
static size_t make(struct cupti_rec *a, size_t cap, int nthreads, int far)
{
    size_t n = 0;
    for (int t = 0; t < nthreads && n < cap; t++) {
        int64_t now = 1000000 + (int64_t)(next() % 5000);
        int32_t shift = 0;
        while (n < cap && now < 3000000) {
            if (next() % 40 == 0)
                shift = far && next() % far == 0 ? -(int32_t)(200000 + next() % 50000) : (int32_t)(next() % 800) - 400;
            int64_t len = 500 + (int64_t)(next() % 2000);
            a[n++] = (struct cupti_rec){ .start = now, .end = now + len, .tid = t + 1, .corr = (uint32_t)n, .shift = shift };
            int inner = (int)(next() % 4);
            for (int i = 0; i < inner && n < cap; i++) {
                int64_t s = now + 50 + (int64_t)(next() % (uint64_t)(len - 100)), e = s + 20 + (int64_t)(next() % 100);
                if (next() % 5 == 0)
                    e = now + len + 10; /* ends just past it: not nested */
                a[n++] = (struct cupti_rec){ .start = s, .end = e, .tid = t + 1, .corr = (uint32_t)n, .shift = shift };
            }
            now += len + 200 + (int64_t)(next() % 2000);
        }
    }
    /* moved: CUPTI's time less the shift; then in (thread, start) order again */
    for (size_t k = 0; k < n; k++) {
        a[k].start -= a[k].shift;
        a[k].end -= a[k].shift;
    }
    for (size_t k = 1; k < n; k++) { /* insertion sort: nearly in order */
        struct cupti_rec x = a[k];
        size_t j = k;
        while (j > 0 && (a[j - 1].tid > x.tid || (a[j - 1].tid == x.tid && a[j - 1].start > x.start))) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = x;
    }
    return n;
}

static void check(int nthreads, int far, size_t cap)
{
    struct cupti_rec *a = calloc(cap, sizeof *a);
    cr_assert(a);
    size_t n = make(a, cap, nthreads, far);
    cr_assert_gt(n, 3 * NEST_RUN);
    struct nest_runs r = nest_runs(a, n);
    size_t found = 0;
    for (size_t own = 0; own < n; own++) {
        for (size_t k = 0; k < n; k++)
            a[k].claimed = 0;
        claim_nested(a, n, own, &r);
        for (size_t k = 0; k < n; k++) {
            int want = k != own && nested_in(&a[k], &a[own]);
            found += (size_t)want;
            cr_assert_eq(a[k].claimed, want, "record %zu (thread %d) nested in %zu: %d, claimed %d", k, a[k].tid, own,
                         want, a[k].claimed);
        }
    }
    cr_expect_gt(found, n / 2, "the records hold nested ones to find (%zu of %zu)", found, n);
    nest_runs_free(&r);
    free(a);
}

Test(nest_claim, one_thread_small_moves)
{
    check(1, 0, 3000);
}

Test(nest_claim, one_thread_some_stretches_moved_far)
{
    check(1, 6, 3000);
}

Test(nest_claim, threads_sharing_runs_and_a_short_last_run)
{
    check(5, 4, 2999);
}
