/* hang_depth.h: where each rank stopped inside a hung collective, from
 * NCCL's own records (hang_depth.c). */
#ifndef GPUTRACE_HANG_DEPTH_H
#define GPUTRACE_HANG_DEPTH_H

#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/findings.h"
#include "viewer/model/model.h"

/* Adds to a comm.hang finding (v: the n ranks that entered the collective,
 * of the processes that used its communicator) where each rank stopped:
 * "not started" for those that never entered it, else how far NCCL got
 * (enqueued, kernel running, waiting for a peer, network, done).  Adds
 * nothing when NCCL's plugin recorded none of it. */
void hang_depth_facts(const struct model *m, const struct coll_spill *spill, const struct coll_rec *v, size_t n,
                      struct finding *f);

#endif
