/* tbuf.h: per-thread record buffers (single producer, single consumer).
 *
 * Each application thread appends to its own ring without locks or
 * allocation; the writer thread is the only consumer.  A full ring counts
 * the record as dropped instead of waiting.  Rings of threads that exited
 * are drained, the segments they kept for their next moves unmapped, and
 * then handed to the next new thread, so thread churn does not grow
 * memory nor hold the budget.
 *
 * Memory: a ring starts small (GT_TBUF_FIRST_RECORDS, 4 KiB) and grows
 * when it fills, on the slow path of the thread that filled it: the
 * producer moves on to a new segment twice the size, up to
 * GT_TBUF_SEG_RECORDS (2 MiB, a huge page where the system lends one:
 * tbuf.c, map), then to more segments of that size, while
 * the ring's segments hold about twice GPUTRACE_BUFFER_MB at most; the
 * writer follows when it has drained the old one.  A drained segment of
 * that size goes back to its ring's pool for the producer's next move
 * while the ring holds GPUTRACE_BUFFER_MB or less, and is unmapped
 * otherwise (a smaller one always): the fresh memory a burst faults in on
 * the program's thread is what its backlog needs, not the doublings' sum,
 * and a later burst finds its segments warm.
 * All rings of a process (headers and segments) and the drain thread's
 * queue share one budget (membudget.h: 32 MiB at the defaults); a record
 * that fits nowhere (the ring is at its size, or the budget is spent, or
 * memory ran out) is counted as dropped.  (Segments queued whole for the
 * writer are the queue's, as the chunks the drain copies into are: a
 * thread whose writer is held up may fill the budget either way.)  So
 * 1,000 threads that make a few calls each take 12 MiB at most, and 16
 * threads calling flat out while the writer is held up stay within the
 * budget, not 16 x 8 MiB.
 *
 * Invariants:
 *   1. Only the owning thread writes `head`, `seg`, `spare` and the records
 *      in [tail, head + cap) of its segment, and the `start` and `next` of a
 *      segment it takes from the pool (before it links it: invariant 4).
 *   2. Only the consumer writes `tail` and `rseg`: the drain thread or the
 *      writer thread, one at a time (collector/stage.c serialises them).
 *   3. A segment holds the records [start, start + cap); head - max(tail,
 *      seg->start) <= cap at all times.
 *   4. A segment's `next` is set (release) before any record past its end
 *      is committed; the producer never touches a segment again once it
 *      moved on, so the consumer may let it go (unmap it, or put it in the
 *      ring's pool) when its tail reaches next->start, or hand it to the
 *      writer whole, which lets it go once stored.  A segment is in one of
 *      the ring's chain (rseg .. seg), the drain's queue, the pool or the
 *      producer's spares; `seg_records` counts the chain, pool and spares
 *      (the queue's are bounded by the budget alone, as its chunks are).
 *   5. The list of rings only grows at its head (CAS); rings (headers) are
 *      never freed while the process runs.
 */
#ifndef GPUTRACE_TBUF_H
#define GPUTRACE_TBUF_H

#include "format/record.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* An NVTX push/pop range open on a thread (see libtrace/nvtx_inject.c):
 * the first GT_NVTX_MAX_DEPTH levels in the ring, deeper ones in
 * nvtx_deep, mapped when a thread first goes that deep (GT_NVTX_DEEP more
 * levels; past those a range is counted as dropped). */
#define GT_NVTX_MAX_DEPTH 64
#define GT_NVTX_DEEP 16384
struct gt_nvtx_open {
    uint64_t t_start;
    uint64_t payload;
    uint32_t name, domain, category;
    int32_t payload_type;
};

/* A string's address and what it was interned as: a program passes the
 * same literal every step, and hashing it again was a quarter of an NVTX
 * push/pop pair.  The text is compared on every hit, since a buffer at one
 * address can hold another name later. */
#define GT_NAME_CACHE 32
struct gt_name_cache {
    const char *ptr;  /* the caller's string */
    const char *text; /* its interned copy (never freed) */
    uint32_t id, len;
};

/* One stretch of a ring's records (see the invariants above). */
struct gt_tbuf_seg {
    uint64_t start;                        /* index of its first record */
    uint64_t mask;                         /* capacity - 1 (a power of two) */
    _Atomic(struct gt_tbuf_seg *) next;    /* the one the producer moved on to (twice the size, or the same) */
    /* once left behind and handed to the drain's queue whole (stage.c):
     * its records [qfrom, qto), of thread qtid, and the queue's order */
    uint64_t qfrom, qto, qseq;
    struct gt_tbuf_seg *qnext;             /* also the link of its ring's pool */
    uint32_t qtid;
    struct gt_tbuf *ring;                  /* whose pool it goes back to */
    _Alignas(64) struct gt_record recs[];  /* a record is exactly one cache line */
};
_Static_assert(sizeof(struct gt_tbuf_seg) == 128, "a segment's header is two cache lines");

