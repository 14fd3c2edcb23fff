/* test_sim_cupti_events.c: the simulator's CUDA_EVENT and SYNCHRONIZATION
 * records, field by field as cupti_activity.h says CUDA 13's CUPTI fills
 * CUpti_ActivityCudaEvent2 and CUpti_ActivitySynchronization2: what each
 * kind of sync names, CUPTI_SYNCHRONIZATION_INVALID_VALUE where a field
 * does not apply, and cudaEventSyncId linking a wait to the record. */
#include <criterion/criterion.h>

#include "sim_test_util.h"

#define INVALID CUPTI_SYNCHRONIZATION_INVALID_VALUE

void events_test_kernel(void **args)
{
    (void)args;
    tu_sleep_us(1000);
}

static void *argv_none[1];

static const CUpti_ActivityAPI *api_of(const struct tu_records *r, uint32_t corr)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rec[i]->kind == CUPTI_ACTIVITY_KIND_RUNTIME && ((const CUpti_ActivityAPI *)r->rec[i])->correlationId == corr)
            return (const CUpti_ActivityAPI *)r->rec[i];
    return NULL;
}

/* The n-th record of a kind (and, for syncs, of a type; 0: any). */
static const void *nth(const struct tu_records *r, CUpti_ActivityKind kind, int type, int n)
{
    for (size_t i = 0; i < r->n; i++) {
        if (r->rec[i]->kind != kind)
            continue;
        if (type && ((const CUpti_ActivitySynchronization2 *)r->rec[i])->type != (CUpti_ActivitySynchronizationType)type)
            continue;
        if (n-- == 0)
            return r->rec[i];
    }
    return NULL;
}

Test(sim_cupti_events, each_sync_kind_names_what_applies_to_it)
{
    tu_cupti_start(64 * 1024);
    cr_assert_eq(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CUDA_EVENT), CUPTI_SUCCESS);
    cudaStream_t a, b;
    cudaEvent_t e, never;
    cudaStreamCreateWithFlags(&a, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&b, cudaStreamNonBlocking);
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaEventCreate(&never);
    cudaLaunchKernel((const void *)events_test_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_none, 0, a);
    cudaEventRecord(e, a);  /* record 0 */
    cudaEventRecord(e, a);  /* record 1: the one the wait and the sync wait for */
    cudaStreamWaitEvent(b, e, 0);
    cudaEventSynchronize(e);
    cudaStreamWaitEvent(b, never, 0);
    cudaStreamSynchronize(b);
    cudaDeviceSynchronize();
    cudaEventDestroy(e);
    cudaEventDestroy(never);
    struct tu_records r;
    tu_cupti_flush(&r);

    const CUpti_ActivityKernel10 *k = nth(&r, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0, 0);
    const CUpti_ActivityCudaEvent2 *r0 = nth(&r, CUPTI_ACTIVITY_KIND_CUDA_EVENT, 0, 0);
    const CUpti_ActivityCudaEvent2 *r1 = nth(&r, CUPTI_ACTIVITY_KIND_CUDA_EVENT, 0, 1);
    cr_assert(k && r0 && r1, "a kernel and two event records");
    cr_expect_null(nth(&r, CUPTI_ACTIVITY_KIND_CUDA_EVENT, 0, 2), "one record per cudaEventRecord");
    /* an event record: its call's correlation, the stream recorded on, the
     * event's id (the same for both records), a sync id of its own */
    cr_expect_eq(api_of(&r, r0->correlationId)->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020);
    cr_expect_eq(r0->streamId, k->streamId);
    cr_expect_eq(r0->contextId, k->contextId);
    cr_expect_eq(r0->deviceId, k->deviceId);
    cr_expect_eq(r0->eventId, r1->eventId);
    cr_expect_neq(r0->cudaEventSyncId, r1->cudaEventSyncId);
    cr_expect_eq(r0->deviceTimestamp, 0, "device timestamps are off by default");

    /* a stream wait: the waiting stream, the event, the latest record */
    const CUpti_ActivitySynchronization2 *w = nth(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                                  CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 0);
    cr_assert_not_null(w);
    cr_expect_eq(api_of(&r, w->correlationId)->cbid, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020);
    cr_expect_neq(w->streamId, k->streamId, "the waiting stream, not the event's");
    cr_expect_neq(w->streamId, INVALID);
    cr_expect_eq(w->cudaEventId, r1->eventId);
    cr_expect_eq(w->cudaEventSyncId, r1->cudaEventSyncId);
    /* a wait for an event never recorded: no record to link to */
    const CUpti_ActivitySynchronization2 *wn = nth(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                                   CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_WAIT_EVENT, 1);
    cr_assert_not_null(wn);
    cr_expect_neq(wn->cudaEventId, r1->eventId);
    cr_expect_eq(wn->cudaEventSyncId, INVALID);

    /* an event sync: the event and its latest record; no stream */
    const CUpti_ActivitySynchronization2 *es = nth(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                                   CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 0);
    cr_assert_not_null(es);
    cr_expect_eq(es->streamId, INVALID, "streamId is not valid for an event sync");
    cr_expect_eq(es->cudaEventId, r1->eventId);
    cr_expect_eq(es->cudaEventSyncId, r1->cudaEventSyncId);
    cr_expect_eq(es->contextId, k->contextId);
    cr_expect_leq(es->start, es->end);

    /* a stream sync: its stream, no event */
    const CUpti_ActivitySynchronization2 *ss = nth(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                                   CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE, 0);
    cr_assert_not_null(ss);
    cr_expect_eq(ss->streamId, w->streamId);
    cr_expect_eq(ss->cudaEventId, INVALID);
    cr_expect_eq(ss->cudaEventSyncId, INVALID);

    /* a context sync: neither */
    const CUpti_ActivitySynchronization2 *cs = nth(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION,
                                                   CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE, 0);
    cr_assert_not_null(cs);
    cr_expect_eq(cs->streamId, INVALID);
    cr_expect_eq(cs->cudaEventId, INVALID);
    cr_expect_eq(cs->cudaEventSyncId, INVALID);
    cr_expect_eq(cs->contextId, k->contextId);
    cr_expect_eq(cs->returnValue, 0);
}

Test(sim_cupti_events, no_event_records_unless_enabled)
{
    tu_cupti_start(64 * 1024); /* the usual kinds: CUDA_EVENT not among them */
    cudaEvent_t e;
    cudaEventCreate(&e);
    cudaEventRecord(e, 0);
    cudaEventSynchronize(e);
    cudaEventDestroy(e);
    struct tu_records r;
    tu_cupti_flush(&r);
    cr_expect_null(nth(&r, CUPTI_ACTIVITY_KIND_CUDA_EVENT, 0, 0));
    cr_expect_not_null(nth(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_EVENT_SYNCHRONIZE, 0));
}
