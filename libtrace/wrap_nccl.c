/* wrap_nccl.c: NCCL wrappers: communicators made from a unique id or by a
 * split, operations, groups (the other entry points: wrap_nccl_comm.c,
 * wrap_nccl_mem.c).
 *
 * Communicator creation registers a cross-rank id (commreg.h); each
 * collective takes the communicator's next sequence number, each send or
 * receive the next of its peer's (p2p_seq.h), given back if NCCL refuses
 * the operation; each records
 * count, datatype, op, root/peer, rank and size.  An external correlation
 * id is pushed to CUPTI around each ungrouped operation, and around the
 * outermost ncclGroupEnd for grouped ones (nothing is enqueued before it),
 * so the NCCL kernels CUPTI reports can be attributed to the operations
 * that launched them.
 */
#define _GNU_SOURCE
#include "collector/cupti_sub.h"
#include "libtrace/commreg.h"
#include "libtrace/nccl_comm.h"
#include "libtrace/p2p_seq.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <nccl.h>
#include <unistd.h>

#define INLINE static inline __attribute__((always_inline))

static GT_TLS int group_depth;
static GT_TLS uint64_t group_id;
/* A non-blocking communicator this thread's operation found ready: its
 * record is written once the operation's slots are committed (op_end). */
static GT_TLS struct gt_comm *owed_comm;
static GT_TLS ncclComm_t owed_handle;

static int type_size(ncclDataType_t t)
{
    switch (t) {
    case ncclInt8: case ncclUint8: case ncclFloat8e4m3: case ncclFloat8e5m2: return 1;
    case ncclFloat16: case ncclBfloat16: return 2;
    case ncclInt32: case ncclUint32: case ncclFloat32: return 4;
    case ncclInt64: case ncclUint64: case ncclFloat64: return 8;
    default: return 0;
    }
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank)
{
    ncclResult_t (*real)(ncclComm_t *, int, ncclUniqueId, int) = REAL(ncclCommInitRank);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommInitRank))
        return real(comm, nranks, id, rank);
    ncclResult_t rc = real(comm, nranks, id, rank);
    if (rc == ncclSuccess && comm)
        gt_nccl_comm_made(*comm, gt_comm_id_hash(&id, sizeof id, 0), rank, nranks, 0, c.r->t_start);
    gt_nccl_comm_call_end(&c, rc, comm, 1);
    return rc;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank, ncclConfig_t *config)
{
    ncclResult_t (*real)(ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *) = REAL(ncclCommInitRankConfig);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommInitRankConfig))
        return real(comm, nranks, id, rank, config);
    ncclResult_t rc = real(comm, nranks, id, rank, config);
    /* non-blocking (ncclInProgress): its id, rank and size are known now */
    if ((rc == ncclSuccess || rc == ncclInProgress) && comm)
        gt_nccl_comm_made(*comm, gt_comm_id_hash(&id, sizeof id, 0), rank, nranks, 0, c.r->t_start);
    gt_nccl_comm_call_end(&c, rc, comm, 1);
    return rc;
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    ncclResult_t (*real)(ncclComm_t *, int, const int *) = REAL(ncclCommInitAll);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommInitAll))
        return real(comms, ndev, devlist);
    ncclResult_t rc = real(comms, ndev, devlist);
    if (rc == ncclSuccess && comms) {
        /* all members live in this process: the call's own id names them */
        uint64_t call_id = gt_call_id(&c);
        uint64_t id = gt_comm_id_hash(&call_id, sizeof call_id, (uint64_t)getpid());
        for (int i = 0; i < ndev; i++)
            gt_nccl_comm_made(comms[i], id, i, ndev, 0, c.r->t_start);
    }
    gt_nccl_comm_call_end(&c, rc, comms, ndev);
    return rc;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)
{
    ncclResult_t (*real)(ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *) = REAL(ncclCommSplit);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommSplit))
        return real(comm, color, key, newcomm, config);
    struct gt_comm *parent = gt_comm_find(comm);
    uint64_t parent_id = parent ? parent->id : 0;
    uint32_t nth = parent ? atomic_fetch_add(&parent->splits, 1) : 0;
    ncclResult_t rc = real(comm, color, key, newcomm, config);
    uint64_t seed[3] = { parent_id, nth, (uint64_t)(int64_t)color };
    if (rc == ncclSuccess && newcomm && *newcomm) {
        int rank = -1, nranks = 0;
        gt_nccl_comm_shape(*newcomm, (const void *)real, &rank, &nranks);
        gt_nccl_comm_made(*newcomm, gt_comm_id_hash(seed, sizeof seed, 1), rank, nranks, parent_id, c.r->t_start);
    } else if (rc == ncclInProgress && newcomm) {
        /* non-blocking: NCCL stores the communicator once it is made (nccl_comm.h) */
        gt_nccl_pending_add(newcomm, comm, gt_comm_id_hash(seed, sizeof seed, 1), parent_id, c.r->t_start, (const void *)real);
    }
    gt_nccl_comm_call_end(&c, rc, newcomm, 1);
    return rc;
}

