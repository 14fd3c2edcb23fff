/* analysis_p2p.h: point-to-point operations (ncclSend, ncclRecv), which
 * pipeline parallelism lives on, matched across ranks.
 *
 * Sequence numbers do not pair a send with its receive: each rank numbers
 * all its operations on a communicator, and a pipeline's stages make
 * different numbers of them.  NCCL pairs them by order: the k-th send from
 * rank a to rank b on a communicator meets the k-th receive on b from a.
 * So do we, streaming: coll_spill_groups hands every rank's operations of
 * a communicator in each rank's own order, and each (communicator,
 * sender, receiver) keeps the ones not matched yet, which in a running
 * pipeline are a few.
 *
 * What comes of it: per pair, the operations matched, bytes, time (both
 * sides' kernels running) and bandwidth; per rank (a pipeline stage), its
 * point-to-point GPU time and the part of it that no compute on its device
 * hid (the pipeline's bubbles); comm.mismatch for pairs whose count or
 * datatype differ, and for sends or receives left without a match in a run
 * that ended well; comm.hang for those in a run that did not, naming both
 * ranks; and comm.lazy_connect: the first send or receive between two
 * ranks (its own call, or for a grouped one its ncclGroupEnd), which blocks
 * the host while NCCL connects the pair (lazily, by default since NCCL
 * 2.22), where every later one returns once enqueued. */
#ifndef GPUTRACE_ANALYSIS_P2P_H
#define GPUTRACE_ANALYSIS_P2P_H

#include "viewer/analyse/findings.h"

struct coll_spill;

/* A pair of ranks on a communicator, in one direction. */
struct p2p_pair {
    int64_t comm;
    int src, dst;              /* ranks in the communicator */
    int src_proc, dst_proc;    /* their processes (-1 until seen) */
    int64_t matched, bytes, time_ns, mismatched;
    /* the operations not matched yet, oldest first: v[head..n), at most
     * P2P_QUEUE_MAX; those past it (a peer that never answers, or is not
     * in the trace) only counted in *_over, newer than all those kept, and
     * matched blind (no time, no datatype check) once those are gone */
    struct p2p_op { int64_t start, gstart, gend, count, bytes, seq; int32_t dtype, proc, site; } *sends, *recvs;
    size_t sends_head, nsends, sends_cap, recvs_head, nrecvs, recvs_cap;
    int64_t sends_over, recvs_over;
    struct p2p_op sends_over_first, recvs_over_first; /* the first counted only */
    struct p2p_op first_bad_send, first_bad_recv;
};

#define P2P_QUEUE_MAX 4096

/* A rank's first contact with one peer (comm.lazy_connect).  An ungrouped
 * call's own host time counts; a grouped one only queues, and its group's
 * ncclGroupEnd, which connects, counts: its start is kept until the
 * GroupEnds are looked up (grouped). */
#define P2P_LATER_SAMPLES 31
struct p2p_conn {
    int64_t comm, first_ns, first_start;
    int peer, api, site, nlater, grouped;
    int64_t later[P2P_LATER_SAMPLES]; /* host times of the calls after it (the first ones), or their starts */
};

/* A process's outermost ncclGroupEnd calls, by start (at most
 * P2P_GROUP_ENDS: first contacts come early). */
#define P2P_GROUP_ENDS 65536
struct p2p_group_end { int64_t start, ns; };

struct p2p_stage {
    int64_t ops, gpu_ns, bubble_ns;
    int64_t last_gstart, last_gend; int last_gstream; /* a fused send+recv kernel is counted once */
    struct p2p_conn *conns; size_t nconns, conns_cap;
    struct p2p_group_end *ends; size_t nends, ends_cap;
};

struct p2p_run {
    uint8_t *is_p2p;           /* by api id: 1 ncclSend, 2 ncclRecv, 3 ncclGroupEnd */
    struct p2p_stage *stages;  /* by process */
    struct p2p_pair *pairs; size_t npairs, pairs_cap;
    struct idmap pair_index;   /* key of (comm, src, dst) -> index in pairs */
    int64_t unmatched_untraced; /* left unmatched with a peer the trace does not have */
    int counted;               /* p2p_colls_done saw the processes' operations (stages[].ops) */
};

/* 1 for ncclSend, 2 for ncclRecv, 0 for any other API. */
int p2p_kind(const struct model *m, int api);
/* Makes the run's state before workers analyse processes side by side
 * (viewer/proc_jobs.h): each then writes its own process's stage only. */
void p2p_begin(struct model *m);
/* The window of process pi loaded (its calls): its ncclGroupEnd calls. */
void p2p_window(struct model *m, size_t pi);
/* The first n collectives of process pi, done with (proc_report.c): its
 * stage's bubbles and first contacts. */
void p2p_colls_done(struct model *m, size_t pi, size_t n);
/* Across ranks, after the hosts' clocks are aligned (clock_align.h):
 * pairs matched, their findings, and every rank's comm.lazy_connect. */
void analyse_p2p(struct model *m, struct findings *fs, struct coll_spill *spill);
void p2p_free(struct model *m);

#endif
