/* sim_nccl.c: the simulated NCCL API.
 *
 * Every operation becomes GPU work on its stream: a host function that runs
 * on the stream thread, rendezvous with the other ranks through the
 * communicator's shared memory (sim_nccl_shm.c), really moves and reduces
 * the data in chunks of one staging slot, and then lasts as long as a
 * latency/bandwidth model says.  A rank that arrives late holds the others
 * at the first barrier, so their kernels run long, as on real hardware.
 *
 * Between ncclGroupStart and ncclGroupEnd operations are only collected;
 * ncclGroupEnd launches them as one fused kernel per stream (collectives in
 * order, then all send/recv progressing together so that any matched
 * pattern completes).  Each launch is reported to CUPTI as a driver
 * cuLaunchKernelEx call, so external correlation ids pushed around the
 * NCCL call attribute the kernel, as with the real library.
 */
#define _GNU_SOURCE
#include "sim_model_env.h"
#include "sim_internal.h"
#include "sim_nccl.h"
#include "sim_nccl_profiler.h"
#include "sim_nccl_ce.h"
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef enum {
    COLL_ALLREDUCE, COLL_BROADCAST, COLL_REDUCE, COLL_ALLGATHER, COLL_REDUCESCATTER,
    COLL_ALLTOALL, COLL_GATHER, COLL_SCATTER, COLL_SEND, COLL_RECV
} coll_kind;

static const char *const coll_names[] = {
    [COLL_ALLREDUCE] = "AllReduce", [COLL_BROADCAST] = "Broadcast", [COLL_REDUCE] = "Reduce",
    [COLL_ALLGATHER] = "AllGather", [COLL_REDUCESCATTER] = "ReduceScatter", [COLL_ALLTOALL] = "AlltoAll",
    [COLL_GATHER] = "Gather", [COLL_SCATTER] = "Scatter", [COLL_SEND] = "Send", [COLL_RECV] = "Recv",
};

struct item {
    coll_kind kind;
    const void *send;
    void *recv;
    size_t count;
    ncclDataType_t dt;
    ncclRedOp_t op;
    int root;                 /* root, or peer for send/recv */
    struct ncclComm *comm;
    cudaStream_t stream;
    void *prof_api;           /* the profiler plugin's events (sim_nccl_profiler.c) */
    struct sim_np_op *prof;
    int ce;                   /* run on the copy engines (sim_nccl_ce.c): no kernel, no plugin event */
};

struct fused {
    int n;
    struct item items[];
};

static _Thread_local int group_depth;
static _Thread_local struct item *group_items;
static _Thread_local int group_n, group_cap;

/* ---- running on the stream thread -------------------------------------- */

static int is_p2p(coll_kind k)
{
    return k == COLL_SEND || k == COLL_RECV;
}

static int reduces(coll_kind k)
{
    return k == COLL_ALLREDUCE || k == COLL_REDUCE || k == COLL_REDUCESCATTER;
}

/* Bytes the model charges: nccl-tests' bus-bandwidth factors. */
static uint64_t model_ns(const struct item *it)
{
    double n = it->comm->nranks, bytes = (double)it->count * (double)sim_nccl_type_size(it->dt), f;
    switch (it->kind) {
    case COLL_ALLREDUCE: f = 2 * (n - 1) / n; break;
    case COLL_ALLGATHER: case COLL_REDUCESCATTER: case COLL_ALLTOALL: f = n - 1; break;
    default: f = 1; break;
    }
    return 5000 + (uint64_t)(bytes * f / sim_nccl_gbps()); /* 5 us latency, 50 GB/s unless GPUSIM_NCCL_GBPS */
}

static void copy_in(struct ncclComm *c, const void *src, size_t n)
{
    memcpy(sim_comm_slot(c, c->rank), src, n);
}

static void reduce_slots(struct ncclComm *c, void *dst, size_t elems, const struct item *it)
{
    size_t es = sim_nccl_type_size(it->dt);
    memcpy(dst, sim_comm_slot(c, 0), elems * es);
    for (int r = 1; r < c->nranks; r++)
        sim_nccl_reduce(dst, sim_comm_slot(c, r), elems, it->dt, it->op);
    if (it->op == ncclAvg)
        sim_nccl_divide(dst, elems, it->dt, c->nranks);
}

