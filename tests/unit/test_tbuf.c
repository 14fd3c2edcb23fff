/* test_tbuf.c: the per-thread record ring (collector/tbuf.c): records come
 * out in order with their thread, an NCCL call's two slots are reserved and
 * drained together even where they straddle the ring's end, and a full ring
 * drops (and counts) rather than overwrite. */
#define _GNU_SOURCE
#include "collector/tbuf.h"

#include <criterion/criterion.h>
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
    cr_assert_eq(b->mask + 1, CAP);
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
