/* nccl_profiler.c: the tracer as NCCL's profiler plugin: NCCL's own record
 * of every communicator and operation, however the program reached NCCL
 * (a wrapped call, dlsym on a handle, ctypes, a statically linked NCCL).
 *
 * What is recorded (collector/plugin_ring.h, stored by the writer into the
 * nccl_* tables, docs/schema.md): each communicator at init; each Coll and
 * P2p task event with NCCL's sequence number, function, count, type,
 * algorithm, protocol, channels and whether it was graph-captured (from
 * its Coll/P2p API parent, v5); each kernel channel's start and stop; each
 * proxy operation with the time its steps spent in each state (waiting for
 * the GPU, for the peer, on the network, for data, for the flush).  Proxy
 * steps and API events make no record of their own.
 *
 * NCCL calls us on its threads, many at once, so nothing here locks or
 * allocates: events live in a fixed pool of slots, reused in turn, and a
 * handle is the event's id (id & mask is its slot).  An event whose slot
 * was taken by a newer one (32,768 events later) is found stale by its id
 * and ignored.  Nothing here fails NCCL: every entry returns success, and
 * when tracing is off events are simply not recorded.
 */
#define _GNU_SOURCE
#include "libtrace/nccl_profiler.h"
#include "libtrace/nccl_profiler_abi.h"
#include "libtrace/p2p_seq.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"
#include "collector/clock.h"
#include "collector/plugin_ring.h"
#include "collector/state.h"
#include "collector/strtab.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <string.h>


#define EV_BITS 15
#define EV_MASK ((1u << EV_BITS) - 1)
#define MAX_COMMS 4096

struct gt_np_comm {
    _Atomic uint64_t hash; /* claimed (v3: looked up) by hash and rank */
    _Atomic int used;
    int rank, nranks, nnodes;
    _Atomic uint64_t ops;  /* the plugin's own sequence of this communicator's collectives */
    _Atomic uint64_t p2p;  /* ... of its send/recv: p2p_seq.h's fallback (they are numbered per peer) */
};

struct ev {
    _Atomic uint64_t id;   /* 0 while being filled */
    int type, graph, state, steps;
    _Atomic int seen;      /* a proxy op: the step-state buckets its steps entered (1 << GT_PB_*) */
    uint64_t parent;       /* the parent event's id */
    uint64_t t_state;      /* a step: when it entered its state (mono ns) */
    uint64_t trans, ptimer;
    void *stream;
    _Atomic uint64_t ns[GT_PB_COUNT]; /* a proxy op: its steps' time per state */
    _Atomic uint64_t bytes;
};

static struct gt_np_comm comms[MAX_COMMS];
static _Atomic int ncomms;
static struct gt_np_comm no_comm = { .rank = -1 }; /* v3 ops of a communicator that did not fit */
static struct ev pool[EV_MASK + 1];
static _Atomic uint64_t next_id;

static struct ev *find(void *handle)
{
    uint64_t id = (uint64_t)(uintptr_t)handle;
    if (!id)
        return NULL;
    struct ev *e = &pool[id & EV_MASK];
    return atomic_load_explicit(&e->id, memory_order_acquire) == id ? e : NULL;
}

/* NCCL passes its names as constants ("AllReduce", "ncclFloat32", "RING"):
 * a thread's last ones are kept by address, checked by their text, so
 * that an operation's four names cost four compares, not four hashes. */
#define NAME_CACHE 16
static GT_TLS struct { const char *ptr; uint32_t id; } names[NAME_CACHE];

static uint32_t intern(const char *s)
{
    if (!s)
        return 0;
    unsigned k = (unsigned)(((uintptr_t)s >> 3) & (NAME_CACHE - 1));
    if (names[k].ptr == s && names[k].id) {
        const char *t = gt_strtab_get(names[k].id);
        if (t && strcmp(t, s) == 0)
            return names[k].id;
    }
    uint32_t id = gt_strtab_intern(s, -1);
    names[k].ptr = s;
    names[k].id = id;
    return id;
}

/* Whether to record now: tracing on (the plugin's first init activates
 * it, for a program whose NCCL calls no wrapper sees). */
static int recording(void)
{
    return gt_tracing();
}

