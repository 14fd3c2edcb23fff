/* sim_cupti_callbacks.c: CUPTI's callback API (cupti_callbacks.h) in the
 * simulator: one subscriber per process, as in CUPTI (a second gets
 * CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED, and so does the first
 * under GPUSIM_CUPTI_REFUSE=1); callbacks enabled one callback id at a time
 * or a whole domain; the runtime and driver API domains called on the
 * calling thread at API enter (before the call's work) and exit (with its
 * return value), with a CUpti_CallbackData whose correlationId is the one
 * the call's activity record carries.  Where a call passes its parameters
 * (sim_api_begin_params), functionParams points at the struct of the
 * installed generated_cuda_runtime_api_meta.h; NULL otherwise.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

#include <cupti_callbacks.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#define MAX_CBID 2048

struct CUpti_Subscriber_st {
    CUpti_CallbackFunc fn;
    void *userdata;
    atomic_uchar on[CUPTI_CB_DOMAIN_SIZE][MAX_CBID];
};

static struct CUpti_Subscriber_st the_subscriber;
static atomic_int subscribed; /* 0 or 1 */

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata)
{
    if (!subscriber)
        return CUPTI_ERROR_INVALID_PARAMETER;
    const char *v = getenv("GPUSIM_CUPTI_REFUSE");
    int expected = 0;
    if ((v && *v && strcmp(v, "0") != 0) || !atomic_compare_exchange_strong(&subscribed, &expected, 1))
        return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; d++)
        for (int c = 0; c < MAX_CBID; c++)
            atomic_store(&the_subscriber.on[d][c], 0);
    the_subscriber.fn = callback;
    the_subscriber.userdata = userdata;
    *subscriber = &the_subscriber;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
    if (subscriber != &the_subscriber || !atomic_load(&subscribed))
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (int d = 0; d < CUPTI_CB_DOMAIN_SIZE; d++)
        for (int c = 0; c < MAX_CBID; c++)
            atomic_store(&the_subscriber.on[d][c], 0);
    atomic_store(&subscribed, 0);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid)
{
    if (subscriber != &the_subscriber || domain <= CUPTI_CB_DOMAIN_INVALID || domain >= CUPTI_CB_DOMAIN_SIZE ||
        cbid >= MAX_CBID)
        return CUPTI_ERROR_INVALID_PARAMETER;
    atomic_store(&subscriber->on[domain][cbid], enable ? 1 : 0);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain)
{
    if (subscriber != &the_subscriber || domain <= CUPTI_CB_DOMAIN_INVALID || domain >= CUPTI_CB_DOMAIN_SIZE)
        return CUPTI_ERROR_INVALID_PARAMETER;
    for (int c = 0; c < MAX_CBID; c++)
        atomic_store(&subscriber->on[domain][c], enable ? 1 : 0);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetCallbackState(uint32_t *enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                  CUpti_CallbackId cbid)
{
    if (!enable || subscriber != &the_subscriber || domain <= CUPTI_CB_DOMAIN_INVALID ||
        domain >= CUPTI_CB_DOMAIN_SIZE || cbid >= MAX_CBID)
        return CUPTI_ERROR_INVALID_PARAMETER;
    *enable = atomic_load(&subscriber->on[domain][cbid]);
    return CUPTI_SUCCESS;
}

static CUpti_CallbackDomain domain_of(CUpti_ActivityKind kind)
{
    return kind == CUPTI_ACTIVITY_KIND_DRIVER ? CUPTI_CB_DOMAIN_DRIVER_API : CUPTI_CB_DOMAIN_RUNTIME_API;
}

void sim_cupti_callback(const sim_api_ctx *ctx, CUpti_ApiCallbackSite site, void *return_value)
{
    if (!atomic_load_explicit(&subscribed, memory_order_acquire) || ctx->cbid >= MAX_CBID)
        return;
    CUpti_CallbackDomain d = domain_of(ctx->kind);
    if (!atomic_load_explicit(&the_subscriber.on[d][ctx->cbid], memory_order_relaxed))
        return;
    static _Thread_local uint64_t correlation_data;
    CUpti_CallbackData data = {
        .callbackSite = site,
        .functionName = "",
        .functionParams = ctx->params,
        .functionReturnValue = return_value,
        .correlationData = &correlation_data,
        .correlationId = ctx->correlation,
    };
    the_subscriber.fn(the_subscriber.userdata, d, ctx->cbid, &data);
}
