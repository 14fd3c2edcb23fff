/* sim_driver_batch.c: the driver's batched copies, cuMemcpyBatchAsync
 * (cuda.h's cuMemcpyBatchAsync_v2, CUDA 12.8+), which cudart's
 * cudaMemcpyBatchAsync and NCCL 2.28's copy-engine collectives reach
 * (docs/nccl-ce.md).  Every copy of the batch is one copy on the stream, in
 * stream order after the work before it (what srcAccessOrder STREAM
 * promises), its memory kinds told from the pointers as cudaMemcpyDefault
 * does; one CUPTI MEMCPY record per copy, with the batch call's
 * correlation id.  The call never waits, pageable memory or not. */
#include "sim_internal.h"

#include <cuda.h>

static int on_device(sim_mem_kind k)
{
    return k == SIM_MEM_DEVICE || k == SIM_MEM_MANAGED;
}

static uint8_t kind_of(sim_mem_kind s, sim_mem_kind d)
{
    if (on_device(s))
        return on_device(d) ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    return on_device(d) ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
}

CUresult cuMemcpyBatchAsync_v2(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                               CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_DRIVER, CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2);
    CUresult rc = CUDA_SUCCESS;
    /* as documented: at least one copy, at least one attribute whose first
     * index is 0, no more attributes than copies, not the legacy stream */
    if (!dsts || !srcs || !sizes || !count || !attrs || !attrsIdxs || !numAttrs || numAttrs > count ||
        attrsIdxs[0] != 0 || hStream == NULL || hStream == CU_STREAM_LEGACY) {
        rc = CUDA_ERROR_INVALID_VALUE;
    } else {
        struct sim_stream *s = sim_resolve_stream((cudaStream_t)hStream);
        for (size_t i = 0; i < count; i++) {
            if (!sizes[i])
                continue;
            const void *src = (const void *)(uintptr_t)srcs[i];
            void *dst = (void *)(uintptr_t)dsts[i];
            sim_mem_kind sk = sim_classify(src), dk = sim_classify(dst);
            struct sim_op *op = sim_op_new(SIM_OP_MEMCPY);
            op->dst = dst;
            op->src = src;
            op->bytes = sizes[i];
            op->async = 1;
            op->copy_kind = kind_of(sk, dk);
            op->src_kind = sim_cupti_mem_kind(sk);
            op->dst_kind = sim_cupti_mem_kind(dk);
            op->model_ns = sim_copy_model_ns(sizes[i], sk, dk);
            sim_enqueue(s, op);
        }
    }
    sim_api_end(&api, rc);
    return rc;
}

/* What cuGetProcAddress hands out (sim_driver.c): the driver's own
 * function, which no interposed symbol stands in for. */
__typeof__(cuMemcpyBatchAsync_v2) sim_local_cuMemcpyBatchAsync_v2
    __attribute__((alias("cuMemcpyBatchAsync_v2"), visibility("hidden")));
