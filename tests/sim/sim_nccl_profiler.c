/* sim_nccl_profiler.c: the simulator's NCCL loads a profiler plugin as NCCL
 * (2.23+) does.
 *
 * At the first communicator: NCCL_PROFILER_PLUGIN names the library
 * ("none", or unset: no plugin), opened with dlopen(RTLD_NOW | RTLD_LOCAL);
 * the newest of ncclProfiler_v5, _v4, _v3 it exports is used
 * (GPUSIM_NCCL_PROFILER_MAX=N makes the simulator an older NCCL that asks
 * for vN at most).  Then, with the fields NCCL documents and on the
 * threads NCCL uses:
 *   - init per communicator (commHash, nNodes = 1, nranks, rank), on the
 *     thread making it; finalize when it is destroyed;
 *   - Coll/P2p API events (v5) inside the call, on the caller's thread;
 *   - Coll/P2p task events when the operation is enqueued (as NCCL's
 *     hostStreamPlanTask, run inline), with NCCL's per-function sequence
 *     number, algorithm RING, protocol LL, one channel;
 *   - KernelCh, ProxyOp and ProxyStep events on a proxy thread of the
 *     process, told by the "GPU" (the stream thread running the kernel)
 *     when the kernel starts, when its peers have arrived (the step goes
 *     from waiting for the peer to the network) and when it ends.  A task
 *     event is stopped before its proxy events are, as in NCCL.
 * Nothing here changes what the simulated NCCL computes.
 */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_nccl.h"
#include "sim_nccl_profiler.h"
#include "../../libtrace/nccl_profiler_abi.h"

#include <dlfcn.h>
#include <signal.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int version; /* 0: no plugin */
static const struct gt_nccl_profiler_v5 *v5;
static const struct gt_nccl_profiler_v4 *v4;
static const struct gt_nccl_profiler_v3 *v3;

#define MAX_FUNCS 16
struct pcomm {
    struct ncclComm *comm;
    void *ctx;
    uint64_t hash;
    int mask;
    uint64_t seq[MAX_FUNCS]; /* NCCL's seqNumber, per function */
};
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct pcomm comms[256];

/* what the proxy thread is told by the stream thread */
enum { M_BEGIN, M_NET, M_END };
struct sim_np_op {
    struct pcomm *pc;
    void *task, *kch, *proxy, *step;
    int is_send, peer, rank;
    int net_seen;   /* the proxy thread has put the step on the network (qmu) */
    struct sim_np_op *next; /* the next send/recv task of a decomposed collective */
};
struct msg { struct sim_np_op *op; int what; uint64_t gtime; struct msg *next; };
static pthread_mutex_t qmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t qcv = PTHREAD_COND_INITIALIZER;
static pthread_cond_t net_cv = PTHREAD_COND_INITIALIZER; /* a step went on the network */
static struct msg *qhead, *qtail;
static int proxy_started;

static void load(void)
{
    const char *name = getenv("NCCL_PROFILER_PLUGIN");
    if (!name || !*name || strcasecmp(name, "none") == 0)
        return;
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!lib)
        return;
    const char *m = getenv("GPUSIM_NCCL_PROFILER_MAX");
    int max = m && *m ? atoi(m) : 5;
    if (max >= 5 && (v5 = dlsym(lib, "ncclProfiler_v5")))
        version = 5;
    else if (max >= 4 && (v4 = dlsym(lib, "ncclProfiler_v4")))
        version = 4;
    else if (max >= 3 && (v3 = dlsym(lib, "ncclProfiler_v3")))
        version = 3;
    else
        dlclose(lib);
}

/* NCCL's communicator hash (its getHash of the unique id: DJB2a, result *
 * 33 ^ byte): equal on every rank, and unlike our tracer's id. */
static uint64_t hash_id(const ncclUniqueId *id)
{
    uint64_t h = 5381;
    for (size_t i = 0; i < sizeof id->internal; i++)
        h = ((h << 5) + h) ^ (uint64_t)(signed char)id->internal[i];
    return h;
}

static struct pcomm *find(struct ncclComm *c)
{
    for (size_t i = 0; i < sizeof comms / sizeof *comms; i++)
        if (comms[i].comm == c)
            return &comms[i];
    return NULL;
}

