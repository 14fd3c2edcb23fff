/* tbuf.c: per-thread record rings (see tbuf.h for the invariants and the
 * memory they take). */
#define _GNU_SOURCE
#include "collector/tbuf.h"
#include "collector/membudget.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

static _Atomic(struct gt_tbuf *) all_rings;
static size_t max_records = 16384;
static _Atomic uint64_t lost_no_ring; /* records of threads that got no ring */
static void (*_Atomic grow_hook)(void);
GT_TLS struct gt_thread_state gt_thread;
static pthread_key_t exit_key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;

void gt_tbuf_configure(size_t bytes)
{
    size_t n = 64;
    while (n * 2 * sizeof(struct gt_record) <= bytes)
        n *= 2;
    max_records = n;
    /* rings larger than the default were asked for: room for four of them
     * (the default's 8 MiB keeps the budget at its 32 MiB) */
    gt_mem_set_host(4 * n * sizeof(struct gt_record));
}

/* Segments of GT_TBUF_SEG_RECORDS take their records from one 2 MiB huge
 * page where the system lends one (transparent huge pages, "always" or
 * "madvise"): a burst maps fresh segments on the program's thread, and
 * one huge page costs that thread a fraction of what faulting in 512 small
 * ones does (docs/tracer-guarantees.md, Memory).  The mapping starts on a
 * 2 MiB boundary, so that the header and all but the last 128 bytes of
 * records lie in one. */
#define HUGE_BYTES ((size_t)2 << 20)
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14; older kernels say EINVAL */
#endif

static void *map_aligned(size_t bytes, int populate)
{
    size_t span = bytes + HUGE_BYTES;
    char *q = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (q == MAP_FAILED)
        return MAP_FAILED;
    char *a = (char *)(((uintptr_t)q + HUGE_BYTES - 1) & ~(uintptr_t)(HUGE_BYTES - 1));
    size_t page = (size_t)sysconf(_SC_PAGESIZE), used = (bytes + page - 1) & ~(page - 1);
    if (a > q)
        munmap(q, (size_t)(a - q));
    if (q + span > a + used)
        munmap(a + used, (size_t)(q + span - (a + used)));
    madvise(a, bytes, MADV_HUGEPAGE); /* "never": no effect, 4 KiB pages as before */
    /* a kernel before 5.14 (EINVAL): touched, as MAP_POPULATE would have;
     * one short of memory (ENOMEM, a cgroup's limit) or whatever else:
     * left to fault in as records arrive, as MAP_POPULATE gives up */
    if (populate && madvise(a, bytes, MADV_POPULATE_WRITE) != 0 && errno == EINVAL)
        for (size_t o = 0; o < bytes; o += page)
            ((volatile char *)a)[o] = 0;
    return a;
}

/* Memory for rings, within the budget they share with the queue
 * (membudget.h); NULL when the budget or memory says no.
 * Pages are touched as records arrive unless populate (a ring that grew
 * belongs to a busy thread, which will use all of it soon: the faults are
 * taken here, once, instead of on the fast path).  errno as it was: this
 * runs inside the program's CUDA calls. */
static void *map(size_t bytes, int populate)
{
    if (gt_mem_take(bytes, GT_MEM_RING) != 0)
        return NULL;
    int saved = errno;
    void *p = bytes > HUGE_BYTES ? map_aligned(bytes, populate) : MAP_FAILED;
    if (p == MAP_FAILED) /* small, or no room for the aligned mapping's slack (RLIMIT_AS) */
        p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | (populate ? MAP_POPULATE : 0),
                 -1, 0);
    errno = saved;
    if (p == MAP_FAILED) {
        gt_mem_give(bytes);
        return NULL;
    }
    return p;
}

void gt_tbuf_set_grow_hook(void (*fn)(void))
{
    atomic_store(&grow_hook, fn);
}

static void unmap(void *p, size_t bytes)
{
    munmap(p, bytes);
    gt_mem_give(bytes);
}

/* A segment's mapping: its header and its records. */
static size_t seg_bytes(const struct gt_tbuf_seg *s)
{
    return sizeof *s + (size_t)(s->mask + 1) * sizeof(struct gt_record);
}

