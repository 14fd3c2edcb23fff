/* test_stage.c: the queue between the rings and the writer
 * (collector/stage.c): records come out in each ring's order with their
 * thread, an NCCL call with its slot, and the drain thread's pulls fill a
 * chunk before handing it over (a chunk per pull of a few records filled
 * the queue's bound with chunks mostly empty while the writer was held
 * up); the writer's own pull hands over what was taken; the rings and the
 * queue share one budget (collector/membudget.h). */
#define _GNU_SOURCE
#include "collector/stage.h"
#include "collector/membudget.h"

#include <criterion/criterion.h>
#include <pthread.h>
#include <unistd.h>

struct seen {
    int n;
    uint32_t seq[4096], tid[4096];
    int nccl[4096];
};

static void collect(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    struct seen *s = ctx;
    s->seq[s->n] = r->call_seq;
    s->tid[s->n] = tid;
    s->nccl[s->n] = nccl ? (int)nccl->nccl.seq : -1;
    s->n++;
}

static void put_call(uint32_t seq, int with_nccl)
{
    struct gt_tbuf *b = gt_tbuf_mine();
    cr_assert_not_null(b);
    struct gt_record *r = gt_tbuf_reserve_n(b, with_nccl ? 2 : 1);
    cr_assert_not_null(r);
    gt_record_clear(r);
    r->type = GT_REC_CALL;
    r->call_seq = seq;
    if (with_nccl) {
        struct gt_record *x = gt_tbuf_slot(b, 1);
        gt_record_clear(x);
        r->flags = GT_RF_NCCL;
        x->type = GT_REC_NCCL;
        x->nccl.seq = seq + 1000;
    }
    gt_tbuf_commit_n(b, with_nccl ? 2 : 1);
}

static size_t store_all(struct seen *s)
{
    size_t n = 0;
    for (size_t got; (got = gt_stage_store_one(collect, s)) != 0;)
        n += got;
    return n;
}

Test(stage, the_drain_threads_pulls_share_a_chunk_until_it_is_full)
{
    gt_tbuf_configure(1 << 20);
    int cut;
    uint32_t seq = 0;
    for (int pull = 0; pull < 3; pull++) {
        for (int i = 0; i < 100; i++)
            put_call(++seq, 0);
        cr_assert_eq(gt_stage_pull(&cut, 0), 100);
        cr_assert_eq(cut, 0);
    }
    struct seen s = { 0 };
    cr_assert_eq(gt_stage_store_one(collect, &s), 0, "a chunk not full stays with the drain thread");
    cr_assert_eq(gt_stage_backlog(), 300, "but its records are counted as queued");
    cr_assert_eq(gt_stage_pull(&cut, 1), 0, "the writer's pull: nothing new in the ring");
    cr_assert_eq(gt_stage_store_one(collect, &s), 300, "one chunk holds the three pulls");
    cr_assert_eq(gt_stage_backlog(), 0);
    for (int i = 0; i < 300; i++)
        cr_assert_eq(s.seq[i], (uint32_t)i + 1);
    /* a full chunk goes over without the writer's pull, and so does a
     * segment of a chunk's worth the ring left behind as it grew; what
     * stays is one chunk not full at most */
    for (int i = 0; i < 2000; i++)
        put_call(++seq, 0);
    cr_assert_eq(gt_stage_pull(&cut, 0), 2000);
    struct seen f = { 0 };
    cr_assert_geq(store_all(&f), 2000 - 1023, "the writer has all but a chunk's worth");
    for (int i = 0; i < f.n; i++)
        cr_assert_eq(f.seq[i], (uint32_t)i + 301, "in the ring's order");
}

/* A burst the drain did not keep up with: the ring grew past segments of
 * a chunk's worth and more, which go to the writer whole (tbuf.h,
 * gt_tbuf_drain_some's give), not copied into chunks: the queue takes no
 * memory for them; the records come out in order, an NCCL call with its
 * slot, after those pulled into a chunk before; and every segment's
 * memory goes back to the budget once stored. */