void sim_np_comm_init(struct ncclComm *c)
{
    pthread_once(&once, load);
    if (!version || !c)
        return;
    pthread_mutex_lock(&mu);
    struct pcomm *pc = find(NULL);
    if (pc) {
        memset(pc, 0, sizeof *pc);
        pc->comm = c;
        pc->hash = hash_id(&c->id);
    }
    pthread_mutex_unlock(&mu);
    if (!pc)
        return;
    int mask = 0;
    void *ctx = NULL;
    if (version == 5)
        v5->init(&ctx, pc->hash, &mask, "", 1, c->nranks, c->rank, NULL);
    else if (version == 4)
        v4->init(&ctx, &mask, "", pc->hash, 1, c->nranks, c->rank, NULL);
    else
        v3->init(&ctx, &mask);
    pc->ctx = ctx;
    pc->mask = mask;
}

void sim_np_comm_fini(struct ncclComm *c)
{
    if (!version)
        return;
    pthread_mutex_lock(&mu);
    struct pcomm *pc = find(c);
    pthread_mutex_unlock(&mu);
    if (!pc)
        return;
    if (pc->ctx) {
        if (version == 5)
            v5->finalize(pc->ctx);
        else if (version == 4)
            v4->finalize(pc->ctx);
        else
            v3->finalize(pc->ctx);
    }
    /* its proxy events may still be queued: the slot keeps its context
     * pointer (NCCL's profiler context lives as long as the proxy) */
    pc->comm = (struct ncclComm *)(uintptr_t)1;
}

static void *start(struct pcomm *pc, struct gt_npd_v5 *d)
{
    void *h = NULL;
    if (!(pc->mask & (int)d->type))
        return NULL;
    if (version == 5) {
        v5->startEvent(pc->ctx, &h, d);
        return h;
    }
    if (version == 4) {
        struct gt_npd_v4 e = { .type = (uint8_t)d->type, .parentObj = d->parentObj, .rank = d->rank };
        if (d->type == GT_NPE_COLL) {
            e.coll.seqNumber = d->coll.seqNumber;
            e.coll.func = d->coll.func;
            e.coll.count = d->coll.count;
            e.coll.root = d->coll.root;
            e.coll.datatype = d->coll.datatype;
            e.coll.nChannels = d->coll.nChannels;
            e.coll.nWarps = d->coll.nWarps;
            e.coll.algo = d->coll.algo;
            e.coll.proto = d->coll.proto;
        } else if (d->type == GT_NPE_P2P) {
            e.p2p.func = d->p2p.func;
            e.p2p.datatype = d->p2p.datatype;
            e.p2p.count = d->p2p.count;
            e.p2p.peer = d->p2p.peer;
            e.p2p.nChannels = d->p2p.nChannels;
        } else if (d->type == GT_NPE_PROXY_OP) {
            memcpy(&e.proxyOp, &d->proxyOp, sizeof e.proxyOp);
        } else if (d->type == GT_NPE_PROXY_STEP) {
            e.proxyStep.step = d->proxyStep.step;
        } else if (d->type == GT_NPE_KERNEL_CH) {
            e.kernelCh.channelId = d->kernelCh.channelId;
            e.kernelCh.pTimer = d->kernelCh.pTimer;
        }
        v4->startEvent(pc->ctx, &h, &e);
        return h;
    }
    struct gt_npd_v3 e = { .type = (uint8_t)d->type, .parentObj = d->parentObj, .rank = d->rank };
    if (d->type == GT_NPE_COLL) {
        e.coll.commHash = pc->hash;
        e.coll.seqNumber = d->coll.seqNumber;
        e.coll.func = d->coll.func;
        e.coll.count = d->coll.count;
        e.coll.root = d->coll.root;
        e.coll.datatype = d->coll.datatype;
        e.coll.nMaxChannels = d->coll.nChannels;
        e.coll.nWarps = d->coll.nWarps;
        e.coll.algo = d->coll.algo;
        e.coll.proto = d->coll.proto;
    } else if (d->type == GT_NPE_P2P) {
        e.p2p.commHash = pc->hash;
        e.p2p.func = d->p2p.func;
        e.p2p.datatype = d->p2p.datatype;
        e.p2p.count = d->p2p.count;
        e.p2p.peer = d->p2p.peer;
    } else if (d->type == GT_NPE_PROXY_OP) {
        memcpy(&e.proxyOp, &d->proxyOp, sizeof e.proxyOp);
    } else if (d->type == GT_NPE_PROXY_STEP) {
        e.proxyStep.step = d->proxyStep.step;
    } else if (d->type == GT_NPE_KERNEL_CH) {
        e.kernelCh.channelId = d->kernelCh.channelId;
    } else {
        return NULL; /* no API events before v5 */
    }
    v3->startEvent(pc->ctx, &h, &e);
    return h;
}

