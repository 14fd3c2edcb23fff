/* test_tbuf.c: the per-thread record ring (collector/tbuf.c): records come
 * out in order with their thread, an NCCL call's two slots are reserved and
 * drained together even where they straddle the ring's end, a full ring
 * drops (and counts) rather than overwrite, and a ring starts small and
 * grows to its configured size without losing a record, waking the drain
 * thread (its hook) once it grows large; past the steady segment size it
 * moves on to segments of that size (each asking for a huge page),
 * drained ones used again (those a writer stored whole too), keeps its
 * size once drained, and gives back its spares once its thread is gone
 * (those the writer stores late too); a thread's calls after its ring's
 * destructor are counted lost, and a forked child's rings are the child's
 * threads'. */
#define _GNU_SOURCE
#include "collector/tbuf.h"
#include "collector/membudget.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP 64 /* the smallest ring gt_tbuf_configure makes */

struct seen {
    int n;
    uint32_t seq[4 * CAP];
    int has_nccl[4 * CAP];
    uint64_t nccl_seq[4 * CAP];
    uint32_t tid;
};

static void collect(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    struct seen *s = ctx;
    s->seq[s->n] = r->call_seq;
    s->has_nccl[s->n] = nccl != NULL;
    s->nccl_seq[s->n] = nccl ? nccl->nccl.seq : 0;
    s->tid = tid;
    s->n++;
}

static int put_call(struct gt_tbuf *b, uint32_t seq)
{
    struct gt_record *r = gt_tbuf_reserve(b);
    if (!r)
        return -1;
    gt_record_clear(r);
    r->type = GT_REC_CALL;
    r->call_seq = seq;
    gt_tbuf_commit(b);
    return 0;
}

static int put_nccl_call(struct gt_tbuf *b, uint32_t seq, uint64_t nccl_seq)
{
    struct gt_record *r = gt_tbuf_reserve_n(b, 2);
    if (!r)
        return -1;
    struct gt_record *x = gt_tbuf_slot(b, 1);
    gt_record_clear(r);
    gt_record_clear(x);
    r->type = GT_REC_CALL;
    r->flags = GT_RF_NCCL;
    r->call_seq = seq;
    x->type = GT_REC_NCCL;
    x->nccl.seq = nccl_seq;
    gt_tbuf_commit_n(b, 2);
    return 0;
}

static struct gt_tbuf *fresh_ring(void)
{
    gt_tbuf_configure(0);
    struct gt_tbuf *b = gt_tbuf_mine();
    cr_assert_not_null(b);
    cr_assert_eq(b->seg->mask + 1, CAP);
    return b;
}

Test(tbuf, records_come_out_in_order_with_their_thread)
{
    struct gt_tbuf *b = fresh_ring();
    for (uint32_t i = 1; i <= 10; i++)
        cr_assert_eq(put_call(b, i), 0);
    struct seen s = { 0 };
    cr_assert_eq(gt_tbuf_drain(collect, &s), 10);
    cr_assert_eq(s.n, 10);
    for (int i = 0; i < 10; i++) {
        cr_assert_eq(s.seq[i], (uint32_t)i + 1);
        cr_assert_eq(s.has_nccl[i], 0);
    }
    cr_assert_eq(s.tid, (uint32_t)gettid());
    struct seen again = { 0 };
    cr_assert_eq(gt_tbuf_drain(collect, &again), 0, "a drained ring gives nothing twice");
}

Test(tbuf, an_nccl_call_and_its_slot_come_out_together_across_the_end)
{
    struct gt_tbuf *b = fresh_ring();
    /* fill up to the last slot, drain, so the next pair straddles the end */
    for (uint32_t i = 0; i < CAP - 1; i++)
        cr_assert_eq(put_call(b, i), 0);
    struct seen s = { 0 };
    cr_assert_eq(gt_tbuf_drain(collect, &s), CAP - 1);
    cr_assert_eq(put_nccl_call(b, 500, 42), 0);
    cr_assert_eq(put_call(b, 501), 0);
    struct seen p = { 0 };
    cr_assert_eq(gt_tbuf_drain(collect, &p), 3, "three slots consumed");
    cr_assert_eq(p.n, 2, "the NCCL slot is not a record of its own");
    cr_assert_eq(p.seq[0], 500);
    cr_assert_eq(p.has_nccl[0], 1);
    cr_assert_eq(p.nccl_seq[0], 42);
    cr_assert_eq(p.seq[1], 501);
    cr_assert_eq(p.has_nccl[1], 0);
}

