/* order_match.c: collectives matched across ranks by kernel order, checked
 * before any analysis across ranks uses them (order_match.h; the rule is
 * in docs/report.md, "Collectives matched by kernel order"). */
#include "viewer/analyse/order_match.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kernels of the same kind whose ends may differ across ranks, on one
 * host, before they count as not having run together: what the GPUs'
 * timestamps put between them.  On several hosts, the straggler margin
 * (what the clock alignment may leave). */
#define ONE_HOST_SLACK_NS 50000

/* A group (k-th kernels of one kind) counts as apart when that many of
 * its kind's groups or fewer are apart: none, up to 49 groups. */
#define APART_SHARE 0.02

struct checking {
    struct model *m;
    struct order_match *r;
    int64_t slack;
};

/* Operations whose every rank's result needs every rank's data: no
 * rank's kernel can end before the last rank's began. */
static int gathers(const struct model *m, int api)
{
    static const char *const names[] = { "ncclAllReduce", "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll" };
    const char *n = model_api_name(m, api);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(n, names[i]))
            return 1;
    return 0;
}

static struct order_kind *kind_of(struct checking *c, const struct coll_rec *v)
{
    struct order_match *r = c->r;
    if (r->nkinds && r->kinds[r->nkinds - 1].comm == v->comm) /* groups come by communicator */
        return &r->kinds[r->nkinds - 1];
    if (r->nkinds == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        if (!(r->kinds = realloc(r->kinds, r->cap * sizeof *r->kinds)))
            model_out_of_memory();
    }
    struct order_kind *k = &r->kinds[r->nkinds++];
    memset(k, 0, sizeof *k);
    k->comm = v->comm;
    if (!(k->count = calloc(c->m->nprocs + 1, sizeof *k->count)))
        model_out_of_memory();
    const char *name = v->kname ? model_kernel_name(&c->m->procs[v->proc], v->kname) : NULL;
    if (!name || !*name)
        name = model_api_name(c->m, v->api);
    snprintf(k->name, sizeof k->name, "%.*s", (int)strcspn(name, "("), name);
    return k;
}

static void group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct checking *c = ctx;
    if (!model_seq_by_order(v[0].seq))
        return;
    struct order_kind *k = kind_of(c, v);
    k->groups++;
    k->colls += (int64_t)n;
    int timed = gathers(c->m, v[0].api), other = 0;
    int64_t last_start = INT64_MIN, first_end = INT64_MAX;
    for (size_t i = 0; i < n; i++) {
        const struct proc *p = &c->m->procs[v[i].proc];
        k->count[v[i].proc]++;
        other |= v[i].api != v[0].api;
        if (v[i].gend <= v[i].gstart) { /* no kernel time: nothing to compare */
            timed = 0;
            continue;
        }
        int64_t s = model_aligned(c->m, p, v[i].gstart), e = model_aligned(c->m, p, v[i].gend);
        last_start = s > last_start ? s : last_start;
        first_end = e < first_end ? e : first_end;
    }
    k->other_op += other;
    if (timed && n > 1 && (double)first_end + (double)c->slack < (double)last_start)
        k->apart++;
}

/* The kind's verdict, its counts per rank compared over the ranks that
 * have any collective matched by order. */
static void judge(struct checking *c, struct order_kind *k, const int *takes_part)
{
    const struct model *m = c->m;
    int lo = -1, hi = -1;
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        if (!takes_part[pi])
            continue;
        if (lo < 0 || k->count[pi] < k->count[lo])
            lo = (int)pi;
        if (hi < 0 || k->count[pi] > k->count[hi])
            hi = (int)pi;
    }
    if (lo >= 0 && k->count[lo] != k->count[hi]) {
        k->refused = 1;
        snprintf(k->why, sizeof k->why, "not as many on every rank (rank %d ran %lld, rank %d %lld)",
                 m->procs[hi].rank, (long long)k->count[hi], m->procs[lo].rank, (long long)k->count[lo]);
    } else if (k->other_op) {
        k->refused = 1;
        snprintf(k->why, sizeof k->why, "%lld of %lld matched groups ran different operations",
                 (long long)k->other_op, (long long)k->groups);
    } else if ((double)k->apart > APART_SHARE * (double)k->groups) {
        k->refused = 1;
        snprintf(k->why, sizeof k->why, "in %lld of %lld matched groups a rank's kernel ended before another's began",
                 (long long)k->apart, (long long)k->groups);
    }
}

void order_match_check(struct model *m, const struct report_opts *o, struct coll_spill *spill)
{
    order_match_free(m);
    struct order_match *r = calloc(1, sizeof *r);
    int *takes_part = calloc(m->nprocs + 1, sizeof *takes_part);
    if (!r || !takes_part)
        model_out_of_memory();
    struct checking c = { m, r, ONE_HOST_SLACK_NS };
    for (size_t pi = 1; pi < m->nprocs; pi++)
        if (!model_same_host(&m->procs[pi], &m->procs[0]))
            c.slack = o->straggler_margin_ns;
    coll_spill_groups(spill, group, &c);
    if (!r->nkinds) {
        free(r);
        free(takes_part);
        return;
    }
    for (size_t i = 0; i < r->nkinds; i++)
        for (size_t pi = 0; pi < m->nprocs; pi++)
            takes_part[pi] |= r->kinds[i].count[pi] > 0;
    for (size_t pi = 0; pi < m->nprocs; pi++)
        r->ranks += takes_part[pi];
    if (!(r->skip = calloc(r->nkinds, sizeof *r->skip)))
        model_out_of_memory();
    for (size_t i = 0; i < r->nkinds; i++) {
        struct order_kind *k = &r->kinds[i];
        judge(&c, k, takes_part);
        if (k->refused) {
            r->skip[r->nskip++] = k->comm; /* in the order groups came: sorted */
            r->refused += k->colls;
        } else {
            r->matched += k->colls;
        }
        free(k->count);
        k->count = NULL;
    }
    free(takes_part);
    m->order = r;
    spill->skip = r->skip;
    spill->nskip = r->nskip;
}

void order_match_free(struct model *m)
{
    struct order_match *r = m->order;
    if (!r)
        return;
    for (size_t i = 0; i < r->nkinds; i++)
        free(r->kinds[i].count);
    free(r->kinds);
    free(r->skip);
    free(r);
    m->order = NULL;
}