/* One collective, chunk by chunk; two GPU barriers per chunk (after the
 * slots are filled, and after they are read). */
static void run_collective(const struct item *it)
{
    struct ncclComm *c = it->comm;
    size_t es = sim_nccl_type_size(it->dt), chunk = SIM_NCCL_SLOT_BYTES / es;
    const char *send = it->send;
    char *recv = it->recv;
    int me = c->rank, n = c->nranks;
    int segments = (it->kind == COLL_REDUCESCATTER || it->kind == COLL_ALLTOALL) ? n : 1;

    for (int seg = 0; seg < segments; seg++) {
        for (size_t off = 0; off < it->count || (off == 0 && it->count == 0); off += chunk) {
            size_t m = it->count - off < chunk ? it->count - off : chunk, b = m * es;
            size_t at = (size_t)seg * it->count + off; /* element offset in a segmented buffer */
            switch (it->kind) {
            case COLL_ALLREDUCE: case COLL_REDUCE: case COLL_ALLGATHER: case COLL_GATHER:
                copy_in(c, send + off * es, b);
                break;
            case COLL_BROADCAST:
                if (me == it->root)
                    copy_in(c, send + off * es, b);
                break;
            case COLL_REDUCESCATTER: case COLL_ALLTOALL:
                copy_in(c, send + at * es, b);
                break;
            case COLL_SCATTER:
                if (me == it->root)
                    for (int j = 0; j < n; j++)
                        memcpy(sim_comm_slot(c, j), send + ((size_t)j * it->count + off) * es, b);
                break;
            default:
                break;
            }
            sim_comm_barrier(c, 0);
            switch (it->kind) {
            case COLL_ALLREDUCE:
                reduce_slots(c, recv + off * es, m, it);
                break;
            case COLL_REDUCE:
                if (me == it->root)
                    reduce_slots(c, recv + off * es, m, it);
                break;
            case COLL_REDUCESCATTER:
                if (me == seg)
                    reduce_slots(c, recv + off * es, m, it);
                break;
            case COLL_BROADCAST:
                memcpy(recv + off * es, sim_comm_slot(c, it->root), b);
                break;
            case COLL_ALLGATHER:
                for (int j = 0; j < n; j++)
                    memcpy(recv + ((size_t)j * it->count + off) * es, sim_comm_slot(c, j), b);
                break;
            case COLL_GATHER:
                if (me == it->root)
                    for (int j = 0; j < n; j++)
                        memcpy(recv + ((size_t)j * it->count + off) * es, sim_comm_slot(c, j), b);
                break;
            case COLL_ALLTOALL:
                if (me == seg)
                    for (int j = 0; j < n; j++)
                        memcpy(recv + ((size_t)j * it->count + off) * es, sim_comm_slot(c, j), b);
                break;
            case COLL_SCATTER:
                memcpy(recv + off * es, sim_comm_slot(c, me), b);
                break;
            default:
                break;
            }
            sim_comm_barrier(c, 0);
            if (it->count == 0)
                break;
        }
    }
}