Test(stage, segments_left_behind_go_to_the_writer_whole)
{
    gt_tbuf_configure(1 << 20);
    int cut;
    uint32_t seq = 0;
    for (int i = 0; i < 100; i++)
        put_call(++seq, 0);
    cr_assert_eq(gt_stage_pull(&cut, 0), 100, "a small pull, kept in the chunk being filled");
    size_t before = gt_mem_used();
    for (int i = 0; i < 3000; i++)
        put_call(++seq, i % 7 == 3);
    size_t grown = gt_mem_used();
    cr_assert_gt(grown, before + 3000 * sizeof(struct gt_record), "the ring grew past the burst");
    cr_assert_eq(gt_stage_pull(&cut, 0), 3000 + 3000 / 7 + (3000 % 7 > 3));
    cr_assert_leq(gt_mem_used(), grown + 65536, "the queue took one chunk at most: the segments went whole");
    struct seen f = { 0 };
    cr_assert_eq(gt_stage_pull(&cut, 1), 0);
    size_t most = 0;
    for (size_t got; (got = gt_stage_store_one(collect, &f)) != 0;)
        most = got > most ? got : most;
    cr_assert_gt(most, 1023, "the segment of 1024 slots went as one (a chunk holds 1023): %zu", most);
    cr_assert_eq(f.n, 3100, "every call stored once");
    for (int i = 0; i < f.n; i++) {
        cr_assert_eq(f.seq[i], (uint32_t)i + 1, "in the ring's order");
        cr_assert_eq(f.nccl[i], i >= 100 && (i - 100) % 7 == 3 ? (int)f.seq[i] + 1000 : -1, "call %d's NCCL slot", i);
    }
    cr_assert_eq(gt_stage_backlog(), 0);
    cr_assert_lt(gt_mem_used(), grown, "the segments stored went back to the budget");
}

static void *other_thread(void *arg)
{
    (void)arg;
    put_call(1, 0);
    put_call(2, 1);
    put_call(3, 0);
    return NULL;
}

Test(stage, records_keep_their_thread_their_order_and_their_nccl_slot)
{
    gt_tbuf_configure(1 << 20);
    put_call(10, 0);
    pthread_t t;
    pthread_create(&t, NULL, other_thread, NULL);
    pthread_join(t, NULL);
    put_call(11, 1);
    int cut;
    cr_assert_eq(gt_stage_pull(&cut, 1), 7, "seven slots: five calls, two NCCL slots");
    struct seen s = { 0 };
    cr_assert_eq(store_all(&s), 7);
    cr_assert_eq(s.n, 5, "the NCCL slots come with their calls");
    uint32_t me = (uint32_t)gettid(), them = 0;
    for (int i = 0; i < s.n; i++) {
        if (s.tid[i] != me)
            them = s.tid[i];
    }
    cr_assert_neq(them, 0);
    /* per thread, in order */
    uint32_t last_me = 0, last_them = 0;
    for (int i = 0; i < s.n; i++) {
        if (s.tid[i] == me) {
            cr_assert_gt(s.seq[i], last_me);
            last_me = s.seq[i];
            cr_assert_eq(s.nccl[i], s.seq[i] == 11 ? 1011 : -1);
        } else {
            cr_assert_eq(s.tid[i], them);
            cr_assert_gt(s.seq[i], last_them);
            last_them = s.seq[i];
            cr_assert_eq(s.nccl[i], s.seq[i] == 2 ? 1002 : -1);
        }
    }
    cr_assert_eq(last_me, 11);
    cr_assert_eq(last_them, 3);
}

/* A thread that records until its ring refuses (it is full and may not
 * grow: its size, or the budget); returns how many it recorded. */
static void *fill_ring(void *arg)
{
    long *n = arg;
    struct gt_tbuf *b = gt_tbuf_mine();
    if (!b)
        return NULL;
    for (struct gt_record *r; (r = gt_tbuf_reserve(b)) != NULL; (*n)++) {
        gt_record_clear(r);
        r->type = GT_REC_CALL;
        r->call_seq = (uint32_t)*n;
        gt_tbuf_commit(b);
    }
    return NULL;
}

static void count_only(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)r, (void)nccl, (void)tid;
    ++*(long *)ctx;
}