struct gt_tbuf {
    _Alignas(64) _Atomic uint64_t head;   /* producer */
    uint64_t tail_seen;                   /* producer's last look at tail (at least seg->start):
                                           * reading the consumer's line only when the ring
                                           * looks full keeps it from bouncing between cores */
    struct gt_tbuf_seg *seg;              /* producer's segment */
    struct gt_tbuf_seg *spare;            /* producer's: segments taken from the pool, linked by qnext */
    _Alignas(64) _Atomic uint64_t tail;   /* consumer */
    struct gt_tbuf_seg *rseg;             /* consumer's segment */
    _Alignas(64) _Atomic uint64_t dropped;
    /* drained segments of the steady size, pushed by the consumers (the
     * drain, the writer), taken all at once by the producer */
    _Atomic(struct gt_tbuf_seg *) pool;
    _Atomic uint64_t seg_records;         /* records in its chain's segments, pooled and spare ones
                                           * too, not those queued whole (invariant 4) */
    _Atomic int state;                    /* GT_TBUF_LIVE, _DEAD (thread exited), _FREE */
    uint32_t tid;
    struct gt_tbuf *next;
    /* NVTX push/pop ranges open on the owning thread: pushed and popped by
     * it; read by the writer only at the end, to store ranges never closed.
     * nvtx_depth counts past what is kept (deeper ones are counted dropped). */
    _Atomic int nvtx_depth;
    struct gt_nvtx_open nvtx_open[GT_NVTX_MAX_DEPTH];
    struct gt_nvtx_open *_Atomic nvtx_deep; /* levels GT_NVTX_MAX_DEPTH.. (NULL until needed) */
    int nvtx_deep_failed;                   /* mapping it failed: not tried again */
    /* NVTX names this thread passed lately, by address (libtrace/nvtx_inject.c):
     * owning thread only */
    struct gt_name_cache name_cache[GT_NAME_CACHE];
};

enum { GT_TBUF_LIVE = 0, GT_TBUF_DEAD = 1, GT_TBUF_FREE = 2 };

/* Sets the size a ring keeps (bytes, rounded down to a power of two of
 * records, at least 64 records; its segments may hold what doubling up to
 * that would have mapped, about twice it, while a burst waits for the
 * drain, not counting those the drain queued whole); rings start at
 * GT_TBUF_FIRST_RECORDS, or that size if smaller, and their segments grow
 * to GT_TBUF_SEG_RECORDS (the steady size), or that size if smaller. */
#define GT_TBUF_FIRST_RECORDS 64
#define GT_TBUF_SEG_RECORDS 32768
void gt_tbuf_configure(size_t bytes);
/* fn (async-signal-safe, NULL: none) is called on the producer's slow path
 * when a ring has just moved on to a segment of GT_TBUF_KICK_RECORDS
 * records or more (each move of a burst past 8,192 records, one every
 * 32,768 at the steady size: a futex wake each): a burst the drain thread
 * sleeps through (its idle tick, stage.c) is then drained at once, not
 * when the ring is at its cap. */
#define GT_TBUF_KICK_RECORDS 8192
void gt_tbuf_set_grow_hook(void (*fn)(void));
/* The slot of an NVTX push/pop range open at depth d, or NULL past what
 * can be kept (owning thread; maps nvtx_deep on first use). */
struct gt_nvtx_open *gt_tbuf_nvtx_level(struct gt_tbuf *b, int d);

/* Thread-local storage of the tracer: initial-exec, so that an access is one
 * %fs-relative load instead of a __tls_get_addr call (preloaded libraries
 * get static TLS). */
#define GT_TLS _Thread_local __attribute__((tls_model("initial-exec")))

/* A thread's tracer state, in one thread-local block: a wrapper finds all
 * of it from one TLS offset. */
struct gt_thread_state {
    struct gt_tbuf *tbuf;  /* the thread's ring, NULL until its first record */
    int guard;             /* inside a wrapped call or the tracer's own code: record nothing;
                            * GT_GUARD_NVTX inside an NVTX event (libtrace/nvtx_inject.c) */
    int nvtx_pending;      /* NVTX records waiting for a call's slot (libtrace/nvtx_inject.c) */
    uint32_t calls;        /* the thread's call number, the low half of a call id: it
                            * wraps after 4G calls of one thread, as the id's 32 bits must */
    int exited;            /* its ring's key destructor ran: no ring again (tbuf.c) */
    int claiming;          /* inside gt_tbuf_claim: a signal handler's call gets no ring */
};
extern GT_TLS struct gt_thread_state gt_thread;
#define GT_GUARD_NVTX 2
struct gt_tbuf *gt_tbuf_claim(void);

/* The calling thread's ring, made (or reused) on first use; NULL if memory
 * ran out, in which case the caller counts a drop. */
static inline struct gt_tbuf *gt_tbuf_mine(void)
{
    struct gt_tbuf *b = gt_thread.tbuf;
    if (__builtin_expect(b != NULL, 1))
        return b;
    return gt_thread.tbuf = gt_tbuf_claim();
}

/* The next n free slots (n is 1, or 2 for an NCCL call and its
 * GT_REC_NCCL record), to be filled in place and published together by
 * gt_tbuf_commit_n; returns the first (gt_tbuf_slot gives the others), or
 * NULL (and a drop counted) when the ring has no room for n. */
