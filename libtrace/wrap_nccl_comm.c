/* wrap_nccl_comm.c: the NCCL entry points that make communicators beyond
 * ncclCommInitRank/ncclCommSplit (wrap_nccl.c), ncclCommGetAsyncError,
 * which says when a non-blocking one is ready, and ncclCommFinalize and
 * ncclCommRevoke (recorded calls; a communicator stays registered until
 * ncclCommDestroy/Abort).
 *
 * Ids, as every member computes them (commreg.h):
 *   - ncclCommInitRankScalable: a hash of its nId unique ids (the same ids
 *     in the same order on every rank, as NCCL requires); with one id, the
 *     same as ncclCommInitRank's for that id;
 *   - ncclCommShrink: a hash of the parent's id, how many splits and
 *     shrinks of the parent came before, and the excluded ranks (the same
 *     list on every member).  The excluded ranks do not call it.
 * Non-blocking (ncclInProgress): InitRankScalable's communicator is
 * registered at once (NCCL stores it, and its rank and size are the
 * arguments); a shrink's once NCCL has made it (nccl_comm.h), which
 * ncclCommGetAsyncError on the parent reports, or an operation on it finds.
 */
#define _GNU_SOURCE
#include "libtrace/nccl_comm.h"
#include "libtrace/real.h"

#include <errno.h>

ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId, ncclUniqueId *commIds,
                                      ncclConfig_t *config)
{
    ncclResult_t (*real)(ncclComm_t *, int, int, int, ncclUniqueId *, ncclConfig_t *) = REAL(ncclCommInitRankScalable);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommInitRankScalable))
        return real(newcomm, nranks, myrank, nId, commIds, config);
    ncclResult_t rc = real(newcomm, nranks, myrank, nId, commIds, config);
    if ((rc == ncclSuccess || rc == ncclInProgress) && newcomm && commIds && nId > 0) {
        uint64_t id = gt_comm_id_hash(commIds, (unsigned long)nId * sizeof *commIds, 0);
        gt_nccl_comm_made(*newcomm, id, myrank, nranks, 0, c.r->t_start);
    }
    gt_nccl_comm_call_end(&c, rc, newcomm, 1);
    return rc;
}

/* The excluded ranks, in any order (NCCL sorts the program's list in
 * place: after the call it is sorted on every member). */
static uint64_t excluded_hash(const int *list, int n)
{
    uint64_t h = 0;
    for (int i = 0; list && i < n; i++) /* a sum of hashes: the same whatever the order */
        h += gt_comm_id_hash(&list[i], sizeof list[i], 3);
    return h;
}

ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount, ncclComm_t *newcomm,
                            ncclConfig_t *config, int shrinkFlags)
{
    ncclResult_t (*real)(ncclComm_t, int *, int, ncclComm_t *, ncclConfig_t *, int) = REAL(ncclCommShrink);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommShrink))
        return real(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags);
    struct gt_comm *parent = gt_comm_find(comm);
    uint64_t parent_id = parent ? parent->id : 0;
    uint32_t nth = parent ? atomic_fetch_add(&parent->splits, 1) : 0;
    ncclResult_t rc = real(comm, excludeRanksList, excludeRanksCount, newcomm, config, shrinkFlags);
    uint64_t excluded = rc == ncclSuccess || rc == ncclInProgress ? excluded_hash(excludeRanksList, excludeRanksCount) : 0;
    uint64_t seed[3] = { parent_id, nth, excluded };
    if (rc == ncclSuccess && newcomm && *newcomm) {
        int rank = -1, nranks = 0;
        gt_nccl_comm_shape(*newcomm, (const void *)real, &rank, &nranks);
        gt_nccl_comm_made(*newcomm, gt_comm_id_hash(seed, sizeof seed, 2), rank, nranks, parent_id, c.r->t_start);
    } else if (rc == ncclInProgress && newcomm) {
        gt_nccl_pending_add(newcomm, comm, gt_comm_id_hash(seed, sizeof seed, 2), parent_id, c.r->t_start, (const void *)real);
    }
    gt_nccl_comm_call_end(&c, rc, newcomm, 1);
    return rc;
}

/* Not recorded: programs poll it (PyTorch's watchdog, every wait for a
 * non-blocking communicator), and a record per poll would flood the
 * trace.  Its one job here: the communicators of the non-blocking splits
 * and shrinks it reports done are registered, and their records written. */
ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    ncclResult_t (*real)(ncclComm_t, ncclResult_t *) = REAL(ncclCommGetAsyncError);
    if (!real)
        return ncclSystemError;
    ncclResult_t rc = real(comm, asyncError);
    if (__builtin_expect(atomic_load_explicit(&gt_nccl_npending, memory_order_relaxed) > 0, 0) && rc == ncclSuccess &&
        asyncError && *asyncError != ncclInProgress && gt_tracing() && !gt_thread.guard)
        gt_nccl_pending_settle(comm, 1, 1);
    return rc;
}

/* Blocks until the communicator is quiescent (blocking mode): it leaves an
 * in-flight mark, so a rank stuck in it shows where. */
ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    ncclResult_t (*real)(ncclComm_t) = REAL(ncclCommFinalize);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommFinalize))
        return real(comm);
    ncclResult_t rc = real(comm);
    gt_exit(&c, rc);
    return rc;
}

ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags)
{
    ncclResult_t (*real)(ncclComm_t, int) = REAL(ncclCommRevoke);
    if (!real)
        return ncclSystemError;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_ncclCommRevoke))
        return real(comm, revokeFlags);
    ncclResult_t rc = real(comm, revokeFlags);
    gt_exit(&c, rc);
    return rc;
}