static struct gt_np_comm *comm_slot(uint64_t hash, int rank, int claim)
{
    int n = atomic_load(&ncomms);
    for (int i = 0; i < n && i < MAX_COMMS; i++)
        if (atomic_load(&comms[i].used) && atomic_load(&comms[i].hash) == hash && comms[i].rank == rank && !claim)
            return &comms[i];
    if (!claim)
        return NULL;
    int i = atomic_fetch_add(&ncomms, 1);
    if (i >= MAX_COMMS)
        return NULL;
    return &comms[i];
}

static void emit_comm(const struct gt_np_comm *c, int version, const char *name)
{
    struct gt_plug_rec *r = gt_plug_claim();
    if (!r)
        return;
    r->kind = GT_PK_COMM;
    r->version = (uint8_t)version;
    r->comm = c->hash;
    r->a = c->rank;
    r->b = c->nranks;
    r->c = c->nnodes;
    r->func = intern(name);
    r->t = gt_mono_ns();
    gt_plug_publish(r);
}

/* Whether the program's global scope holds another copy's table (asked
 * with the program's own handle: RTLD_DEFAULT from a locally opened copy
 * would search its own scope too).  Once: init's slow path. */
static int another_copy_global(void)
{
    static int answer = -1;
    if (answer < 0) {
        void *program = dlopen(NULL, RTLD_LAZY);
        void *p = program ? gt_sys_dlsym(program, "ncclProfiler_v5") : NULL;
        if (program)
            gt_sys_dlclose(program);
        answer = p && p != (const void *)&gt_np_own_v5;
    }
    return answer;
}

struct gt_np_comm *gt_np_init(int version, uint64_t hash, const char *name, int nnodes, int nranks, int rank,
                              int *mask)
{
    *mask = 0;
    /* NCCL opened another copy of the tracer than the one the program
     * preloaded (NCCL_PROFILER_PLUGIN names another build): that copy
     * declines, the preloaded one traces the process */
    if (another_copy_global())
        return NULL;
    if (!gt_tracing()) {
        /* the tracer's own calls inside activation must not be seen as the
         * program's (activation runs guarded) */
        if (gt_thread.guard || !gt_activate())
            return NULL;
    }
    /* NCCL's init runs after its CUDA calls returned: the end of the
     * process is seen (atexit) even when no wrapper saw a call */
    if (!atomic_load_explicit(&gt_first_call_done, memory_order_relaxed))
        gt_after_first_call();
    struct gt_np_comm *c = version >= 4 ? comm_slot(hash, rank, 1) : &no_comm;
    if (!c)
        return NULL;
    if (version >= 4) {
        c->rank = rank;
        c->nranks = nranks;
        c->nnodes = nnodes;
        atomic_store(&c->hash, hash);
        atomic_store(&c->used, 1);
        emit_comm(c, version, name);
    }
    *mask = GT_NPE_COLL | GT_NPE_P2P | GT_NPE_PROXY_OP | GT_NPE_PROXY_STEP | GT_NPE_KERNEL_CH;
    if (version >= 5)
        *mask |= GT_NPE_COLL_API | GT_NPE_P2P_API;
    return c;
}

/* v3: the communicator comes with each op; made known at its first op. */
static struct gt_np_comm *comm_of_op(struct gt_np_comm *c, const struct gt_np_descr *d)
{
    if (c != &no_comm)
        return c;
    struct gt_np_comm *k = comm_slot(d->comm_hash, d->rank, 0);
    if (k)
        return k;
    k = comm_slot(d->comm_hash, d->rank, 1);
    if (!k)
        return &no_comm;
    k->rank = d->rank;
    k->nranks = -1; /* v3 does not say */
    k->nnodes = -1;
    atomic_store(&k->hash, d->comm_hash);
    atomic_store(&k->used, 1);
    emit_comm(k, 3, NULL);
    return k;
}

static struct ev *new_event(int type, uint64_t *id_out)
{
    uint64_t id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed) + 1;
    if ((id & EV_MASK) == 0) /* slot 0 of each lap is skipped: id 0 is "none" on lap 0 */
        id = atomic_fetch_add_explicit(&next_id, 1, memory_order_relaxed) + 1;
    struct ev *e = &pool[id & EV_MASK];
    atomic_store_explicit(&e->id, 0, memory_order_relaxed);
    e->type = type;
    e->graph = e->state = e->steps = 0;
    atomic_store_explicit(&e->seen, 0, memory_order_relaxed);
    e->parent = 0;
    e->t_state = e->trans = e->ptimer = 0;
    e->stream = NULL;
    for (int i = 0; i < GT_PB_COUNT; i++)
        atomic_store_explicit(&e->ns[i], 0, memory_order_relaxed);
    atomic_store_explicit(&e->bytes, 0, memory_order_relaxed);
    *id_out = id;
    return e;
}

