/* nccl_ce_calls.c: the copy-engine calls of NCCL's collectives that no
 * external correlation ties to an NCCL call (a static NCCL, which no
 * wrapper sees), told by NCCL's own NVTX ranges around them (see
 * nccl_ce_calls.h and docs/nccl-ce.md). */
#include "viewer/read/nccl_ce_calls.h"
#include "viewer/read/cupti_calls.h"
#include "viewer/model/idmap.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>

/* The calls NCCL's copy-engine collectives make that a program seldom
 * does, and never right beside an NCCL call: the batched copies (driver and
 * runtime forms) and the stream memory operations.  Only these are taken
 * from NCCL's ranges: a call just after an NCCL call can seem to start
 * inside its range when the host and CUPTI clocks drift apart under load,
 * and a compute kernel or a copy of the program's would then be NCCL's. */
static int ce_api(const struct cupti_rec *r)
{
    static const uint32_t driver[] = {
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync, CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2, CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp, CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_ptsz,
        CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2, CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz,
    };
    static const uint32_t runtime[] = {
        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v12080, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v12080,
        CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_ptsz_v13000,
    };
    const uint32_t *v = r->domain == 2 ? driver : runtime;
    size_t n = r->domain == 2 ? sizeof driver / sizeof *driver : sizeof runtime / sizeof *runtime;
    if (r->domain != 1 && r->domain != 2)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (r->cbid == v[i])
            return 1;
    return 0;
}

void comm_nvtx_calls(const struct proc *p, const struct cupti_rec *r, size_t n, struct idmap *out)
{
    size_t first = p->nuser_ranges; /* NCCL's own ranges follow the users', by (thread, start): ranges.c */
    if (first >= p->nranges)
        return;
    for (size_t i = 0; i < n; i++) {
        if (!ce_api(&r[i]))
            continue;
        size_t lo = first, hi = p->nranges; /* the first of NCCL's ranges after (tid, start) */
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            const struct nvtx *x = &p->ranges[mid];
            if (x->tid < r[i].tid || (x->tid == r[i].tid && x->start <= r[i].start))
                lo = mid + 1;
            else
                hi = mid;
        }
        /* the ranges before it on the thread: NCCL's calls nest little
         * (a collective inside ncclGroupStart/End), so a few suffice */
        for (size_t k = lo; k-- > first && lo - k <= 8 && p->ranges[k].tid == r[i].tid;)
            if (r[i].start < p->ranges[k].end) {
                idmap_put(out, r[i].corr, 1, 1);
                break;
            }
    }
}
