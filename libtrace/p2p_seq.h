/* p2p_seq.h: the sequence numbers of NCCL's send/recv operations, counted
 * apart from the collectives' (p2p_seq.c).
 *
 * A communicator's collectives are numbered 0, 1, 2... on every rank
 * alike, because every member calls them in the same order.  Its send and
 * receive calls are not the same on every rank (the first and last
 * stages of a pipeline make half as many as the middle ones), so counting
 * them in the collectives' sequence gives one all-reduce different numbers
 * on different ranks: a false mismatch.  A send or receive is numbered
 * instead by its place among this rank's sends to (receives from) the
 * same peer on the communicator, which is its partner's place among the
 * peer's receives from (sends to) this rank, and stored as GT_SEQ_P2P | k,
 * a range no collective's number reaches (format/record.h).  Lock-free
 * and allocation-free: a fixed table claimed by CAS.
 */
#ifndef GPUTRACE_P2P_SEQ_H
#define GPUTRACE_P2P_SEQ_H

#include "collector/visibility.h"

#include <stdint.h>

/* The tables: one for the wrappers (owner: the communicator's id), one for
 * the NCCL profiler plugin (owner: its communicator's context). */
enum gt_p2p_table { GT_P2P_WRAPPED = 0, GT_P2P_PLUGIN = 1 };

/* The number (GT_SEQ_P2P | k) of this rank's next send (send != 0) to, or
 * receive from, peer on owner's communicator; *fallback (that owner's own
 * counter of all its send/recv) is used instead when the table is full. */
GT_INTERNAL uint64_t gt_p2p_seq_take(enum gt_p2p_table t, uint64_t owner, int peer, int send,
                                     _Atomic uint64_t *fallback);
/* An operation NCCL refused gives its number back, if it was the last taken. */
GT_INTERNAL void gt_p2p_seq_give_back(enum gt_p2p_table t, uint64_t owner, int peer, int send, uint64_t seq,
                                      _Atomic uint64_t *fallback);

#endif
