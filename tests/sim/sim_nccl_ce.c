/* sim_nccl_ce.c: the simulated NCCL runs copy-engine (CE) collectives as
 * NCCL 2.28.9 does (docs/nccl-ce.md, which cites NCCL's source).
 *
 * When: AllGather, AlltoAll, Gather and Scatter on a communicator of more
 * than one rank whose CTA policy is NCCL_CTA_POLICY_ZERO (its config, or
 * NCCL_CTA_POLICY, which wins), with symmetric-memory support
 * (NCCL_WIN_ENABLE and NCCL_CUMEM_ENABLE not 0; the simulator is one node
 * of P2P-connected GPUs), and both buffers in windows registered on it with
 * NCCL_WIN_COLL_SYMMETRIC.
 *
 * What, on the user's stream, in NCCL's order:
 *   1. the ready sync: a cuStreamBatchMemOp of flag writes and waits (with
 *      GPUSIM_NCCL_NVLS=1, NVLink SHARP's "MC" form: first a 4-byte
 *      host-to-device cudaMemcpyAsync from a host variable, pageable);
 *   2. one cuMemcpyBatchAsync of the copies, called through the pointer
 *      cuGetProcAddress hands out (as NCCL's static cudart reaches the
 *      driver: no interposed symbol sees it), so CUPTI alone records it;
 *   3. the complete sync, as 1.
 * No profiler plugin event and no kernel: NCCL 2.28 tells a plugin nothing
 * of a CE collective, and its function's sequence number does not move.
 *
 * The model: across processes a rank cannot write another's memory.  The
 * ready sync is a barrier of the ranks' stream threads (a late rank holds
 * the others there, as NCCL's flag waits do); the copies lie where NCCL's
 * would, a copy of the right size per peer, each of its own source onto
 * itself (a peer's address is not mapped here), and the local one for
 * real; the data moves at the complete sync, through the communicator's
 * staging slots, which returns once every rank has its data.  Nothing on
 * the stream can tell the difference, and the copies' records do not
 * depend on how long this machine takes to move the data.  The stream
 * memory operations have no GPU record, as with CUDA.
 */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_nccl.h"
#include "sim_nccl_ce.h"

#include <cuda.h>
#include <stdlib.h>
#include <string.h>

/* ---- windows and policy ------------------------------------------------ */

struct win { struct ncclComm *comm; const char *base; size_t size; int flags; struct win *next; };
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static struct win *wins; /* guarded by wmu */

void sim_nccl_ce_window(struct ncclComm *c, void *buff, size_t size, int flags, int add)
{
    pthread_mutex_lock(&wmu);
    if (add) {
        struct win *w = malloc(sizeof *w);
        if (w) {
            *w = (struct win){ c, buff, size, flags, wins };
            wins = w;
        }
    } else {
        for (struct win **p = &wins; *p; p = &(*p)->next)
            if ((*p)->comm == c && (*p)->base == buff && (*p)->size == size) {
                struct win *w = *p;
                *p = w->next;
                free(w);
                break;
            }
    }
    pthread_mutex_unlock(&wmu);
}

/* ncclDevrFindWindow: the window of c holding p, and its flags. */
static int symmetric_window(struct ncclComm *c, const void *p)
{
    int found = 0;
    const char *q = p;
    pthread_mutex_lock(&wmu);
    for (struct win *w = wins; w && !found; w = w->next)
        if (w->comm == c && q >= w->base && q < w->base + w->size)
            found = (w->flags & NCCL_WIN_COLL_SYMMETRIC) != 0;
    pthread_mutex_unlock(&wmu);
    return found;
}

int sim_nccl_ce_policy(const ncclConfig_t *config, const struct ncclComm *parent)
{
    if (config && config->CTAPolicy != NCCL_CONFIG_UNDEF_INT)
        return config->CTAPolicy;
    return parent ? parent->cta_policy : NCCL_CTA_POLICY_DEFAULT;
}

static int env_int(const char *name, int dflt)
{
    const char *e = getenv(name);
    return e && *e ? atoi(e) : dflt;
}