/* The size of the segments a ring moves on to once grown. */
static size_t steady_records(void)
{
    return max_records < GT_TBUF_SEG_RECORDS ? max_records : GT_TBUF_SEG_RECORDS;
}

/* Pushes segment s on its ring's pool (any thread but the producer). */
static void pool_push(struct gt_tbuf *b, struct gt_tbuf_seg *s)
{
    struct gt_tbuf_seg *top = atomic_load_explicit(&b->pool, memory_order_relaxed);
    do
        s->qnext = top;
    /* sequentially consistent: a push onto a ring being freed is either
     * seen by the drain's exchange or sees the ring free (seg_release) */
    while (!atomic_compare_exchange_weak_explicit(&b->pool, &top, s, memory_order_seq_cst, memory_order_relaxed));
}

/* Whether a ring may map another segment of the steady size: at most what
 * doubling up to its size would have mapped. */
static int may_map(struct gt_tbuf *b)
{
    return atomic_load_explicit(&b->seg_records, memory_order_relaxed) + steady_records() <=
           2 * max_records - GT_TBUF_FIRST_RECORDS;
}

static struct gt_tbuf_seg *new_seg(struct gt_tbuf *b, size_t records, uint64_t start, int populate)
{
    size_t bytes = sizeof(struct gt_tbuf_seg) + records * sizeof(struct gt_record);
    struct gt_tbuf_seg *s = map(bytes, populate);
    if (!s)
        return NULL;
    s->start = start;
    s->mask = records - 1;
    s->ring = b;
    atomic_store(&s->next, NULL);
    atomic_fetch_add_explicit(&b->seg_records, records, memory_order_relaxed);
    return s;
}

/* Unmaps the segments of list s (linked by qnext, counted in ring b's
 * seg_records). */
static void unmap_list(struct gt_tbuf *b, struct gt_tbuf_seg *s)
{
    while (s) {
        struct gt_tbuf_seg *next = s->qnext;
        atomic_fetch_sub_explicit(&b->seg_records, s->mask + 1, memory_order_relaxed);
        unmap(s, seg_bytes(s));
        s = next;
    }
}

/* A consumer is done with segment s: drained in place (`counted` in its
 * ring's seg_records) or stored from the queue (not counted since it was
 * queued, gt_tbuf_seg_queued).  Back to the ring's pool (counted) while
 * the ring holds no more than its size with it and s is of the size the
 * producer moves on to, else unmapped.  Consumers push, the producer takes
 * the whole list at once (an exchange), so no node is popped while
 * another pushes it: no ABA. */
static void seg_release(struct gt_tbuf_seg *s, int counted)
{
    struct gt_tbuf *b = s->ring;
    size_t records = s->mask + 1;
    uint64_t held = atomic_load_explicit(&b->seg_records, memory_order_relaxed) + (counted ? 0 : records);
    if (records == steady_records() && held <= max_records) {
        if (!counted)
            atomic_fetch_add_explicit(&b->seg_records, records, memory_order_relaxed);
        pool_push(b, s);
        /* a ring whose thread is gone and whose spares the drain let go
         * (a segment stored whole after the drain found it drained): not
         * kept for a thread that may never come */
        if (atomic_load(&b->state) == GT_TBUF_FREE)
            unmap_list(b, atomic_exchange(&b->pool, NULL));
        return;
    }
    if (counted)
        atomic_fetch_sub_explicit(&b->seg_records, records, memory_order_relaxed);
    unmap(s, seg_bytes(s));
}

/* Producer: the segment to move on to at record h from s, full: twice s's
 * size up to the steady size; then one of that size from the pool, or
 * fresh while the ring's segments stay within about twice its size; NULL:
 * none. */
