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

/* The slots of a table made ready, in the order they were: the k-th one's
 * index + 1 in log[k] (0 while its maker is between counting it and
 * logging it), count of them in published.  The writer visits the new
 * ones from the log (gt_intern_each_new) instead of scanning the table:
 * a table of stacks is megabytes, and the scan faulted its pages in, and a
 * forked child's reset wrote to every slot. */
struct gt_intern_log {
    _Atomic uint32_t published;
    _Atomic uint32_t *log; /* as many as the table's slots */
};

/* Interns n items of `size` bytes in a table of `slots` (a power of two)
 * slots of `stride` bytes, each a gt_intern_seq with its items at offset
 * `items_at`; h is the items' hash (non-zero).  Returns the slot's index + 1,
 * or 0 when 64 probes find neither the sequence nor room.  A slot made
 * ready here is logged in lg (after it is ready). */
static inline uint32_t gt_intern_seq(void *table, uint32_t slots, size_t stride, size_t items_at, uint64_t h,
                                     const void *items, int n, size_t size, struct gt_intern_log *lg)
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
            /* each slot is made ready once: fewer than `slots` come before it */
            atomic_store_explicit(&lg->log[atomic_fetch_add_explicit(&lg->published, 1, memory_order_relaxed)],
                                  i + 1, memory_order_release);
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

/* Visits the slots logged since *seen (the writer's count of those it
 * visited), in order: visit(index, ctx).  A slot counted but not yet
 * logged stops the walk there until the next call. */
static inline void gt_intern_each_new(struct gt_intern_log *lg, uint32_t *seen, void (*visit)(uint32_t i, void *ctx),
                                      void *ctx)
{
    uint32_t p = atomic_load_explicit(&lg->published, memory_order_acquire);
    for (; *seen < p; (*seen)++) {
        uint32_t v = atomic_load_explicit(&lg->log[*seen], memory_order_acquire);
        if (!v)
            break;
        visit(v - 1, ctx);
    }
}

/* In a forked child (one thread): the log of a table of `slots` slots of
 * `stride` bytes made whole, and every slot's `reported` cleared, by
 * walking the log (not the table); a slot whose maker was between counting
 * and logging it at the fork (a thread the child does not have) is found
 * by a scan of the table, the log then rewritten from it. */
static inline void gt_intern_reset(struct gt_intern_log *lg, void *table, uint32_t slots, size_t stride,
                                   uint32_t *seen)
{
    uint32_t p = atomic_load_explicit(&lg->published, memory_order_relaxed), k, v;
    for (k = 0; k < p && (v = atomic_load_explicit(&lg->log[k], memory_order_relaxed)) != 0; k++)
        ((struct gt_intern_seq *)((char *)table + (size_t)(v - 1) * stride))->reported = 0;
    if (k < p) {
        uint32_t n = 0;
        for (uint32_t i = 0; i < slots; i++) {
            struct gt_intern_seq *e = (struct gt_intern_seq *)((char *)table + (size_t)i * stride);
            if (atomic_load_explicit(&e->ready, memory_order_relaxed)) {
                e->reported = 0;
                atomic_store_explicit(&lg->log[n++], i + 1, memory_order_relaxed);
            }
        }
        for (k = n; k < p; k++)
            atomic_store_explicit(&lg->log[k], 0, memory_order_relaxed);
        atomic_store_explicit(&lg->published, n, memory_order_relaxed);
    }
    *seen = 0;
}

#endif
