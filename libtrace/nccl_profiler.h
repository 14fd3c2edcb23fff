/* nccl_profiler.h: the tracer's NCCL profiler plugin, shared by the core
 * (nccl_profiler.c: events, records) and the versioned tables NCCL looks
 * up (nccl_profiler_v.c: each version's descriptors turned into one form).
 */
#ifndef GPUTRACE_NCCL_PROFILER_H
#define GPUTRACE_NCCL_PROFILER_H

#include "collector/visibility.h"

#include <stdint.h>

/* A communicator as the plugin knows it (init's context). */
struct gt_np_comm;

/* An event descriptor in one form, whatever the version. */
struct gt_np_descr {
    int type;            /* GT_NPE_* */
    void *parent;        /* the parent's handle (ours), or NULL */
    int rank;
    /* Coll, P2p (and their API events) */
    uint64_t comm_hash;  /* v3: with each op; else the context's */
    uint64_t seq;        /* NCCL's seqNumber (per function), collectives only */
    const char *func, *dtype, *algo, *proto;
    uint64_t count;
    int root_peer, nchannels, nwarps, graph;
    void *stream;
    /* ProxyOp, KernelCh */
    int channel, peer, nsteps, chunk, is_send;
    uint64_t ptimer;
};

/* init: the context for a communicator (NULL: none, and mask 0) and the
 * activation mask to ask for.  version: the table NCCL took. */
GT_INTERNAL struct gt_np_comm *gt_np_init(int version, uint64_t hash, const char *name, int nnodes, int nranks,
                                          int rank, int *mask);
/* startEvent: our handle for the event (NULL: not recorded). */
GT_INTERNAL void *gt_np_start(struct gt_np_comm *c, const struct gt_np_descr *d);
GT_INTERNAL void gt_np_stop(void *handle);
/* recordEventState: a proxy step's new state; trans: bytes so far; a
 * kernel channel's stop (GT_NPS_KERNEL_CH_STOP) with its GPU timer. */
GT_INTERNAL void gt_np_state(void *handle, int state, uint64_t trans, uint64_t ptimer);
GT_INTERNAL void gt_np_finalize(struct gt_np_comm *c);

/* This copy's own ncclProfiler_v5 (nccl_profiler_v.c). */
struct gt_nccl_profiler_v5;
extern GT_INTERNAL const struct gt_nccl_profiler_v5 gt_np_own_v5;

/* For the process row: whether NCCL loads us, or another plugin the user
 * named (set at load time, libtrace/nccl_profiler_env.c). */
GT_INTERNAL const char *gt_nccl_plugin_status(void);
/* The same for a copy the driver's injection loaded (libtrace/inject.c). */
GT_INTERNAL void gt_nccl_plugin_arrange_injected(void);

#endif
