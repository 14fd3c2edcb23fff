/* coll_spill.c: every rank's collectives through the report's scratch
 * store (tmpstore.h), merged back by (communicator, sequence)
 * (coll_spill.h). */
#define _GNU_SOURCE /* qsort_r */
#include "viewer/analyse/coll_spill.h"

#include <stdlib.h>
#include <string.h>

#define MERGE_BUF 128 /* records read at once from each process's run */

void coll_spill_open(struct coll_spill *s, size_t nprocs)
{
    memset(s, 0, sizeof *s);
    s->runs = calloc(nprocs + 1, sizeof *s->runs);
    if (!s->runs)
        model_out_of_memory();
    s->nruns = nprocs;
    tmpstore_open(&s->store);
}

/* (comm, seq, index) order of a process's collectives, by index. */
static int cmp_index(const void *a, const void *b, void *ctx)
{
    const struct coll *v = ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    if (v[i].comm != v[j].comm)
        return v[i].comm < v[j].comm ? -1 : 1;
    if (v[i].seq != v[j].seq)
        return v[i].seq < v[j].seq ? -1 : 1;
    return i < j ? -1 : i > j;
}

#define WRITE_BUF 1024 /* records written at once: the sorted copy is never whole */

void coll_spill_add_batch(struct coll_spill *s, size_t pi, const struct coll *v, size_t n, size_t first)
{
    struct coll_run *r = &s->runs[pi];
    if (!n)
        return;
    if (r->nbatches == r->batches_cap) {
        r->batches_cap = r->batches_cap ? r->batches_cap * 2 : 8;
        if (!(r->batches = realloc(r->batches, r->batches_cap * sizeof *r->batches)))
            model_out_of_memory();
    }
    r->batches[r->nbatches++] = (struct coll_batch){ s->store.len / sizeof(struct coll_rec), n };
    size_t *ix = malloc(n * sizeof *ix);
    struct coll_rec *buf = malloc(WRITE_BUF * sizeof *buf);
    if (!ix || !buf)
        model_out_of_memory();
    for (size_t i = 0; i < n; i++)
        ix[i] = i;
    qsort_r(ix, n, sizeof *ix, cmp_index, (void *)v);
    size_t nb = 0, kept = 0;
    for (size_t i = 0; i < n; i++) {
        const struct coll *c = &v[ix[i]];
        /* no communicator to match it by: no analysis across ranks reads it
         * (the report's note counts it: viewer/write/unknown_comm.c) */
        if (model_coll_comm_unknown(c))
            continue;
        kept++;
        buf[nb++] = (struct coll_rec){ .comm = c->comm, .seq = c->seq, .start = c->start, .gstart = c->gstart,
                                       .gend = c->gend, .count = c->count, .bytes = c->bytes, .call_id = c->call_id,
                                       .api = c->api, .dtype = c->dtype, .op = c->op, .peer = c->peer,
                                       .rank = c->rank, .nranks = c->nranks, .gstream = c->gstream, .site = c->site,
                                       .proc = (int32_t)pi, .index = (int32_t)(first + ix[i]),
                                       .kname = c->kname };
        if (nb == WRITE_BUF) {
            tmpstore_append(&s->store, buf, nb * sizeof *buf);
            nb = 0;
        }
    }
    if (nb)
        tmpstore_append(&s->store, buf, nb * sizeof *buf);
    if (kept)
        r->batches[r->nbatches - 1].n = kept;
    else
        r->nbatches--;
    free(buf);
    free(ix);
}

void coll_spill_add(struct coll_spill *s, const struct model *m, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    coll_spill_add_batch(s, pi, p->colls, p->ncolls, 0);
    coll_spill_end_proc(s, pi);
}

/* Where comm is in process pi's communicators: its index, or ncomms. */
static size_t comm_index(const struct coll_run *r, int64_t comm)
{
    size_t lo = 0, hi = r->ncomms;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (r->comms[mid] < comm)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < r->ncomms && r->comms[lo] == comm ? lo : r->ncomms;
}

int coll_spill_used(const struct coll_spill *s, size_t pi, int64_t comm)
{
    const struct coll_run *r = &s->runs[pi];
    return comm_index(r, comm) < r->ncomms;
}

int coll_spill_went_past(const struct coll_spill *s, size_t pi, int64_t comm, int64_t seq)
{
    const struct coll_run *r = &s->runs[pi];
    size_t i = comm_index(r, comm);
    return i < r->ncomms && model_seq_collective(seq) && r->last_seqs[i] > seq;
}

/* A process's run being merged: its next records, MERGE_BUF at a time. */
struct cursor {
    uint64_t at, end;       /* next record to read in, past the last */
    const struct coll_rec *v;
    size_t pos, len;        /* v[pos] is its current record */
    struct coll_rec buf[MERGE_BUF];
};

static int fill(const struct coll_spill *s, struct cursor *c)
{
    if (c->at >= c->end)
        return 0;
    c->len = c->end - c->at < MERGE_BUF ? (size_t)(c->end - c->at) : MERGE_BUF;
    tmpstore_read(&s->store, c->at * sizeof *c->buf, c->buf, c->len * sizeof *c->buf);
    c->v = c->buf;
    c->at += c->len;
    c->pos = 0;
    return 1;
}

/* Heap order: (comm, seq, process, index): across processes' runs (no two
 * cursors share a process), and across one process's batches. */
static int before(const struct cursor *a, const struct cursor *b)
{
    const struct coll_rec *x = &a->v[a->pos], *y = &b->v[b->pos];
    if (x->comm != y->comm)
        return x->comm < y->comm;
    if (x->seq != y->seq)
        return x->seq < y->seq;
    if (x->proc != y->proc)
        return x->proc < y->proc;
    return x->index < y->index;
}