static void stop(void *h)
{
    if (!h)
        return;
    if (version == 5)
        v5->stopEvent(h);
    else if (version == 4)
        v4->stopEvent(h);
    else
        v3->stopEvent(h);
}

static void state(void *h, int s, size_t trans, uint64_t ptimer)
{
    if (!h)
        return;
    if (version >= 4) {
        union gt_nps_args_v4 a = { 0 };
        if (s == GT_NPS_KERNEL_CH_STOP)
            a.kernelCh.pTimer = ptimer;
        else
            a.proxyStep.transSize = trans;
        if (version == 5)
            v5->recordEventState(h, s, &a);
        else
            v4->recordEventState(h, s, &a);
    } else if (s != GT_NPS_KERNEL_CH_STOP && s != GT_NPS_STEP_SEND_PEER_WAIT) { /* v3 has neither */
        union gt_nps_args_v3 a = { 0 };
        a.proxyOp.transSize = trans;
        v3->recordEventState(h, s, &a);
    }
}

const char *sim_np_dtype(int dt)
{
    switch (dt) { /* ncclUint8 is "Unknown" there too */
    case ncclInt8: return "ncclInt8";
    case ncclInt32: return "ncclInt32";
    case ncclUint32: return "ncclUint32";
    case ncclInt64: return "ncclInt64";
    case ncclUint64: return "ncclUint64";
    case ncclFloat16: return "ncclFloat16";
    case ncclFloat32: return "ncclFloat32";
    case ncclFloat64: return "ncclFloat64";
    case ncclBfloat16: return "ncclBfloat16";
    default: return "Unknown";
    }
}

static int func_index(const char *f)
{
    static const char *const names[] = { "AllReduce", "Broadcast", "Reduce", "AllGather", "ReduceScatter",
                                         "AlltoAll", "Gather", "Scatter", "Send", "Recv" };
    for (int i = 0; i < (int)(sizeof names / sizeof *names); i++)
        if (!strcmp(names[i], f))
            return i;
    return MAX_FUNCS - 1;
}

/* NCCL (taskAppend, src/enqueue.cc) enqueues an all-to-all, gather or
 * scatter that runs as a kernel as send/recv tasks, one per peer, each
 * with a P2pApi event of its own named Send or Recv: a plugin sees P2p
 * events, no Coll event, and no sequence number is taken. */
static int decomposed(const char *func)
{
    return !strcmp(func, "AlltoAll") || !strcmp(func, "Gather") || !strcmp(func, "Scatter");
}

void *sim_np_api_start(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root, void *stream,
                       int p2p)
{
    if (!version || version < 5 || (!p2p && decomposed(func)))
        return NULL;
    pthread_mutex_lock(&mu);
    struct pcomm *pc = find(c);
    pthread_mutex_unlock(&mu);
    if (!pc)
        return NULL;
    struct gt_npd_v5 d = { .type = p2p ? GT_NPE_P2P_API : GT_NPE_COLL_API, .rank = c->rank };
    if (p2p) {
        d.p2pApi.func = func;
        d.p2pApi.count = count;
        d.p2pApi.datatype = dtype;
        d.p2pApi.stream = stream;
    } else {
        d.collApi.func = func;
        d.collApi.count = count;
        d.collApi.datatype = dtype;
        d.collApi.root = root;
        d.collApi.stream = stream;
    }
    return start(pc, &d);
}

void sim_np_api_stop(void *h)
{
    stop(h);
}

/* ncclTypeSize of a type NCCL names (sim_np_dtype's names). */
static size_t dtype_size(const char *dtype)
{
    static const struct { const char *name; size_t size; } t[] = {
        { "ncclInt8", 1 }, { "ncclInt32", 4 }, { "ncclUint32", 4 }, { "ncclInt64", 8 }, { "ncclUint64", 8 },
        { "ncclFloat16", 2 }, { "ncclFloat32", 4 }, { "ncclFloat64", 8 }, { "ncclBfloat16", 2 } };
    for (size_t i = 0; i < sizeof t / sizeof *t; i++)
        if (!strcmp(dtype, t[i].name))
            return t[i].size;
    return 1; /* "Unknown" (ncclUint8, and the fp8 types): a byte */
}

