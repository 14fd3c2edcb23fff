/* test_sort_keys.c: sort_keys (viewer/model/sort_by_time.h) sorts
 * stably whatever the order it is given: in order, nearly in order (a few
 * keys out of place: moved by insertion), nearly in order but with keys
 * far out of place (past the insertion's budget, the radix goes on from
 * where it stopped), and at random; and sort_keys_first_near finds what
 * sort_keys_first finds, the first key of a value in stably sorted keys,
 * whatever the hint it starts from: ascending lookups (the joins' case),
 * lookups that go back, values absent or past either end, runs of equal
 * keys, and empty and one-key arrays; keys over the whole int64_t range,
 * or with digits all the keys share; and sort_by_time moving whole records
 * with their keys. */
#include "viewer/model/sort_by_time.h"

#include <criterion/criterion.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sort_keys's result against a stable reference (the keys' own index
 * breaks ties: the index is the position they were given in) */
static int by_t_then_i(const void *x, const void *y)
{
    const struct sort_key *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

static void sorts_stably(struct sort_key *k, size_t n, const char *what)
{
    struct sort_key *want = malloc((n + 1) * sizeof *want);
    cr_assert(want);
    for (size_t i = 0; i < n; i++)
        k[i].i = i;
    memcpy(want, k, n * sizeof *k);
    qsort(want, n, sizeof *want, by_t_then_i);
    cr_assert_eq(sort_keys(k, n), 0);
    for (size_t i = 0; i < n; i++)
        cr_assert(k[i].t == want[i].t && k[i].i == want[i].i, "%s: n %zu, at %zu: (%lld, %zu), not (%lld, %zu)", what, n,
                  i, (long long)k[i].t, k[i].i, (long long)want[i].t, want[i].i);
    free(want);
}

Test(sort_keys, stable_in_every_order)
{
    size_t n = 200000;
    struct sort_key *k = malloc(n * sizeof *k);
    cr_assert(k);
    srand(7);
    for (size_t i = 0; i < n; i++) /* in order, runs of equal keys */
        k[i].t = (int64_t)(i / 3);
    sorts_stably(k, n, "in order");
    for (size_t i = 0; i < n; i++) /* a few hundred keys a few places out */
        k[i].t = (int64_t)(i / 3) + (rand() % 700 == 0 ? -(rand() % 40) : 0);
    sorts_stably(k, n, "nearly in order");
    for (size_t i = 0; i < n; i++) /* as few descents, but keys far out of place */
        k[i].t = (int64_t)(i / 3) - (rand() % 700 == 0 ? (int64_t)(n / 2) : 0);
    sorts_stably(k, n, "a few keys far out of place");
    for (size_t i = 0; i < n; i++) /* a key from the end at the start: one descent, n moves */
        k[i].t = i == 0 ? (int64_t)n : (int64_t)(i / 3);
    sorts_stably(k, n, "the last key first");
    for (size_t i = 0; i < n; i++)
        k[i].t = rand() % 5000 - 2500;
    sorts_stably(k, n, "at random");
    free(k);
}

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

/* Keys over the whole int64_t range (every radix digit in use), and keys
 * whose middle digits all share one value (those passes skipped: the
 * order the low digit gave must carry through to the high one). */
Test(sort_keys, wide_keys_and_digits_all_share)
{
    size_t n = 5000;
    struct sort_key *k = malloc(n * sizeof *k);
    cr_assert(k);
    srand(11);
    for (size_t i = 0; i < n; i++)
        k[i].t = i % 3 == 0 ? INT64_MIN + rand() % 7 : i % 3 == 1 ? INT64_MAX - rand() % 7 : (int64_t)rand() - RAND_MAX / 2;
    sorts_stably(k, n, "the whole range");
    for (size_t i = 0; i < n; i++) /* bits 0-3 and 44-47 vary, the ones between are 0 */
        k[i].t = (int64_t)(rand() % 16) | ((int64_t)(rand() % 16) << 44);
    sorts_stably(k, n, "middle digits shared");
    free(k);
}

/* sort_by_time puts records of any size in their keys' order, stably,
 * with every byte of each record moved along with its key. */
Test(sort_keys, sort_by_time_moves_whole_records)
{
    struct rec { int64_t pad; int64_t t; char tag[9]; };
    size_t n = 3000;
    struct rec *r = malloc(n * sizeof *r);
    cr_assert(r);
    srand(5);
    for (size_t i = 0; i < n; i++) {
        memset(&r[i], 0, sizeof r[i]);
        r[i].t = (int64_t)(i % 4) * 1000 + (int64_t)(i / 4); /* four runs in order, interleaved */
        r[i].pad = (int64_t)i;
        snprintf(r[i].tag, sizeof r[i].tag, "%zu", i);
    }
    cr_assert_eq(sort_by_time(r, n, sizeof *r, offsetof(struct rec, t)), 0);
    for (size_t i = 0; i < n; i++) {
        char want[9];
        snprintf(want, sizeof want, "%lld", (long long)r[i].pad);
        cr_assert_str_eq(r[i].tag, want);
        cr_assert_eq(r[i].t, (r[i].pad % 4) * 1000 + r[i].pad / 4);
        if (i)
            cr_assert(r[i - 1].t < r[i].t || (r[i - 1].t == r[i].t && r[i - 1].pad < r[i].pad));
    }
    free(r);
}

/* sorted_first_at: the first record whose key is t or later, in records
 * whose key is not their first field, over runs of equal keys and past
 * either end. */
Test(sort_keys, first_at_over_runs_and_ends)
{
    struct { int32_t pad; int64_t t; } r[7] = {
        { 0, 10 }, { 1, 10 }, { 2, 20 }, { 3, 20 }, { 4, 20 }, { 5, 35 }, { 6, 40 },
    };
    size_t n = sizeof r / sizeof *r, off = offsetof(__typeof__(*r), t);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, INT64_MIN), 0);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, 10), 0);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, 11), 2);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, 20), 2);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, 21), 5);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, 40), 6);
    cr_assert_eq(sorted_first_at(r, n, sizeof *r, off, 41), n);
    cr_assert_eq(sorted_first_at(NULL, 0, sizeof *r, off, 5), 0);
}
