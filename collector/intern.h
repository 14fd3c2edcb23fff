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
#include <stdint.h>

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

#endif
