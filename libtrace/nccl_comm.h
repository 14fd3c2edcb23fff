/* nccl_comm.h: what the NCCL wrappers that make communicators share
 * (wrap_nccl.c, wrap_nccl_comm.c): asking NCCL a communicator's shape,
 * registering it (commreg.h) and writing its GT_REC_COMM record, and
 * making a non-blocking one ready once NCCL says it is.
 */
#ifndef GPUTRACE_NCCL_COMM_H
#define GPUTRACE_NCCL_COMM_H

#include "collector/visibility.h"
#include "libtrace/commreg.h"
#include "libtrace/trace.h"

#include <nccl.h>

/* Rank and size of comm, asked of the NCCL that defines lib_fn (the real
 * function the wrapper called: a library opened with RTLD_LOCAL, as ctypes
 * opens it, is not in the global scope), else of the global scope's.
 * Not traced; errno and the program's dlerror() are kept. */
GT_INTERNAL void gt_nccl_comm_shape(ncclComm_t comm, const void *lib_fn, int *rank, int *nranks);

/* Registers a communicator the call made (NULL: none); pending: it is not
 * ready yet (ncclInProgress): its rank and size are asked when it is. */
GT_INTERNAL struct gt_comm *gt_nccl_comm_made(ncclComm_t comm, uint64_t id, int rank, int nranks,
                                              uint64_t parent, uint64_t t_made);

/* Ends a call that made n communicators, then writes a GT_REC_COMM record
 * for each that is registered (after the call's own slot is committed: one
 * slot at a time). */
GT_INTERNAL void gt_nccl_comm_call_end(struct gt_call *c, ncclResult_t rc, ncclComm_t *comms, int n);

/* Writes g's GT_REC_COMM record on this thread's ring (outside any call's
 * reserved slot). */
GT_INTERNAL void gt_nccl_comm_record(const struct gt_comm *g, ncclComm_t comm);

/* Non-blocking ncclCommSplit and ncclCommShrink return ncclInProgress with
 * *newcomm still NULL: NCCL stores the new communicator there once it is
 * made, and reports it done on the parent (ncclCommGetAsyncError(parent)
 * then says ncclSuccess).  Until then the call is pending: where NCCL
 * will store it, the id it gets, its parent, the call's start, and the
 * real function (for the library that will answer its rank and size). */
GT_INTERNAL void gt_nccl_pending_add(ncclComm_t *newcomm, ncclComm_t parent, uint64_t id, uint64_t parent_id,
                                     uint64_t t_made, const void *lib_fn);
/* Pending calls there are (a relaxed load: the callers' fast test). */
extern GT_INTERNAL _Atomic int gt_nccl_npending;
/* Registers the pending communicators that are now made: those whose
 * parent is `comm` when parent_done (ncclCommGetAsyncError(comm) said
 * ncclSuccess), and the one NCCL stored as `comm` (an operation or a query
 * on a communicator not registered yet).  record: write their records now
 * (no slot reserved); else the one registered as `comm` is returned for
 * the caller to record once its slots are committed. */
GT_INTERNAL struct gt_comm *gt_nccl_pending_settle(ncclComm_t comm, int parent_done, int record);
/* comm is being destroyed: the pending calls of which it is the parent, or
 * the communicator NCCL stored, are forgotten (their pointer may go, and a
 * destroyed communicator is not to be asked anything). */
GT_INTERNAL void gt_nccl_pending_forget(ncclComm_t comm);

/* Whether a config asks for a non-blocking communicator. */
static inline int gt_nccl_nonblocking(const ncclConfig_t *config)
{
    return config && config->blocking == 0;
}

#endif