Test(tbuf, a_full_ring_drops_and_counts_instead_of_overwriting)
{
    struct gt_tbuf *b = fresh_ring();
    uint64_t dropped0 = gt_tbuf_dropped();
    for (uint32_t i = 0; i < CAP - 1; i++)
        cr_assert_eq(put_call(b, i), 0);
    cr_assert_eq(put_nccl_call(b, 900, 1), -1, "one slot left: an NCCL call needs two");
    cr_assert_eq(put_call(b, CAP - 1), 0, "the last slot still takes a call");
    cr_assert_eq(put_call(b, 999), -1);
    cr_assert_eq(gt_tbuf_dropped() - dropped0, 2);
    struct seen s = { 0 };
    cr_assert_eq(gt_tbuf_drain(collect, &s), CAP);
    for (int i = 0; i < CAP; i++)
        cr_assert_eq(s.seq[i], (uint32_t)i, "record %d kept", i);
}

static void count_in_order(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)nccl;
    (void)tid;
    uint32_t *next = ctx;
    cr_assert_eq(r->call_seq, *next, "record %u out of order", *next);
    (*next)++;
}

Test(tbuf, a_ring_starts_small_and_grows_to_its_size_keeping_every_record)
{
    gt_tbuf_configure(4096 * sizeof(struct gt_record));
    struct gt_tbuf *b = gt_tbuf_mine();
    cr_assert_not_null(b);
    cr_assert_eq(b->seg->mask + 1, GT_TBUF_FIRST_RECORDS, "a new ring is small");
    uint64_t dropped0 = gt_tbuf_dropped();
    uint32_t n = 0;
    while (put_call(b, n) == 0)
        n++;
    /* 64 in the first segment, 128 in the second, ... 4096 in the last */
    uint32_t want = 0;
    for (uint32_t k = GT_TBUF_FIRST_RECORDS; k <= 4096; k *= 2)
        want += k;
    cr_assert_eq(n, want, "stored before the first drop: %u", n);
    cr_assert_eq(b->seg->mask + 1, 4096, "grown to the configured size, no further");
    cr_assert_eq(gt_tbuf_dropped() - dropped0, 1, "the one that did not fit is counted");
    uint32_t next = 0;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n);
    cr_assert_eq(next, n);
    cr_assert_eq(b->rseg, b->seg, "the segments left behind are let go once drained");
    for (int round = 0; round < 5; round++) { /* the grown ring goes on, past its end */
        for (uint32_t i = 0; i < 1000; i++)
            cr_assert_eq(put_call(b, n++), 0);
        cr_assert_eq(gt_tbuf_drain(count_in_order, &next), 1000);
    }
    cr_assert_eq(gt_tbuf_dropped() - dropped0, 1);
}

static int kicks;
static uint64_t kicked_at_size;
static struct gt_tbuf *kick_ring;

static void count_kick(void)
{
    kicks++;
    kicked_at_size = kick_ring->seg->mask + 1;
}

/* The drain thread sleeps up to its idle tick (stage.c): a ring that grows
 * past GT_TBUF_KICK_RECORDS wakes it through the hook, once a move to a
 * segment that large, and a ring smaller than that never does (a
 * program's few calls wake nobody). */
Test(tbuf, a_ring_growing_past_the_kick_size_calls_the_hook_once_a_move)
{
    _Static_assert(GT_TBUF_SEG_RECORDS >= 2 * GT_TBUF_KICK_RECORDS, "the counts below");
    gt_tbuf_configure(2 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    struct gt_tbuf *b = kick_ring = gt_tbuf_mine();
    cr_assert_not_null(b);
    gt_tbuf_set_grow_hook(count_kick);
    uint32_t n = 0;
    while (b->seg->mask + 1 < GT_TBUF_KICK_RECORDS)
        cr_assert_eq(put_call(b, n++), 0);
    cr_assert_eq(kicks, 1, "the growth to the kick size kicked (%d)", kicks);
    cr_assert_eq(kicked_at_size, GT_TBUF_KICK_RECORDS, "after the ring grew");
    while (put_call(b, n) == 0)
        n++;
    /* grown to the steady size (a kick at each doubling from the kick
     * size on), then moved on to two more of that size: what doubling to
     * the ring's size (twice the steady size) would have held */
    int doublings = 0;
    for (size_t size = GT_TBUF_KICK_RECORDS; size <= GT_TBUF_SEG_RECORDS; size *= 2)
        doublings++;
    cr_assert_eq(b->seg->mask + 1, GT_TBUF_SEG_RECORDS);
    cr_assert_eq(n, 4 * GT_TBUF_SEG_RECORDS - GT_TBUF_FIRST_RECORDS, "stored before the first drop: %u", n);
    cr_assert_eq(kicks, doublings + 2, "each move past it once, a drop none (%d)", kicks);
    gt_tbuf_set_grow_hook(NULL);
    uint32_t next = 0;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n);
    cr_assert_eq(next, n);
}

/* Fills ring b (its calls numbered from *n on) until its producer moves
 * off segment s. */
