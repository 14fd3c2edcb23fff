/* join_test_util.h: what the unit tests of the report's join
 * (test_join_clock.c, test_correlate.c) share: a model whose api table
 * holds the APIs they use, and builders of calls and CUPTI API records.
 * Test scaffolding only: the code under test is the report's own
 * (viewer/libreport.a). */
#ifndef GPUTRACE_JOIN_TEST_UTIL_H
#define GPUTRACE_JOIN_TEST_UTIL_H

#include "format/record.h"
#include "viewer/read/cupti_calls.h"
#include "viewer/read/join_clock.h"
#include "viewer/model/model.h"

#include <cupti_driver_cbid.h>
#include <cupti_runtime_cbid.h>
#include <stdlib.h>
#include <string.h>

/* The api table of the test model, by id (0 is no API's, as in a file). */
enum {
    API_LAUNCH = 1, API_STREAM_SYNC, API_EVENT_RECORD, API_ALLREDUCE, API_GROUP_START, API_GROUP_END,
    API_CU_LAUNCH, API_EVENT_QUERY, NAPIS
};
static const char *const jt_api_names[NAPIS] = {
    "?", "cudaLaunchKernel", "cudaStreamSynchronize", "cudaEventRecord", "ncclAllReduce", "ncclGroupStart",
    "ncclGroupEnd", "cuLaunchKernel", "cudaEventQuery",
};
/* CUPTI's (domain, callback id) of each */
#define RT 1
#define DRV 2
#define CB_LAUNCH CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000
#define CB_STREAM_SYNC CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020
#define CB_EVENT_RECORD CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020
#define CB_EVENT_QUERY CUPTI_RUNTIME_TRACE_CBID_cudaEventQuery_v3020
#define CB_CU_LAUNCH CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel

static inline void jt_model(struct model *m)
{
    memset(m, 0, sizeof *m);
    m->api_names = (char **)jt_api_names;
    m->napis = NAPIS;
}

static inline void jt_model_free(struct model *m)
{
    free(m->cbid_api);
    free(m->api_has_records);
    m->cbid_api = NULL;
    m->api_has_records = NULL;
}

/* A wrapped call: a blocking one has an end; one that does not block
 * (a launch) is stored ending where it starts (join_clock.h). */
static inline struct call jt_call(int tid, int api, int64_t id, int64_t start, int64_t end)
{
    return (struct call){ .tid = tid, .api = (uint16_t)api, .call_id = id, .start = start, .end = end };
}

static inline struct cupti_rec jt_rec(int tid, int domain, uint32_t cbid, uint32_t corr, int64_t start, int64_t end)
{
    return (struct cupti_rec){ .tid = tid, .domain = (uint8_t)domain, .cbid = cbid, .corr = corr, .start = start,
                               .end = end };
}

/* The ext_corr row of a blocking CUDA call (its id tagged, as pushed). */
static inline struct ext jt_ext_cuda(int64_t call_id, uint32_t corr)
{
    return (struct ext){ (int64_t)(GT_XCORR_TAG | (uint64_t)call_id), corr };
}

/* The record of correlation corr among the n at a (the join reorders them). */
static inline const struct cupti_rec *jt_rec_of(const struct cupti_rec *a, size_t n, uint32_t corr)
{
    for (size_t k = 0; k < n; k++)
        if (a[k].corr == corr)
            return &a[k];
    return NULL;
}

#endif