/* Slow path of gt_tbuf_reserve_n: a fresh look at tail, else growth, else
 * a drop. */
struct gt_record *gt_tbuf_reserve_slow(struct gt_tbuf *b, unsigned n);

static inline struct gt_record *gt_tbuf_reserve_n(struct gt_tbuf *b, unsigned n)
{
    uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed);
    struct gt_tbuf_seg *s = b->seg;
    if (__builtin_expect(h + n - 1 - b->tail_seen > s->mask, 0))
        return gt_tbuf_reserve_slow(b, n);
    return &s->recs[h & s->mask];
}

static inline struct gt_record *gt_tbuf_reserve(struct gt_tbuf *b)
{
    return gt_tbuf_reserve_n(b, 1);
}

/* The k-th slot after the next free one (k < what was reserved). */
static inline struct gt_record *gt_tbuf_slot(struct gt_tbuf *b, unsigned k)
{
    return &b->seg->recs[(atomic_load_explicit(&b->head, memory_order_relaxed) + k) & b->seg->mask];
}

static inline void gt_tbuf_commit_n(struct gt_tbuf *b, unsigned n)
{
    uint64_t h = atomic_load_explicit(&b->head, memory_order_relaxed) + n;
    atomic_store_explicit(&b->head, h, memory_order_release);
    /* Ask for a slot a few calls ahead now: the writer thread last read
     * it, and taking it back costs a cross-core miss that would otherwise
     * stall the program's next locked instruction. */
    __builtin_prefetch(&b->seg->recs[(h + 4) & b->seg->mask], 1, 3);
}

static inline void gt_tbuf_commit(struct gt_tbuf *b)
{
    gt_tbuf_commit_n(b, 1);
}

/* Forgets the calling thread's ring: after fork, the child's only thread
 * starts with a fresh one. */
void gt_tbuf_forget_all_after_fork(void);
/* In a forked child, once the drain's queue is let go too (the last of the
 * child's fork handlers): each ring's seg_records, and the budget, set to
 * what its rings hold (header, NVTX levels, segment, pool, spares).  A
 * thread the fork caught while moving had a segment taken (mapped, or
 * from the pool) and not yet linked: the child has no such thread, and
 * its count would have kept that segment's budget for good. */
void gt_tbuf_recount_after_fork(void);

/* Appends one record; returns 0, or -1 if it was dropped. */
static inline int gt_tbuf_push(struct gt_tbuf *b, const struct gt_record *r)
{
    struct gt_record *slot = gt_tbuf_reserve(b);
    if (!slot)
        return -1;
    *slot = *r;
    gt_tbuf_commit(b);
    return 0;
}

/* Writer side: calls fn on every pending record of every ring, with the
 * GT_REC_NCCL record that follows an NCCL call (else NULL) and the ring's
 * thread, then releases them.  Returns the number of slots consumed. */
typedef void gt_tbuf_fn(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx);
size_t gt_tbuf_drain(gt_tbuf_fn *fn, void *ctx);
/* The same with a callback that may refuse a record (non-zero: no room
 * for it, and for its GT_REC_NCCL record, which is never split from it):
 * the drain stops there, *cut is set, and the rest stays in its ring for
 * the next drain.  One consumer at a time (callers serialise). */
typedef int gt_tbuf_take_fn(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx);
/* With give (may be NULL): a segment the producer left behind is offered
 * whole, its records [from, to) (thread tid): give returns 0 when it took
 * it (and owns it from then on: gt_tbuf_seg_free lets it go), its records
 * not taken one by one; non-zero, and they are.  A burst's records were
 * copied into fresh memory again otherwise, the segment unmapped once they
 * had been.  A give that takes s calls gt_tbuf_seg_queued(s) before any
 * other thread can reach it. */
typedef int gt_tbuf_give_fn(struct gt_tbuf_seg *s, uint64_t from, uint64_t to, uint32_t tid, void *ctx);
size_t gt_tbuf_drain_some(gt_tbuf_take_fn *fn, gt_tbuf_give_fn *give, void *ctx, int *cut);
/* Segment s, offered whole, is taken: no longer counted in its ring's
 * seg_records (the queue's from now on, bounded by the budget).  Not
 * before it is taken: a ring counted short while give decides may map one
 * segment past its size; nor after another thread can reach it: a writer
 * that stores and lets go of it at once would count it twice. */
void gt_tbuf_seg_queued(struct gt_tbuf_seg *s);
/* Lets go of a segment handed over: back to its ring's pool, or unmapped
 * (its memory back to the budget). */
void gt_tbuf_seg_free(struct gt_tbuf_seg *s);
/* Writer side, at the end: fn for every NVTX range still open on a live
 * thread (depth: its nesting level). */
void gt_tbuf_open_ranges(void (*fn)(uint32_t tid, const struct gt_nvtx_open *o, int depth, void *ctx), void *ctx);
/* Records waiting in all rings (a hint: read without stopping producers). */
uint64_t gt_tbuf_backlog(void);
/* Sum of records dropped by all rings so far, and of those lost because
 * a thread could get no ring at all (memory, or the cap). */
uint64_t gt_tbuf_dropped(void);

#endif