static void fill_past(struct gt_tbuf *b, const struct gt_tbuf_seg *s, uint32_t *n)
{
    while (b->seg == s)
        cr_assert_eq(put_call(b, (*n)++), 0);
}

/* The calling thread's ring, of 4 steady segments' size, filled (calls
 * numbered from *n on) until it has grown to the steady size. */
static struct gt_tbuf *ring_at_steady_size(uint32_t *n)
{
    gt_tbuf_configure(4 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    struct gt_tbuf *b = gt_tbuf_mine();
    cr_assert_not_null(b);
    while (b->seg->mask + 1 < GT_TBUF_SEG_RECORDS)
        cr_assert_eq(put_call(b, (*n)++), 0);
    return b;
}

/* The flags of the mapping holding address p (/proc/self/smaps'
 * VmFlags), into flags; 0 when found. */
static int vm_flags(const void *p, char *flags, size_t len)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    char line[512];
    int in = 0, found = -1;
    while (f && found && fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' '))
            in = (uintptr_t)p >= lo && (uintptr_t)p < hi;
        else if (in && !strncmp(line, "VmFlags:", 8)) {
            snprintf(flags, len, "%s", line + 8);
            found = 0;
        }
    }
    if (f)
        fclose(f);
    return found;
}

/* A steady segment starts on a 2 MiB boundary and asks for huge pages
 * (MADV_HUGEPAGE: "hg" in its flags), where the kernel has them: a burst
 * maps its segments on the program's thread, and one huge page costs it a
 * fraction of 512 small ones.  Whether the kernel lent one is its say
 * (memory may be too fragmented): not asserted. */
Test(tbuf, a_steady_segment_asks_for_a_huge_page)
{
    uint32_t n = 0;
    struct gt_tbuf *b = ring_at_steady_size(&n);
    cr_assert_eq((uintptr_t)b->seg % (2u << 20), 0, "at %p", (void *)b->seg);
    char flags[512];
    cr_assert_eq(vm_flags(b->seg->recs, flags, sizeof flags), 0, "its mapping in smaps");
    if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK) == 0)
        cr_assert(strstr(flags, " hg") != NULL, "VmFlags:%s", flags);
    uint32_t next = 0;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n);
}

/* The process's address space in use, bytes (/proc/self/status VmSize). */
static size_t vm_size(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    size_t kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmSize: %zu kB", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb * 1024;
}

/* A steady segment's aligned mapping reserves 2 MiB more address space
 * than it keeps; where RLIMIT_AS leaves room for the segment but not that,
 * the segment is mapped all the same (small pages), not a record dropped. */
Test(tbuf, a_steady_segment_maps_where_the_address_space_is_tight)
{
    uint32_t n = 0;
    struct gt_tbuf *b = ring_at_steady_size(&n);
    struct rlimit was;
    cr_assert_eq(getrlimit(RLIMIT_AS, &was), 0);
    /* room for one more segment (2 MiB and a page) and a little, not for
     * 4 MiB more */
    struct rlimit tight = { vm_size() + (3u << 20), was.rlim_max };
    cr_assert_eq(setrlimit(RLIMIT_AS, &tight), 0);
    struct gt_tbuf_seg *s = b->seg;
    int stored = 1;
    while (stored && b->seg == s)
        stored = put_call(b, n++) == 0;
    setrlimit(RLIMIT_AS, &was);
    cr_assert(stored, "the record that moved the ring on was dropped");
    cr_assert_neq(b->seg, s, "moved on");
    uint32_t next = 0;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n);
}

/* A writer as fast as can be: each segment offered whole is stored and
 * let go at once, inside give, before the drain has returned. */
static int store_at_once(struct gt_tbuf_seg *s, uint64_t from, uint64_t to, uint32_t tid, void *ctx)
{
    (void)tid;
    *(uint64_t *)ctx += to - from;
    gt_tbuf_seg_queued(s);
    gt_tbuf_seg_free(s);
    return 0;
}

static int take_counting(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)r;
    (void)tid;
    *(uint64_t *)ctx += nccl ? 2 : 1;
    return 0;
}

/* A segment queued whole is no longer its ring's before the writer can
 * have it: a writer that stores it and lets it go before the drain has
 * gone on found it counted twice, the ring over its size, and unmapped
 * it where it should have gone back to the pool for the next move. */
Test(tbuf, a_segment_stored_at_once_goes_back_to_the_pool)
{
    uint32_t n = 0;
    struct gt_tbuf *b = ring_at_steady_size(&n);
    for (int moves = 0; moves < 3; moves++)
        fill_past(b, b->seg, &n);
    uint64_t got = 0;
    int cut;
    cr_assert_eq(gt_tbuf_drain_some(take_counting, store_at_once, &got, &cut), n);
    cr_assert_eq(got, n);
    int pooled = 0;
    for (const struct gt_tbuf_seg *s = atomic_load(&b->pool); s; s = s->qnext)
        pooled++;
    cr_assert_eq(pooled, 3, "the three steady segments left behind pooled, not unmapped (%d)", pooled);
    cr_assert_eq(atomic_load(&b->seg_records), 4 * GT_TBUF_SEG_RECORDS, "held: %llu records",
                 (unsigned long long)atomic_load(&b->seg_records));
}

