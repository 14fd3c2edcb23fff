/* failed_calls.c: the calls that returned an error, by API and result,
 * over all ranks (summary.h).  A program that ignores its CUDA or NCCL
 * return codes carries on after a failed copy or launch; this is where the
 * report shows it.  What counts as an error is model_result_failed's. */
#define _GNU_SOURCE
#include "viewer/analyse/summary.h"

#include <stdlib.h>

void failed_add_proc(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        if (!model_result_failed(m, c->api, c->result))
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
}
