/* plugin_store.c: NCCL plugin records into the nccl_comm, nccl_op,
 * nccl_kernel_ch and nccl_proxy_op tables (docs/schema.md).  Runs on the
 * writer thread only.
 *
 * Each record would be a statement, and SQLite's statements are what
 * limits the writer (about 120,000 a second on a loaded 2-core machine,
 * an UPDATE costing more than an INSERT).  So the records of one drain
 * are stored together: a start whose stop (and a proxy op whose last step
 * state) came in the same drain is one INSERT with its end; only a stop
 * or a state whose start was stored by an earlier drain is an UPDATE of
 * that row.  The ring keeps a start before its stop. */
#include "collector/plugin_store.h"
#include "collector/plugin_ring.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BATCH 65536 /* records per drain at most: the rest wait for the next */

static int told; /* the process row says the plugin is active */

/* The drain's records, and for each id its start's, its stop's and its
 * last state's index in them (open addressing; 0 = none, else index + 1). */
static struct gt_plug_rec *batch;
static size_t nbatch, cap_batch;
struct slot { uint64_t id; uint32_t start, stop, state; };
static struct slot *map;
static size_t map_mask;

static int64_t id64(uint64_t v)
{
    return (int64_t)v;
}

/* Binds this process's id and v[0..n) (NULL where null has its bit) to s and steps it. */
static void exec_vals(struct gt_db *d, enum gt_stmt s, const int64_t *v, int n, uint32_t null)
{
    if (d->failed)
        return;
    sqlite3_stmt *st = d->st[s];
    sqlite3_bind_int64(st, 1, d->process_id);
    for (int i = 0; i < n; i++) {
        if (null & (1u << i))
            sqlite3_bind_null(st, i + 2);
        else
            sqlite3_bind_int64(st, i + 2, v[i]);
    }
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE && !d->failed)
        d->failed = rc;
}

static void copy_one(const struct gt_plug_rec *r, void *ctx)
{
    (void)ctx;
    if (nbatch == cap_batch) {
        size_t want = cap_batch ? cap_batch * 2 : 1024;
        /* aligned as the record type is (its first field is a cache line's):
         * realloc's 16 bytes made every read of the batch misaligned */
        struct gt_plug_rec *p = aligned_alloc(_Alignof(struct gt_plug_rec), want * sizeof *p);
        if (!p) {
            gt_plug_count_dropped(1); /* the writer could not hold it */
            return;
        }
        if (nbatch)
            memcpy(p, batch, nbatch * sizeof *p);
        free(batch);
        batch = p;
        cap_batch = want;
    }
    memcpy(&batch[nbatch++], r, sizeof *r);
}

static struct slot *slot_of(uint64_t id, int add)
{
    for (size_t h = (size_t)(id * 0x9e3779b97f4a7c15ull) & map_mask;; h = (h + 1) & map_mask) {
        if (map[h].id == id)
            return &map[h];
        if (map[h].id == 0) {
            if (!add)
                return NULL;
            map[h].id = id;
            return &map[h];
        }
    }
}

/* The stops and states of the batch, by id. */
static int index_batch(void)
{
    size_t want = 16;
    while (want < 2 * nbatch)
        want *= 2;
    if (want - 1 != map_mask) {
        struct slot *m = realloc(map, want * sizeof *m);
        if (!m)
            return -1;
        map = m;
        map_mask = want - 1;
    }
    memset(map, 0, (map_mask + 1) * sizeof *map);
    for (size_t i = 0; i < nbatch; i++) {
        const struct gt_plug_rec *r = &batch[i];
        if (!r->id)
            continue;
        if (r->kind == GT_PK_OP_START || r->kind == GT_PK_KCH_START || r->kind == GT_PK_PROXY_START)
            slot_of(r->id, 1)->start = (uint32_t)i + 1;
        else if (r->kind == GT_PK_OP_STOP || r->kind == GT_PK_KCH_STOP || r->kind == GT_PK_PROXY_STOP)
            slot_of(r->id, 1)->stop = (uint32_t)i + 1;
        else if (r->kind == GT_PK_PROXY_STATE)
            slot_of(r->id, 1)->state = (uint32_t)i + 1;
    }
    return 0;
}

static void store_comm(struct gt_db *d, const struct gt_plug_rec *r)
{
    int64_t v[] = { id64(r->comm), r->a, r->b, r->c, r->func, r->version, (int64_t)r->t };
    exec_vals(d, GT_ST_NCCL_COMM, v, 7, 0);
    if (!told) {
        char s[64];
        snprintf(s, sizeof s, "active (v%d)", r->version);
        gt_db_set_process_text(d, "nccl_plugin_status", s);
        told = 1;
    }
}