/* A thread that grows its ring to the steady size and moves on three
 * times, then exits (no criterion asserts off the test's thread). */
struct grown { struct gt_tbuf *ring; uint32_t n; };

static void *grow_then_exit(void *arg)
{
    struct grown *g = arg;
    struct gt_tbuf *b = g->ring = gt_tbuf_mine();
    while (b && b->seg->mask + 1 < GT_TBUF_SEG_RECORDS && put_call(b, g->n) == 0)
        g->n++;
    for (int moves = 0; b && moves < 3; moves++)
        for (const struct gt_tbuf_seg *s = b->seg; b->seg == s && put_call(b, g->n) == 0;)
            g->n++;
    return NULL;
}

/* A ring of 4 steady segments' size grown that way by a thread now gone. */
static struct grown grown_by_a_thread_gone(void)
{
    gt_tbuf_configure(4 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    struct grown g = { NULL, 0 };
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, grow_then_exit, &g), 0);
    pthread_join(t, NULL);
    cr_assert_not_null(g.ring);
    return g;
}

/* Ring b, freed, holds its one segment of the steady size, and the budget
 * only it and b. */
static void holds_one_segment(const struct gt_tbuf *b)
{
    cr_assert_eq(atomic_load(&b->state), GT_TBUF_FREE);
    cr_assert_null(atomic_load(&b->pool), "its pool let go");
    cr_assert_null(b->spare, "its spares let go");
    cr_assert_eq(atomic_load(&b->seg_records), GT_TBUF_SEG_RECORDS, "held: %llu records",
                 (unsigned long long)atomic_load(&b->seg_records));
    cr_assert_eq(gt_mem_used(),
                 gt_mem_pages(sizeof(struct gt_tbuf)) +
                     gt_mem_pages(sizeof(struct gt_tbuf_seg) + GT_TBUF_SEG_RECORDS * sizeof(struct gt_record)),
                 "the budget holds the ring and its one segment: %zu bytes", gt_mem_used());
}

/* A ring whose thread exited gives back, once drained, the segments it
 * kept for its next moves: rings of threads gone (a data loader's, a
 * short-lived worker's) would otherwise hold the budget that threads
 * still running need.  The segment it was on stays, for the next thread
 * that claims the ring. */
Test(tbuf, a_drained_ring_of_a_thread_gone_gives_back_its_spare_segments)
{
    struct grown g = grown_by_a_thread_gone();
    /* the doublings up to the steady size, three of it, one in the fourth */
    cr_assert_eq(g.n, GT_TBUF_SEG_RECORDS - GT_TBUF_FIRST_RECORDS + 3 * GT_TBUF_SEG_RECORDS + 1, "stored %u", g.n);
    uint32_t next = 0;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), g.n);
    holds_one_segment(g.ring);
}

static int take_quietly(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)r;
    (void)nccl;
    (void)tid;
    (void)ctx;
    return 0;
}

/* A give that refuses every segment, noting what its ring counted while
 * it decided. */
struct refusing { const struct gt_tbuf *ring; uint64_t counted_at_offer; };

static int refuse(struct gt_tbuf_seg *s, uint64_t from, uint64_t to, uint32_t tid, void *ctx)
{
    (void)s;
    (void)from;
    (void)to;
    (void)tid;
    struct refusing *r = ctx;
    if (!r->counted_at_offer) /* the first offer's */
        r->counted_at_offer = atomic_load(&r->ring->seg_records);
    return 1;
}


/* While a segment is offered whole, its ring still counts it: counted
 * short, the producer could map one segment past the ring's size before a
 * refusal counted it again. */
Test(tbuf, a_segment_offered_whole_stays_counted_until_taken)
{
    uint32_t n = 0, next = 0;
    struct gt_tbuf *b = ring_at_steady_size(&n);
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n); /* the doublings let go */
    fill_past(b, b->seg, &n); /* a steady segment left behind, the first offered */
    uint64_t before = atomic_load(&b->seg_records);
    struct refusing r = { b, 0 };
    int cut;
    cr_assert_eq(gt_tbuf_drain_some(take_quietly, refuse, &r, &cut), n - next);
    cr_assert_eq(r.counted_at_offer, before, "counted %llu records while offered, %llu before",
                 (unsigned long long)r.counted_at_offer, (unsigned long long)before);
}

