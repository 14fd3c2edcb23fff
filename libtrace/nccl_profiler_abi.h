/* nccl_profiler_abi.h: NCCL's profiler plugin interface, as the tracer
 * implements it (and as the simulator's NCCL calls it).
 *
 * NCCL (2.23 and newer) dlopens the library named by NCCL_PROFILER_PLUGIN
 * and looks up the table `ncclProfiler_vN`, newest first (2.28 asks for
 * v5, v4, v3, v2, v1).  These are our own declarations of the layouts
 * NCCL documents in its ext-profiler example headers: one table of five
 * functions per version, an event descriptor given to startEvent, and the
 * state arguments given to recordEventState.  Only what we read is named;
 * the layouts (member order, types, unions) must stay exactly NCCL's.
 *
 * Threads: init/finalize run on the thread creating/destroying a
 * communicator; Coll/P2p (and their API) events on the thread that
 * enqueues the operation (or CUDA's host-callback thread); ProxyOp,
 * ProxyStep and KernelCh events on the communicator's proxy thread.  A
 * Coll event is stopped before its proxy and kernel-channel events are.
 */
#ifndef GPUTRACE_NCCL_PROFILER_ABI_H
#define GPUTRACE_NCCL_PROFILER_ABI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

typedef int gt_nccl_result; /* ncclResult_t: 0 is ncclSuccess */
typedef void (*gt_nccl_logger)(int level, unsigned long flags, const char *file, int line, const char *fmt, ...);

/* Event types (eDescr->type), also the bits of the activation mask. */
enum {
    GT_NPE_GROUP = 1 << 0,
    GT_NPE_COLL = 1 << 1,
    GT_NPE_P2P = 1 << 2,
    GT_NPE_PROXY_OP = 1 << 3,
    GT_NPE_PROXY_STEP = 1 << 4,
    GT_NPE_PROXY_CTRL = 1 << 5,
    GT_NPE_KERNEL_CH = 1 << 6,
    GT_NPE_NET_PLUGIN = 1 << 7,
    GT_NPE_GROUP_API = 1 << 8,
    GT_NPE_COLL_API = 1 << 9,
    GT_NPE_P2P_API = 1 << 10,
    GT_NPE_KERNEL_LAUNCH = 1 << 11,
};

/* Event states (recordEventState's eState): the numbers are NCCL's. */
enum {
    GT_NPS_OP_SEND_POSTED = 0, /* v1-v3 proxy op states (0-7) */
    GT_NPS_OP_RECV_DONE = 7,
    GT_NPS_STEP_SEND_GPU_WAIT = 8,   /* the send waits for the GPU to fill the buffer */
    GT_NPS_STEP_SEND_WAIT = 9,       /* handed to the network, waits for it to complete */
    GT_NPS_STEP_RECV_WAIT = 10,      /* posted, waits for the data to arrive */
    GT_NPS_STEP_RECV_FLUSH_WAIT = 11,/* arrived, waits for the flush to GPU memory */
    GT_NPS_STEP_RECV_GPU_WAIT = 12,  /* waits for the GPU to consume it */
    GT_NPS_CTRL_IDLE = 13,
    GT_NPS_CTRL_APPEND_END = 18,
    GT_NPS_OP_IN_PROGRESS = 19,      /* v4+: a proxy op starts progressing */
    GT_NPS_STEP_SEND_PEER_WAIT = 20, /* v4+: the send waits for the peer's receive buffer */
    GT_NPS_NET_UPDATE = 21,
    GT_NPS_KERNEL_CH_STOP = 22,      /* v4+: a kernel channel ended (its GPU timer) */
    GT_NPS_GROUP_START_API_STOP = 23,
    GT_NPS_GROUP_END_API_START = 24,
};

/* ---- v5 (NCCL 2.28) ---------------------------------------------------- */