INLINE ncclResult_t comm_end(enum gt_api api, ncclComm_t comm)
{
    ncclResult_t (*real)(ncclComm_t) = (ncclResult_t (*)(ncclComm_t))gt_real(api);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    int t = gt_enter(&c, api);
    gt_comm_remove(comm);
    if (__builtin_expect(atomic_load_explicit(&gt_nccl_npending, memory_order_relaxed) > 0, 0))
        gt_nccl_pending_forget(comm);
    ncclResult_t rc = real(comm);
    if (t)
        gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm) { return comm_end(GT_API_ncclCommDestroy, comm); }
ncclResult_t ncclCommAbort(ncclComm_t comm) { return comm_end(GT_API_ncclCommAbort, comm); }

/* ---- operations ------------------------------------------------------------ */

struct op_args { size_t count; ncclDataType_t dt; int op, peer; ncclComm_t comm; cudaStream_t stream; };

/* An operation on a communicator not registered: one a non-blocking
 * split made, which no ncclCommGetAsyncError was seen to report done? */
static __attribute__((noinline)) struct gt_comm *op_pending(ncclComm_t comm)
{
    struct gt_comm *g = gt_nccl_pending_settle(comm, 0, 0);
    if (g) {
        owed_comm = g;
        owed_handle = comm;
    }
    return g;
}

/* Send and receive are numbered apart from the collectives, per peer
 * (p2p_seq.h): ranks make different numbers of them. */
INLINE int is_p2p(unsigned api)
{
    return api == GT_API_ncclSend || api == GT_API_ncclRecv;
}

/* Fills the record of one operation; pushes the external id if ungrouped. */
INLINE void op_begin(struct gt_call *c, const struct op_args *a)
{
    struct gt_comm *g = gt_comm_find(a->comm);
    struct gt_record *x = c->nccl;
    x->nccl.count = a->count;
    x->nccl.dtype = a->dt;
    x->nccl.op = a->op;
    x->nccl.peer = a->peer;
    c->r->bytes = a->count * (uint64_t)type_size(a->dt);
    c->r->stream = (uintptr_t)a->stream;
    if (__builtin_expect(!g && atomic_load_explicit(&gt_nccl_npending, memory_order_relaxed) > 0, 0))
        g = op_pending(a->comm);
    if (g) {
        x->nccl.comm_id = g->id;
        x->nccl.seq = is_p2p(c->r->api) ? gt_p2p_seq_take(GT_P2P_WRAPPED, g->id, a->peer, c->r->api == GT_API_ncclSend, &g->p2p)
                                        : atomic_fetch_add_explicit(&g->seq, 1, memory_order_relaxed);
        x->nccl.rank = g->rank;
        x->nccl.nranks = g->nranks;
    } else {
        x->nccl.rank = -1;
    }
    if (group_depth > 0) {
        c->r->flags |= GT_RF_IN_GROUP;
        x->nccl.group_id = group_id;
    } else {
        gt_cupti_push_external(gt_call_id(c));
    }
}

/* An operation NCCL refused (an error, not ncclInProgress) enqueued
 * nothing and took no place in the communicator's sequence: give its number
 * back, so that this rank's next operation matches the other ranks' by
 * (communicator, sequence), and record it with none (GT_SEQ_NONE). */
INLINE void op_end(struct gt_call *c, ncclResult_t rc, ncclComm_t comm)
{
    if (!(c->r->flags & GT_RF_IN_GROUP))
        gt_cupti_pop_external();
    if (__builtin_expect(rc != ncclSuccess && rc != ncclInProgress, 0)) {
        struct gt_comm *g = gt_comm_find(comm);
        uint64_t mine = c->nccl->nccl.seq, next = mine + 1;
        if (g && c->nccl->nccl.comm_id == g->id && is_p2p(c->r->api))
            gt_p2p_seq_give_back(GT_P2P_WRAPPED, g->id, c->nccl->nccl.peer, c->r->api == GT_API_ncclSend, mine, &g->p2p);
        else if (g && c->nccl->nccl.comm_id == g->id)
            atomic_compare_exchange_strong(&g->seq, &next, mine);
        c->nccl->nccl.seq = GT_SEQ_NONE;
    }
    gt_exit(c, rc);
    if (__builtin_expect(owed_comm != NULL, 0)) {
        gt_nccl_comm_record(owed_comm, owed_handle);
        owed_comm = NULL;
    }
}

