/* membudget.c: the budget the rings and the queue share (see membudget.h). */
#define _GNU_SOURCE
#include "collector/membudget.h"

#include <stdatomic.h>
#include <unistd.h>

static size_t host = GT_MEM_HOST_BYTES;
static _Atomic size_t used, peak;

size_t gt_mem_pages(size_t bytes)
{
    size_t pg = 4096;
    return (bytes + pg - 1) / pg * pg;
}

void gt_mem_set_host(size_t bytes)
{
    host = bytes > GT_MEM_HOST_BYTES ? bytes : GT_MEM_HOST_BYTES;
}

size_t gt_mem_host(void)
{
    return host;
}

int gt_mem_take(size_t bytes, enum gt_mem_user who)
{
    size_t n = gt_mem_pages(bytes);
    /* the rings stop short of the queue's reserve; the queue may use all */
    size_t limit = who == GT_MEM_RING ? host - GT_MEM_QUEUE_RESERVE : host;
    size_t was = atomic_fetch_add(&used, n);
    if (was + n > limit) {
        atomic_fetch_sub(&used, n);
        return -1;
    }
    size_t now = was + n, p = atomic_load_explicit(&peak, memory_order_relaxed);
    while (now > p && !atomic_compare_exchange_weak(&peak, &p, now))
        ;
    return 0;
}

void gt_mem_give(size_t bytes)
{
    atomic_fetch_sub(&used, gt_mem_pages(bytes));
}

void gt_mem_set_used(size_t bytes)
{
    atomic_store(&used, bytes);
}

size_t gt_mem_used(void)
{
    return atomic_load(&used);
}

size_t gt_mem_peak(void)
{
    return atomic_load(&peak);
}