static struct gt_tbuf_seg *next_seg(struct gt_tbuf *b, const struct gt_tbuf_seg *s, uint64_t h)
{
    size_t steady = steady_records(), cur = s->mask + 1;
    if (cur < steady)
        return new_seg(b, cur * 2, h, 1);
    /* the pool's list kept in spare at once: a fork that catches this
     * thread here leaves it where the child's recount finds it (at most
     * the one segment being linked is the child's loss) */
    struct gt_tbuf_seg *g = b->spare;
    if (!g) {
        g = b->spare = atomic_exchange_explicit(&b->pool, NULL, memory_order_acquire);
        /* the store kept apart from the next one (the compiler may not fold
         * them): a fork between them would leave the child none of the list */
        atomic_signal_fence(memory_order_seq_cst);
    }
    if (g) {
        b->spare = g->qnext;
        g->start = h;
        atomic_store_explicit(&g->next, NULL, memory_order_relaxed);
    } else if (may_map(b)) {
        g = new_seg(b, steady, h, 1);
    }
    return g;
}

/* Run on the exiting thread.  A ring that is not the thread's own is left
 * alone: a child forked from this thread forgot its rings (all free) but
 * not this key's value, and another thread of the child may have claimed
 * the ring since.  The thread's pointer is forgotten, and it claims no
 * ring again: a wrapped call from a later key's destructor would otherwise
 * write into this ring, which the drain may free (its spares unmapped)
 * and hand to a new thread, or claim one in glibc's last round of
 * destructors, which nothing would ever mark dead.  Its records are
 * counted as lost (gt_tbuf_claim). */
static void on_thread_exit(void *p)
{
    struct gt_tbuf *b = p;
    if (gt_thread.tbuf != b)
        return;
    gt_thread.tbuf = NULL;
    gt_thread.exited = 1;
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
    struct gt_tbuf *b = NULL;
    /* not from a signal handler that interrupted this thread's own claim:
     * its ring and the outer one's would race for the thread's key, and
     * the one the key lost would never be marked dead (nor is
     * pthread_setspecific safe in a handler); its record is counted lost */
    if (!gt_thread.exited && !gt_thread.claiming) {
        gt_thread.claiming = 1;
        atomic_signal_fence(memory_order_seq_cst);
        b = claim_ring();
        atomic_signal_fence(memory_order_seq_cst);
        gt_thread.claiming = 0;
    }
    if (!b) /* the record the caller wanted to make is lost: counted */
        atomic_fetch_add_explicit(&lost_no_ring, 1, memory_order_relaxed);
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
        b = map(sizeof *b, 0);
        if (!b)
            return NULL;
        size_t first = max_records < GT_TBUF_FIRST_RECORDS ? max_records : GT_TBUF_FIRST_RECORDS;
        b->seg = b->rseg = new_seg(b, first, 0, 0);
        if (!b->seg) {
            unmap(b, sizeof *b);
            return NULL;
        }
        b->next = atomic_load(&all_rings);
        while (!atomic_compare_exchange_weak(&all_rings, &b->next, b))
            ;
    }
    b->tid = (uint32_t)gettid();
    atomic_store(&b->nvtx_depth, 0);
    pthread_setspecific(exit_key, b);
    return b;
}

struct gt_record *gt_tbuf_reserve_slow(struct gt_tbuf *b, unsigned n)
{
    uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
    struct gt_tbuf_seg *s = b->seg;
    uint64_t t = atomic_load_explicit(&b->tail, memory_order_acquire);
    b->tail_seen = t > s->start ? t : s->start;
    if (h + n - 1 - b->tail_seen <= s->mask)
        return &s->recs[h & s->mask];
    /* full: move on to another segment (next_seg), if the ring's size
     * allows; the records still in this one stay for the writer */
    {
        int saved = errno;
        struct gt_tbuf_seg *g = next_seg(b, s, h);
        if (g) {
            atomic_store_explicit(&s->next, g, memory_order_release);
            b->seg = g;
            b->tail_seen = h;
            void (*kick)(void) = atomic_load_explicit(&grow_hook, memory_order_relaxed);
            if (kick && g->mask + 1 >= GT_TBUF_KICK_RECORDS)
                kick();
        }
        errno = saved;
        if (g)
            return &g->recs[h & g->mask];
    }
    atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
    return NULL;
}

