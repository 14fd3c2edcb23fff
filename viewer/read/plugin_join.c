/* plugin_join.c: NCCL's own records of a process (the nccl_* tables the
 * tracer fills as NCCL's profiler plugin) joined to the collectives the
 * wrappers saw.
 *
 * NCCL's communicator hash is not our communicator id, so each of NCCL's
 * communicators is paired with the wrapper's communicator of the same rank
 * and size made in the same order.  An operation is the wrapper's
 * collective of that communicator with the same function and NCCL's
 * sequence number (NCCL counts each function on its own: the k-th
 * all-reduce is the wrapper's k-th ncclAllReduce), or for send/recv the
 * same function, peer and order.  Where no wrapper saw the communicator
 * (NCCL reached through a handle, ctypes, a static NCCL, the tracer only
 * injected) its operations become collectives of their own: NCCL's hash
 * as the communicator, the plugin's count of the communicator's
 * operations as the sequence, the kernel channels' span as GPU time (the
 * kernel itself matched later, plugin_kernels), so that every analysis
 * works on them.  The wrapper's collectives on a communicator it did not
 * see made (communicator 0) are NCCL's operations on such communicators,
 * and take NCCL's identity (adopt_unknown).  A database without the tables
 * has nothing to join.
 */
#define _GNU_SOURCE
#include "viewer/read/plugin_join.h"
#include "viewer/read/plugin_ce.h"
#include "viewer/read/load_internal.h"
#include "viewer/model/idmap.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct pcomm { int64_t hash, mapped; int rank, nranks; };

struct pop {
    int64_t event, hash, seq, nccl_seq, count, start, end, kstart, kend, coll;
    int api, dtype, rank, root_peer, p2p, matched, depth;
};

/* What an op's kernel channels or proxy ops add up to (one GROUP BY each). */
struct agg { int64_t op, lo, hi, n, open, far; };

/* ncclDataType_t of NCCL's spelling (ncclDatatypeToString); -1 if unknown. */
static int dtype_of(const char *s, int64_t *size)
{
    static const struct { const char *name; int bytes; } t[] = {
        { "ncclInt8", 1 }, { "ncclUint8", 1 }, { "ncclInt32", 4 }, { "ncclUint32", 4 }, { "ncclInt64", 8 },
        { "ncclUint64", 8 }, { "ncclFloat16", 2 }, { "ncclFloat32", 4 }, { "ncclFloat64", 8 },
        { "ncclBfloat16", 2 }, { "ncclFloat8e4m3", 1 }, { "ncclFloat8e5m2", 1 } };
    for (int i = 0; s && i < (int)(sizeof t / sizeof *t); i++)
        if (!strcmp(s, t[i].name)) {
            *size = t[i].bytes;
            return i;
        }
    *size = 0;
    return -1;
}

/* The model's API id of NCCL's function name ("AllReduce": ncclAllReduce), 0 if none. */
static int api_of(const struct model *m, const char *func)
{
    char name[64];
    if (!func)
        return 0;
    snprintf(name, sizeof name, "nccl%s", func);
    int api = model_api_named(m, name);
    return api > 0 ? api : 0;
}

static int is_rooted(const char *func)
{
    return func && (!strcmp(func, "Broadcast") || !strcmp(func, "Reduce") || !strcmp(func, "Gather") ||
                    !strcmp(func, "Scatter"));
}

static struct pcomm *comm_of(struct pcomm *v, size_t n, int64_t hash, int rank)
{
    for (size_t i = 0; i < n; i++)
        if (v[i].hash == hash && (v[i].rank == rank || rank < 0))
            return &v[i];
    return NULL;
}

