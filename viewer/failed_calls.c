/* failed_calls.c: the calls that returned an error, by API and result,
 * over all ranks (summary.h).  A program that ignores its CUDA or NCCL
 * return codes carries on after a failed copy or launch; this is where the
 * report shows it.  Results that are answers rather than errors are not
 * counted: "not ready" from a stream or event query (600 in both the
 * runtime's and the driver's numbering) and ncclInProgress (7) from a
 * non-blocking communicator. */
#define _GNU_SOURCE
#include "viewer/summary.h"

#include <stdlib.h>
#include <string.h>

#define NOT_READY 600       /* cudaErrorNotReady, CUDA_ERROR_NOT_READY */
#define NCCL_IN_PROGRESS 7  /* ncclInProgress */

/* The result of `api` that is not a failure besides 0, or 0 if none. */
static int32_t answer_of(const struct model *m, int api)
{
    const char *name = model_api_name(m, api);
    if (m->roles[api] == ROLE_NCCL_OP || m->roles[api] == ROLE_NCCL_OTHER)
        return NCCL_IN_PROGRESS;
    return strstr(name, "Query") ? NOT_READY : 0;
}

void failed_add_proc(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!s->answers) {
        s->answers = calloc((size_t)m->napis + 1, sizeof *s->answers);
        if (!s->answers)
            model_out_of_memory();
        for (int a = 0; a < m->napis; a++)
            s->answers[a] = answer_of(m, a);
    }
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        if (c->result == 0 || c->result == s->answers[c->api])
            continue;
        s->failed_total++;
        size_t k = 0;
        while (k < s->nfailed && (s->failed[k].api != c->api || s->failed[k].result != c->result))
            k++;
        if (k == s->nfailed) {
            if (s->nfailed == FAILED_KINDS_KEPT)
                continue; /* counted in the total only */
            s->failed[s->nfailed++] = (struct failed_summary){ .api = c->api, .result = c->result, .last_proc = -1 };
        }
        struct failed_summary *f = &s->failed[k];
        f->count++;
        if (f->last_proc != (int)pi) {
            f->last_proc = (int)pi;
            f->ranks++;
        }
    }
}

static int cmp_failed(const void *a, const void *b)
{
    const struct failed_summary *x = a, *y = b;
    if (x->count != y->count)
        return x->count > y->count ? -1 : 1;
    return x->api != y->api ? x->api - y->api : (x->result > y->result) - (x->result < y->result);
}

void failed_end(struct summary *s)
{
    qsort(s->failed, s->nfailed, sizeof *s->failed, cmp_failed);
    free(s->answers);
    s->answers = NULL;
}