struct gt_nvtx_open *gt_tbuf_nvtx_level(struct gt_tbuf *b, int d)
{
    if (d < GT_NVTX_MAX_DEPTH)
        return &b->nvtx_open[d];
    if (d >= GT_NVTX_MAX_DEPTH + GT_NVTX_DEEP)
        return NULL;
    struct gt_nvtx_open *deep = atomic_load_explicit(&b->nvtx_deep, memory_order_relaxed);
    if (!deep) {
        /* tried once: if it fails no level past the first ones is kept, so
         * that every level below a kept one is kept too */
        if (b->nvtx_deep_failed)
            return NULL;
        int saved = errno;
        deep = map(GT_NVTX_DEEP * sizeof *deep, 0);
        errno = saved;
        if (!deep) {
            b->nvtx_deep_failed = 1;
            return NULL;
        }
        atomic_store_explicit(&b->nvtx_deep, deep, memory_order_release);
    }
    return &deep[d - GT_NVTX_MAX_DEPTH];
}

/* Writer side: the segment that holds record t, unmapping the ones the
 * producer left behind once they are drained. */
static struct gt_tbuf_seg *seg_of(struct gt_tbuf *b, uint64_t t)
{
    struct gt_tbuf_seg *s = b->rseg, *g;
    while ((g = atomic_load_explicit(&s->next, memory_order_acquire)) != NULL && t >= g->start) {
        seg_release(s, 1);
        s = g;
    }
    b->rseg = s;
    return s;
}

void gt_tbuf_forget_all_after_fork(void)
{
    /* The parent's rings were copied into the child; their records belong to
     * the parent, which writes them.  Mark every ring free and empty. */
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next) {
        uint64_t h = atomic_load(&b->head);
        atomic_store(&b->tail, h);
        /* the segments left behind: this child's copies of them; and the
         * producer's segment is the consumer's now (a thread the fork
         * caught between linking its next segment and moving onto it left
         * `seg` on one let go here) */
        b->seg = seg_of(b, h);
        b->tail_seen = h > b->seg->start ? h : b->seg->start;
        atomic_store(&b->dropped, 0);
        atomic_store(&b->state, GT_TBUF_FREE);
    }
    atomic_store(&lost_no_ring, 0);
    gt_thread.tbuf = NULL;
}

/* The segments of a list linked by qnext (s alone: `one`): their records
 * added to *records, what the budget counts for them returned. */
static size_t held_by(const struct gt_tbuf_seg *s, int one, uint64_t *records)
{
    size_t bytes = 0;
    for (; s; s = one ? NULL : s->qnext) {
        *records += s->mask + 1;
        bytes += gt_mem_pages(seg_bytes(s));
    }
    return bytes;
}

void gt_tbuf_recount_after_fork(void)
{
    size_t held = 0;
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next) {
        uint64_t records = 0;
        held += gt_mem_pages(sizeof *b) + held_by(b->seg, 1, &records) + held_by(atomic_load(&b->pool), 0, &records) +
                held_by(b->spare, 0, &records);
        atomic_store(&b->seg_records, records);
        if (atomic_load(&b->nvtx_deep))
            held += gt_mem_pages(GT_NVTX_DEEP * sizeof(struct gt_nvtx_open));
    }
    gt_mem_set_used(held);
}

void gt_tbuf_seg_queued(struct gt_tbuf_seg *s)
{
    atomic_fetch_sub_explicit(&s->ring->seg_records, s->mask + 1, memory_order_relaxed);
}

void gt_tbuf_seg_free(struct gt_tbuf_seg *s)
{
    seg_release(s, 0); /* queued whole: no longer counted in its ring */
}

