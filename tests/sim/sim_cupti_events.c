/* sim_cupti_events.c: the simulator's CUPTI records of events and syncs,
 * CUDA_EVENT (CUpti_ActivityCudaEvent2) and SYNCHRONIZATION
 * (CUpti_ActivitySynchronization2), filled field by field as the installed
 * cupti_activity.h says CUDA 13's CUPTI fills them:
 *   - every cudaEventRecord makes an event record: the stream it was
 *     recorded on, the event's id (one per event object, reused by every
 *     record of it) and a cudaEventSyncId of its own (unique per record);
 *     no time (the call's API record, of the same correlation id, has it);
 *   - a sync record of each kind names what applies to it and
 *     CUPTI_SYNCHRONIZATION_INVALID_VALUE in the rest:
 *       stream synchronize   streamId                  (no event)
 *       stream wait event    streamId (the waiting one), cudaEventId,
 *                            cudaEventSyncId (the record it waits for)
 *       event synchronize    cudaEventId, cudaEventSyncId (no stream: the
 *                            header says streamId is not valid for it)
 *       context synchronize  neither
 *     contextId is the context of the stream or event (of the device for
 *     a context sync).
 * An event never recorded has no record to link to: cudaEventSyncId
 * INVALID.
 */
#include "sim_internal.h"

#include <stdatomic.h>

#define INVALID CUPTI_SYNCHRONIZATION_INVALID_VALUE

static atomic_uint_fast64_t sync_ids;

uint64_t sim_next_event_sync_id(void)
{
    return atomic_fetch_add(&sync_ids, 1) + 1;
}

static uint32_t context_of_device(int device)
{
    return (uint32_t)device + 1; /* one context per device, as sim_cupti.c numbers them */
}

void sim_cupti_event_record(uint32_t correlation, const struct sim_stream *s, uint32_t event_id, uint64_t sync_id)
{
    CUpti_ActivityCudaEvent2 r = {
        .kind = CUPTI_ACTIVITY_KIND_CUDA_EVENT,
        .correlationId = correlation,
        .contextId = context_of_device(s->device),
        .streamId = s->id,
        .eventId = event_id,
        .deviceId = (uint32_t)s->device,
        .deviceTimestamp = 0, /* off unless cuptiActivityEnableCudaEventDeviceTimestamps */
        .cudaEventSyncId = sync_id,
    };
    sim_cupti_emit(&r, sizeof r, CUPTI_ACTIVITY_KIND_CUDA_EVENT);
}

void sim_cupti_sync(CUpti_ActivitySynchronizationType type, uint32_t correlation, const struct sim_stream *s,
                    uint32_t event_id, uint64_t sync_id, uint64_t start, uint64_t end)
{
    int stream_valid = type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE ||
                       type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT;
    int event_valid = type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT ||
                      type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE;
    CUpti_ActivitySynchronization2 r = {
        .kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
        .type = type,
        .start = start,
        .end = end,
        .correlationId = correlation,
        .contextId = context_of_device(s ? s->device : sim_current_device()),
        .streamId = stream_valid && s ? s->id : INVALID,
        .cudaEventId = event_valid ? event_id : INVALID,
        .cudaEventSyncId = event_valid && sync_id ? sync_id : INVALID,
        .returnValue = 0,
    };
    sim_cupti_emit(&r, sizeof r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION);
}
