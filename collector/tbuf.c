/* tbuf.c: per-thread record rings (see tbuf.h for the invariants). */
#define _GNU_SOURCE
#include "collector/tbuf.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static _Atomic(struct gt_tbuf *) all_rings;
static size_t ring_records = 16384;
GT_TLS struct gt_thread_state gt_thread;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

void gt_tbuf_configure(size_t bytes)
{
    size_t n = 64;
    while (n * 2 * sizeof(struct gt_record) <= bytes)
        n *= 2;
    ring_records = n;
}

static void on_thread_exit(void *p)
{
    struct gt_tbuf *b = p;
    atomic_store(&b->state, GT_TBUF_DEAD);
}

static void make_key(void)
{
    pthread_key_create(&exit_key, on_thread_exit);
}

static struct gt_tbuf *claim_ring(void);

/* Slow path: once per thread. */
struct gt_tbuf *gt_tbuf_claim(void)
{
    int saved_errno = errno;
    struct gt_tbuf *b = claim_ring();
    errno = saved_errno;
    return b;
}

static struct gt_tbuf *claim_ring(void)
{
    pthread_once(&key_once, make_key);
    struct gt_tbuf *b;
    for (b = atomic_load(&all_rings); b; b = b->next) {
        int expect = GT_TBUF_FREE;
        if (atomic_compare_exchange_strong(&b->state, &expect, GT_TBUF_LIVE))
            break;
    }
    if (!b) {
        size_t bytes = sizeof *b + ring_records * sizeof(struct gt_record);
        /* populated now, so that the fast path never takes a page fault */
        void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        b = p;
        b->mask = ring_records - 1;
        b->next = atomic_load(&all_rings);
        while (!atomic_compare_exchange_weak(&all_rings, &b->next, b))
            ;
    }
    b->tid = (uint32_t)gettid();
    atomic_store(&b->nvtx_depth, 0);
    pthread_setspecific(exit_key, b);
    return b;
}

void gt_tbuf_forget_all_after_fork(void)
{
    /* The parent's rings were copied into the child; their records belong to
     * the parent, which writes them.  Mark every ring free and empty. */
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next) {
        atomic_store(&b->tail, atomic_load(&b->head));
        b->tail_seen = atomic_load(&b->head);
        atomic_store(&b->dropped, 0);
        atomic_store(&b->state, GT_TBUF_FREE);
    }
    gt_thread.tbuf = NULL;
}

size_t gt_tbuf_drain(gt_tbuf_fn *fn, void *ctx)
{
    size_t n = 0;
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next) {
        int dead = atomic_load(&b->state) == GT_TBUF_DEAD;
        uint64_t h = atomic_load_explicit(&b->head, memory_order_acquire);
        uint64_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
        /* read after head: the owner set tid before its first commit */
        uint32_t tid = t != h ? b->tid : 0;
        n += h - t;
        for (; t != h; t++) {
            const struct gt_record *r = &b->recs[t & b->mask], *nccl = NULL;
            /* an NCCL call and its second slot were committed together */
            if (r->type == GT_REC_CALL && (r->flags & GT_RF_NCCL) && t + 1 != h &&
                b->recs[(t + 1) & b->mask].type == GT_REC_NCCL)
                nccl = &b->recs[++t & b->mask];
            fn(r, nccl, tid, ctx);
        }
        atomic_store_explicit(&b->tail, t, memory_order_release);
        if (dead) /* its thread exited before we read head: nothing more comes */
            atomic_store(&b->state, GT_TBUF_FREE);
    }
    return n;
}

void gt_tbuf_open_ranges(void (*fn)(uint32_t tid, const struct gt_nvtx_open *o, int depth, void *ctx), void *ctx)
{
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next) {
        if (atomic_load(&b->state) != GT_TBUF_LIVE)
            continue;
        int n = atomic_load(&b->nvtx_depth);
        for (int i = 0; i < n && i < GT_NVTX_MAX_DEPTH; i++)
            fn(b->tid, &b->nvtx_open[i], i, ctx);
    }
}

uint64_t gt_tbuf_backlog(void)
{
    uint64_t n = 0;
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next)
        n += atomic_load_explicit(&b->head, memory_order_acquire) - atomic_load_explicit(&b->tail, memory_order_relaxed);
    return n;
}

uint64_t gt_tbuf_dropped(void)
{
    uint64_t d = 0;
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next)
        d += atomic_load(&b->dropped);
    return d;
}