static void store_one(struct gt_db *d, size_t i, int indexed)
{
    const struct gt_plug_rec *r = &batch[i];
    struct slot *k = indexed && r->id ? slot_of(r->id, 0) : NULL;
    const struct gt_plug_rec *stop = k && k->stop > i ? &batch[k->stop - 1] : NULL;
    const struct gt_plug_rec *state = k && k->state > i ? &batch[k->state - 1] : NULL;
    int64_t t = (int64_t)r->t;
    switch (r->kind) {
    case GT_PK_COMM:
        store_comm(d, r);
        break;
    case GT_PK_OP_START: {
        int64_t v[] = { id64(r->id), id64(r->comm), id64(r->seq), r->nccl_seq == UINT64_MAX ? -1 : id64(r->nccl_seq),
                        r->func, r->dtype, id64(r->count), r->algo, r->proto, r->rank, r->b, r->nchannels, r->nwarps,
                        (r->flags & GT_PF_P2P) != 0, (r->flags & GT_PF_GRAPH) != 0, id64(r->stream), t,
                        stop ? (int64_t)stop->t : 0 };
        exec_vals(d, GT_ST_NCCL_OP, v, 18, stop ? 0 : 1u << 17);
        break;
    }
    case GT_PK_KCH_START: {
        int64_t v[] = { id64(r->id), id64(r->parent), r->channel, t, id64(r->ns[0]), stop ? (int64_t)stop->t : 0,
                        stop ? id64(stop->ns[0]) : 0 };
        exec_vals(d, GT_ST_NCCL_KCH, v, 7, stop ? 0 : 3u << 5);
        break;
    }
    case GT_PK_PROXY_START: {
        int64_t v[17] = { id64(r->id), id64(r->parent), r->channel, r->a, (r->flags & GT_PF_SEND) != 0, r->b, r->c, t };
        uint32_t null = 0;
        if (stop) {
            v[8] = (int64_t)stop->t;
            v[9] = stop->a;
            v[10] = id64(stop->count);
            for (int b = 0; b < GT_PB_COUNT; b++)
                v[11 + b] = id64(stop->ns[b]);
            v[16] = stop->b;
        } else {
            null = 0xffu << 8; /* end, steps, bytes, the five totals: none yet */
            v[16] = state ? state->b : 0;
            if (!state)
                null |= 1u << 16;
        }
        exec_vals(d, GT_ST_NCCL_PROXY, v, 17, null);
        break;
    }
    case GT_PK_OP_STOP:
    case GT_PK_KCH_STOP:
    case GT_PK_PROXY_STOP: {
        if (k && k->start && k->start <= i)
            break; /* its start came earlier in this batch: stored with it */
        if (r->kind == GT_PK_OP_STOP) {
            int64_t v[] = { id64(r->id), t };
            exec_vals(d, GT_ST_NCCL_OP_END, v, 2, 0);
        } else if (r->kind == GT_PK_KCH_STOP) {
            int64_t v[] = { id64(r->id), t, id64(r->ns[0]) };
            exec_vals(d, GT_ST_NCCL_KCH_END, v, 3, 0);
        } else {
            int64_t v[] = { id64(r->id), t, r->a, id64(r->count), id64(r->ns[GT_PB_GPU_WAIT]),
                            id64(r->ns[GT_PB_PEER_WAIT]), id64(r->ns[GT_PB_NET]), id64(r->ns[GT_PB_RECV_WAIT]),
                            id64(r->ns[GT_PB_FLUSH]), r->b };
            exec_vals(d, GT_ST_NCCL_PROXY_END, v, 10, 0);
        }
        break;
    }
    case GT_PK_PROXY_STATE: {
        if (k && (k->state != i + 1 || k->stop || (k->start && k->start <= i)))
            break; /* a later state, its stop, or its start's row (stored with it) says it */
        int64_t v[] = { id64(r->id), r->b };
        exec_vals(d, GT_ST_NCCL_PROXY_STATE, v, 2, 0);
        break;
    }
    default:
        break;
    }
}

unsigned long gt_plug_store(struct gt_db *d)
{
    nbatch = 0;
    unsigned long n = gt_plug_drain_max(copy_one, NULL, MAX_BATCH);
    int indexed = index_batch() == 0; /* else (no memory): each record on its own */
    for (size_t i = 0; i < nbatch; i++)
        store_one(d, i, indexed);
    return n;
}

void gt_plug_store_forget_after_fork(void)
{
    told = 0;
    nbatch = 0;
}
