/* cupti_calls.c: syncs, copies, frees and allocations that no wrapper
 * sees, recorded with their call sites from CUPTI's callbacks.
 *
 * A program built with nvcc's default static runtime, or one that reaches
 * the runtime or the driver through a pointer, makes calls that bind to no
 * symbol of ours; CUPTI's activity records list them, without a stack.  For
 * the calls whose stack the report needs (those with GT_F_STACK: syncs,
 * copies, frees, allocations; not launches, whose cost matters most), a
 * callback at the call's enter records it as a wrapper would, with its C
 * and Python stacks, and at its exit stamps its end and result.  A call a wrapper is already
 * recording (its thread's guard is up; so is it inside the tracer) is left
 * to the wrapper: one record per call.
 *
 * The stack is taken inside CUPTI's callback, so its first frames are
 * CUPTI's, the driver's and the runtime's: it is stored marked
 * (gt_callsite_capture_runtime), and those frames are cut when it is
 * written out.  What the callback cannot know (the stream of a copy, its
 * direction and host memory kind: only the wrappers track pinned memory)
 * is left for the report to take from CUPTI's records of the call.
 */
#define _GNU_SOURCE
#include "libtrace/cupti_calls.h"
#include "collector/say.h"
#include "libtrace/trace.h"
#include "format/call_block.h"
#include "collector/cupti_sub.h"

#include <cupti.h>
#include <stdio.h>

static const struct { uint32_t domain, cbid; enum gt_api api; } ids[] = {
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, GT_API_cudaStreamSynchronize },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_ptsz_v7000, GT_API_cudaStreamSynchronize_ptsz },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, GT_API_cudaEventSynchronize },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, GT_API_cudaDeviceSynchronize },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, GT_API_cudaFree },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020, GT_API_cudaFreeHost },
    /* allocations: host.setup names them where they hold the host (not
     * stream creation: its stream, an output, is what the report keys
     * streams by, and a callback does not read it) */
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, GT_API_cudaMalloc },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020, GT_API_cudaMallocHost },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020, GT_API_cudaHostAlloc },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000, GT_API_cudaMallocManaged },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000, GT_API_cudaHostRegister },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, GT_API_cudaMemcpy },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_ptds_v7000, GT_API_cudaMemcpy_ptds },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, GT_API_cudaMemcpyAsync },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000, GT_API_cudaMemcpyAsync_ptsz },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020, GT_API_cudaMemcpy2D },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_ptds_v7000, GT_API_cudaMemcpy2D_ptds },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020, GT_API_cudaMemcpy2DAsync },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000, GT_API_cudaMemcpy2DAsync_ptsz },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000, GT_API_cudaMemcpyPeer },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000, GT_API_cudaMemcpyPeerAsync },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020, GT_API_cudaMemset },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_ptds_v7000, GT_API_cudaMemset_ptds },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, GT_API_cudaMemsetAsync },
    { CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000, GT_API_cudaMemsetAsync_ptsz },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize, GT_API_cuCtxSynchronize },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuCtxSynchronize_v2, GT_API_cuCtxSynchronize_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize, GT_API_cuStreamSynchronize },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamSynchronize_ptsz, GT_API_cuStreamSynchronize_ptsz },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuEventSynchronize, GT_API_cuEventSynchronize },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, GT_API_cuMemcpyDtoH_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2_ptds, GT_API_cuMemcpyDtoH_v2_ptds },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, GT_API_cuMemcpyHtoD_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2_ptds, GT_API_cuMemcpyHtoD_v2_ptds },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2, GT_API_cuMemcpyDtoD_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoD_v2_ptds, GT_API_cuMemcpyDtoD_v2_ptds },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2, GT_API_cuMemcpyDtoHAsync_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz, GT_API_cuMemcpyDtoHAsync_v2_ptsz },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, GT_API_cuMemcpyHtoDAsync_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz, GT_API_cuMemcpyHtoDAsync_v2_ptsz },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2, GT_API_cuMemcpyDtoDAsync_v2 },
    { CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz, GT_API_cuMemcpyDtoDAsync_v2_ptsz },
};

