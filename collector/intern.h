/* intern.h: the claim protocol of the tracer's lock-free interning tables
 * (call stacks, strings, Python stacks).
 *
 * A slot goes EMPTY (hash 0) -> CLAIMED (hash set by CAS) -> READY (its
 * contents written, then `ready` released non-zero).  A thread that finds
 * its hash in a claimed slot waits for READY before comparing contents;
 * slots are never emptied, so a hash, once there, stays.
 */
#ifndef GPUTRACE_INTERN_H
#define GPUTRACE_INTERN_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

enum gt_intern_probe {
    GT_INTERN_CLAIMED, /* this thread took the empty slot: fill it, then set `ready` */
    GT_INTERN_MATCH,   /* the slot holds hash h and is ready: compare its contents */
    GT_INTERN_OTHER,   /* the slot holds another hash: probe on */
};

/* One probe of a slot for hash h (non-zero). */
static inline enum gt_intern_probe gt_intern_probe(_Atomic uint64_t *hash, _Atomic int *ready, uint64_t h)
{
    uint64_t cur = atomic_load_explicit(hash, memory_order_acquire);
    if (cur == 0) {
        uint64_t expect = 0;
        if (atomic_compare_exchange_strong(hash, &expect, h))
            return GT_INTERN_CLAIMED;
        cur = expect;
    }
    if (cur != h)
        return GT_INTERN_OTHER;
    while (!atomic_load_explicit(ready, memory_order_acquire))
        ;
    return GT_INTERN_MATCH;
}

/* The head of a slot that holds a sequence of items (a call stack's return
 * addresses, a Python stack's frames); the items follow it in the slot. */
struct gt_intern_seq {
    _Atomic uint64_t hash;
    _Atomic int ready;
    int reported;            /* writer thread only */
    int depth;               /* items held */
};

/* Interns n items of `size` bytes in a table of `slots` (a power of two)
 * slots of `stride` bytes, each a gt_intern_seq with its items at offset
 * `items_at`; h is the items' hash (non-zero).  Returns the slot's index + 1,
 * or 0 when 64 probes find neither the sequence nor room.  *published counts
 * the slots made ready (after each is), so that the writer's look for new
 * ones costs nothing while none came (it scanned the whole table each pass). */
static inline uint32_t gt_intern_seq(void *table, uint32_t slots, size_t stride, size_t items_at, uint64_t h,
                                     const void *items, int n, size_t size, _Atomic uint32_t *published)
{
    for (uint32_t probe = 0; probe < 64; probe++) {
        uint32_t i = (uint32_t)((h + probe) & (slots - 1));
        char *slot = (char *)table + (size_t)i * stride;
        struct gt_intern_seq *e = (struct gt_intern_seq *)slot;
        switch (gt_intern_probe(&e->hash, &e->ready, h)) {
        case GT_INTERN_CLAIMED:
            e->depth = n;
            memcpy(slot + items_at, items, (size_t)n * size);
            atomic_store_explicit(&e->ready, 1, memory_order_release);
            atomic_fetch_add_explicit(published, 1, memory_order_release);
            return i + 1;
        case GT_INTERN_MATCH:
            if (e->depth == n && memcmp(slot + items_at, items, (size_t)n * size) == 0)
                return i + 1;
            break;
        case GT_INTERN_OTHER:
            break;
        }
    }
    return 0;
}

#endif