static void sift_down(struct cursor **h, size_t n, size_t i)
{
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, m = i;
        if (l < n && before(h[l], h[m]))
            m = l;
        if (r < n && before(h[r], h[m]))
            m = r;
        if (m == i)
            return;
        struct cursor *t = h[i];
        h[i] = h[m];
        h[m] = t;
        i = m;
    }
}

/* A cursor over the records [first, first + n), its first ones read in. */
static struct cursor *cursor_open(const struct coll_spill *s, uint64_t first, uint64_t n)
{
    struct cursor *c = malloc(sizeof *c);
    if (!c)
        model_out_of_memory();
    c->at = first;
    c->end = first + n;
    fill(s, c);
    return c;
}

static void heapify(struct cursor **heap, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sift_down(heap, n, i);
}

/* Moves the heap's top cursor on to its next record (dropping it when it
 * has none) and puts the heap back in order. */
static void heap_next(const struct coll_spill *s, struct cursor **heap, size_t *n)
{
    struct cursor *c = heap[0];
    if (++c->pos == c->len && !fill(s, c)) {
        free(c);
        heap[0] = heap[--*n];
    }
    sift_down(heap, *n, 0);
}

static int skipped(const struct coll_spill *s, int64_t comm)
{
    size_t lo = 0, hi = s->nskip;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->skip[mid] < comm)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < s->nskip && s->skip[lo] == comm;
}

void coll_spill_groups(struct coll_spill *s, coll_group_fn *fn, void *ctx)
{
    struct cursor **heap = malloc((s->nruns + 1) * sizeof *heap);
    if (!heap)
        model_out_of_memory();
    size_t n = 0;
    for (size_t pi = 0; pi < s->nruns; pi++)
        if (s->runs[pi].n)
            heap[n++] = cursor_open(s, s->runs[pi].first, s->runs[pi].n);
    heapify(heap, n);
    struct coll_rec *group = NULL;
    size_t ng = 0, cap = 0;
    while (n) {
        struct cursor *c = heap[0];
        const struct coll_rec *r = &c->v[c->pos];
        if (ng && (group[0].comm != r->comm || group[0].seq != r->seq)) {
            if (!skipped(s, group[0].comm))
                fn(group, ng, ctx);
            ng = 0;
        }
        if (ng == cap) {
            cap = cap ? cap * 2 : 16;
            group = realloc(group, cap * sizeof *group);
            if (!group)
                model_out_of_memory();
        }
        group[ng++] = *r;
        heap_next(s, heap, &n);
    }
    if (ng && !skipped(s, group[0].comm))
        fn(group, ng, ctx);
    free(group);
    free(heap);
}

/* A process's batches merged into one run, appended to the store (the
 * batches' records stay there, unread). */
static void merge_batches(struct coll_spill *s, struct coll_run *r)
{
    struct cursor **heap = malloc(r->nbatches * sizeof *heap);
    struct coll_rec *buf = malloc(WRITE_BUF * sizeof *buf);
    if (!heap || !buf)
        model_out_of_memory();
    size_t n = 0, nb = 0;
    for (size_t b = 0; b < r->nbatches; b++)
        heap[n++] = cursor_open(s, r->batches[b].first, r->batches[b].n);
    heapify(heap, n);
    r->first = s->store.len / sizeof(struct coll_rec);
    r->n = 0;
    while (n) {
        struct cursor *c = heap[0];
        buf[nb++] = c->v[c->pos];
        if (nb == WRITE_BUF) {
            tmpstore_append(&s->store, buf, nb * sizeof *buf);
            r->n += nb;
            nb = 0;
        }
        heap_next(s, heap, &n);
    }
    tmpstore_append(&s->store, buf, nb * sizeof *buf);
    r->n += nb;
    free(buf);
    free(heap);
}

void coll_spill_end_proc(struct coll_spill *s, size_t pi)
{
    struct coll_run *r = &s->runs[pi];
    if (r->nbatches > 1) {
        merge_batches(s, r);
    } else if (r->nbatches == 1) {
        r->first = r->batches[0].first;
        r->n = r->batches[0].n;
    } else {
        r->first = s->store.len / sizeof(struct coll_rec);
        r->n = 0;
    }
    free(r->batches);
    r->batches = NULL;
    r->nbatches = r->batches_cap = 0;
    /* its communicators, read back in (comm, seq) order */
    struct cursor c = { .at = r->first, .end = r->first + r->n };
    size_t cap = 0;
    while (fill(s, &c))
        for (; c.pos < c.len; c.pos++) {
            int64_t comm = c.v[c.pos].comm, seq = c.v[c.pos].seq;
            if (!r->ncomms || r->comms[r->ncomms - 1] != comm) {
                if (r->ncomms == cap) {
                    cap = cap ? cap * 2 : 8;
                    if (!(r->comms = realloc(r->comms, cap * sizeof *r->comms)) ||
                        !(r->last_seqs = realloc(r->last_seqs, cap * sizeof *r->last_seqs)))
                        model_out_of_memory();
                }
                r->comms[r->ncomms] = comm;
                r->last_seqs[r->ncomms++] = -1;
            }
            if (model_seq_collective(seq)) /* in seq order: the last is the highest */
                r->last_seqs[r->ncomms - 1] = seq;
        }
}

void coll_spill_close(struct coll_spill *s)
{
    tmpstore_close(&s->store);
    for (size_t i = 0; i < s->nruns; i++) {
        free(s->runs[i].comms);
        free(s->runs[i].last_seqs);
        free(s->runs[i].batches);
    }
    free(s->runs);
    memset(s, 0, sizeof *s);
}