/* A give that keeps the segments it takes, for a writer to store later. */
struct kept { struct gt_tbuf_seg *v[16]; int n; };

static int keep_for_later(struct gt_tbuf_seg *s, uint64_t from, uint64_t to, uint32_t tid, void *ctx)
{
    (void)from;
    (void)to;
    (void)tid;
    struct kept *k = ctx;
    if (k->n == 16)
        return 1;
    gt_tbuf_seg_queued(s);
    k->v[k->n++] = s;
    return 0;
}


/* The segments of a thread gone, queued whole and stored by the writer
 * after the drain let go of the ring's spares and freed it, are not kept
 * in its pool either: the ring holds its one segment, the budget only it. */
Test(tbuf, a_segment_stored_after_its_ring_was_freed_is_not_kept)
{
    struct grown g = grown_by_a_thread_gone();
    struct kept k = { { 0 }, 0 };
    int cut;
    cr_assert_eq(gt_tbuf_drain_some(take_quietly, keep_for_later, &k, &cut), g.n);
    cr_assert_eq(atomic_load(&g.ring->state), GT_TBUF_FREE, "drained, its thread gone");
    cr_assert_geq(k.n, 3, "the steady segments left behind queued whole (%d)", k.n);
    for (int i = 0; i < k.n; i++) /* the writer, late */
        gt_tbuf_seg_free(k.v[i]);
    holds_one_segment(g.ring);
}

/* munmap, wrapped (local.mk): a hook run once from inside it, where a
 * test wants another thread's step to land between two of the drain's. */
int __real_munmap(void *addr, size_t len);
static void (*in_munmap)(void);

int __wrap_munmap(void *addr, size_t len)
{
    void (*hook)(void) = in_munmap;
    in_munmap = NULL;
    int rc = __real_munmap(addr, len);
    if (hook)
        hook();
    return rc;
}

static struct kept late_store;

/* The writer storing the second segment it was given, late. */
static void writer_stores_late(void)
{
    gt_tbuf_seg_free(late_store.v[1]);
}

/* A give that takes two steady segments and, handed the second, lets go
 * of the first (the writer storing it: to the ring's pool, the ring dead
 * but not yet drained); then arms the hook: the drain's first unmapping
 * after that is of that pooled segment, once it has freed the ring. */
static int keep_two(struct gt_tbuf_seg *s, uint64_t from, uint64_t to, uint32_t tid, void *ctx)
{
    (void)from;
    (void)to;
    (void)tid;
    (void)ctx;
    if (s->mask + 1 != GT_TBUF_SEG_RECORDS || late_store.n == 2)
        return 1;
    gt_tbuf_seg_queued(s);
    late_store.v[late_store.n++] = s;
    if (late_store.n == 2) {
        gt_tbuf_seg_free(late_store.v[0]);
        in_munmap = writer_stores_late;
    }
    return 0;
}

/* Segments the writer pools onto a dead ring are not kept once the drain
 * frees it: one pooled before (the drain's exchange after freeing it takes
 * it), one pooled while the drain unmaps the first (the writer's look
 * after its push sees the ring free). */
Test(tbuf, a_segment_pooled_while_the_drain_frees_its_ring_is_taken_back)
{
    struct grown g = grown_by_a_thread_gone();
    int cut;
    cr_assert_eq(gt_tbuf_drain_some(take_quietly, keep_two, NULL, &cut), g.n);
    cr_assert_eq(late_store.n, 2);
    cr_assert_null(in_munmap, "the writer stored its segment during the drain's unmapping");
    holds_one_segment(g.ring);
}

/* Runs body on a thread that records one call in its ring (*ring) and
 * tries another that must get no ring (*extra): that one counted lost,
 * the ring marked dead at the thread's exit and freed once drained. */
static void one_call_counted_lost(void *(*body)(void *), struct gt_tbuf **ring, struct gt_tbuf **extra)
{
    gt_tbuf_configure(4096 * sizeof(struct gt_record));
    uint64_t dropped0 = gt_tbuf_dropped();
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, body, NULL), 0);
    pthread_join(t, NULL);
    cr_assert_not_null(*ring);
    cr_assert_null(*extra, "the other call got a ring of its own");
    cr_assert_eq(gt_tbuf_dropped() - dropped0, 1, "the other call counted lost");
    uint64_t got = 0;
    int cut;
    cr_assert_eq(gt_tbuf_drain_some(take_counting, NULL, &got, &cut), 1);
    cr_assert_eq(atomic_load(&(*ring)->state), GT_TBUF_FREE, "the thread's ring marked dead at its exit");
}

/* pthread_setspecific, wrapped (local.mk): a hook run once from inside
 * it, as a signal handler would run on the thread mid-call. */
int __real_pthread_setspecific(pthread_key_t key, const void *value);
static void (*in_setspecific)(void);

