/* memreg.c: registry of seen allocations (see memreg.h).
 *
 * Invariants:
 *   1. ranges[0..n) is sorted by base and ranges do not overlap.
 *   2. seq is odd exactly while a writer is changing ranges or n.
 */
#include "libtrace/memreg.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#define CAP 65536

struct range { uintptr_t base, end; int kind; };

static struct range ranges[CAP];
static _Atomic size_t n;
static _Atomic unsigned seq;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* First index whose base is > p.  Caller holds lock or reads under seq. */
static size_t upper(uintptr_t p, size_t count)
{
    size_t lo = 0, hi = count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ranges[mid].base <= p)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void gt_memreg_add(const void *base, size_t size, enum gt_mem_kind kind)
{
    uintptr_t b = (uintptr_t)base;
    if (!b)
        return;
    pthread_mutex_lock(&lock);
    size_t count = atomic_load(&n);
    if (count < CAP) {
        size_t i = upper(b, count);
        atomic_fetch_add(&seq, 1);
        memmove(&ranges[i + 1], &ranges[i], (count - i) * sizeof *ranges);
        ranges[i] = (struct range){ b, b + (size ? size : 1), kind };
        atomic_store(&n, count + 1);
        atomic_fetch_add(&seq, 1);
    }
    pthread_mutex_unlock(&lock);
}

void gt_memreg_remove(const void *base)
{
    uintptr_t b = (uintptr_t)base;
    pthread_mutex_lock(&lock);
    size_t count = atomic_load(&n);
    size_t i = upper(b, count);
    if (i > 0 && ranges[i - 1].base == b) {
        atomic_fetch_add(&seq, 1);
        memmove(&ranges[i - 1], &ranges[i], (count - i) * sizeof *ranges);
        atomic_store(&n, count - 1);
        atomic_fetch_add(&seq, 1);
    }
    pthread_mutex_unlock(&lock);
}

enum gt_mem_kind gt_memreg_kind(const void *ptr)
{
    uintptr_t p = (uintptr_t)ptr;
    for (;;) {
        unsigned s = atomic_load_explicit(&seq, memory_order_acquire);
        if (s & 1)
            continue;
        size_t count = atomic_load_explicit(&n, memory_order_relaxed);
        size_t i = upper(p, count);
        int kind = GT_MEM_PAGEABLE;
        if (i > 0 && p < ranges[i - 1].end)
            kind = ranges[i - 1].kind;
        atomic_thread_fence(memory_order_acquire);
        if (atomic_load_explicit(&seq, memory_order_relaxed) == s)
            return (enum gt_mem_kind)kind;
    }
}