ncclResult_t ncclAllReduce(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = REAL(ncclAllReduce);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclAllReduce))
        return real(s, r, n, dt, op, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, op, -1, comm, st });
    ncclResult_t rc = real(s, r, n, dt, op, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

ncclResult_t ncclReduce(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, int, ncclComm_t, cudaStream_t) = REAL(ncclReduce);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclReduce))
        return real(s, r, n, dt, op, root, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, op, root, comm, st });
    ncclResult_t rc = real(s, r, n, dt, op, root, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

ncclResult_t ncclReduceScatter(const void *s, void *r, size_t n, ncclDataType_t dt, ncclRedOp_t op, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclRedOp_t, ncclComm_t, cudaStream_t) = REAL(ncclReduceScatter);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclReduceScatter))
        return real(s, r, n, dt, op, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, op, -1, comm, st });
    ncclResult_t rc = real(s, r, n, dt, op, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

ncclResult_t ncclBroadcast(const void *s, void *r, size_t n, ncclDataType_t dt, int root, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = REAL(ncclBroadcast);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclBroadcast))
        return real(s, r, n, dt, root, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, -1, root, comm, st });
    ncclResult_t rc = real(s, r, n, dt, root, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

/* The gather/scatter family shares one signature shape: (s, r, n, dt, root, comm, st). */
INLINE ncclResult_t rooted(enum gt_api api, const void *s, void *r, size_t n, ncclDataType_t dt, int root, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) =
        (ncclResult_t (*)(const void *, void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))gt_real(api);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(s, r, n, dt, root, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, -1, root, comm, st });
    ncclResult_t rc = real(s, r, n, dt, root, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

ncclResult_t ncclGather(const void *s, void *r, size_t n, ncclDataType_t dt, int root, ncclComm_t comm, cudaStream_t st) { return rooted(GT_API_ncclGather, s, r, n, dt, root, comm, st); }
ncclResult_t ncclScatter(const void *s, void *r, size_t n, ncclDataType_t dt, int root, ncclComm_t comm, cudaStream_t st) { return rooted(GT_API_ncclScatter, s, r, n, dt, root, comm, st); }

ncclResult_t ncclBcast(void *b, size_t n, ncclDataType_t dt, int root, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) = REAL(ncclBcast);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclBcast))
        return real(b, n, dt, root, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, -1, root, comm, st });
    ncclResult_t rc = real(b, n, dt, root, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

/* All-gather and all-to-all: (s, r, n, dt, comm, st). */
INLINE ncclResult_t rootless(enum gt_api api, const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t) =
        (ncclResult_t (*)(const void *, void *, size_t, ncclDataType_t, ncclComm_t, cudaStream_t))gt_real(api);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(s, r, n, dt, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, -1, -1, comm, st });
    ncclResult_t rc = real(s, r, n, dt, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

ncclResult_t ncclAllGather(const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm, cudaStream_t st) { return rootless(GT_API_ncclAllGather, s, r, n, dt, comm, st); }
ncclResult_t ncclAlltoAll(const void *s, void *r, size_t n, ncclDataType_t dt, ncclComm_t comm, cudaStream_t st) { return rootless(GT_API_ncclAlltoAll, s, r, n, dt, comm, st); }

/* Send and recv: (buf, n, dt, peer, comm, st). */
INLINE ncclResult_t p2p(enum gt_api api, void *b, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm, cudaStream_t st)
{
    ncclResult_t (*real)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t) =
        (ncclResult_t (*)(void *, size_t, ncclDataType_t, int, ncclComm_t, cudaStream_t))gt_real(api);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(b, n, dt, peer, comm, st);
    op_begin(&c, &(struct op_args){ n, dt, -1, peer, comm, st });
    ncclResult_t rc = real(b, n, dt, peer, comm, st);
    op_end(&c, rc, comm);
    return rc;
}

ncclResult_t ncclSend(const void *b, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm, cudaStream_t st) { return p2p(GT_API_ncclSend, (void *)b, n, dt, peer, comm, st); }
ncclResult_t ncclRecv(void *b, size_t n, ncclDataType_t dt, int peer, ncclComm_t comm, cudaStream_t st) { return p2p(GT_API_ncclRecv, b, n, dt, peer, comm, st); }

/* ---- groups ---------------------------------------------------------------- */

/* nccl.h declares the two without a prototype (an empty list) */
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);

ncclResult_t ncclGroupStart(void)
{
    ncclResult_t (*real)(void) = REAL(ncclGroupStart);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclGroupStart))
        return real();
    if (group_depth++ == 0)
        group_id = gt_call_id(&c);
    ncclResult_t rc = real();
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclGroupEnd(void)
{
    ncclResult_t (*real)(void) = REAL(ncclGroupEnd);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclGroupEnd))
        return real();
    int outermost = group_depth == 1;
    if (group_depth > 0)
        group_depth--;
    if (outermost)
        gt_cupti_push_external(group_id);
    ncclResult_t rc = real();
    if (outermost)
        gt_cupti_pop_external();
    gt_exit(&c, rc);
    return rc;
}

/* Ends a group as ncclGroupEnd does (the depth goes down, the outermost
 * one closes the group) but launches nothing: NCCL only estimates the
 * group's time.  Its operations were recorded as they were called, with
 * their sequence numbers (docs/tracer-guarantees.md). */
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t *simInfo)
{
    ncclResult_t (*real)(ncclSimInfo_t *) = REAL(ncclGroupSimulateEnd);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclGroupSimulateEnd))
        return real(simInfo);
    if (group_depth > 0)
        group_depth--;
    ncclResult_t rc = real(simInfo);
    gt_exit(&c, rc);
    return rc;
}
