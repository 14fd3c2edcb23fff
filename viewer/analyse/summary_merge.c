/* summary_merge.c: one process's summary, made apart (by a worker of the
 * report, viewer/proc_jobs.h), added to the run's in process order.
 *
 * Every table is built process by process, each process's rows either its
 * own (ranks, GPUs, phases) or added into rows keyed across processes
 * (collectives by op, size and ranks; kernels by name; failed calls by API
 * and result), which a process's own summary holds in the order it first
 * met them.  Appending the first kind and adding the second, row by row
 * in that order, makes what the process going through the run's summary
 * made: the same rows, in the same order, with the same sums. */
#define _GNU_SOURCE
#include "viewer/analyse/summary.h"

#include <stdlib.h>
#include <string.h>

static void *grown(void *v, size_t n, size_t more, size_t *cap, size_t size)
{
    if (n + more <= *cap)
        return v;
    size_t c = *cap ? *cap : 16;
    while (c < n + more)
        c *= 2;
    void *g = realloc(v, c * size);
    if (!g)
        model_out_of_memory();
    *cap = c;
    return g;
}

static void take_colls(struct summary *s, const struct summary *f)
{
    for (size_t i = 0; i < f->ncolls; i++) {
        const struct coll_summary *c = &f->colls[i];
        size_t k;
        for (k = 0; k < s->ncolls; k++)
            if (!strcmp(s->colls[k].op, c->op) && s->colls[k].bytes == c->bytes && s->colls[k].nranks == c->nranks)
                break;
        if (k == s->ncolls) { /* new: as the process's first one of it made it, algorithm included */
            s->colls = grown(s->colls, s->ncolls, 1, &s->colls_cap, sizeof *s->colls);
            s->colls[k] = *c;
            s->colls[k].count = 0;
            s->colls[k].total_ns = 0;
            s->ncolls++;
        }
        s->colls[k].count += c->count;
        model_add(&s->colls[k].total_ns, c->total_ns);
    }
}

static void take_kernels(struct summary *s, const struct summary *f, size_t pi)
{
    for (size_t i = 0; i < f->nkernels; i++) {
        const struct kernel_summary *k = &f->kernels[i];
        struct kernel_summary *e = kernels_entry(s, k->name);
        e->count += k->count;
        model_add(&e->total_ns, k->total_ns);
        if (k->max_ns > e->max_ns)
            e->max_ns = k->max_ns;
        e->nccl |= k->nccl;
        if (e->last_proc != (int)pi) {
            e->last_proc = (int)pi;
            e->ranks++;
        }
    }
    model_add(&s->kernel_ns, f->kernel_ns);
}

/* A process's failed kinds in the order it met them; those past the kept
 * kinds in s are counted in the total only, as they were there. */
static void take_failed(struct summary *s, const struct summary *f, size_t pi)
{
    s->failed_total += f->failed_total;
    for (size_t i = 0; i < f->nfailed; i++) {
        const struct failed_summary *x = &f->failed[i];
        size_t k = 0;
        while (k < s->nfailed && (s->failed[k].api != x->api || s->failed[k].result != x->result))
            k++;
        if (k == s->nfailed) {
            if (s->nfailed == FAILED_KINDS_KEPT)
                continue;
            s->failed[s->nfailed++] = (struct failed_summary){ .api = x->api, .result = x->result, .last_proc = -1 };
        }
        struct failed_summary *t = &s->failed[k];
        t->count += x->count;
        if (t->last_proc != (int)pi) {
            t->last_proc = (int)pi;
            t->ranks++;
        }
    }
}

void summary_take_proc(struct summary *s, struct summary *from, size_t pi)
{
    struct summary *f = from;
    if (f->nranks)
        s->ranks[s->nranks++] = f->ranks[0];
    s->devices = grown(s->devices, s->ndevices, f->ndevices, &s->devices_cap, sizeof *s->devices);
    if (f->ndevices)
        memcpy(s->devices + s->ndevices, f->devices, f->ndevices * sizeof *f->devices);
    s->ndevices += f->ndevices;
    s->devices_first = s->ndevices;
    s->phases = grown(s->phases, s->nphases, f->nphases, &s->phases_cap, sizeof *s->phases);
    if (f->nphases)
        memcpy(s->phases + s->nphases, f->phases, f->nphases * sizeof *f->phases);
    s->nphases += f->nphases;
    s->phase_first = s->nphases;
    take_colls(s, f);
    take_kernels(s, f, pi);
    take_failed(s, f, pi);
    summary_free(from);
}
