/* summary.c: per-rank figures and the collectives table (see summary.h). */
#define _GNU_SOURCE
#include "viewer/summary.h"
#include "viewer/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* nccl-tests' bus bandwidth factors (doc/PERFORMANCE.md there). */
static double bus_factor(const char *op, int n)
{
    if (n <= 1)
        return 1.0;
    if (!strcmp(op, "ncclAllReduce"))
        return 2.0 * (n - 1) / n;
    if (!strcmp(op, "ncclAllGather") || !strcmp(op, "ncclReduceScatter") || !strcmp(op, "ncclAlltoAll"))
        return (double)(n - 1) / n;
    return 1.0;
}

/* Bytes nccl-tests counts for the operation: the larger buffer. */
static int64_t test_bytes(const char *op, int64_t bytes, int n)
{
    if (!strcmp(op, "ncclAllGather") || !strcmp(op, "ncclReduceScatter") || !strcmp(op, "ncclAlltoAll") ||
        !strcmp(op, "ncclGather") || !strcmp(op, "ncclScatter"))
        return bytes * (n > 0 ? n : 1);
    return bytes;
}

static void algorithm_of(const char *kernel, char *out, size_t len)
{
    static const char *const algos[] = { "RING", "TREE", "COLLNET_DIRECT", "COLLNET_CHAIN", "NVLS_TREE", "NVLS", "PAT" };
    out[0] = 0;
    for (size_t i = 0; i < sizeof algos / sizeof *algos; i++) {
        const char *p = strstr(kernel, algos[i]);
        if (p && p[-1] == '_') {
            size_t n = strlen(algos[i]);
            snprintf(out, len, "%.*s", (int)n, algos[i]);
            return;
        }
    }
}

void summary_build(const struct model *m, struct summary *s)
{
    memset(s, 0, sizeof *s);
    s->ranks = calloc(m->nprocs + 1, sizeof *s->ranks);
    size_t ccap = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        const struct proc *p = &m->procs[pi];
        struct rank_summary *r = &s->ranks[s->nranks++];
        struct timeline *t = model_timeline(m, pi);
        r->rank = p->rank;
        r->pid = p->pid;
        r->proc = (int)pi;
        r->wall_ns = p->end - p->start;
        r->gpu_busy_ns = ivals_total(&t->busy);
        r->compute_ns = ivals_total(&t->compute);
        r->comm_ns = ivals_total(&t->comm);
        r->exposed_comm_ns = r->comm_ns - ivals_intersection(&t->comm, &t->compute);
        r->api_calls = (int64_t)p->ncalls;
        r->gpu_ops = (int64_t)p->nops;
        r->collectives = (int64_t)p->ncolls;
        for (size_t i = 0; i < p->ncalls; i++) {
            if (model_is_explicit_sync(m, &p->calls[i]) || model_is_implicit_sync(m, &p->calls[i]))
                r->sync_blocked_ns += p->calls[i].end - p->calls[i].start;
        }
        for (size_t i = 0; i < p->ncolls; i++) {
            const struct coll *c = &p->colls[i];
            const char *op = m->api_names[c->api] ? m->api_names[c->api] : "?";
            size_t k;
            for (k = 0; k < s->ncolls; k++)
                if (!strcmp(s->colls[k].op, op) && s->colls[k].bytes == c->bytes && s->colls[k].nranks == c->nranks)
                    break;
            if (k == s->ncolls) {
                if (s->ncolls == ccap) {
                    ccap = ccap ? ccap * 2 : 16;
                    s->colls = realloc(s->colls, ccap * sizeof *s->colls);
                }
                memset(&s->colls[k], 0, sizeof s->colls[k]);
                s->colls[k].op = op;
                s->colls[k].bytes = c->bytes;
                s->colls[k].nranks = c->nranks;
                s->ncolls++;
                char name[256];
                if (c->kname)
                    algorithm_of(model_kernel_name(m, p, c->kname, name, sizeof name), s->colls[k].algorithm,
                                 sizeof s->colls[k].algorithm);
            }
            s->colls[k].count++;
            if (c->gend > c->gstart)
                s->colls[k].total_ns += c->gend - c->gstart;
        }
    }
    for (size_t k = 0; k < s->ncolls; k++) {
        struct coll_summary *c = &s->colls[k];
        if (!c->total_ns)
            continue;
        double mean_s = (double)c->total_ns / (double)c->count / 1e9;
        c->algbw_gbs = (double)test_bytes(c->op, c->bytes, c->nranks) / mean_s / 1e9;
        c->busbw_gbs = c->algbw_gbs * bus_factor(c->op, c->nranks);
    }
}

void summary_free(struct summary *s)
{
    free(s->ranks);
    free(s->colls);
    memset(s, 0, sizeof *s);
}