int __wrap_pthread_setspecific(pthread_key_t key, const void *value)
{
    void (*hook)(void) = in_setspecific;
    in_setspecific = NULL;
    if (hook)
        hook();
    return __real_pthread_setspecific(key, value);
}

static struct gt_tbuf *outer_ring, *handler_ring;
static int handler_ran;

/* A traced call from a signal handler that interrupted the claim. */
static void handler_records(void)
{
    handler_ran = 1;
    handler_ring = gt_tbuf_mine();
    if (handler_ring)
        put_call(handler_ring, 1);
}

static void *claim_interrupted_then_exit(void *arg)
{
    (void)arg;
    in_setspecific = handler_records;
    outer_ring = gt_tbuf_mine();
    if (outer_ring)
        put_call(outer_ring, 0);
    return NULL;
}

/* A signal handler's traced call that lands inside the thread's first
 * claim gets no ring (counted lost): two claims racing for the thread's
 * key left the ring the key lost never marked dead when the thread
 * exited, its memory held for good. */
Test(tbuf, a_claim_interrupted_by_a_handlers_call_leaves_no_ring_behind)
{
    one_call_counted_lost(claim_interrupted_then_exit, &outer_ring, &handler_ring);
    cr_assert(handler_ran, "the handler's call ran inside the claim");
}

/* A key's destructor that records after the ring's own destructor ran
 * (glibc runs them in the keys' order). */
static pthread_key_t late_key;
static struct gt_tbuf *late_ring, *first_ring;

static void record_late(void *p)
{
    (void)p;
    late_ring = gt_tbuf_mine();
    if (late_ring)
        put_call(late_ring, 0);
}

static void *record_then_exit_with_late_key(void *arg)
{
    (void)arg;
    first_ring = gt_tbuf_mine();
    if (first_ring)
        put_call(first_ring, 0);
    pthread_key_create(&late_key, record_late); /* after the ring's key: its destructor runs after */
    pthread_setspecific(late_key, (void *)1);
    return NULL;
}

/* A wrapped call from a later destructor of an exiting thread is counted
 * lost: written into the ring marked dead, it could land in a ring the
 * drain freed (its spares unmapped) and handed to a new thread; given a
 * ring of its own in glibc's last round of destructors, that ring would
 * never be marked dead. */
Test(tbuf, a_call_after_the_threads_ring_was_let_go_is_counted_lost)
{
    one_call_counted_lost(record_then_exit_with_late_key, &first_ring, &late_ring);
}

/* A child forked from a thread other than main: the child's rings are all
 * free, and another of its threads may claim the forking thread's; when
 * the forking thread then exits, its key's stale value must not mark that
 * ring dead under the thread now writing into it. */
static struct gt_tbuf *forked_ring;
static _Atomic int forker_gone;
static pthread_key_t gone_key;

static void note_gone(void *p)
{
    (void)p;
    atomic_store(&forker_gone, 1);
}

static void *claim_in_child(void *arg)
{
    (void)arg;
    struct gt_tbuf *b = gt_tbuf_mine();
    if (b != forked_ring || put_call(b, 0) != 0)
        _exit(2); /* the forking thread's ring not free to claim: marked dead already */
    while (!atomic_load(&forker_gone))
        usleep(1000);
    _exit(atomic_load(&b->state) == GT_TBUF_LIVE ? 0 : 1);
}

static void *record_then_fork(void *arg)
{
    (void)arg;
    forked_ring = gt_tbuf_mine();
    if (!forked_ring || put_call(forked_ring, 0) != 0)
        return (void *)(intptr_t)-1;
    pthread_key_create(&gone_key, note_gone); /* after the ring's key: its destructor runs after */
    pid_t pid = fork();
    if (pid == 0) {
        gt_tbuf_forget_all_after_fork();
        pthread_t u;
        if (pthread_create(&u, NULL, claim_in_child, NULL) != 0)
            _exit(3);
        pthread_setspecific(gone_key, (void *)1);
        pthread_exit(NULL); /* the child's only thread until u: u runs on */
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return (void *)(intptr_t)(WIFEXITED(status) ? WEXITSTATUS(status) : 100 + WTERMSIG(status));
}

Test(tbuf, a_forking_thread_exiting_in_the_child_leaves_another_threads_ring_alone)
{
    gt_tbuf_configure(4096 * sizeof(struct gt_record));
    pthread_t t;
    void *rc;
    cr_assert_eq(pthread_create(&t, NULL, record_then_fork, NULL), 0);
    pthread_join(t, &rc);
    cr_assert_eq((intptr_t)rc, 0, "the child's ring, claimed by another thread, was marked dead (%d)", (int)(intptr_t)rc);
}

/* Past the steady size a ring moves on to segments of that size, and a
 * drained one goes back to its ring for the next move: a later burst finds
 * its memory mapped and warm, and maps nothing more. */
Test(tbuf, a_drained_segment_is_used_again_by_the_next_move)
{
    uint32_t n = 0, next = 0;
    struct gt_tbuf *b = ring_at_steady_size(&n);
    struct gt_tbuf_seg *first = b->seg;
    fill_past(b, first, &n);
    struct gt_tbuf_seg *second = b->seg;
    cr_assert_eq(second->mask + 1, GT_TBUF_SEG_RECORDS, "no larger than the steady size");
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n);
    cr_assert_eq(atomic_load(&b->seg_records), 2 * GT_TBUF_SEG_RECORDS,
                 "the smaller segments unmapped once drained, the steady one kept");
    fill_past(b, second, &n);
    cr_assert_eq(b->seg, first, "the drained segment taken again");
    cr_assert_eq(atomic_load(&b->seg_records), 2 * GT_TBUF_SEG_RECORDS, "nothing mapped");
    fill_past(b, first, &n);
    cr_assert_eq(atomic_load(&b->seg_records), 3 * GT_TBUF_SEG_RECORDS, "none drained: a fresh one");
    uint32_t before = next;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n - before, "every record, in order, across the reuse");
    cr_assert_eq(next, n);
}

