/* plugin_ring.c: the bounded multi-producer ring of NCCL plugin records
 * (see plugin_ring.h).  65,536 slots of 128 bytes (8 MiB of zero pages,
 * touched only as records arrive): NCCL's events come a few per operation
 * and channel, in bursts, and the writer, which stores each as a row,
 * drains them every few milliseconds. */
#include "collector/plugin_ring.h"
#include "collector/visibility.h"

#include <string.h>

#define BITS 16
#define CAP (1u << BITS)

static struct gt_plug_rec ring[CAP];
static _Alignas(64) _Atomic uint64_t head;
static _Alignas(64) uint64_t tail; /* the writer's */
static _Atomic uint64_t dropped;

struct gt_plug_rec *gt_plug_claim(void)
{
    uint64_t pos = atomic_load_explicit(&head, memory_order_relaxed);
    for (;;) {
        struct gt_plug_rec *r = &ring[pos & (CAP - 1)];
        uint64_t want = 2 * (pos >> BITS);
        uint64_t t = atomic_load_explicit(&r->turn, memory_order_acquire);
        if (t == want) {
            if (atomic_compare_exchange_weak_explicit(&head, &pos, pos + 1, memory_order_relaxed,
                                                      memory_order_relaxed)) {
                /* turn still says empty (want) until gt_plug_publish */
                memset((char *)r + sizeof r->turn, 0, sizeof *r - sizeof r->turn);
                return r;
            }
        } else if (t < want) { /* the writer has not emptied last lap's record */
            atomic_fetch_add_explicit(&dropped, 1, memory_order_relaxed);
            return NULL;
        } else {
            pos = atomic_load_explicit(&head, memory_order_relaxed);
        }
    }
}

void gt_plug_publish(struct gt_plug_rec *r)
{
    uint64_t t = atomic_load_explicit(&r->turn, memory_order_relaxed);
    atomic_store_explicit(&r->turn, t + 1, memory_order_release);
}

unsigned long gt_plug_drain(gt_plug_fn *fn, void *ctx)
{
    return gt_plug_drain_max(fn, ctx, ~0ul);
}

unsigned long gt_plug_drain_max(gt_plug_fn *fn, void *ctx, unsigned long max)
{
    unsigned long n = 0;
    while (n < max) {
        struct gt_plug_rec *r = &ring[tail & (CAP - 1)];
        uint64_t full = 2 * (tail >> BITS) + 1;
        if (atomic_load_explicit(&r->turn, memory_order_acquire) != full)
            return n;
        fn(r, ctx);
        atomic_store_explicit(&r->turn, full + 1, memory_order_release);
        tail++;
        n++;
    }
    return n;
}

uint64_t gt_plug_dropped(void)
{
    return atomic_load_explicit(&dropped, memory_order_relaxed);
}

void gt_plug_count_dropped(uint64_t n)
{
    atomic_fetch_add_explicit(&dropped, n, memory_order_relaxed);
}

void gt_plug_forget_after_fork(void)
{
    /* the parent's records are the parent's to store; a parent that had
     * none leaves nothing to clear (no page touched) */
    if (atomic_load(&head))
        memset(ring, 0, sizeof ring);
    atomic_store(&head, 0);
    tail = 0;
    atomic_store(&dropped, 0);
}
