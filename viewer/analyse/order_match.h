/* order_match.h: the check of collectives matched across ranks by kernel
 * order (order_match.c).
 *
 * An import makes a collective of each NCCL kernel whose trace names no
 * operation or group (a Kineto trace without collective args), on an
 * invented communicator per kernel name, numbered by its order among the
 * rank's kernels of that name (format/record.h, GT_SEQ_ORDER).  Before the
 * analyses across ranks use such a match it is checked, kind (kernel name)
 * by kind: every rank ran as many of them, each group's members ran one
 * operation, and, where every rank's result needs every rank's data
 * (all-reduce, all-gather, reduce-scatter, all-to-all), each group's
 * kernels ran together.  A kind that fails is left out of every analysis
 * across ranks (coll_spill.skip), and the report says why. */
#ifndef GPUTRACE_ORDER_MATCH_H
#define GPUTRACE_ORDER_MATCH_H

#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/findings.h"

/* One kind: the collectives of one kernel name. */
struct order_kind {
    int64_t comm;
    char name[128];      /* the kernels' name, without its parameter list */
    int64_t groups;      /* (comm, seq) groups: the most any rank ran */
    int64_t colls;       /* collectives, all ranks together */
    int64_t apart;       /* groups whose kernels did not run together */
    int64_t other_op;    /* groups whose members' operations differ */
    int refused;
    char why[200];       /* why it was refused: for the report's note */
    int64_t *count;      /* per process, while checking */
};

struct order_match {
    struct order_kind *kinds; size_t nkinds, cap;
    int ranks;                 /* processes with any such collective */
    int64_t matched, refused;  /* collectives of the kinds kept, and of those refused */
    int64_t *skip; size_t nskip; /* the refused kinds' communicators, sorted (coll_spill.skip) */
};

/* Checks every kind of the spill's order-matched collectives, sets
 * m->order (NULL when there are none) and the spill's skip list. */
void order_match_check(struct model *m, const struct report_opts *o, struct coll_spill *spill);
void order_match_free(struct model *m);

#endif
