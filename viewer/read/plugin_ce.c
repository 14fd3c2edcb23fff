/* plugin_ce.c: which wrapped collectives NCCL ran on the copy engines.
 *
 * NCCL 2.28 (and 2.29, 2.30) tells a v5 profiler plugin nothing of a
 * copy-engine (CE) collective and does not count it in the per-function
 * sequence number its Coll events carry (docs/nccl-ce.md): on a
 * communicator that runs some all-gathers on the copy engines and others as
 * kernels, NCCL's k-th all-gather record is the wrapper's k-th all-gather
 * not run on the copy engines.  The wrappers do not know which ran how;
 * CUPTI does: a CE collective's driver calls (its ready and complete syncs,
 * cuStreamBatchMemOp, and the copies, cuMemcpyBatchAsync) are made under
 * the external correlation id pushed around the wrapped call (or its
 * group's ncclGroupEnd), and a kernel collective launches a kernel there
 * instead.  Read only when some function's wrapped count exceeds NCCL's
 * (plugin_join.c), from the API records stored as rows and in blocks.
 */
#define _GNU_SOURCE
#include "viewer/read/plugin_ce.h"
#include "viewer/read/rowruns.h"
#include "format/capi_block.h"

#include <cupti_activity.h>
#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <stdlib.h>

enum { CE_CALL = 1, LAUNCH = 2 };

/* What a CUPTI API record is to this question: a CE collective's driver
 * call, a kernel launch, or nothing (0). */
static int kind_of(int domain, uint32_t cbid)
{
    if (domain == 2)
        switch (cbid) {
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2:
        case CUPTI_DRIVER_TRACE_CBID_cuStreamBatchMemOp_v2_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync:
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2:
        case CUPTI_DRIVER_TRACE_CBID_cuMemcpyBatchAsync_v2_ptsz:
            return CE_CALL;
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
            return LAUNCH;
        default:
            return 0;
        }
    if (domain == 1)
        switch (cbid) {
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
        case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
            return LAUNCH;
        default:
            return 0;
        }
    return 0;
}

/* The correlations of the records that matter, each with its kind. */
static void read_records(sqlite3 *db, int64_t proc_id, struct idmap *corr)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT domain, cbid, correlation FROM cupti_api WHERE process_id = ?", -1, &s,
                           NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, proc_id);
        while (sqlite3_step(s) == SQLITE_ROW) {
            int k = kind_of(sqlite3_column_int(s, 0), (uint32_t)sqlite3_column_int64(s, 1));
            if (k)
                idmap_put(corr, (uint64_t)(uint32_t)sqlite3_column_int64(s, 2), k, 0);
        }
        sqlite3_finalize(s);
    }
    if (sqlite3_prepare_v2(db, "SELECT format, n, data FROM cupti_api_block WHERE process_id = ?", -1, &s, NULL) !=
        SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, proc_id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct gt_block_cur c;
        int n = rowruns_block(s, 0, &gt_capi_layout, &c); /* 0 for a damaged block */
        for (int i = 0; i < n; i++) {
            struct gt_capi_packed r;
            gt_block_next(&c, &r);
            int k = kind_of(r.domain, r.cbid);
            if (k)
                idmap_put(corr, r.correlation, k, 0);
        }
    }
    sqlite3_finalize(s);
}

size_t plugin_ce_ids(sqlite3 *db, int64_t proc_id, struct idmap *out)
{
    struct idmap corr = { 0 };
    read_records(db, proc_id, &corr);
    sqlite3_stmt *s;
    size_t found = 0;
    if (sqlite3_prepare_v2(db, "SELECT external_id, correlation FROM ext_corr WHERE process_id = ?", -1, &s, NULL) !=
        SQLITE_OK) {
        idmap_free(&corr);
        return 0;
    }
    sqlite3_bind_int64(s, 1, proc_id);
    /* an id's value: the kinds of the records under it, or'ed */
    struct idmap seen = { 0 };
    while (sqlite3_step(s) == SQLITE_ROW) {
        uint64_t id = (uint64_t)sqlite3_column_int64(s, 0);
        int64_t k, was = 0;
        if (!idmap_get(&corr, (uint64_t)(uint32_t)sqlite3_column_int64(s, 1), &k))
            continue;
        idmap_get(&seen, id, &was);
        idmap_put(&seen, id, was | k, 0);
    }
    sqlite3_finalize(s);
    /* into out: 1 for CE calls alone, 2 with a launch too */
    for (size_t i = 0; i < seen.cap; i++)
        if (seen.key[i] && (seen.val[i] & CE_CALL)) {
            idmap_put(out, seen.key[i], seen.val[i] & LAUNCH ? 2 : 1, 0);
            found++;
        }
    idmap_free(&seen);
    idmap_free(&corr);
    return found;
}