/* Every buffer full: eight threads' rings of 8 MiB each (64 MiB) and the
 * queue (32 MiB before) add up to the one budget they share, and the rings
 * leave the queue its reserve, through which the writer goes on draining
 * them. */
Test(stage, rings_and_queue_share_one_budget_and_the_queue_keeps_its_reserve)
{
    gt_tbuf_configure((size_t)8 << 20);
    cr_assert_eq(gt_mem_host(), GT_MEM_HOST_BYTES, "the default ring keeps the default budget");
    pthread_t t[8];
    long made[8] = { 0 }, total = 0;
    for (int i = 0; i < 8; i++)
        cr_assert_eq(pthread_create(&t[i], NULL, fill_ring, &made[i]), 0);
    for (int i = 0; i < 8; i++) {
        pthread_join(t[i], NULL);
        total += made[i];
    }
    size_t rings = gt_mem_used();
    cr_assert_leq(rings, GT_MEM_HOST_BYTES - GT_MEM_QUEUE_RESERVE, "the rings took %zu bytes", rings);
    cr_assert_leq((size_t)total * sizeof(struct gt_record), rings, "the records fit in what was counted");
    cr_assert_gt((size_t)total * sizeof(struct gt_record), rings / 3, "the rings did fill");
    cr_assert_gt(gt_tbuf_dropped(), 0, "past the budget records are counted as dropped");
    /* the drain: into the queue, as far as the budget allows */
    int cut;
    size_t pulled = gt_stage_pull(&cut, 1);
    cr_assert_gt(pulled, GT_MEM_QUEUE_RESERVE / sizeof(struct gt_record) / 2, "the queue got its reserve at least");
    cr_assert_leq(gt_mem_peak(), GT_MEM_HOST_BYTES, "rings and queue together: %zu bytes", gt_mem_peak());
    /* and the writer, storing, drains them all in turns */
    long stored = 0;
    for (int rounds = 0; rounds < 10000 && stored < total; rounds++) {
        while (gt_stage_store_one(count_only, &stored) != 0)
            ;
        gt_stage_pull(&cut, 1);
    }
    cr_assert_eq(stored, total, "every record recorded is stored");
    cr_assert_leq(gt_mem_peak(), GT_MEM_HOST_BYTES);
}

/* A segment of the steady size (tbuf.h) stored whole goes back to its
 * ring's pool, not unmapped: the ring's next move takes it again. */
