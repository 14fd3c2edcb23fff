/* comm_kinds.h: a data-parallel loop whose communicator is made one of the
 * ways NCCL offers beyond ncclCommInitRank (comm_kinds.c): rank 2 does
 * 15 ms of extra host work before every all-reduce, so it is the straggler
 * once the report can match the all-reduces across ranks by communicator
 * and sequence; with APP_DESYNC_STEP=N, rank 1 all-reduces half the count
 * at step N (comm.mismatch, tests/e2e/nccl_comms.sh).  The workloads
 * comm_scalable.c, comm_shrink.c, comm_split_nb.c, comm_split_nb_spin.c,
 * comm_init_nb.c and comm_unknown.c each pick one way.
 */
#ifndef GPUTRACE_COMM_KINDS_H
#define GPUTRACE_COMM_KINDS_H

enum comm_kind {
    COMM_SCALABLE, /* ncclCommInitRankScalable with two unique ids */
    COMM_SHRINK,   /* ncclCommShrink of a 4-rank communicator without rank 3 */
    COMM_SPLIT_NB, /* non-blocking ncclCommSplit (ncclInProgress, then ready) */
    COMM_SPLIT_NB_SPIN, /* the same, waited for by watching *newcomm, not ncclCommGetAsyncError */
    COMM_INIT_NB,  /* non-blocking ncclCommInitRankConfig */
    COMM_UNKNOWN,  /* pncclCommInitRank: NCCL's profiling-interface name, not wrapped */
};

int comm_kinds_main(enum comm_kind kind);

#endif
