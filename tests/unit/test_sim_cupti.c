/* test_sim_cupti.c: the simulator's CUPTI activity records: structs, names,
 * kinds, times on the registered clock, correlation ids, the buffer
 * protocol, and refusal. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "sim_test_util.h"

void named_test_kernel(void **args)
{
    (void)args;
    tu_sleep_us(2000);
}

static void *argv_none[1];

static uint64_t CUPTIAPI mono_clock(void)
{
    return tu_now_ns();
}

static CUpti_Activity *find(const struct tu_records *r, CUpti_ActivityKind kind, size_t from)
{
    for (size_t i = from; i < r->n; i++)
        if (r->rec[i]->kind == kind)
            return r->rec[i];
    return NULL;
}

static const CUpti_ActivityAPI *find_api(const struct tu_records *r, CUpti_CallbackId cbid)
{
    for (size_t i = 0; i < r->n; i++)
        if (r->rec[i]->kind == CUPTI_ACTIVITY_KIND_RUNTIME && ((CUpti_ActivityAPI *)r->rec[i])->cbid == cbid)
            return (const CUpti_ActivityAPI *)r->rec[i];
    return NULL;
}

Test(sim_cupti, kernel_copy_and_sync_records_join_their_calls)
{
    cr_assert_eq(cuptiActivityRegisterTimestampCallback(mono_clock), CUPTI_SUCCESS);
    tu_cupti_start(64 * 1024);
    uint64_t t0 = tu_now_ns();
    cudaStream_t s;
    void *d, *h;
    cudaStreamCreate(&s);
    cudaMalloc(&d, 4096);
    cudaMallocHost(&h, 4096);
    cudaLaunchKernel((const void *)named_test_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_none, 0, s);
    cudaMemcpyAsync(d, h, 4096, cudaMemcpyHostToDevice, s);
    cudaStreamSynchronize(s);
    uint64_t t1 = tu_now_ns();
    struct tu_records r;
    tu_cupti_flush(&r);

    const CUpti_ActivityKernel10 *k = (const void *)find(&r, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
    cr_assert_not_null(k);
    cr_expect_str_eq(k->name, "named_test_kernel");
    cr_expect(k->start >= t0 && k->end <= t1 && k->end - k->start >= 1900000, "kernel time off the clock");
    const CUpti_ActivityAPI *launch = find_api(&r, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    cr_assert_not_null(launch);
    cr_expect_eq(k->correlationId, launch->correlationId);
    cr_expect_leq(launch->start, k->start, "kernel started before its launch call");

    const CUpti_ActivityMemcpy6 *m = (const void *)find(&r, CUPTI_ACTIVITY_KIND_MEMCPY, 0);
    cr_assert_not_null(m);
    cr_expect_eq(m->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_HTOD);
    cr_expect_eq(m->srcKind, CUPTI_ACTIVITY_MEMORY_KIND_PINNED);
    cr_expect_eq(m->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_DEVICE);
    cr_expect_eq(m->bytes, 4096);
    cr_expect(m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC);
    cr_expect_eq(m->streamId, k->streamId);
    cr_expect_geq(m->start, k->end, "copy overlapped the kernel before it on its stream");
    const CUpti_ActivityAPI *copy = find_api(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
    cr_assert_not_null(copy);
    cr_expect_eq(m->correlationId, copy->correlationId);

    const CUpti_ActivitySynchronization2 *sy = (const void *)find(&r, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, 0);
    cr_assert_not_null(sy);
    cr_expect_eq(sy->type, CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE);
    cr_expect_eq(sy->streamId, k->streamId);
    const CUpti_ActivityAPI *sync = find_api(&r, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
    cr_assert_not_null(sync);
    cr_expect_eq(sy->correlationId, sync->correlationId);
    cr_expect_geq(sy->end, m->end);
}

Test(sim_cupti, pageable_copy_kinds)
{
    tu_cupti_start(64 * 1024);
    void *d;
    char pageable[256];
    cudaMalloc(&d, sizeof pageable);
    cudaMemcpy(pageable, d, sizeof pageable, cudaMemcpyDefault);
    struct tu_records r;
    tu_cupti_flush(&r);
    const CUpti_ActivityMemcpy6 *m = (const void *)find(&r, CUPTI_ACTIVITY_KIND_MEMCPY, 0);
    cr_assert_not_null(m);
    cr_expect_eq(m->copyKind, CUPTI_ACTIVITY_MEMCPY_KIND_DTOH);
    cr_expect_eq(m->dstKind, CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE);
    cr_expect_eq(m->flags & CUPTI_ACTIVITY_FLAG_MEMCPY_ASYNC, 0);
}

Test(sim_cupti, external_correlation_precedes_the_api_record)
{
    tu_cupti_start(64 * 1024);
    cr_assert_eq(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 4242), CUPTI_SUCCESS);
    cudaLaunchKernel((const void *)named_test_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_none, 0, 0);
    uint64_t last = 0;
    cr_assert_eq(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last), CUPTI_SUCCESS);
    cr_expect_eq(last, 4242);
    cr_expect_eq(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last),
                 CUPTI_ERROR_QUEUE_EMPTY);
    cudaDeviceSynchronize();
    struct tu_records r;
    tu_cupti_flush(&r);
    const CUpti_ActivityExternalCorrelation *x = (const void *)find(&r, CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 0);
    cr_assert_not_null(x);
    cr_expect_eq(x->externalKind, CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0);
    cr_expect_eq(x->externalId, 4242);
    const CUpti_ActivityKernel10 *k = (const void *)find(&r, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 0);
    cr_assert_not_null(k);
    cr_expect_eq(x->correlationId, k->correlationId);
    /* the device sync after the pop carries no external id */
    size_t n_ext = 0;
    for (size_t i = 0; i < r.n; i++)
        n_ext += r.rec[i]->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    cr_expect_eq(n_ext, 1);
}

