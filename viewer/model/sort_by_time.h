/* sort_by_time.h: sorting big records by a timestamp without moving them
 * log n times, and the (timestamp, index) pairs beneath (sort_by_time.c). */
#ifndef GPUTRACE_SORT_BY_TIME_H
#define GPUTRACE_SORT_BY_TIME_H

#include <stddef.h>
#include <stdint.h>

/* A timestamp and the index of its record. */
struct sort_key { int64_t t; size_t i; };

/* Sorts keys by t, stably (ties keep their order).  Returns -1 (k
 * untouched) if memory runs out. */
int sort_keys(struct sort_key *k, size_t n);

/* In keys sorted by sort_keys, the index of the first with t, or -1
 * (the earliest record of that timestamp or id: the sort is stable). */
int64_t sort_keys_first(const struct sort_key *k, size_t n, int64_t t);

/* The same, searched from *hint (the position the last search ended at;
 * 0 at first) out, and *hint moved there: for lookups in nearly the
 * keys' order (the calls asking for their own records), a few steps near
 * the last instead of a bisection of all the keys. */
int64_t sort_keys_first_near(const struct sort_key *k, size_t n, int64_t t, size_t *hint);

/* The first of n records of `size` bytes at v, sorted by the int64_t at
 * `off`, whose value is ts or later (n if none): a bisection. */
size_t sorted_first_at(const void *v, size_t n, size_t size, size_t off, int64_t ts);

/* Sorts n records of `size` bytes at base by the int64_t at key_offset,
 * stably.  Returns -1 (base untouched) if memory runs out. */
int sort_by_time(void *base, size_t n, size_t size, size_t key_offset);

/* Puts the n records of `size` bytes at base in the order of k (sorted
 * keys of their indexes): position j takes the record now at k[j].i.
 * Gathered into a copy of the records (which is freed), or, where that
 * copy cannot be had, each moved once in place, tmp holding one record:
 * then k's indexes are used up. */
void permute_by_keys(void *base, size_t size, struct sort_key *k, size_t n, void *tmp);

#endif
