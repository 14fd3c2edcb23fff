/* nccl_profiler_v.c: the tables NCCL looks up in a profiler plugin,
 * ncclProfiler_v5 (NCCL 2.28), _v4 (2.26-2.27) and _v3 (2.25): each
 * version's descriptor is read into one form (nccl_profiler.h) and handed
 * to the core.  Every entry returns ncclSuccess, whatever happens. */
#include "libtrace/nccl_profiler.h"
#include "libtrace/nccl_profiler_abi.h"

#include <string.h>

#define OK 0 /* ncclSuccess */

static gt_nccl_result stop(void *h)
{
    gt_np_stop(h);
    return OK;
}

static gt_nccl_result finalize(void *ctx)
{
    gt_np_finalize(ctx);
    return OK;
}

/* ---- v5 ---------------------------------------------------------------- */

static gt_nccl_result init_v5(void **ctx, uint64_t comm_id, int *mask, const char *name, int nnodes, int nranks,
                              int rank, gt_nccl_logger log)
{
    (void)log;
    int m = 0;
    *ctx = gt_np_init(5, comm_id, name, nnodes, nranks, rank, &m);
    *mask = m;
    return OK;
}

static gt_nccl_result start_v5(void *ctx, void **h, struct gt_npd_v5 *e)
{
    struct gt_np_descr d = { .type = (int)e->type, .parent = e->parentObj, .rank = e->rank, .root_peer = -1,
                             .peer = -1 };
    switch (e->type) {
    case GT_NPE_COLL_API:
        d.graph = e->collApi.graphCaptured;
        d.stream = e->collApi.stream;
        break;
    case GT_NPE_P2P_API:
        d.graph = e->p2pApi.graphCaptured;
        d.stream = e->p2pApi.stream;
        break;
    case GT_NPE_COLL:
        d.seq = e->coll.seqNumber;
        d.func = e->coll.func;
        d.count = e->coll.count;
        d.root_peer = e->coll.root;
        d.dtype = e->coll.datatype;
        d.nchannels = e->coll.nChannels;
        d.nwarps = e->coll.nWarps;
        d.algo = e->coll.algo;
        d.proto = e->coll.proto;
        break;
    case GT_NPE_P2P:
        d.func = e->p2p.func;
        d.dtype = e->p2p.datatype;
        d.count = e->p2p.count;
        d.root_peer = e->p2p.peer;
        d.nchannels = e->p2p.nChannels;
        break;
    case GT_NPE_PROXY_OP:
        d.channel = e->proxyOp.channelId;
        d.peer = e->proxyOp.peer;
        d.nsteps = e->proxyOp.nSteps;
        d.chunk = e->proxyOp.chunkSize;
        d.is_send = e->proxyOp.isSend;
        break;
    case GT_NPE_KERNEL_CH:
        d.channel = e->kernelCh.channelId;
        d.ptimer = e->kernelCh.pTimer;
        break;
    default:
        break;
    }
    *h = gt_np_start(ctx, &d);
    return OK;
}

static gt_nccl_result state_v4(void *h, int state, union gt_nps_args_v4 *a)
{
    uint64_t trans = 0, ptimer = 0;
    if (a && state >= GT_NPS_STEP_SEND_GPU_WAIT && state <= GT_NPS_STEP_RECV_GPU_WAIT)
        trans = a->proxyStep.transSize;
    else if (a && state == GT_NPS_STEP_SEND_PEER_WAIT)
        trans = a->proxyStep.transSize;
    else if (a && state == GT_NPS_KERNEL_CH_STOP)
        ptimer = a->kernelCh.pTimer;
    gt_np_state(h, state, trans, ptimer);
    return OK;
}

__attribute__((visibility("default"))) const struct gt_nccl_profiler_v5 ncclProfiler_v5 = {
    "gputrace", init_v5, start_v5, stop, state_v4, finalize,
};
/* This copy's own table: a reference to ncclProfiler_v5 from inside the
 * library binds to the program's (a preloaded copy's) definition first */
extern const struct gt_nccl_profiler_v5 gt_np_own_v5 __attribute__((alias("ncclProfiler_v5"), visibility("hidden")));

/* ---- v4 ---------------------------------------------------------------- */