Test(stage, a_segment_stored_whole_goes_back_to_its_ring)
{
    gt_tbuf_configure(4 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    uint32_t seq = 0;
    put_call(++seq, 0);
    struct gt_tbuf *b = gt_tbuf_mine();
    while (b->seg->mask + 1 < GT_TBUF_SEG_RECORDS)
        put_call(++seq, 0);
    struct gt_tbuf_seg *steady = b->seg;
    while (b->seg == steady)
        put_call(++seq, 0);
    int cut;
    cr_assert_eq(gt_stage_pull(&cut, 1), seq);
    cr_assert_null(atomic_load(&b->pool), "queued, not yet stored");
    cr_assert_eq(atomic_load(&b->seg_records), GT_TBUF_SEG_RECORDS, "the ring counts its segment in use, not the queue's");
    long stored = 0;
    while (gt_stage_store_one(count_only, &stored) != 0)
        ;
    cr_assert_eq(stored, seq);
    cr_assert_eq(atomic_load(&b->pool), steady, "stored, and back in its ring's pool");
    cr_assert_eq(atomic_load(&b->seg_records), 2 * GT_TBUF_SEG_RECORDS, "counted again there");
    size_t used = gt_mem_used();
    struct gt_tbuf_seg *now = b->seg;
    while (b->seg == now)
        put_call(++seq, 0);
    cr_assert_eq(b->seg, steady, "the ring's next move took it");
    cr_assert_eq(gt_mem_used(), used, "and mapped nothing");
}

/* A writer held up (a commit, a lock) while the drain keeps up: the
 * segments queued whole are the queue's, bounded by the budget as its
 * chunks are, and the ring goes on moving to new ones (counted against the
 * ring's own size, they stopped it at its fifth: calls dropped with most of
 * the budget free). */
Test(stage, a_writer_held_up_does_not_stop_a_ring_whose_drain_keeps_up)
{
    gt_tbuf_configure(2 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    uint64_t dropped0 = gt_tbuf_dropped();
    int cut;
    uint32_t seq = 0;
    size_t pulled = 0;
    while (seq < 200000) { /* the drain a segment and more behind at each pull: segments queued whole */
        for (int i = 0; i < 20000; i++)
            put_call(++seq, 0); /* asserts a slot: a drop fails here */
        pulled += gt_stage_pull(&cut, 1);
    }
    cr_assert_eq(gt_tbuf_dropped(), dropped0);
    pulled += gt_stage_pull(&cut, 1);
    long stored = 0;
    while (gt_stage_store_one(count_only, &stored) != 0)
        ;
    cr_assert_eq(stored, seq, "every record stored");
    cr_assert_eq(pulled, seq);
}

/* The three sides at once: a thread calling flat out, the drain thread
 * (gt_stage_start) and this one storing as the writer does, segments
 * moving to the queue whole, back to the pool from either of the other
 * two and taken again: every record stored once, in order, or counted
 * dropped, and the ring's count and the budget what is held at the end. */
struct producer { uint32_t made; uint64_t dropped; _Atomic int done; };

static void *produce(void *arg)
{
    struct producer *p = arg;
    struct gt_tbuf *b = gt_tbuf_mine();
    if (!b) {
        p->dropped = 1000000;
        atomic_store(&p->done, 1);
        return NULL;
    }
    for (uint32_t i = 1; i <= 1000000; i++) {
        struct gt_record *r = gt_tbuf_reserve(b);
        if (!r) {
            p->dropped++;
            continue;
        }
        gt_record_clear(r);
        r->type = GT_REC_CALL;
        r->call_seq = i;
        gt_tbuf_commit(b);
        p->made++;
    }
    atomic_store(&p->done, 1);
    return NULL;
}

struct in_order { uint32_t last; long n, out_of_order; };

static void check_order(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)nccl, (void)tid;
    struct in_order *o = ctx;
    o->out_of_order += r->call_seq <= o->last;
    o->last = r->call_seq;
    o->n++;
}

Test(stage, a_thread_calling_flat_out_while_drained_and_stored_loses_nothing_silently)
{
    gt_tbuf_configure(2 * GT_TBUF_SEG_RECORDS * sizeof(struct gt_record));
    uint64_t dropped0 = gt_tbuf_dropped();
    struct producer p = { 0 };
    struct in_order o = { 0 };
    char err[256];
    cr_assert_eq(gt_stage_start(err, sizeof err), 0, "%s", err);
    pthread_t t;
    cr_assert_eq(pthread_create(&t, NULL, produce, &p), 0);
    /* while it calls (the drain queues full chunks only: the last one is
     * pulled below) */
    for (int round = 0; round < 100000 && !atomic_load(&p.done); round++) {
        for (int k = 0; k < 16 && gt_stage_store_one(check_order, &o) != 0; k++)
            ;
        usleep(round % 4 ? 20 : 300); /* the writer late now and then */
    }
    pthread_join(t, NULL);
    cr_assert_eq(gt_stage_stop(10000), 0, "the drain thread stopped");
    int cut;
    for (int i = 0; i < 1000; i++) {
        gt_stage_pull(&cut, 1);
        while (gt_stage_store_one(check_order, &o) != 0)
            ;
        if (gt_stage_backlog() == 0 && gt_tbuf_backlog() == 0)
            break;
    }
    cr_assert_eq(p.made + p.dropped, 1000000);
    cr_assert_eq(gt_tbuf_dropped() - dropped0, p.dropped);
    cr_assert_eq(o.n, p.made, "every record made stored once (%ld of %u)", o.n, p.made);
    cr_assert_eq(o.out_of_order, 0, "in the order made");
    /* the budget counts what is held: with the queue let go, the rings'
     * headers, segments, pools and spares, as a forked child counts them */
    gt_stage_forget(0);
    size_t used = gt_mem_used();
    gt_tbuf_recount_after_fork();
    cr_assert_eq(gt_mem_used(), used, "counted %zu, held %zu", used, gt_mem_used());
}