static enum gt_api api_of(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++)
        if (ids[i].cbid == cbid && ids[i].domain == (uint32_t)domain)
            return ids[i].api;
    return GT_API_COUNT;
}

/* The stream a call names, where its parameters say it and the handle is
 * the program's; else the report takes it from CUPTI's records. */
static uint64_t stream_of(enum gt_api api, const void *params)
{
    if (!params)
        return GT_STREAM_UNKNOWN;
    switch (api) {
    case GT_API_cudaStreamSynchronize:
    case GT_API_cudaStreamSynchronize_ptsz:
        return (uintptr_t)((const cudaStreamSynchronize_v3020_params *)params)->stream;
    case GT_API_cuStreamSynchronize:
    case GT_API_cuStreamSynchronize_ptsz:
        return (uintptr_t)((const cuStreamSynchronize_params *)params)->hStream;
    default:
        return GT_STREAM_UNKNOWN;
    }
}

/* The call of this thread between its enter and its exit. */
static GT_TLS struct gt_call open_call;
static GT_TLS int open_now;       /* a call is open */
static GT_TLS uint32_t open_corr; /* its CUPTI correlation id, as CUPTI gave it */

/* The call just committed (call_seq seq) was CUPTI's correlation id corr:
 * a record after it, which the writer stores as an ext_corr row, so that
 * the report joins the call to CUPTI's record by id, not by time, where
 * the two clocks' conversions drift apart.  In the ring after the call, so
 * never stored before it; a full ring drops it (counted), and the call is
 * joined by time as before. */
static void note_correlation(uint32_t seq, uint32_t corr)
{
    struct gt_tbuf *b = gt_thread.tbuf;
    if (!b)
        return;
    gt_thread.guard = 1; /* a signal handler's NVTX event waits, as in a call */
    struct gt_record *m = gt_tbuf_reserve(b);
    if (m) {
        gt_record_clear(m);
        m->type = GT_REC_CORR;
        m->corr.call = seq;
        m->corr.correlation = corr;
        gt_tbuf_commit(b);
    }
    if (__builtin_expect(gt_thread.nvtx_pending, 0))
        gt_nvtx_flush_pending(b);
    gt_thread.guard = 0;
}

static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata)
{
    (void)userdata;
    const CUpti_CallbackData *d = cbdata;
    if (d->callbackSite == CUPTI_API_EXIT) {
        if (open_now && open_corr == d->correlationId) {
            open_now = 0;
            int rc = d->functionReturnValue ? *(const int *)d->functionReturnValue : 0;
            uint32_t seq = open_call.r->call_seq;
            int stored = !(open_call.r->flags & GT_RF_SCRATCH);
            gt_exit(&open_call, rc);
            if (stored)
                note_correlation(seq, d->correlationId);
        }
        return;
    }
    if (gt_thread.guard || open_now) /* a wrapper's, or the tracer's own */
        return;
    enum gt_api api = api_of(domain, cbid);
    if (api == GT_API_COUNT || !gt_enter_from_runtime(&open_call, api))
        return;
    open_call.r->stream = stream_of(api, d->functionParams);
    open_corr = d->correlationId;
    open_now = 1;
}

void gt_cupti_calls_start(int quiet)
{
    uint32_t list[sizeof ids / sizeof *ids][2];
    for (size_t i = 0; i < sizeof ids / sizeof *ids; i++) {
        list[i][0] = ids[i].domain;
        list[i][1] = ids[i].cbid;
    }
    char why[256];
    if (gt_cupti_subscribe(on_api, (const uint32_t (*)[2])list, sizeof ids / sizeof *ids, why, sizeof why) != 0 && !quiet)
        gt_say("%s; syncs and copies no wrapper sees get no call site", why);
}