/* All send/recv items of one communicator, progressing together. */
static void run_p2p(struct item *items, int n, struct ncclComm *c)
{
    size_t done[n];
    int left = 0;
    for (int i = 0; i < n; i++) {
        done[i] = 0;
        if (items[i].comm == c && is_p2p(items[i].kind) && items[i].count)
            left++;
    }
    sim_comm_lock(c);
    while (left) {
        int progress = 0;
        for (int i = 0; i < n; i++) {
            struct item *it = &items[i];
            size_t total = it->count * sim_nccl_type_size(it->dt);
            if (it->comm != c || !is_p2p(it->kind) || !it->count || done[i] == total)
                continue;
            int send = it->kind == COLL_SEND;
            struct sim_mbox *mb = send ? sim_comm_mbox(c, c->rank, it->root) : sim_comm_mbox(c, it->root, c->rank);
            char *data = send ? sim_comm_mbox_data(c, c->rank, it->root) : sim_comm_mbox_data(c, it->root, c->rank);
            if (send && !mb->full) {
                size_t m = total - done[i] < SIM_NCCL_MBOX_BYTES ? total - done[i] : SIM_NCCL_MBOX_BYTES;
                memcpy(data, (const char *)it->send + done[i], m);
                mb->len = m;
                mb->full = 1;
                done[i] += m;
            } else if (!send && mb->full) {
                size_t m = mb->len < total - done[i] ? mb->len : total - done[i];
                memcpy((char *)it->recv + done[i], data, m);
                mb->full = 0;
                done[i] += m;
            } else {
                continue;
            }
            progress = 1;
            if (done[i] == total)
                left--;
            sim_comm_signal(c);
        }
        if (left && !progress)
            sim_comm_wait(c);
    }
    sim_comm_unlock(c);
}

static void run_fused(struct sim_op *op)
{
    struct fused *f = op->ctx;
    uint64_t model = 0, released = 0;
    int p2p = 0;
    for (int i = 0; i < f->n; i++)
        sim_np_kernel_begin(f->items[i].prof);
    for (int i = 0; i < f->n; i++) {
        model += model_ns(&f->items[i]);
        if (!is_p2p(f->items[i].kind))
            run_collective(&f->items[i]);
        else
            p2p = 1;
    }
    for (int i = 0; i < f->n; i++) {
        struct ncclComm *c = f->items[i].comm;
        int first = 1;
        for (int j = 0; j < i; j++)
            if (f->items[j].comm == c && is_p2p(f->items[j].kind))
                first = 0;
        if (first && is_p2p(f->items[i].kind))
            run_p2p(f->items, f->n, c);
    }
    for (int i = 0; i < f->n; i++)
        sim_np_kernel_net(f->items[i].prof);
    /* The transfer runs from when every member has its step on the network
     * (its proxy's): a barrier per collective, taken in run_collective's
     * order by every member, so its release is one instant for all.  A
     * collective-only kernel then ends at that instant plus the transfer on
     * every rank (sim_kernel_ended_mono): GPUs wait for no host thread to be
     * scheduled, so the ranks' ends agree on a loaded machine as on a real
     * one.  With point-to-point work in the group, from now.  (A group mixing
     * a send with collectives whose receiver is in a later group would wait
     * here where NCCL would not: no workload does that.) */
    for (int i = 0; i < f->n; i++)
        if (!is_p2p(f->items[i].kind)) {
            uint64_t r = sim_comm_barrier(f->items[i].comm, 0);
            released = r > released ? r : released;
        }
    uint64_t end = (released && !p2p ? released : sim_mono_ns()) + model;
    sim_sleep_until(end);
    if (released && !p2p)
        sim_kernel_ended_mono = end;
    for (int i = 0; i < f->n; i++)
        sim_np_kernel_end(f->items[i].prof);
    free(f);
    op->ctx = NULL;
}

/* ---- launching ---------------------------------------------------------- */

/* Kernel names as NCCL >= 2.19 spells them; interned for the process. */
static const char *kernel_name(const struct item *it)
{
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static char *names[64];
    static int nnames;
    char buf[128];
    if (is_p2p(it->kind) || it->kind == COLL_ALLTOALL || it->kind == COLL_GATHER || it->kind == COLL_SCATTER)
        return "ncclDevKernel_SendRecv";
    if (reduces(it->kind))
        snprintf(buf, sizeof buf, "ncclDevKernel_%s_%s_%s_RING_LL", coll_names[it->kind],
                 sim_nccl_op_name(it->op), sim_nccl_type_name(it->dt));
    else
        snprintf(buf, sizeof buf, "ncclDevKernel_%s_RING_LL", coll_names[it->kind]);
    pthread_mutex_lock(&mu);
    const char *found = "ncclDevKernel_Generic";
    int i;
    for (i = 0; i < nnames; i++)
        if (strcmp(names[i], buf) == 0)
            break;
    if (i < nnames) {
        found = names[i];
    } else if (nnames < 64) {
        names[nnames] = strdup(buf);
        if (names[nnames])
            found = names[nnames++];
    }
    pthread_mutex_unlock(&mu);
    return found;
}