static void *publish_event(struct ev *e, uint64_t id)
{
    atomic_store_explicit(&e->id, id, memory_order_release);
    return (void *)(uintptr_t)id;
}

static uint64_t id_of(void *handle)
{
    return find(handle) ? (uint64_t)(uintptr_t)handle : 0;
}

static void *start_op(struct gt_np_comm *c, const struct gt_np_descr *d)
{
    c = comm_of_op(c, d);
    uint64_t id;
    struct ev *e = new_event(d->type, &id);
    int graph = d->graph;
    void *stream = d->stream;
    struct ev *api = find(d->parent); /* v5: the Coll/P2p API event of the call */
    if (api && (api->type == GT_NPE_COLL_API || api->type == GT_NPE_P2P_API)) {
        graph |= api->graph;
        stream = api->stream;
    }
    /* taken even when no record can be: the sequence stays that of the
     * ranks.  A send/recv is numbered apart, by peer (p2p_seq.h): ranks
     * make different numbers of them, and counted with the collectives
     * they gave one collective different numbers on different ranks */
    uint64_t seq = d->type == GT_NPE_P2P
                       ? gt_p2p_seq_take(GT_P2P_PLUGIN, (uint64_t)(uintptr_t)c, d->root_peer,
                                         d->func && !strcmp(d->func, "Send"), &c->p2p)
                       : atomic_fetch_add_explicit(&c->ops, 1, memory_order_relaxed);
    struct gt_plug_rec *r = gt_plug_claim();
    if (r) {
        r->kind = GT_PK_OP_START;
        r->id = id;
        r->comm = c->hash;
        r->rank = d->rank >= 0 ? d->rank : c->rank;
        r->seq = seq;
        r->nccl_seq = d->type == GT_NPE_COLL ? d->seq : UINT64_MAX;
        r->count = d->count;
        r->func = intern(d->func);
        r->dtype = intern(d->dtype);
        r->algo = intern(d->algo);
        r->proto = intern(d->proto);
        r->b = d->root_peer;
        r->nchannels = (uint8_t)d->nchannels;
        r->nwarps = (uint8_t)d->nwarps;
        r->flags = (uint8_t)((graph ? GT_PF_GRAPH : 0) | (d->type == GT_NPE_P2P ? GT_PF_P2P : 0));
        r->stream = (uint64_t)(uintptr_t)stream;
        r->t = gt_mono_ns();
        gt_plug_publish(r);
    }
    return publish_event(e, id);
}

void *gt_np_start(struct gt_np_comm *c, const struct gt_np_descr *d)
{
    if (!c || !recording())
        return NULL;
    uint64_t id;
    struct ev *e;
    switch (d->type) {
    case GT_NPE_COLL_API:
    case GT_NPE_P2P_API:
        e = new_event(d->type, &id);
        e->graph = d->graph;
        e->stream = d->stream;
        return publish_event(e, id);
    case GT_NPE_COLL:
    case GT_NPE_P2P:
        return start_op(c, d);
    case GT_NPE_KERNEL_CH:
    case GT_NPE_PROXY_OP: {
        e = new_event(d->type, &id);
        e->parent = id_of(d->parent);
        struct gt_plug_rec *r = gt_plug_claim();
        if (r) {
            r->kind = d->type == GT_NPE_KERNEL_CH ? GT_PK_KCH_START : GT_PK_PROXY_START;
            r->id = id;
            r->parent = e->parent;
            r->channel = (uint8_t)d->channel;
            r->rank = d->rank;
            r->ns[0] = d->ptimer;
            r->a = d->peer;
            r->b = d->nsteps;
            r->c = d->chunk;
            r->flags = d->is_send ? GT_PF_SEND : 0;
            r->t = gt_mono_ns();
            gt_plug_publish(r);
        }
        return publish_event(e, id);
    }
    case GT_NPE_PROXY_STEP:
        e = new_event(d->type, &id);
        e->parent = id_of(d->parent);
        e->state = -1;
        e->t_state = gt_mono_ns();
        return publish_event(e, id);
    default: /* groups, proxy control, network plugin events, kernel launches: not asked for */
        return NULL;
    }
}