int sim_nccl_ce_wanted(struct ncclComm *c, enum sim_ce_func f, const void *send, const void *recv, size_t count)
{
    if (f == SIM_CE_NONE || !c || c->nranks < 2 || !count)
        return 0;
    int policy = env_int("NCCL_CTA_POLICY", c->cta_policy); /* the environment overrides the config */
    int symmetric = env_int("NCCL_WIN_ENABLE", 1) != 0 && env_int("NCCL_CUMEM_ENABLE", 1) != 0;
    return policy == NCCL_CTA_POLICY_ZERO && symmetric && symmetric_window(c, send) && symmetric_window(c, recv);
}

/* ---- on the stream thread ---------------------------------------------- */

struct ce_job {
    struct ncclComm *c;
    enum sim_ce_func f;
    const char *send;
    char *recv;
    size_t bytes;       /* one rank's chunk */
    int root;
    uint32_t seq[2];    /* the flag values the MC form copies from the host */
    uint32_t flag[2];   /* ... and where they land (the multicast flags) */
};

/* The data of the collective, chunk by chunk through the staging slots. */
static void exchange(const struct ce_job *j)
{
    struct ncclComm *c = j->c;
    int n = c->nranks, me = c->rank;
    size_t B = j->bytes;
    int segments = j->f == SIM_CE_ALLTOALL ? n : 1;
    for (int seg = 0; seg < segments; seg++)
        for (size_t off = 0; off < B; off += SIM_NCCL_SLOT_BYTES) {
            size_t m = B - off < SIM_NCCL_SLOT_BYTES ? B - off : SIM_NCCL_SLOT_BYTES;
            switch (j->f) {
            case SIM_CE_ALLGATHER: case SIM_CE_GATHER:
                memcpy(sim_comm_slot(c, me), j->send + off, m);
                break;
            case SIM_CE_ALLTOALL:
                memcpy(sim_comm_slot(c, me), j->send + (size_t)seg * B + off, m);
                break;
            case SIM_CE_SCATTER:
                if (me == j->root)
                    for (int r = 0; r < n; r++)
                        memcpy(sim_comm_slot(c, r), j->send + (size_t)r * B + off, m);
                break;
            default:
                break;
            }
            sim_comm_barrier(c, 0);
            switch (j->f) {
            case SIM_CE_ALLGATHER:
                for (int r = 0; r < n; r++)
                    memcpy(j->recv + (size_t)r * B + off, sim_comm_slot(c, r), m);
                break;
            case SIM_CE_GATHER:
                if (me == j->root)
                    for (int r = 0; r < n; r++)
                        memcpy(j->recv + (size_t)r * B + off, sim_comm_slot(c, r), m);
                break;
            case SIM_CE_ALLTOALL:
                if (me == seg)
                    for (int r = 0; r < n; r++)
                        memcpy(j->recv + (size_t)r * B + off, sim_comm_slot(c, r), m);
                break;
            case SIM_CE_SCATTER:
                memcpy(j->recv + off, sim_comm_slot(c, me), m);
                break;
            default:
                break;
            }
            sim_comm_barrier(c, 0);
        }
}

static void ready_sync(struct sim_op *op)
{
    struct ce_job *j = op->ctx;
    sim_comm_barrier(j->c, 0); /* every rank is ready */
}

static void complete_sync(struct sim_op *op)
{
    struct ce_job *j = op->ctx;
    exchange(j); /* ends with a barrier: every rank has its data */
    free(j);
    op->ctx = NULL;
}

/* ---- issuing ------------------------------------------------------------ */

/* ncclMemOpSync: the MC form's flag copy (a runtime call of NCCL's static
 * cudart, so a runtime API record), then the batch of stream memory
 * operations (a driver API record), whose GPU work has no record. */
