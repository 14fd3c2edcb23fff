/* cupti_calls.h: calls that only CUPTI saw, made from its API records
 * (cupti_calls.c). */
#ifndef GPUTRACE_CUPTI_CALLS_H
#define GPUTRACE_CUPTI_CALLS_H

#include "viewer/model/model.h"
#include "viewer/model/handles.h"
#include "format/call_block.h"

#include <stddef.h>
#include <stdint.h>

/* A CUPTI API record as load_proc.c reads it; claimed: a wrapped call
 * holds it (1; 2: joined by id, join_clock.h; CLAIMED_BY_TIME: taken for a
 * call it lies in or overlaps, not as any call's own); shift: how far
 * correlate.c moved it into the wrappers' clock (join_clock.h). */
#define CLAIMED_BY_TIME 3
struct cupti_rec {
    int64_t start, end;
    int tid;
    uint32_t corr, cbid, result;
    uint8_t domain, claimed;
    int32_t shift;
};
_Static_assert(sizeof(struct cupti_rec) == 40, "the shift takes what was padding");
/* A SYNCHRONIZATION record (type 1-4, CUpti_ActivitySynchronizationType)
 * or a CUDA_EVENT record (type 0) of the call of correlation corr: the
 * stream it names (-1: none; a sync's is the stream it waited for or, for
 * a stream wait, the waiting one; an event record's the stream recorded
 * on) and CUPTI's id of the event (-1: none). */
struct cupti_sync { uint32_t corr; int stream, event; uint8_t type; };

/* The api id of a record's (domain, cbid), -1 if the report does not read it. */
int cupti_call_api(struct model *m, int domain, uint32_t cbid);
/* Whether CUPTI makes API records of calls of this api (CUDA's, not NCCL's). */
int cupti_api_has_records(struct model *m, int api);
/* Appends a call for each unclaimed record of an API the report reads. */
void cupti_calls_add(struct model *m, struct proc *p, const struct cupti_rec *r, size_t n);
/* Once the process's GPU operations are read: the streams, events, and
 * copies' kinds and sizes, of the calls made above (and of calls CUPTI's
 * callbacks recorded); stream handles of wrapped calls mapped through
 * their records, and a stream or event that a wrapped call named by its
 * handle given that handle in the calls only CUPTI saw, so that the
 * dependency clocks (stream_deps.h) know it as one. */
void cupti_calls_fix(struct proc *p, const struct cupti_sync *syncs, size_t nsyncs);

_Static_assert(CUPTI_STREAM_UNKNOWN == (CUPTI_STREAM_TAG | ((int64_t)1 << 40)), "decoded as no stream id");

#endif
