/* commreg.h: NCCL communicators the process made, by handle.
 *
 * A communicator gets a cross-rank id: a hash of its ncclUniqueId, or of
 * the parent's id, the parent's split count and the colour for
 * ncclCommSplit, so every member computes the same id.  Each collective
 * takes the next per-communicator sequence number: (comm id, seq) names one
 * collective on all ranks (a send or receive is numbered apart, by peer:
 * p2p_seq.h).  Lookups and sequence numbers are lock-free.
 * A non-blocking split's communicator is added once it is ready
 * (libtrace/nccl_comm.h).
 */
#ifndef GPUTRACE_COMMREG_H
#define GPUTRACE_COMMREG_H

#include <stdint.h>

struct gt_comm {
    _Atomic(void *) handle;   /* NULL = free slot */
    uint64_t id;
    int rank, nranks;
    _Atomic uint64_t seq;     /* collectives issued so far (send/recv: p2p_seq.h) */
    _Atomic uint64_t p2p;     /* send/recv issued so far: p2p_seq.h's fallback */
    _Atomic uint32_t splits;  /* ncclCommSplit and ncclCommShrink calls made on it */
    uint64_t parent;          /* the parent's id, 0 if none: for its GT_REC_COMM record */
    uint64_t t_made;          /* start of the call that made it (ticks): the same */
};

struct gt_comm *gt_comm_add(void *handle, uint64_t id, int rank, int nranks);
struct gt_comm *gt_comm_find(void *handle);
void gt_comm_remove(void *handle);
uint64_t gt_comm_id_hash(const void *bytes, unsigned long n, uint64_t seed);

#endif