static void launch(const struct item *items, int n)
{
    struct fused *f = malloc(sizeof *f + (size_t)n * sizeof *items);
    if (!f)
        abort();
    f->n = n;
    memcpy(f->items, items, (size_t)n * sizeof *items);
    for (int i = 0; i < n; i++) { /* NCCL's task events: started and stopped before the kernel can run */
        struct item *x = &f->items[i];
        x->prof = sim_np_task(x->comm, coll_names[x->kind], x->count, sim_np_dtype(x->dt), x->root, is_p2p(x->kind),
                              x->kind == COLL_SEND, x->prof_api, x->stream);
        sim_np_task_stop(x->prof);
    }
    int all_p2p = 1;
    const struct item *first_coll = NULL;
    for (int i = 0; i < n; i++)
        if (!is_p2p(items[i].kind)) {
            all_p2p = 0;
            if (!first_coll)
                first_coll = &items[i];
        }
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
    struct sim_op *op = sim_op_new(SIM_OP_HOSTFN);
    op->hostfn = run_fused;
    op->ctx = f;
    op->name = all_p2p ? "ncclDevKernel_SendRecv" : kernel_name(first_coll);
    sim_enqueue(sim_resolve_stream(items[0].stream), op);
    sim_api_end(&api, 0);
}

static ncclResult_t submit_now(const struct item *it);

static enum sim_ce_func ce_func(coll_kind k)
{
    return k == COLL_ALLGATHER ? SIM_CE_ALLGATHER : k == COLL_ALLTOALL ? SIM_CE_ALLTOALL
         : k == COLL_GATHER ? SIM_CE_GATHER : k == COLL_SCATTER ? SIM_CE_SCATTER : SIM_CE_NONE;
}

/* The structured payload NCCL (2.19 and later) attaches to its ranges
 * through NVTX's payload extension: a struct described by a schema
 * registered with a static id, the reduction operation an enum. */
struct nvtx_params { uint64_t comm; size_t bytes; int root; ncclRedOp_t op; };
#define SIM_NVTX_SCHEMA (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 1)
#define SIM_NVTX_REDOP (NVTX_PAYLOAD_SCHEMA_ID_STATIC_START + 11)

static void register_payload_schema(nvtxDomainHandle_t domain)
{
    static const nvtxPayloadEnum_t ops[] = { { "Sum", ncclSum, 0 }, { "Product", ncclProd, 0 },
                                             { "Max", ncclMax, 0 }, { "Min", ncclMin, 0 },
                                             { "Avg", ncclAvg, 0 } };
    const nvtxPayloadEnumAttr_t e = {
        .fieldMask = NVTX_PAYLOAD_ENUM_ATTR_FIELD_ENTRIES | NVTX_PAYLOAD_ENUM_ATTR_FIELD_NUM_ENTRIES |
                     NVTX_PAYLOAD_ENUM_ATTR_FIELD_SIZE | NVTX_PAYLOAD_ENUM_ATTR_FIELD_SCHEMA_ID,
        .entries = ops, .numEntries = sizeof ops / sizeof *ops, .sizeOfEnum = sizeof(ncclRedOp_t),
        .schemaId = SIM_NVTX_REDOP };
    nvtxPayloadEnumRegister(domain, &e);
    static const nvtxPayloadSchemaEntry_t fields[] = {
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_UINT64, "NCCL communicator ID", NULL, 0, offsetof(struct nvtx_params, comm), NULL, NULL },
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_SIZE, "Message size [bytes]", NULL, 0, offsetof(struct nvtx_params, bytes), NULL, NULL },
        { 0, NVTX_PAYLOAD_ENTRY_TYPE_INT, "Root", NULL, 0, offsetof(struct nvtx_params, root), NULL, NULL },
        { 0, SIM_NVTX_REDOP, "Reduction operation", NULL, 0, offsetof(struct nvtx_params, op), NULL, NULL },
    };
    const nvtxPayloadSchemaAttr_t a = {
        .fieldMask = NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_TYPE | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_ENTRIES |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_NUM_ENTRIES | NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_STATIC_SIZE |
                     NVTX_PAYLOAD_SCHEMA_ATTR_FIELD_SCHEMA_ID,
        .type = NVTX_PAYLOAD_SCHEMA_TYPE_STATIC, .entries = fields, .numEntries = sizeof fields / sizeof *fields,
        .payloadStaticSize = sizeof(struct nvtx_params), .schemaId = SIM_NVTX_SCHEMA };
    nvtxPayloadSchemaRegister(domain, &a);
}

