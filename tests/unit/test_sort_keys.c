/* test_sort_keys.c: sort_keys_first_near (viewer/model/sort_by_time.h)
 * finds what sort_keys_first finds, the first key of a value in stably
 * sorted keys, whatever the hint it starts from: ascending lookups (the
 * joins' case), lookups that go back, values absent or past either end,
 * runs of equal keys, and empty and one-key arrays. */
#include "viewer/model/sort_by_time.h"

#include <criterion/criterion.h>
#include <stdlib.h>

static void check_all(struct sort_key *k, size_t n, unsigned seed)
{
    srand(seed);
    size_t hint = (size_t)rand() % (n + 3);
    for (int q = 0; q < 200; q++) {
        int64_t t = rand() % 50 - 3;
        size_t before = hint;
        int64_t want = sort_keys_first(k, n, t), got = sort_keys_first_near(k, n, t, &hint);
        cr_assert_eq(got, want, "n %zu, t %lld, hint %zu: %lld, not %lld", n, (long long)t, before, (long long)got,
                     (long long)want);
    }
}

Test(sort_keys, near_finds_the_first_whatever_the_hint)
{
    struct sort_key k[80];
    for (unsigned round = 0; round < 2000; round++) {
        srand(round);
        size_t n = (size_t)rand() % 80;
        for (size_t i = 0; i < n; i++)
            k[i] = (struct sort_key){ rand() % 45, i };
        cr_assert_eq(sort_keys(k, n), 0);
        check_all(k, n, round);
    }
}

Test(sort_keys, near_in_ascending_order_over_runs_of_equal_keys)
{
    struct sort_key k[1000];
    for (size_t i = 0; i < 1000; i++)
        k[i] = (struct sort_key){ (int64_t)(i / 7) * 2, i };
    size_t hint = 0;
    for (int64_t t = -1; t < 300; t++) {
        int64_t want = sort_keys_first(k, 1000, t);
        cr_assert_eq(sort_keys_first_near(k, 1000, t, &hint), want, "t %lld", (long long)t);
        if (t % 2 == 0 && t / 2 < 143)
            cr_assert_eq(want, (t / 2) * 7, "the first of its run");
    }
}