/* As cupti_activity.h says of cuptiActivityPushExternalCorrelationId: each
 * API record made while an id is pushed is preceded by one external
 * correlation record with that record's correlation id (the report joins
 * blocking calls to their records by it), and none where no API record is
 * made (its kind off). */
Test(sim_cupti, one_external_record_per_api_record_made)
{
    tu_cupti_start(64 * 1024);
    cr_assert_eq(cuptiActivityPushExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, 77), CUPTI_SUCCESS);
    cudaStreamSynchronize(0);
    cudaStreamSynchronize(0);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cudaDeviceSynchronize(); /* no API record: no external record */
    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_RUNTIME);
    cr_assert_eq(cuptiActivityPopExternalCorrelationId(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL), CUPTI_SUCCESS);
    struct tu_records r;
    tu_cupti_flush(&r);
    size_t n_ext = 0, n_sync = 0, tied = 0;
    for (size_t i = 0; i < r.n; i++) {
        if (r.rec[i]->kind != CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION)
            continue;
        const CUpti_ActivityExternalCorrelation *x = (const void *)r.rec[i];
        n_ext++;
        cr_expect_eq(x->externalId, 77);
        for (size_t j = i + 1; j < r.n; j++)
            if (r.rec[j]->kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
                ((const CUpti_ActivityAPI *)r.rec[j])->correlationId == x->correlationId) {
                tied += ((const CUpti_ActivityAPI *)r.rec[j])->cbid ==
                        CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
                break;
            }
    }
    for (size_t i = 0; i < r.n; i++)
        n_sync += r.rec[i]->kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
                  ((const CUpti_ActivityAPI *)r.rec[i])->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020;
    cr_expect_eq(n_sync, 2);
    cr_expect_eq(n_ext, 2, "one external record per API record made (%zu)", n_ext);
    cr_expect_eq(tied, 2, "each ahead of the record it names");
}

Test(sim_cupti, small_buffers_lose_nothing)
{
    tu_cupti_start(512); /* a few records per buffer: many buffers */
    for (int i = 0; i < 200; i++)
        cudaLaunchKernel((const void *)named_test_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_none, 0, 0) ;
    cudaDeviceSynchronize();
    struct tu_records r;
    tu_cupti_flush(&r);
    size_t kernels = 0, launches = 0;
    for (size_t i = 0; i < r.n; i++) {
        kernels += r.rec[i]->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
        launches += r.rec[i]->kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
                    ((CUpti_ActivityAPI *)r.rec[i])->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000;
    }
    cr_expect_eq(kernels, 200);
    cr_expect_eq(launches, 200);
    size_t dropped = 99;
    cr_expect_eq(cuptiActivityGetNumDroppedRecords(NULL, 0, &dropped), CUPTI_SUCCESS);
    cr_expect_eq(dropped, 0);
}

Test(sim_cupti, refuses_a_second_subscriber_on_demand)
{
    setenv("GPUSIM_CUPTI_REFUSE", "1", 1);
    cr_expect_eq(cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL),
                 CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    const char *s = NULL;
    cuptiGetResultString(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, &s);
    cr_expect_str_eq(s, "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED");
    unsetenv("GPUSIM_CUPTI_REFUSE");
    uint32_t v = 0;
    cuptiGetVersion(&v);
    cr_expect_eq(v, CUPTI_API_VERSION);
}