/* Like NCCL, each operation is marked with an NVTX range in the "NCCL"
 * domain (a tool sees it inside the user's own ranges), with its
 * parameters as a structured payload. */
static ncclResult_t submit(const struct item *it)
{
    static nvtxDomainHandle_t domain;
    if (!domain) {
        domain = nvtxDomainCreateA("NCCL");
        register_payload_schema(domain);
    }
    uint64_t comm = 0;
    if (it->comm)
        memcpy(&comm, it->comm->id.internal, sizeof comm);
    struct nvtx_params params = { comm, it->count * sim_nccl_type_size(it->dt), it->root, it->op };
    nvtxPayloadData_t pd[] = { { SIM_NVTX_SCHEMA, sizeof params, &params } };
    nvtxEventAttributes_t a = { 0 };
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = kernel_name(it);
    a.payloadType = NVTX_PAYLOAD_TYPE_EXT; /* what NVTX_PAYLOAD_EVTATTR_SET_MULTIPLE does in C++ */
    a.reserved0 = (int32_t)(sizeof pd / sizeof *pd);
    a.payload.ullValue = (uint64_t)(uintptr_t)pd;
    nvtxDomainRangePushEx(domain, &a);
    ncclResult_t rc = submit_now(it);
    nvtxDomainRangePop(domain);
    return rc;
}

static ncclResult_t submit_now(const struct item *it)
{
    if (!it->comm || atomic_load(&it->comm->async) != ncclSuccess) /* not made yet (non-blocking) */
        return ncclInvalidArgument;
    if (!sim_nccl_type_size(it->dt) || (reduces(it->kind) && (unsigned)it->op > ncclAvg))
        return ncclInvalidArgument;
    if (it->root < 0 || it->root >= it->comm->nranks)
        return ncclInvalidArgument;
    struct item x = *it; /* with the profiler plugin's API event (v5) around the call */
    x.ce = sim_nccl_ce_wanted(x.comm, ce_func(x.kind), x.send, x.recv, x.count);
    if (!x.ce)
        x.prof_api = sim_np_api_start(x.comm, coll_names[x.kind], x.count, sim_np_dtype(x.dt), x.root, x.stream,
                                      is_p2p(x.kind));
    it = &x;
    if (group_depth > 0) {
        if (group_n == group_cap) {
            group_cap = group_cap ? group_cap * 2 : 16;
            struct item *p = realloc(group_items, (size_t)group_cap * sizeof *p);
            if (!p)
                return ncclSystemError;
            group_items = p;
        }
        group_items[group_n++] = *it;
        sim_np_api_stop(x.prof_api);
        return ncclSuccess;
    }
    if (x.ce)
        return sim_nccl_ce_launch(x.comm, ce_func(x.kind), x.send, x.recv, x.count, x.dt, x.root, x.stream);
    if (is_p2p(it->kind))
        sim_nccl_connect(it->comm, it->root);
    launch(it, 1);
    sim_np_api_stop(x.prof_api);
    return ncclSuccess;
}

