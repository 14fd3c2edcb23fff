/* other_profiler.c: a profiler plugin of the user's own (not ours), named
 * by NCCL_PROFILER_PLUGIN: the tracer must leave it in charge.  It counts
 * the operations NCCL shows it and says how many when its communicator is
 * finalized (tests/e2e/nccl_plugin.sh). */
#include "../../libtrace/nccl_profiler_abi.h"

#include <stdatomic.h>
#include <stdio.h>

static atomic_int ops;

static gt_nccl_result init(void **ctx, uint64_t id, int *mask, const char *name, int nnodes, int nranks, int rank,
                           gt_nccl_logger log)
{
    (void)id; (void)name; (void)nnodes; (void)nranks; (void)rank; (void)log;
    *ctx = &ops;
    *mask = GT_NPE_COLL | GT_NPE_P2P;
    return 0;
}

static gt_nccl_result start(void *ctx, void **h, struct gt_npd_v5 *d)
{
    (void)ctx;
    if (d->type == GT_NPE_COLL || d->type == GT_NPE_P2P)
        atomic_fetch_add(&ops, 1);
    *h = NULL;
    return 0;
}

static gt_nccl_result stop(void *h) { (void)h; return 0; }
static gt_nccl_result state(void *h, int s, union gt_nps_args_v4 *a) { (void)h; (void)s; (void)a; return 0; }

static gt_nccl_result fini(void *ctx)
{
    (void)ctx;
    fprintf(stderr, "other profiler: %d operations\n", atomic_load(&ops));
    return 0;
}

const struct gt_nccl_profiler_v5 ncclProfiler_v5 = { "other", init, start, stop, state, fini };