/* A burst may take segments of about twice the ring's size while the
 * writer is behind; drained, the ring keeps its size (the segment in use
 * and three spares), unmaps the rest, and its next moves take the spares,
 * mapping nothing. */
Test(tbuf, a_drained_ring_keeps_its_size_and_no_more)
{
    gt_tbuf_configure(4 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    struct gt_tbuf *b = gt_tbuf_mine();
    uint64_t dropped0 = gt_tbuf_dropped();
    uint32_t n = 0, next = 0;
    while (put_call(b, n) == 0)
        n++;
    cr_assert_eq(n, 2 * 4 * GT_TBUF_SEG_RECORDS - GT_TBUF_FIRST_RECORDS, "what doubling would have held: %u", n);
    cr_assert_eq(atomic_load(&b->seg_records), n);
    cr_assert_eq(gt_tbuf_dropped() - dropped0, 1);
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n);
    cr_assert_eq(atomic_load(&b->seg_records), 4 * GT_TBUF_SEG_RECORDS, "the ring's size kept");
    size_t used = gt_mem_used();
    struct gt_tbuf_seg *seen[4] = { b->seg };
    for (int round = 1; round < 4; round++) { /* each move takes a spare */
        fill_past(b, b->seg, &n);
        seen[round] = b->seg;
        for (int k = 0; k < round; k++)
            cr_assert_neq(seen[k], seen[round], "move %d took a segment in use", round);
    }
    cr_assert_eq(gt_mem_used(), used, "nothing mapped for three moves");
    cr_assert_eq(atomic_load(&b->seg_records), 4 * GT_TBUF_SEG_RECORDS);
    uint32_t before = next;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n - before);
    cr_assert_eq(next, n);
    cr_assert_eq(gt_tbuf_dropped() - dropped0, 1);
}

/* A fork that catches a thread between linking its next segment and
 * moving onto it: the child lets the old segment go (its ring is empty
 * there) and the ring's next owner must write into the new one, not the
 * one let go (it wrote into unmapped, or pooled, memory). */
Test(tbuf, a_fork_between_linking_and_moving_leaves_the_ring_usable)
{
    gt_tbuf_configure(4096 * sizeof(struct gt_record));
    struct gt_tbuf *b = gt_tbuf_mine();
    uint32_t n = 0, next = 0;
    while (b->seg->mask + 1 == GT_TBUF_FIRST_RECORDS && n < GT_TBUF_FIRST_RECORDS)
        cr_assert_eq(put_call(b, n++), 0);
    struct gt_tbuf_seg *old = b->seg;
    cr_assert_not_null(gt_tbuf_reserve(b), "the move (reserved, not committed)");
    cr_assert_neq(b->seg, old);
    b->seg = old; /* as the fork found it: next linked, seg not yet moved */
    gt_tbuf_forget_all_after_fork(); /* the parent's records are the parent's */
    next = n;
    struct gt_tbuf *c = gt_tbuf_mine();
    cr_assert_eq(c, b, "the child's thread takes the ring again");
    cr_assert_neq(c->seg, old, "on the segment it was moving to");
    for (int i = 0; i < 500; i++)
        cr_assert_eq(put_call(c, n++), 0);
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), 500);
    cr_assert_eq(next, n);
}

/* A fork that caught a thread moving: a segment taken (mapped, or from
 * the pool) and not yet linked anywhere.  The child has no such thread:
 * its count is what its rings hold, or the segment's budget stays taken
 * for good. */
