/* sort_by_time.c: sorts (timestamp, index) pairs, then gathers the records
 * in that order (or moves each once into place by following the
 * permutation's cycles, where memory for the gather runs out).  qsort on the
 * records themselves moves 88-byte calls log n times (and glibc's merge
 * sort allocates a copy of the whole array); rows that come in time order
 * already are left alone after one pass.  The pairs are sorted by radix,
 * not by comparisons: sorting was a fifth of the report's time. */
#include "viewer/model/sort_by_time.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define RADIX_BITS 11
#define SMALL 32

/* Insertion sort while it moves keys no more than `budget` places in all:
 * 1 if it sorted them, 0 if it stopped (what it moved is in order among
 * itself and equal keys keep their order, so a stable sort can go on). */
static int insertion_sort_within(struct sort_key *k, size_t n, size_t budget)
{
    for (size_t i = 1; i < n; i++) {
        if (k[i].t >= k[i - 1].t)
            continue;
        struct sort_key x = k[i];
        size_t j = i;
        for (; j > 0 && k[j - 1].t > x.t; j--)
            k[j] = k[j - 1];
        k[j] = x;
        if (i - j > budget)
            return 0;
        budget -= i - j;
    }
    return 1;
}

int sort_keys(struct sort_key *k, size_t n)
{
    if (n < 2)
        return 0;
    int64_t lo = k[0].t, hi = k[0].t;
    size_t descents = 0;
    for (size_t i = 1; i < n; i++) {
        descents += k[i].t < k[i - 1].t;
        if (k[i].t < lo)
            lo = k[i].t;
        if (k[i].t > hi)
            hi = k[i].t;
    }
    if (!descents)
        return 0;
    if (n <= SMALL) {
        insertion_sort_within(k, n, SIZE_MAX);
        return 0;
    }
    /* keys out of order only here and there (CUPTI's records by
     * correlation, a few hundred places out of order in 600,000): moved
     * into place in one pass, with neither the radix's passes nor its
     * copy of the keys; past a pass's worth of moves, the radix */
    if (descents <= n / 64 && insertion_sort_within(k, n, n))
        return 0;
    struct sort_key *tmp = malloc(n * sizeof *tmp);
    if (!tmp)
        return -1;
    /* least significant digit first, over only the bits in which keys
     * differ; each pass is stable, so the whole sort is */
    int bits = 64 - __builtin_clzll((uint64_t)hi - (uint64_t)lo);
    struct sort_key *src = k, *dst = tmp;
    size_t count[1 << RADIX_BITS];
    for (int shift = 0; shift < bits; shift += RADIX_BITS) {
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[(((uint64_t)src[i].t - (uint64_t)lo) >> shift) & ((1u << RADIX_BITS) - 1)]++;
        size_t at = 0;
        for (size_t d = 0; d < (1u << RADIX_BITS); d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[count[(((uint64_t)src[i].t - (uint64_t)lo) >> shift) & ((1u << RADIX_BITS) - 1)]++] = src[i];
        struct sort_key *t = src;
        src = dst;
        dst = t;
    }
    if (src != k)
        memcpy(k, src, n * sizeof *k);
    free(tmp);
    return 0;
}

/* The records gathered into a copy in the keys' order, and copied back.
 * Following the permutation's cycles (below) reads each record from where
 * the last move says, one cache miss after another; a gather's reads do
 * not wait on each other and its writes go in order: the cycles took 12%
 * of a report of 2 M rows written by API (not by time), the gather a
 * third of that.  0 if the copy could not be had. */
static int gather_by_keys(char *b, size_t size, const struct sort_key *k, size_t n)
{
    char *out = n <= SIZE_MAX / size ? malloc(n * size) : NULL;
    if (!out)
        return 0;
    for (size_t j = 0; j < n; j++)
        memcpy(out + j * size, b + k[j].i * size, size);
    memcpy(b, out, n * size);
    free(out);
    return 1;
}

void permute_by_keys(void *base, size_t size, struct sort_key *k, size_t n, void *tmp)
{
    char *b = base;
    if (n > 1 && gather_by_keys(b, size, k, n))
        return;
    /* no memory for the copy: in place.  Position j takes the record now
     * at k[j].i; k[j].i = j marks it done */
    for (size_t j = 0; j < n; j++) {
        if (k[j].i == j)
            continue;
        memcpy(tmp, b + j * size, size);
        size_t at = j;
        while (k[at].i != j) {
            size_t from = k[at].i;
            memcpy(b + at * size, b + from * size, size);
            k[at].i = at;
            at = from;
        }
        memcpy(b + at * size, tmp, size);
        k[at].i = at;
    }
}

static int64_t key_at(const char *base, size_t i, size_t size, size_t off)
{
    int64_t t;
    memcpy(&t, base + i * size + off, sizeof t);
    return t;
}

int sort_by_time(void *base, size_t n, size_t size, size_t key_offset)
{
    char *b = base;
    size_t i;
    for (i = 1; i < n && key_at(b, i - 1, size, key_offset) <= key_at(b, i, size, key_offset); i++)
        ;
    if (i >= n)
        return 0; /* in order already */
    struct sort_key *k = malloc(n * sizeof *k);
    char *tmp = malloc(size);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return -1;
    }
    for (i = 0; i < n; i++)
        k[i] = (struct sort_key){ key_at(b, i, size, key_offset), i };
    if (sort_keys(k, n) != 0) {
        free(k);
        free(tmp);
        return -1;
    }
    permute_by_keys(b, size, k, n, tmp);
    free(k);
    free(tmp);
    return 0;
}

/* The first of k[lo, hi) with t or more, hi if none. */
static size_t lower_bound(const struct sort_key *k, size_t lo, size_t hi, int64_t t)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (k[mid].t < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int64_t sort_keys_first(const struct sort_key *k, size_t n, int64_t t)
{
    size_t lo = lower_bound(k, 0, n, t);
    return lo < n && k[lo].t == t ? (int64_t)k[lo].i : -1;
}

/* From *hint (the last one found) out, in steps that double, then a
 * bisection of the last step: a search near the last is a few steps on
 * lines in the cache, where a bisection of all the keys is a miss a step. */
int64_t sort_keys_first_near(const struct sort_key *k, size_t n, int64_t t, size_t *hint)
{
    size_t h = *hint < n ? *hint : n, lo, hi, step = 1;
    if (h < n && k[h].t < t) { /* to the right: k[lo - 1].t < t */
        lo = h + 1;
        hi = lo;
        while (hi < n && k[hi].t < t) {
            lo = hi + 1;
            hi = lo + step;
            step *= 2;
        }
        if (hi > n)
            hi = n;
    } else { /* to the left: k[hi].t >= t, or hi = n */
        hi = h;
        lo = hi;
        while (lo > 0 && k[lo - 1].t >= t) {
            hi = lo - 1;
            lo = lo > step ? lo - step : 0;
            step *= 2;
        }
    }
    lo = lower_bound(k, lo, hi, t); /* the first of [lo, hi] with t or more: hi is one */
    *hint = lo;
    return lo < n && k[lo].t == t ? (int64_t)k[lo].i : -1;
}

/* (sort_by_time.h) */
size_t sorted_first_at(const void *v, size_t n, size_t size, size_t off, int64_t ts)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int64_t x;
        memcpy(&x, (const char *)v + mid * size + off, sizeof x);
        if (x < ts)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}