/* NCCL's communicators of p, each paired with a wrapper's (mapped, or 0). */
static size_t load_comms(sqlite3 *db, const struct proc *p, struct pcomm **out)
{
    sqlite3_stmt *s;
    size_t n = 0, cap = 0;
    *out = NULL;
    if (sqlite3_prepare_v2(db, "SELECT comm_hash, rank, nranks FROM nccl_comm WHERE process_id = ?"
                               " ORDER BY created_ns, rowid", -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(s, 1, p->id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        GROW(*out, n, cap);
        int nranks = sqlite3_column_int(s, 2); /* as load_colls keeps a damaged file's */
        (*out)[n++] = (struct pcomm){ sqlite3_column_int64(s, 0), 0, sqlite3_column_int(s, 1),
                                      nranks < -1 ? -1 : nranks > (1 << 20) ? 1 << 20 : nranks };
    }
    sqlite3_finalize(s);
    /* the wrapper's, in the order they were made: each taken once */
    if (!n || sqlite3_prepare_v2(db, "SELECT comm_id, rank, nranks FROM comm WHERE process_id = ?"
                                     " ORDER BY created_ns, rowid", -1, &s, NULL) != SQLITE_OK)
        return n;
    sqlite3_bind_int64(s, 1, p->id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0);
        int rank = sqlite3_column_int(s, 1), nranks = sqlite3_column_int(s, 2);
        for (size_t i = 0; i < n; i++)
            if (!(*out)[i].mapped && (*out)[i].rank == rank && ((*out)[i].nranks == nranks || (*out)[i].nranks < 0)) {
                (*out)[i].mapped = id;
                break;
            }
    }
    sqlite3_finalize(s);
    return n;
}

static int cmp_agg(const void *a, const void *b)
{
    const struct agg *x = a, *y = b;
    return x->op < y->op ? -1 : x->op > y->op;
}

static size_t load_aggs(sqlite3 *db, const struct proc *p, const char *sql, struct agg **out)
{
    sqlite3_stmt *s;
    size_t n = 0, cap = 0;
    *out = NULL;
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(s, 1, p->id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        GROW(*out, n, cap);
        (*out)[n++] = (struct agg){ sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int64(s, 2),
                                    sqlite3_column_int64(s, 3), sqlite3_column_int64(s, 4), sqlite3_column_int64(s, 5) };
    }
    sqlite3_finalize(s);
    if (n)
        qsort(*out, n, sizeof **out, cmp_agg);
    return n;
}

static const struct agg *agg_of(const struct agg *v, size_t n, int64_t op)
{
    struct agg key = { .op = op };
    return n ? bsearch(&key, v, n, sizeof *v, cmp_agg) : NULL;
}

/* How far an op got (PD_*, model.h), from its kernel channels and
 * proxy ops: all channels ended is done; else a proxy op in progress says
 * whether a step reached the network or waits for the peer. */
static int depth_of(const struct agg *k, const struct agg *x)
{
    if (k && k->n > 0 && k->open == 0)
        return PD_DONE;
    if (x && x->open > 0 && x->far == 2)
        return PD_NETWORK;
    if (x && x->open > 0 && x->far == 1)
        return PD_PEER;
    return k && k->n > 0 ? PD_KERNEL : PD_ENQUEUED;
}

static size_t load_ops(struct model *m, sqlite3 *db, const struct proc *p, struct pop **out)
{
    sqlite3_stmt *s;
    size_t n = 0, cap = 0;
    *out = NULL;
    struct agg *kch, *px;
    size_t nk = load_aggs(db, p, "SELECT op_event_id, min(start_ns), max(end_ns), count(*), sum(end_ns IS NULL), 0"
                                 " FROM nccl_kernel_ch WHERE process_id = ? GROUP BY op_event_id", &kch);
    /* far: 2 when an unfinished proxy op reached the network (NCCL's states
     * 9, 11), 1 when it waits for the peer (20, 10) */
    size_t nx = load_aggs(db, p, "SELECT op_event_id, 0, 0, count(*), sum(end_ns IS NULL),"
                                 " max(CASE WHEN end_ns IS NOT NULL THEN 0 WHEN last_state IN (9, 11) THEN 2"
                                 " WHEN last_state IN (20, 10) THEN 1 ELSE 0 END)"
                                 " FROM nccl_proxy_op WHERE process_id = ? GROUP BY op_event_id", &px);
    const char *sql =
        "SELECT o.event_id, o.comm_hash, o.seq, o.nccl_seq, o.count, o.start_ns, o.end_ns, o.rank, o.root_peer,"
        " o.is_p2p, f.value, t.value"
        " FROM nccl_op o LEFT JOIN label f ON f.process_id = o.process_id AND f.id = o.func"
        " LEFT JOIN label t ON t.process_id = o.process_id AND t.id = o.datatype"
        " WHERE o.process_id = ? ORDER BY o.start_ns, o.event_id";
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
        free(kch);
        free(px);
        return 0;
    }
    sqlite3_bind_int64(s, 1, p->id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        GROW(*out, n, cap);
        struct pop *o = &(*out)[n++];
        const char *func = (const char *)sqlite3_column_text(s, 10);
        int64_t size;
        *o = (struct pop){ .event = sqlite3_column_int64(s, 0), .hash = sqlite3_column_int64(s, 1),
                           .seq = sqlite3_column_int64(s, 2), .nccl_seq = sqlite3_column_int64(s, 3),
                           .count = sqlite3_column_int64(s, 4), .start = sqlite3_column_int64(s, 5),
                           .end = sqlite3_column_int64(s, 6), .rank = sqlite3_column_int(s, 7),
                           .root_peer = sqlite3_column_int(s, 8), .p2p = sqlite3_column_int(s, 9) != 0,
                           .api = api_of(m, func) };
        const struct agg *k = agg_of(kch, nk, o->event), *x = agg_of(px, nx, o->event);
        if (k) {
            o->kstart = k->lo;
            o->kend = k->hi;
            model_span(&o->kstart, &o->kend);
        }
        o->depth = depth_of(k, x);
        o->dtype = dtype_of((const char *)sqlite3_column_text(s, 11), &size);
        if (!o->p2p && !is_rooted(func))
            o->root_peer = -1; /* as the wrapper records it */
        o->count = o->count < 0 ? 0 : model_clamp(o->count, 40);
        model_span(&o->start, &o->end);
    }
    load_note_damage(m, p->db, rc, "nccl_op");
    sqlite3_finalize(s);
    free(kch);
    free(px);
    return n;
}