static struct sim_np_op *one_task(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root_peer,
                                  int p2p, int is_send, void *api);

/* One send/recv task of a decomposed collective, with its P2pApi event
 * (started and stopped in taskAppend, before the task starts at launch),
 * put at *tail. */
static struct sim_np_op **piece(struct ncclComm *c, int send, size_t count, const char *dtype, int peer, void *stream,
                                struct sim_np_op **tail)
{
    const char *f = send ? "Send" : "Recv";
    void *api = sim_np_api_start(c, f, count, dtype, peer, stream, 1);
    sim_np_api_stop(api);
    struct sim_np_op *op = one_task(c, f, count, dtype, peer, 1, send, api);
    if (!op)
        return tail;
    *tail = op;
    return &op->next;
}

/* The tasks of a decomposed collective, in taskAppend's order. */
static struct sim_np_op *pieces(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root,
                                void *stream)
{
    struct sim_np_op *head = NULL, **tail = &head;
    int n = c->nranks, me = c->rank;
    if (!strcmp(func, "AlltoAll")) {
        for (int r = 0; r < n; r++) {
            tail = piece(c, 1, count, dtype, r, stream, tail);
            tail = piece(c, 0, count, dtype, r, stream, tail);
        }
    } else if (!strcmp(func, "Gather")) {
        tail = piece(c, 1, count, dtype, root, stream, tail);
        for (int r = 0; me == root && r < n; r++)
            tail = piece(c, 0, count, dtype, r, stream, tail);
    } else {
        for (int r = 0; me == root && r < n; r++)
            tail = piece(c, 1, count, dtype, r, stream, tail);
        tail = piece(c, 0, count, dtype, root, stream, tail);
    }
    return head;
}

struct sim_np_op *sim_np_task(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root_peer,
                              int p2p, int is_send, void *api, void *stream)
{
    if (!version || !c)
        return NULL;
    if (!p2p && decomposed(func))
        return pieces(c, func, count, dtype, root_peer, stream);
    if (!p2p && (!strcmp(func, "AllGather") || !strcmp(func, "Broadcast"))) {
        count *= dtype_size(dtype); /* as collTaskAppend hands them on: bytes, of ncclInt8 */
        dtype = "ncclInt8";
    }
    return one_task(c, func, count, dtype, root_peer, p2p, is_send, api);
}

static struct sim_np_op *one_task(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root_peer,
                                  int p2p, int is_send, void *api)
{
    pthread_mutex_lock(&mu);
    struct pcomm *pc = find(c);
    uint64_t seq = 0;
    if (pc && !p2p)
        seq = pc->seq[func_index(func)]++;
    pthread_mutex_unlock(&mu);
    if (!pc)
        return NULL;
    struct sim_np_op *op = calloc(1, sizeof *op);
    if (!op)
        return NULL;
    op->pc = pc;
    op->rank = c->rank;
    op->is_send = p2p ? is_send : 1;
    op->peer = p2p ? root_peer : (c->rank + 1) % c->nranks; /* a ring's next rank */
    struct gt_npd_v5 d = { .type = p2p ? GT_NPE_P2P : GT_NPE_COLL, .parentObj = api, .rank = c->rank };
    if (p2p) {
        d.p2p.func = func;
        d.p2p.datatype = dtype;
        d.p2p.count = count;
        d.p2p.peer = root_peer;
        d.p2p.nChannels = 1;
    } else {
        d.coll.seqNumber = seq;
        d.coll.func = func;
        d.coll.count = count;
        d.coll.root = root_peer;
        d.coll.datatype = dtype;
        d.coll.nChannels = 1;
        d.coll.nWarps = 16;
        d.coll.algo = "RING";
        d.coll.proto = "LL";
    }
    op->task = start(pc, &d);
    return op;
}

void sim_np_task_stop(struct sim_np_op *op)
{
    for (; op; op = op->next)
        stop(op->task);
}

/* ---- the proxy thread ----------------------------------------------------- */