ncclResult_t ncclGroupStart(void)
{
    group_depth++;
    return ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    if (--group_depth > 0)
        return ncclSuccess;
    for (int i = 0; i < group_n; i++) /* NCCL plans the CE collectives first (sim_nccl_ce.c) */
        if (group_items[i].ce && group_items[i].comm) {
            struct item *x = &group_items[i];
            sim_nccl_ce_launch(x->comm, ce_func(x->kind), x->send, x->recv, x->count, x->dt, x->root, x->stream);
            x->comm = NULL;
        }
    /* one fused launch per stream, in order of first use */
    for (int i = 0; i < group_n; i++) {
        if (!group_items[i].comm)
            continue;
        cudaStream_t s = group_items[i].stream;
        struct item batch[group_n];
        int nb = 0;
        for (int j = i; j < group_n; j++)
            if (group_items[j].comm && group_items[j].stream == s) {
                batch[nb++] = group_items[j];
                group_items[j].comm = NULL;
            }
        for (int k = 0; k < nb; k++)
            if (is_p2p(batch[k].kind))
                sim_nccl_connect(batch[k].comm, batch[k].root);
        launch(batch, nb);
    }
    group_n = 0;
    return ncclSuccess;
}

/* As ncclGroupEnd, launching nothing: the group's operations are dropped. */
ncclResult_t ncclGroupSimulateEnd(ncclSimInfo_t *simInfo)
{
    if (group_depth == 0)
        return ncclInvalidUsage;
    if (--group_depth > 0)
        return ncclSuccess;
    uint64_t ns = 0;
    for (int i = 0; i < group_n; i++)
        ns += model_ns(&group_items[i]);
    if (simInfo)
        simInfo->estimatedTime = (float)ns / 1e3f; /* microseconds */
    group_n = 0;
    return ncclSuccess;
}

#define ITEM(...) (&(struct item){ __VA_ARGS__, NULL, NULL, 0 })

ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                           ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_ALLREDUCE, sendbuff, recvbuff, count, datatype, op, 0, comm, stream));
}

ncclResult_t ncclBroadcast(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                           ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_BROADCAST, sendbuff, recvbuff, count, datatype, ncclSum, root, comm, stream));
}

ncclResult_t ncclBcast(void *buff, size_t count, ncclDataType_t datatype, int root, ncclComm_t comm,
                       cudaStream_t stream)
{
    return submit(ITEM(COLL_BROADCAST, buff, buff, count, datatype, ncclSum, root, comm, stream));
}

ncclResult_t ncclReduce(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                        ncclRedOp_t op, int root, ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_REDUCE, sendbuff, recvbuff, count, datatype, op, root, comm, stream));
}

ncclResult_t ncclAllGather(const void *sendbuff, void *recvbuff, size_t sendcount, ncclDataType_t datatype,
                           ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_ALLGATHER, sendbuff, recvbuff, sendcount, datatype, ncclSum, 0, comm, stream));
}

ncclResult_t ncclReduceScatter(const void *sendbuff, void *recvbuff, size_t recvcount, ncclDataType_t datatype,
                               ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_REDUCESCATTER, sendbuff, recvbuff, recvcount, datatype, op, 0, comm, stream));
}

ncclResult_t ncclAlltoAll(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype,
                          ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_ALLTOALL, sendbuff, recvbuff, count, datatype, ncclSum, 0, comm, stream));
}

ncclResult_t ncclGather(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                        ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_GATHER, sendbuff, recvbuff, count, datatype, ncclSum, root, comm, stream));
}

ncclResult_t ncclScatter(const void *sendbuff, void *recvbuff, size_t count, ncclDataType_t datatype, int root,
                         ncclComm_t comm, cudaStream_t stream)
{
    return submit(ITEM(COLL_SCATTER, sendbuff, recvbuff, count, datatype, ncclSum, root, comm, stream));
}

ncclResult_t ncclSend(const void *sendbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    return submit(ITEM(COLL_SEND, sendbuff, NULL, count, datatype, ncclSum, peer, comm, stream));
}

ncclResult_t ncclRecv(void *recvbuff, size_t count, ncclDataType_t datatype, int peer, ncclComm_t comm,
                      cudaStream_t stream)
{
    return submit(ITEM(COLL_RECV, NULL, recvbuff, count, datatype, ncclSum, peer, comm, stream));
}
