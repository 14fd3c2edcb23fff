/* test_sim_cupti_callbacks.c: the simulator's CUPTI callback API, as
 * cupti_callbacks.h declares it: one subscriber, callbacks per callback id
 * and per domain, enter before exit on the calling thread, the
 * correlation id of the call's activity record, the parameter struct of
 * generated_cuda_runtime_api_meta.h, the return value at exit. */
#include <criterion/criterion.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sim_test_util.h"

#include <cupti_callbacks.h>

#define MAX_SEEN 64
static struct seen {
    CUpti_CallbackDomain domain;
    CUpti_CallbackId cbid;
    CUpti_ApiCallbackSite site;
    uint32_t correlation;
    cudaStream_t stream; /* from the parameters, where there are some */
    int has_params;
    uint32_t result;     /* at exit */
    pthread_t thread;
} seen[MAX_SEEN];
static int nseen;

static void CUPTIAPI on_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *cbdata)
{
    const CUpti_CallbackData *d = cbdata;
    cr_assert_eq(userdata, (void *)&nseen);
    if (nseen == MAX_SEEN)
        return;
    struct seen *s = &seen[nseen++];
    s->domain = domain;
    s->cbid = cbid;
    s->site = d->callbackSite;
    s->correlation = d->correlationId;
    s->thread = pthread_self();
    s->has_params = d->functionParams != NULL;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020 && d->functionParams)
        s->stream = ((const cudaStreamSynchronize_v3020_params *)d->functionParams)->stream;
    if (d->callbackSite == CUPTI_API_EXIT && d->functionReturnValue)
        s->result = *(const uint32_t *)d->functionReturnValue;
}

Test(sim_cupti_callbacks, enter_and_exit_of_enabled_ids_with_params_and_correlation)
{
    CUpti_SubscriberHandle sub;
    nseen = 0;
    cr_assert_eq(cuptiSubscribe(&sub, on_callback, &nseen), CUPTI_SUCCESS);
    CUpti_SubscriberHandle second;
    cr_expect_eq(cuptiSubscribe(&second, on_callback, NULL), CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                 "one subscriber per process, as in CUPTI");
    cr_assert_eq(cuptiEnableCallback(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                                     CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020), CUPTI_SUCCESS);
    uint32_t on = 0;
    cr_expect_eq(cuptiGetCallbackState(&on, sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                                       CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020), CUPTI_SUCCESS);
    cr_expect_eq(on, 1);

    tu_cupti_start(64 * 1024);
    cudaStream_t s;
    cudaStreamCreate(&s); /* not enabled: no callback */
    cudaStreamSynchronize(s);
    struct tu_records r;
    tu_cupti_flush(&r);

    cr_assert_eq(nseen, 2, "enter and exit of the one enabled call (got %d)", nseen);
    cr_expect_eq(seen[0].site, CUPTI_API_ENTER);
    cr_expect_eq(seen[1].site, CUPTI_API_EXIT);
    cr_expect_eq(seen[0].domain, CUPTI_CB_DOMAIN_RUNTIME_API);
    cr_expect_eq(seen[0].cbid, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020);
    cr_expect(pthread_equal(seen[0].thread, pthread_self()), "called on the calling thread");
    cr_expect(seen[0].has_params && seen[0].stream == s, "the call's parameters");
    cr_expect_eq(seen[1].result, cudaSuccess);
    cr_expect_eq(seen[0].correlation, seen[1].correlation);
    const CUpti_ActivityAPI *rec = NULL;
    for (size_t i = 0; i < r.n; i++)
        if (r.rec[i]->kind == CUPTI_ACTIVITY_KIND_RUNTIME &&
            ((CUpti_ActivityAPI *)r.rec[i])->cbid == CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020)
            rec = (const CUpti_ActivityAPI *)r.rec[i];
    cr_assert_not_null(rec);
    cr_expect_eq(rec->correlationId, seen[0].correlation, "the activity record's correlation id");

    /* a whole domain, then off again */
    nseen = 0;
    cr_assert_eq(cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
    cudaStreamQuery(s);
    cr_expect_eq(nseen, 2, "every runtime call once the domain is on");
    cr_assert_eq(cuptiEnableDomain(0, sub, CUPTI_CB_DOMAIN_RUNTIME_API), CUPTI_SUCCESS);
    nseen = 0;
    cudaStreamSynchronize(s);
    cr_expect_eq(nseen, 0, "nothing once the domain is off");
    cr_expect_eq(cuptiUnsubscribe(sub), CUPTI_SUCCESS);
    cr_expect_eq(cuptiSubscribe(&second, on_callback, &nseen), CUPTI_SUCCESS, "free again after unsubscribing");
    cuptiUnsubscribe(second);
    free(r.rec);
}