size_t gt_tbuf_drain_some(gt_tbuf_take_fn *fn, gt_tbuf_give_fn *give, void *ctx, int *cut)
{
    size_t n = 0;
    *cut = 0;
    for (struct gt_tbuf *b = atomic_load(&all_rings); b && !*cut; b = b->next) {
        int dead = atomic_load(&b->state) == GT_TBUF_DEAD;
        uint64_t h = atomic_load_explicit(&b->head, memory_order_acquire);
        uint64_t t = atomic_load_explicit(&b->tail, memory_order_relaxed);
        /* read after head: the owner set tid before its first commit */
        uint32_t tid = t != h ? b->tid : 0;
        while (t != h) {
            struct gt_tbuf_seg *s = seg_of(b, t), *g;
            /* a segment left behind whose records up to its end were
             * committed before this drain read head (invariant 4: the
             * producer moves on only with all of them committed, and never
             * comes back): handed over whole, not unmapped here */
            if (give && (g = atomic_load_explicit(&s->next, memory_order_acquire)) != NULL && g->start <= h &&
                g->start > t && give(s, t, g->start, tid, ctx) == 0) {
                /* the queue's from now on (gt_tbuf_seg_queued), bounded by
                 * the budget as its chunks are: a writer held up does not
                 * stop the ring moving on (gt_tbuf_seg_free counts it
                 * again if pooled); s is the writer's, not read again */
                n += g->start - t;
                t = g->start;
                b->rseg = g;
                continue;
            }
            const struct gt_record *r = &s->recs[t & s->mask], *nccl = NULL;
            /* an NCCL call and its second slot were committed together, in
             * one segment */
            if (r->type == GT_REC_CALL && (r->flags & GT_RF_NCCL) && t + 1 != h &&
                s->recs[(t + 1) & s->mask].type == GT_REC_NCCL)
                nccl = &s->recs[(t + 1) & s->mask];
            if (fn(r, nccl, tid, ctx) != 0) { /* no room: the rest stays in the ring */
                *cut = 1;
                break;
            }
            t += nccl ? 2 : 1;
            n += nccl ? 2 : 1;
        }
        seg_of(b, t); /* a segment left behind and drained goes now */
        atomic_store_explicit(&b->tail, t, memory_order_release);
        if (dead && t == h) { /* its thread exited before we read head: nothing more comes */
            /* the segments it kept for its next moves unmapped, its budget
             * given back, so that rings of threads gone do not hold it (the
             * one it was on stays, for the thread that claims it next): the
             * spares before a new owner may have the ring, the pool after
             * it is free, with whatever a writer pooled meanwhile.  Both
             * sides sequentially consistent: either the writer's look
             * after its push sees FREE (seg_release), or this exchange
             * sees the push */
            unmap_list(b, b->spare);
            b->spare = NULL;
            atomic_store(&b->state, GT_TBUF_FREE);
            unmap_list(b, atomic_exchange(&b->pool, NULL));
        }
    }
    return n;
}

/* gt_tbuf_drain's callback, as one that never refuses. */
struct all_ctx { gt_tbuf_fn *fn; void *ctx; };

static int take_all(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    struct all_ctx *a = ctx;
    a->fn(r, nccl, tid, a->ctx);
    return 0;
}

size_t gt_tbuf_drain(gt_tbuf_fn *fn, void *ctx)
{
    struct all_ctx a = { fn, ctx };
    int cut;
    return gt_tbuf_drain_some(take_all, NULL, &a, &cut);
}

void gt_tbuf_open_ranges(void (*fn)(uint32_t tid, const struct gt_nvtx_open *o, int depth, void *ctx), void *ctx)
{
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next) {
        if (atomic_load(&b->state) != GT_TBUF_LIVE)
            continue;
        int n = atomic_load(&b->nvtx_depth);
        struct gt_nvtx_open *deep = atomic_load_explicit(&b->nvtx_deep, memory_order_acquire);
        for (int i = 0; i < n && i < GT_NVTX_MAX_DEPTH + GT_NVTX_DEEP; i++) {
            if (i >= GT_NVTX_MAX_DEPTH && !deep)
                break;
            fn(b->tid, i < GT_NVTX_MAX_DEPTH ? &b->nvtx_open[i] : &deep[i - GT_NVTX_MAX_DEPTH], i, ctx);
        }
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
    uint64_t d = atomic_load(&lost_no_ring);
    for (struct gt_tbuf *b = atomic_load(&all_rings); b; b = b->next)
        d += atomic_load(&b->dropped);
    return d;
}
