/* sort_by_time.c: sorts (timestamp, index) pairs, then moves each record
 * once into place by following the permutation's cycles.  qsort on the
 * records themselves moves 88-byte calls log n times (and glibc's merge
 * sort allocates a copy of the whole array); rows that come in time order
 * already are left alone after one pass. */
#include "viewer/sort_by_time.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct key { int64_t t; size_t i; };

static int cmp_key(const void *a, const void *b)
{
    const struct key *x = a, *y = b;
    if (x->t != y->t)
        return x->t < y->t ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i; /* stable */
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
    struct key *k = malloc(n * sizeof *k);
    char *tmp = malloc(size);
    if (!k || !tmp) {
        free(k);
        free(tmp);
        return -1;
    }
    for (i = 0; i < n; i++)
        k[i] = (struct key){ key_at(b, i, size, key_offset), i };
    qsort(k, n, sizeof *k, cmp_key);
    /* position j takes the record now at k[j].i; k[j].i = j marks it done */
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
    free(k);
    free(tmp);
    return 0;
}