static void mem_op_sync(struct ce_job *j, struct sim_stream *s, int complete, void (*fn)(struct sim_op *))
{
    if (env_int("GPUSIM_NCCL_NVLS", 0)) {
        sim_api_ctx rt;
        sim_api_begin(&rt, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
        struct sim_op *cp = sim_op_new(SIM_OP_MEMCPY);
        j->seq[complete] = (uint32_t)complete + 1;
        cp->src = &j->seq[complete];
        cp->dst = &j->flag[complete];
        cp->bytes = sizeof(uint32_t);
        cp->async = 1;
        cp->copy_kind = CUPTI_ACTIVITY_MEMCPY_KIND_HTOD;
        cp->src_kind = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE;
        cp->dst_kind = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE;
        cp->model_ns = sim_copy_model_ns(cp->bytes, SIM_MEM_PAGEABLE, SIM_MEM_DEVICE);
        sim_enqueue(s, cp);
        sim_api_end(&rt, cudaSuccess);
    }
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2);
    struct sim_op *op = sim_op_new(SIM_OP_HOSTFN);
    op->hostfn = fn;
    op->ctx = j;
    op->no_record = 1;
    sim_enqueue(s, op);
    sim_api_end(&api, CUDA_SUCCESS);
}

typedef CUresult (*batch_fn)(CUdeviceptr *, CUdeviceptr *, size_t *, size_t, CUmemcpyAttributes *, size_t *, size_t,
                             CUstream);

ncclResult_t sim_nccl_ce_launch(struct ncclComm *c, enum sim_ce_func f, const void *send, void *recv, size_t count,
                                ncclDataType_t dt, int root, cudaStream_t stream)
{
    batch_fn batch = (batch_fn)sim_driver_entry("cuMemcpyBatchAsync"); /* cudaGetDriverEntryPoint's answer */
    if (!batch)
        return ncclUnhandledCudaError;
    int n = c->nranks, me = c->rank;
    struct ce_job *j = calloc(1, sizeof *j);
    CUdeviceptr *srcs = calloc((size_t)n, sizeof *srcs), *dsts = calloc((size_t)n, sizeof *dsts);
    size_t *sizes = calloc((size_t)n, sizeof *sizes);
    if (!j || !srcs || !dsts || !sizes) {
        free(j); free(srcs); free(dsts); free(sizes);
        return ncclSystemError;
    }
    size_t B = count * sim_nccl_type_size(dt);
    *j = (struct ce_job){ .c = c, .f = f, .send = send, .recv = recv, .bytes = B, .root = root };
    const char *sb = send;
    char *rb = recv;
    size_t k = 0;
#define COPY(d, s_) (dsts[k] = (CUdeviceptr)(uintptr_t)(d), srcs[k] = (CUdeviceptr)(uintptr_t)(s_), sizes[k++] = B)
    switch (f) { /* NCCL's list (src/ce_coll.cc:373-587); a peer's copy lands on its own source here */
    case SIM_CE_ALLGATHER:
        if (rb + (size_t)me * B != sb)
            COPY(rb + (size_t)me * B, sb);
        for (int r = 1; r < n; r++)
            COPY(sb, sb);
        break;
    case SIM_CE_ALLTOALL:
        for (int r = 0; r < n; r++) {
            int d = (me + r) % n;
            if (d == me)
                COPY(rb + (size_t)me * B, sb + (size_t)d * B);
            else
                COPY(sb + (size_t)d * B, sb + (size_t)d * B);
        }
        break;
    case SIM_CE_SCATTER:
        if (me == root) {
            if (rb != sb + (size_t)me * B)
                COPY(rb, sb + (size_t)me * B);
            for (int r = 1; r < n; r++) {
                int d = (me + r) % n;
                COPY(sb + (size_t)d * B, sb + (size_t)d * B);
            }
        }
        break;
    case SIM_CE_GATHER:
        if (me == root) {
            if (rb + (size_t)me * B != sb)
                COPY(rb + (size_t)me * B, sb);
        } else {
            COPY(sb, sb);
        }
        break;
    default:
        break;
    }
#undef COPY
    struct sim_stream *s = sim_resolve_stream(stream);
    mem_op_sync(j, s, 0, ready_sync);
    CUresult rc = CUDA_SUCCESS;
    if (k) {
        CUmemcpyAttributes attr = { 0 };
        attr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
        attr.flags = CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE;
        size_t idx = 0;
        rc = batch(dsts, srcs, sizes, k, &attr, &idx, 1, (CUstream)stream);
    }
    mem_op_sync(j, s, 1, complete_sync); /* frees j once it has run */
    free(srcs);
    free(dsts);
    free(sizes);
    return rc == CUDA_SUCCESS ? ncclSuccess : ncclUnhandledCudaError;
}