struct gt_npd_v5 {
    uint64_t type;
    void *parentObj;
    int rank;
    union {
        struct { bool graphCaptured; int groupDepth; } groupApi;
        struct { const char *func; size_t count; const char *datatype; int root; void *stream; bool graphCaptured; } collApi;
        struct { const char *func; size_t count; const char *datatype; void *stream; bool graphCaptured; } p2pApi;
        struct { void *stream; } kernelLaunch;
        struct {
            uint64_t seqNumber;
            const char *func;
            const void *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels, nWarps;
            const char *algo, *proto;
            void *parentGroup;
        } coll;
        struct {
            const char *func;
            void *buff;
            const char *datatype;
            size_t count;
            int peer;
            uint8_t nChannels;
            void *parentGroup;
        } p2p;
        struct { pid_t pid; uint8_t channelId; int peer, nSteps, chunkSize, isSend; } proxyOp;
        struct { int step; } proxyStep;
        struct { uint8_t channelId; uint64_t pTimer; } kernelCh;
        struct { int64_t id; void *data; } netPlugin;
    };
};

/* v4 and v5 share the state arguments. */
union gt_nps_args_v4 {
    struct { size_t transSize; } proxyStep;
    struct { int appendedProxyOps; } proxyCtrl;
    struct { void *data; } netPlugin;
    struct { uint64_t pTimer; } kernelCh;
};

struct gt_nccl_profiler_v5 {
    const char *name;
    gt_nccl_result (*init)(void **context, uint64_t commId, int *eActivationMask, const char *commName, int nNodes,
                           int nranks, int rank, gt_nccl_logger logfn);
    gt_nccl_result (*startEvent)(void *context, void **eHandle, struct gt_npd_v5 *eDescr);
    gt_nccl_result (*stopEvent)(void *eHandle);
    gt_nccl_result (*recordEventState)(void *eHandle, int eState, union gt_nps_args_v4 *eStateArgs);
    gt_nccl_result (*finalize)(void *context);
};

/* ---- v4 (NCCL 2.26, 2.27) ---------------------------------------------- */

struct gt_npd_v4 {
    uint8_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            uint64_t seqNumber;
            const char *func;
            const void *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nChannels, nWarps;
            const char *algo, *proto;
        } coll;
        struct { const char *func; void *buff; const char *datatype; size_t count; int peer; uint8_t nChannels; } p2p;
        struct { pid_t pid; uint8_t channelId; int peer, nSteps, chunkSize, isSend; } proxyOp;
        struct { int step; } proxyStep;
        struct { uint8_t channelId; uint64_t pTimer; } kernelCh;
        struct { int64_t id; void *data; } netPlugin;
    };
};

struct gt_nccl_profiler_v4 {
    const char *name;
    gt_nccl_result (*init)(void **context, int *eActivationMask, const char *commName, uint64_t commHash, int nNodes,
                           int nranks, int rank, gt_nccl_logger logfn);
    gt_nccl_result (*startEvent)(void *context, void **eHandle, struct gt_npd_v4 *eDescr);
    gt_nccl_result (*stopEvent)(void *eHandle);
    gt_nccl_result (*recordEventState)(void *eHandle, int eState, union gt_nps_args_v4 *eStateArgs);
    gt_nccl_result (*finalize)(void *context);
};

/* ---- v3 (NCCL 2.25): no communicator at init, it comes with each op ---- */

struct gt_npd_v3 {
    uint8_t type;
    void *parentObj;
    int rank;
    union {
        struct {
            const char *name;
            uint64_t commHash;
            uint64_t seqNumber;
            const char *func;
            const void *sendBuff;
            void *recvBuff;
            size_t count;
            int root;
            const char *datatype;
            uint8_t nMaxChannels, nWarps;
            const char *algo, *proto;
        } coll;
        struct { const char *name; uint64_t commHash; const char *func; void *buff; const char *datatype; size_t count; int peer; } p2p;
        struct { pid_t pid; uint8_t channelId; int peer, nSteps, chunkSize, isSend; } proxyOp;
        struct { int step; } proxyStep;
        struct { uint8_t channelId; } kernelCh;
        struct { int64_t id; void *data; } netPlugin;
    };
};

union gt_nps_args_v3 {
    struct { size_t transSize; int steps; } proxyOp;
    struct { int appendedProxyOps; } proxyCtrl;
};

struct gt_nccl_profiler_v3 {
    const char *name;
    gt_nccl_result (*init)(void **context, int *eActivationMask);
    gt_nccl_result (*startEvent)(void *context, void **eHandle, struct gt_npd_v3 *eDescr);
    gt_nccl_result (*stopEvent)(void *eHandle);
    gt_nccl_result (*recordEventState)(void *eHandle, int eState, union gt_nps_args_v3 *eStateArgs);
    gt_nccl_result (*finalize)(void *context);
};

#endif