static void handle(struct msg *m)
{
    struct sim_np_op *op = m->op;
    struct pcomm *pc = op->pc;
    if (m->what == M_BEGIN) {
        struct gt_npd_v5 k = { .type = GT_NPE_KERNEL_CH, .parentObj = op->task, .rank = op->rank };
        k.kernelCh.channelId = 0;
        k.kernelCh.pTimer = m->gtime;
        op->kch = start(pc, &k);
        struct gt_npd_v5 p = { .type = GT_NPE_PROXY_OP, .parentObj = op->task, .rank = op->rank };
        p.proxyOp.pid = getpid();
        p.proxyOp.channelId = 0;
        p.proxyOp.peer = op->peer;
        p.proxyOp.nSteps = 1;
        p.proxyOp.chunkSize = (int)SIM_NCCL_SLOT_BYTES;
        p.proxyOp.isSend = op->is_send;
        op->proxy = start(pc, &p);
        state(op->proxy, GT_NPS_OP_IN_PROGRESS, 0, 0);
        struct gt_npd_v5 s = { .type = GT_NPE_PROXY_STEP, .parentObj = op->proxy, .rank = op->rank };
        s.proxyStep.step = 0;
        op->step = start(pc, &s);
        /* the kernel waits for its peers before anything moves */
        state(op->step, op->is_send ? GT_NPS_STEP_SEND_PEER_WAIT : GT_NPS_STEP_RECV_WAIT, 0, 0);
    } else if (m->what == M_NET) {
        state(op->step, op->is_send ? GT_NPS_STEP_SEND_WAIT : GT_NPS_STEP_RECV_FLUSH_WAIT, SIM_NCCL_SLOT_BYTES, 0);
        pthread_mutex_lock(&qmu);
        op->net_seen = 1;
        pthread_cond_broadcast(&net_cv);
        pthread_mutex_unlock(&qmu);
    } else {
        stop(op->step);
        stop(op->proxy);
        state(op->kch, GT_NPS_KERNEL_CH_STOP, 0, m->gtime);
        stop(op->kch);
        free(op);
    }
}

static void *proxy_main(void *arg)
{
    (void)arg;
    for (;;) {
        pthread_mutex_lock(&qmu);
        while (!qhead)
            pthread_cond_wait(&qcv, &qmu);
        struct msg *m = qhead;
        qhead = m->next;
        if (!qhead)
            qtail = NULL;
        pthread_mutex_unlock(&qmu);
        handle(m);
        free(m);
    }
    return NULL;
}

void sim_np_kernel(struct sim_np_op *op, int what)
{
    if (!op)
        return;
    struct msg *m = calloc(1, sizeof *m);
    if (!m)
        return;
    m->op = op;
    m->what = what;
    m->gtime = sim_mono_ns(); /* the GPU's global timer */
    pthread_mutex_lock(&qmu);
    if (!proxy_started) {
        pthread_t t;
        sigset_t all, old;
        sigfillset(&all);
        pthread_sigmask(SIG_BLOCK, &all, &old); /* NCCL's proxy thread takes no signal of the program's */
        if (pthread_create(&t, NULL, proxy_main, NULL) == 0) {
            pthread_detach(t);
            proxy_started = 1;
        }
        pthread_sigmask(SIG_SETMASK, &old, NULL);
    }
    if (qtail)
        qtail->next = m;
    else
        qhead = m;
    qtail = m;
    pthread_cond_signal(&qcv);
    pthread_mutex_unlock(&qmu);
}

/* Each of an operation's tasks (one, or a decomposed collective's). */
void sim_np_kernel_begin(struct sim_np_op *op)
{
    for (; op; op = op->next)
        sim_np_kernel(op, M_BEGIN);
}
/* The transfer is the proxy's, as in NCCL: the kernel's modelled time
 * starts once the proxy thread has the step on the network. */
void sim_np_kernel_net(struct sim_np_op *op)
{
    for (; op; op = op->next) {
        sim_np_kernel(op, M_NET);
        pthread_mutex_lock(&qmu);
        while (!op->net_seen && proxy_started)
            pthread_cond_wait(&net_cv, &qmu);
        pthread_mutex_unlock(&qmu);
    }
}
void sim_np_kernel_end(struct sim_np_op *op)
{
    while (op) {
        struct sim_np_op *next = op->next; /* the proxy thread frees op once told */
        sim_np_kernel(op, M_END);
        op = next;
    }
}