static int cmp_start(const void *a, const void *b)
{
    const struct coll *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* A key for (communicator, function, peer of a send/recv, ordinal): the
 * 64-bit mix of the four (splitmix64's finaliser), never 0. */
static uint64_t key_of(int64_t comm, int api, int peer, int64_t k)
{
    uint64_t h = (uint64_t)comm;
    const uint64_t parts[] = { (uint64_t)(uint32_t)api, (uint64_t)(uint32_t)peer, (uint64_t)k };
    for (int i = 0; i < 3; i++) {
        h ^= parts[i] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h ^= h >> 30;
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 27;
        h *= 0x94d049bb133111ebull;
        h ^= h >> 31;
    }
    return h ? h : 1;
}

/* The next ordinal of (comm, api, peer) in counters. */
static int64_t next_ordinal(struct idmap *counters, int64_t comm, int api, int peer)
{
    uint64_t key = key_of(comm, api, peer, -1);
    int64_t k = 0;
    idmap_get(counters, key, &k);
    idmap_put(counters, key, k + 1, 0);
    return k;
}

/* The wrapped collectives NCCL ran on the copy engines (plugin_ce.h):
 * NCCL tells its plugin nothing of them and they take no place in its
 * per-function sequence, so the k-th of NCCL's records of a function is
 * the wrapper's k-th collective of it left after these.  Only the
 * functions NCCL 2.28 can run so (ncclCeImplemented) are asked about. */
struct ce_calls { struct idmap ids; int api[4]; int any; };

static int ran_on_ce(const struct ce_calls *ce, const struct coll *c)
{
    if (!ce->any || c->api <= 0)
        return 0;
    int capable = 0;
    for (int i = 0; i < 4; i++)
        capable |= ce->api[i] && c->api == ce->api[i];
    int64_t v;
    return capable && idmap_get(&ce->ids, (uint64_t)(c->group ? c->group : c->call_id), &v) && v == 1;
}

/* Read only when needed: some CE-capable function has more wrapped
 * collectives than NCCL records (each side's total over the process). */
static void ce_calls_load(const struct model *m, sqlite3 *db, const struct proc *p, const struct pop *ops,
                          size_t nops, struct ce_calls *ce)
{
    static const char *const funcs[4] = { "AllGather", "AlltoAll", "Gather", "Scatter" };
    memset(ce, 0, sizeof *ce);
    int need = 0;
    for (int i = 0; i < 4; i++) {
        int api = ce->api[i] = api_of(m, funcs[i]);
        int64_t wrapped = 0, nccl = 0;
        for (size_t j = 0; api && j < p->ncolls; j++)
            wrapped += p->colls[j].api == api && p->colls[j].call_id >= 0;
        for (size_t j = 0; api && j < nops; j++)
            nccl += !ops[j].p2p && ops[j].api == api;
        need |= wrapped > nccl;
    }
    if (need)
        ce->any = plugin_ce_ids(db, p->id, &ce->ids) > 0;
}

/* NCCL enqueues an all-to-all, gather or scatter that runs as a kernel
 * as send/recv tasks, one per peer (taskAppend, src/enqueue.cc): its
 * plugin has P2p records of them, named Send and Recv, and no Coll record.
 * So the wrapper's such collective stands, in the per-peer order NCCL's
 * send/recv records pair by, for the tasks NCCL made of it, in NCCL's
 * order: each of them is joined to it. */
struct p2p_apis { int send, recv, alltoall, gather, scatter; };

/* One task of c: the next of its function and peer, standing for c (j). */
static void piece(const struct coll *c, int api, int peer, int64_t j, struct idmap *seen, struct idmap *wrapped)
{
    idmap_put(seen, key_of(c->comm, api, peer, next_ordinal(wrapped, c->comm, api, peer)), j + 1, 1);
}

static void add_pieces(const struct p2p_apis *a, const struct coll *c, int64_t j, struct idmap *seen,
                       struct idmap *wrapped)
{
    int n = c->nranks, me = c->rank, root = c->peer;
    if (c->api == a->alltoall) {
        for (int r = 0; r < n; r++) {
            piece(c, a->send, r, j, seen, wrapped);
            piece(c, a->recv, r, j, seen, wrapped);
        }
    } else if (c->api == a->gather) {
        piece(c, a->send, root, j, seen, wrapped);
        for (int r = 0; me == root && r < n; r++)
            piece(c, a->recv, r, j, seen, wrapped);
    } else {
        for (int r = 0; me == root && r < n; r++)
            piece(c, a->send, r, j, seen, wrapped);
        piece(c, a->recv, root, j, seen, wrapped);
    }
}

static int decomposed(const struct p2p_apis *a, const struct coll *c)
{
    return a->send && a->recv && c->api > 0 && (c->api == a->alltoall || c->api == a->gather || c->api == a->scatter) &&
           c->rank >= 0 && c->nranks > 0 && c->nranks <= (1 << 20) && c->rank < c->nranks &&
           (c->api == a->alltoall || (c->peer >= 0 && c->peer < c->nranks));
}

/* Marks each op a wrapper saw: the k-th of its function (and peer) on the
 * wrapper's communicator.  Returns how many were matched.  Two hash maps:
 * linear in the operations. */
static size_t match(const struct model *m, struct proc *p, struct pop *ops, size_t nops, const struct pcomm *comms,
                    size_t ncomms, const struct ce_calls *ce)
{
    struct idmap seen = { 0 }, wrapped = { 0 }, plugin = { 0 };
    int send = api_of(m, "Send"), recv = api_of(m, "Recv"), bcast = api_of(m, "Bcast"), broadcast = api_of(m, "Broadcast");
    const struct p2p_apis pa = { send, recv, api_of(m, "AlltoAll"), api_of(m, "Gather"), api_of(m, "Scatter") };
    for (size_t j = 0; j < p->ncolls; j++) { /* in start order */
        const struct coll *c = &p->colls[j];
        if (ran_on_ce(ce, c))
            continue; /* NCCL has no record of it, and did not count it */
        if (decomposed(&pa, c)) {
            int known = 0; /* NCCL's records of the communicator are here (else nothing joins to them) */
            for (size_t i = 0; i < ncomms && !known; i++)
                known = comms[i].mapped == c->comm;
            if (known)
                add_pieces(&pa, c, (int64_t)j, &seen, &wrapped);
            continue;
        }
        int p2p = c->api > 0 && (c->api == send || c->api == recv);
        int peer = p2p ? c->peer : INT32_MIN;
        int api = c->api == bcast && bcast ? broadcast : c->api; /* NCCL calls both Broadcast */
        idmap_put(&seen, key_of(c->comm, api, peer, next_ordinal(&wrapped, c->comm, api, peer)), (int64_t)j + 1, 1);
    }
    size_t matched = 0;
    for (size_t i = 0; i < nops; i++) {
        struct pop *o = &ops[i];
        int peer = o->p2p ? o->root_peer : INT32_MIN;
        int64_t k = o->p2p || o->nccl_seq < 0 ? next_ordinal(&plugin, o->hash ^ (int64_t)o->rank, o->api, peer) : o->nccl_seq;
        const struct pcomm *pc = comm_of((struct pcomm *)comms, ncomms, o->hash, o->rank);
        int64_t j;
        if (!pc || !pc->mapped || !o->api || !idmap_get(&seen, key_of(pc->mapped, o->api, peer, k), &j))
            continue;
        o->matched = 1;
        o->coll = p->colls[j - 1].call_id;
        matched++;
    }
    idmap_free(&seen);
    idmap_free(&wrapped);
    idmap_free(&plugin);
    return matched;
}

/* The wrapper's collectives on a communicator it did not see made
 * (model_coll_comm_unknown: NCCL reached around the wrappers for the
 * communicator, as pncclCommInitRank does) are NCCL's operations on the
 * communicators no wrapper's is paired with: the k-th of a function (and
 * peer) among those, in start order.  Each such collective takes NCCL's
 * communicator hash, sequence, rank and size, so that it is matched across
 * ranks like any other, and keeps what only the wrapper knew (its call
 * site, stream, Python frames).  Returns how many were adopted. */
static size_t adopt_unknown(const struct model *m, struct proc *p, struct pop *ops, size_t nops,
                            const struct pcomm *comms, size_t ncomms, const struct ce_calls *ce)
{
    struct idmap unknown = { 0 }, wrapped = { 0 }, plugin = { 0 };
    int send = api_of(m, "Send"), recv = api_of(m, "Recv"), bcast = api_of(m, "Bcast"), broadcast = api_of(m, "Broadcast");
    size_t n_unknown = 0;
    for (size_t j = 0; j < p->ncolls; j++) { /* in start order */
        const struct coll *c = &p->colls[j];
        if (!model_coll_comm_unknown(c) || c->call_id < 0 || ran_on_ce(ce, c))
            continue; /* (NCCL named no communicator of a CE one: it stays unknown) */
        int peer = c->api > 0 && (c->api == send || c->api == recv) ? c->peer : INT32_MIN;
        int api = c->api == bcast && bcast ? broadcast : c->api;
        idmap_put(&unknown, key_of(0, api, peer, next_ordinal(&wrapped, 0, api, peer)), (int64_t)j + 1, 1);
        n_unknown++;
    }
    size_t adopted = 0;
    for (size_t i = 0; n_unknown && i < nops; i++) {
        struct pop *o = &ops[i];
        const struct pcomm *pc = comm_of((struct pcomm *)comms, ncomms, o->hash, o->rank);
        if (o->matched || !o->api || (pc && pc->mapped))
            continue;
        int peer = o->p2p ? o->root_peer : INT32_MIN;
        int64_t j;
        if (!idmap_get(&unknown, key_of(0, o->api, peer, next_ordinal(&plugin, 0, o->api, peer)), &j))
            continue;
        struct coll *c = &p->colls[j - 1];
        c->comm = o->hash;
        c->seq = o->seq;
        c->rank = o->rank;
        c->nranks = pc ? pc->nranks : c->nranks;
        o->matched = 1;
        o->coll = c->call_id;
        adopted++;
    }
    idmap_free(&unknown);
    idmap_free(&wrapped);
    idmap_free(&plugin);
    return adopted;
}

/* The collectives NCCL left unfinished, by their place in p->colls (what
 * the analyses across ranks know them by), with how far each got. */
static void note_depths(struct proc *p, const struct pop *ops, size_t nops)
{
    size_t cap = 0, left = 0, from = 0;
    for (size_t i = 0; i < nops; i++)
        left += ops[i].depth != PD_DONE;
    /* a hang is about the last ones: past 256 unfinished (an NCCL that
     * reports no kernel channels), only the latest 256 are kept */
    for (size_t skip = left > 256 ? left - 256 : 0; skip && from < nops; from++)
        skip -= ops[from].depth != PD_DONE;
    for (size_t i = from; i < nops; i++) {
        const struct pop *o = &ops[i];
        if (o->depth == PD_DONE)
            continue;
        int64_t id = o->matched ? o->coll : -o->event;
        for (size_t j = 0; j < p->ncolls; j++)
            if (p->colls[j].call_id == id) {
                GROW(p->plugin_depth, p->nplugin_depth, cap);
                p->plugin_depth[p->nplugin_depth++] = (struct plugin_depth){ (int64_t)j, o->depth };
                break;
            }
    }
}

void plugin_join(struct model *m, struct proc *p, size_t *cap)
{
    sqlite3 *db = m->dbs[p->db];
    struct pcomm *comms;
    struct pop *ops;
    size_t ncomms = load_comms(db, p, &comms);
    size_t nops = ncomms ? load_ops(m, db, p, &ops) : 0;
    if (!nops) {
        free(comms);
        return;
    }
    p->plugin_ops = (int64_t)nops;
    struct ce_calls ce;
    ce_calls_load(m, db, p, ops, nops, &ce);
    p->plugin_matched = (int64_t)match(m, p, ops, nops, comms, ncomms, &ce);
    size_t adopted = adopt_unknown(m, p, ops, nops, comms, ncomms, &ce);
    idmap_free(&ce.ids);
    p->plugin_matched += (int64_t)adopted;
    p->unknown_comm_colls -= (int64_t)adopted; /* known now: NCCL named it */
    size_t added = 0;
    for (size_t i = 0; i < nops; i++) {
        struct pop *o = &ops[i];
        const struct pcomm *pc = comm_of(comms, ncomms, o->hash, o->rank);
        if (o->matched || !o->api || (pc && pc->mapped))
            continue; /* a wrapper saw it, or its communicator (then the wrapper's sequence rules) */
        int64_t size;
        (void)dtype_of(NULL, &size);
        GROW(p->colls, p->ncolls, *cap);
        struct coll *c = &p->colls[p->ncolls++];
        static const int sizes[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
        size = o->dtype >= 0 ? sizes[o->dtype] : 0;
        *c = (struct coll){ .call_id = -o->event, .comm = o->hash, .seq = o->seq, .count = o->count,
                            .bytes = model_clamp(o->count * size, 40), .start = o->start, .end = o->end,
                            .api = o->api, .dtype = o->dtype, .op = -1, .peer = o->root_peer, .rank = o->rank,
                            .nranks = pc ? pc->nranks : 0, .gstart = o->kstart, .gend = o->kend, .gstream = -1,
                            .kname = 0, .site = 0 };
        added++;
    }
    p->plugin_alone = (int64_t)added;
    if (added)
        qsort(p->colls, p->ncolls, sizeof *p->colls, cmp_start);
    note_depths(p, ops, nops);
    free(comms);
    free(ops);
}

void plugin_kernels(struct proc *p)
{
    /* ops are sorted by start: the first NCCL kernel that overlaps the
     * kernel channels' span, not taken yet, ran the operation */
    size_t from = 0;
    for (size_t i = 0; i < p->ncolls; i++) {
        struct coll *c = &p->colls[i];
        if (c->call_id >= 0 || c->gstream >= 0 || c->gend <= 0)
            continue;
        while (from < p->nops && p->ops[from].end < c->gstart)
            from++;
        for (size_t j = from; j < p->nops && p->ops[j].start <= c->gend; j++) {
            const struct gop *g = &p->ops[j];
            if (g->kind != GOP_KERNEL || !g->nccl || g->end < c->gstart)
                continue;
            c->gstart = g->start;
            c->gend = g->end;
            c->gstream = g->stream;
            c->kname = g->name;
            break;
        }
    }
}