static int bucket_of(int state)
{
    switch (state) {
    case GT_NPS_STEP_SEND_GPU_WAIT: case GT_NPS_STEP_RECV_GPU_WAIT: return GT_PB_GPU_WAIT;
    case GT_NPS_STEP_SEND_PEER_WAIT: return GT_PB_PEER_WAIT;
    case GT_NPS_STEP_SEND_WAIT: return GT_PB_NET;
    case GT_NPS_STEP_RECV_WAIT: return GT_PB_RECV_WAIT;
    case GT_NPS_STEP_RECV_FLUSH_WAIT: return GT_PB_FLUSH;
    default: return -1;
    }
}

/* A step leaves its state: its time there goes to its proxy op. */
static void close_state(struct ev *step, uint64_t now)
{
    int b = bucket_of(step->state);
    struct ev *op = find((void *)(uintptr_t)step->parent);
    if (b >= 0 && op && now > step->t_state)
        atomic_fetch_add_explicit(&op->ns[b], now - step->t_state, memory_order_relaxed);
    step->t_state = now;
}

void gt_np_state(void *handle, int state, uint64_t trans, uint64_t ptimer)
{
    struct ev *e = find(handle);
    if (!e)
        return;
    switch (e->type) {
    case GT_NPE_PROXY_STEP: {
        uint64_t now = gt_mono_ns();
        close_state(e, now);
        e->state = state;
        if (trans)
            e->trans = trans;
        /* the first step of its op to reach a kind of state says so: how
         * far an op got when a run hangs (at most GT_PB_COUNT records an op) */
        int b = bucket_of(state);
        struct ev *op = b >= 0 ? find((void *)(uintptr_t)e->parent) : NULL;
        if (op && !(atomic_fetch_or_explicit(&op->seen, 1 << b, memory_order_relaxed) & (1 << b))) {
            struct gt_plug_rec *r = gt_plug_claim();
            if (r) {
                r->kind = GT_PK_PROXY_STATE;
                r->id = e->parent;
                r->b = state;
                r->t = now;
                gt_plug_publish(r);
            }
        }
        break;
    }
    case GT_NPE_PROXY_OP:
        e->state = state;
        break;
    case GT_NPE_KERNEL_CH:
        if (state == GT_NPS_KERNEL_CH_STOP)
            e->ptimer = ptimer;
        break;
    default:
        break;
    }
}

void gt_np_stop(void *handle)
{
    struct ev *e = find(handle);
    if (!e)
        return;
    uint64_t id = (uint64_t)(uintptr_t)handle;
    uint64_t now = gt_mono_ns();
    struct gt_plug_rec *r = NULL;
    switch (e->type) {
    case GT_NPE_COLL:
    case GT_NPE_P2P:
        if ((r = gt_plug_claim()))
            r->kind = GT_PK_OP_STOP;
        break;
    case GT_NPE_KERNEL_CH:
        if ((r = gt_plug_claim())) {
            r->kind = GT_PK_KCH_STOP;
            r->ns[0] = e->ptimer;
        }
        break;
    case GT_NPE_PROXY_STEP: {
        close_state(e, now);
        struct ev *op = find((void *)(uintptr_t)e->parent);
        if (op) {
            atomic_fetch_add_explicit(&op->bytes, e->trans, memory_order_relaxed);
            __atomic_fetch_add(&op->steps, 1, __ATOMIC_RELAXED);
            op->state = e->state;
        }
        break;
    }
    case GT_NPE_PROXY_OP:
        if ((r = gt_plug_claim())) {
            r->kind = GT_PK_PROXY_STOP;
            for (int i = 0; i < GT_PB_COUNT; i++)
                r->ns[i] = atomic_load_explicit(&e->ns[i], memory_order_relaxed);
            r->count = atomic_load_explicit(&e->bytes, memory_order_relaxed);
            r->a = __atomic_load_n(&e->steps, __ATOMIC_RELAXED);
            r->b = e->state;
        }
        break;
    default:
        break;
    }
    if (r) {
        r->id = id;
        r->t = now;
        gt_plug_publish(r);
    }
}

void gt_np_finalize(struct gt_np_comm *c)
{
    (void)c; /* its slot stays: events of its proxy thread may still come */
}