Test(tbuf, a_forked_child_counts_only_what_its_rings_hold)
{
    uint32_t n = 0, next = 0;
    struct gt_tbuf *b = ring_at_steady_size(&n);
    fill_past(b, b->seg, &n);
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n); /* one steady segment in use, one pooled */
    size_t seg = (sizeof(struct gt_tbuf_seg) + GT_TBUF_SEG_RECORDS * sizeof(struct gt_record) + 4095) / 4096 * 4096;
    size_t held = (sizeof *b + 4095) / 4096 * 4096 + 2 * seg;
    cr_assert_eq(gt_mem_used(), held);
    /* the moving thread's segment, as the fork left it */
    cr_assert_eq(gt_mem_take(seg, GT_MEM_RING), 0);
    atomic_fetch_add(&b->seg_records, GT_TBUF_SEG_RECORDS);
    gt_tbuf_forget_all_after_fork();
    gt_tbuf_recount_after_fork();
    cr_assert_eq(gt_mem_used(), held, "the child's rings: a header, a segment in use, one pooled");
    cr_assert_eq(atomic_load(&b->seg_records), 2 * GT_TBUF_SEG_RECORDS);
    struct gt_tbuf *c = gt_tbuf_mine();
    cr_assert_eq(c, b);
    next = n;
    fill_past(c, c->seg, &n); /* and the pooled one is taken */
    cr_assert_eq(gt_mem_used(), held, "nothing mapped");
    uint32_t before = next;
    cr_assert_eq(gt_tbuf_drain(count_in_order, &next), n - before);
}

/* keeps the last record seen */
static void collect_last(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)tid;
    struct seen *s = ctx;
    s->seq[0] = r->call_seq;
    s->has_nccl[0] = nccl != NULL;
    s->nccl_seq[0] = nccl ? nccl->nccl.seq : 0;
    s->n++;
}

Test(tbuf, an_nccl_pair_reserved_as_the_ring_grows_comes_out_whole)
{
    gt_tbuf_configure(4096 * sizeof(struct gt_record));
    struct gt_tbuf *b = gt_tbuf_mine();
    for (uint32_t i = 0; i < GT_TBUF_FIRST_RECORDS - 1; i++)
        cr_assert_eq(put_call(b, i), 0);
    cr_assert_eq(put_nccl_call(b, 7000, 9), 0, "one slot left: the pair goes to a new segment");
    cr_assert_neq(b->rseg, b->seg, "the writer has not followed yet");
    struct seen p = { 0 };
    cr_assert_eq(gt_tbuf_drain(collect_last, &p), GT_TBUF_FIRST_RECORDS + 1);
    cr_assert_eq(p.n, GT_TBUF_FIRST_RECORDS, "the NCCL slot is not a record of its own");
    cr_assert_eq(p.seq[0], 7000);
    cr_assert_eq(p.has_nccl[0], 1);
    cr_assert_eq(p.nccl_seq[0], 9);
}

/* gt_tbuf_drain_some: a callback that refuses (no room in the drain
 * thread's queue) stops the drain there; what it refused stays in the ring
 * for the next drain, in order, and an NCCL call is refused with its slot. */
struct limited {
    struct seen s;
    int room; /* records it takes before refusing */
};

static int take_limited(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    struct limited *l = ctx;
    if (l->room == 0)
        return -1;
    l->room--;
    collect(r, nccl, tid, &l->s);
    return 0;
}

Test(tbuf, a_refused_record_stays_in_the_ring_for_the_next_drain)
{
    struct gt_tbuf *b = fresh_ring();
    for (uint32_t i = 1; i <= 3; i++)
        cr_assert_eq(put_call(b, i), 0);
    cr_assert_eq(put_nccl_call(b, 4, 77), 0);
    cr_assert_eq(put_call(b, 5), 0);
    struct limited l = { .room = 3 };
    int cut = 0;
    cr_assert_eq(gt_tbuf_drain_some(take_limited, NULL, &l, &cut), 3, "three slots taken");
    cr_assert_eq(cut, 1, "the drain says it was cut short");
    cr_assert_eq(gt_tbuf_backlog(), 3, "the NCCL call, its slot and the last call wait");
    struct limited m = { .room = 10 };
    cr_assert_eq(gt_tbuf_drain_some(take_limited, NULL, &m, &cut), 3);
    cr_assert_eq(cut, 0);
    cr_assert_eq(m.s.n, 2);
    cr_assert_eq(m.s.seq[0], 4);
    cr_assert_eq(m.s.has_nccl[0], 1, "the NCCL call comes with its slot");
    cr_assert_eq(m.s.nccl_seq[0], 77);
    cr_assert_eq(m.s.seq[1], 5);
    /* the room the first drain freed is usable: the ring takes CAP more */
    for (uint32_t i = 0; i < CAP; i++)
        cr_assert_eq(put_call(b, 100 + i), 0);
}