static gt_nccl_result init_v4(void **ctx, int *mask, const char *name, uint64_t hash, int nnodes, int nranks,
                              int rank, gt_nccl_logger log)
{
    (void)log;
    int m = 0;
    *ctx = gt_np_init(4, hash, name, nnodes, nranks, rank, &m);
    *mask = m;
    return OK;
}

static gt_nccl_result start_v4(void *ctx, void **h, struct gt_npd_v4 *e)
{
    struct gt_np_descr d = { .type = e->type, .parent = e->parentObj, .rank = e->rank, .root_peer = -1, .peer = -1 };
    switch (e->type) {
    case GT_NPE_COLL:
        d.seq = e->coll.seqNumber;
        d.func = e->coll.func;
        d.count = e->coll.count;
        d.root_peer = e->coll.root;
        d.dtype = e->coll.datatype;
        d.nchannels = e->coll.nChannels;
        d.nwarps = e->coll.nWarps;
        d.algo = e->coll.algo;
        d.proto = e->coll.proto;
        break;
    case GT_NPE_P2P:
        d.func = e->p2p.func;
        d.dtype = e->p2p.datatype;
        d.count = e->p2p.count;
        d.root_peer = e->p2p.peer;
        d.nchannels = e->p2p.nChannels;
        break;
    case GT_NPE_PROXY_OP:
        d.channel = e->proxyOp.channelId;
        d.peer = e->proxyOp.peer;
        d.nsteps = e->proxyOp.nSteps;
        d.chunk = e->proxyOp.chunkSize;
        d.is_send = e->proxyOp.isSend;
        break;
    case GT_NPE_KERNEL_CH:
        d.channel = e->kernelCh.channelId;
        d.ptimer = e->kernelCh.pTimer;
        break;
    default:
        break;
    }
    *h = gt_np_start(ctx, &d);
    return OK;
}

__attribute__((visibility("default"))) const struct gt_nccl_profiler_v4 ncclProfiler_v4 = {
    "gputrace", init_v4, start_v4, stop, state_v4, finalize,
};

/* ---- v3 ---------------------------------------------------------------- */

static gt_nccl_result init_v3(void **ctx, int *mask)
{
    int m = 0;
    *ctx = gt_np_init(3, 0, NULL, -1, -1, -1, &m);
    *mask = m;
    return OK;
}

static gt_nccl_result start_v3(void *ctx, void **h, struct gt_npd_v3 *e)
{
    struct gt_np_descr d = { .type = e->type, .parent = e->parentObj, .rank = e->rank, .root_peer = -1, .peer = -1 };
    switch (e->type) {
    case GT_NPE_COLL:
        d.comm_hash = e->coll.commHash;
        d.seq = e->coll.seqNumber;
        d.func = e->coll.func;
        d.count = e->coll.count;
        d.root_peer = e->coll.root;
        d.dtype = e->coll.datatype;
        d.nchannels = e->coll.nMaxChannels;
        d.nwarps = e->coll.nWarps;
        d.algo = e->coll.algo;
        d.proto = e->coll.proto;
        break;
    case GT_NPE_P2P:
        d.comm_hash = e->p2p.commHash;
        d.func = e->p2p.func;
        d.dtype = e->p2p.datatype;
        d.count = e->p2p.count;
        d.root_peer = e->p2p.peer;
        break;
    case GT_NPE_PROXY_OP:
        d.channel = e->proxyOp.channelId;
        d.peer = e->proxyOp.peer;
        d.nsteps = e->proxyOp.nSteps;
        d.chunk = e->proxyOp.chunkSize;
        d.is_send = e->proxyOp.isSend;
        break;
    case GT_NPE_KERNEL_CH:
        d.channel = e->kernelCh.channelId;
        break;
    default:
        break;
    }
    *h = gt_np_start(ctx, &d);
    return OK;
}

static gt_nccl_result state_v3(void *h, int state, union gt_nps_args_v3 *a)
{
    gt_np_state(h, state, a && state <= GT_NPS_OP_RECV_DONE ? a->proxyOp.transSize : 0, 0);
    return OK;
}

__attribute__((visibility("default"))) const struct gt_nccl_profiler_v3 ncclProfiler_v3 = {
    "gputrace", init_v3, start_v3, stop, state_v3, finalize,
};
