/* finding_steps.c: how steady each finding's cost is from one iteration
 * to the next.  A single total hides whether a finding costs the same in
 * every step (a sync in the loop) or comes from one bad step (a warm-up,
 * a checkpoint), and a run on a loaded machine moves totals between runs;
 * the spread of the per-iteration cost says which.
 *
 * From the pieces of time charged to each finding (attribution.h: each
 * interval of a rank's time charged once) split at the iterations of the
 * rank they lie on (the ledger's, made disjoint: ledger.h), summed per
 * iteration number over the ranks charged (a straggler's cost lies on the
 * others), then the median and the 10th and 90th percentiles over the
 * iterations where it cost anything. */
#include "viewer/analyse/findings.h"
#include "viewer/analyse/attribution.h"
#include "viewer/analyse/ledger.h"
#include "viewer/model/idmap.h"
#include "viewer/model/model.h"

#include <stdlib.h>
#include <string.h>

/* Time charged to finding `f` within iteration `iter`. */
struct piece { size_t f; int64_t iter, ns; };
struct pieces { struct piece *v; size_t n, cap; };

static void push(struct pieces *p, size_t f, int64_t iter, int64_t ns)
{
    /* a finding's pieces in one iteration often come in a row: summed here */
    if (p->n && p->v[p->n - 1].f == f && p->v[p->n - 1].iter == iter) {
        model_add(&p->v[p->n - 1].ns, ns);
        return;
    }
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 256;
        if (!(p->v = realloc(p->v, p->cap * sizeof *p->v)))
            model_out_of_memory();
    }
    p->v[p->n++] = (struct piece){ f, iter, ns };
}

/* [a, b) of finding f split at the ledger's iterations (disjoint, in time
 * order); what lies outside every iteration is left out. */
static void split_steps(struct pieces *p, const struct ledger *l, size_t f, int64_t a, int64_t b)
{
    for (size_t k = model_step_from(l->steps, l->nsteps, a); k < l->nsteps && l->steps[k].start < b; k++) {
        int64_t s = l->steps[k].start > a ? l->steps[k].start : a;
        int64_t e = l->steps[k].end < b ? l->steps[k].end : b;
        if (e > s)
            push(p, f, l->steps[k].iter, e - s);
    }
}

static int cmp_piece(const void *x, const void *y)
{
    const struct piece *a = x, *b = y;
    if (a->f != b->f)
        return a->f < b->f ? -1 : 1;
    return (a->iter > b->iter) - (a->iter < b->iter);
}

static int cmp_ns(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The q-th quantile (0..1) of v[0, n), sorted: the nearest rank, so that
 * every figure shown is one an iteration had. */
static int64_t quantile(const int64_t *v, size_t n, double q)
{
    size_t k = (size_t)(q * (double)(n - 1) + 0.5);
    return v[k < n ? k : n - 1];
}

/* Finding f's per-iteration costs, v[0, n) in iteration order, summed:
 * its spread set. */
static void settle(struct finding *f, const struct piece *v, size_t n, int64_t *scratch)
{
    size_t k = 0;
    for (size_t i = 0; i < n; k++) {
        int64_t ns = 0;
        size_t j = i;
        for (; j < n && v[j].iter == v[i].iter; j++)
            model_add(&ns, v[j].ns);
        scratch[k] = ns;
        i = j;
    }
    qsort(scratch, k, sizeof *scratch, cmp_ns);
    f->it_costed = (int64_t)k;
    f->it_p10_ns = quantile(scratch, k, 0.1);
    f->it_median_ns = quantile(scratch, k, 0.5);
    f->it_p90_ns = quantile(scratch, k, 0.9);
}

void finding_steps(struct findings *fs, const struct model *m)
{
    struct idmap of = { 0 };
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        f->it_costed = 0;
        /* the iterations it could have cost in: its process's, else the most of any */
        f->it_of = 0;
        for (size_t pi = 0; pi < fs->nledgers && pi < m->nprocs; pi++)
            if (fs->ledgers[pi].on && (f->proc < 0 || (size_t)f->proc == pi) && (int64_t)fs->ledgers[pi].nsteps > f->it_of)
                f->it_of = (int64_t)fs->ledgers[pi].nsteps;
        idmap_put(&of, finding_key(f->kind, f->proc, f->callsite_id), (int64_t)i, 1);
    }
    struct pieces p = { 0 };
    const struct charges *c = &fs->charges;
    for (size_t k = 0; k < c->ngiven; k++) {
        const struct charge *g = &c->given[k];
        int64_t i;
        if (g->tl < 0 || (size_t)g->tl >= fs->nledgers || !fs->ledgers[g->tl].on || !fs->ledgers[g->tl].nsteps ||
            !idmap_get(&of, finding_key(g->kind, g->proc, g->site), &i))
            continue;
        split_steps(&p, &fs->ledgers[g->tl], (size_t)i, g->a, g->b);
    }
    idmap_free(&of);
    if (p.n) {
        qsort(p.v, p.n, sizeof *p.v, cmp_piece);
        int64_t *scratch = malloc(p.n * sizeof *scratch);
        if (!scratch)
            model_out_of_memory();
        for (size_t i = 0; i < p.n;) {
            size_t j = i;
            while (j < p.n && p.v[j].f == p.v[i].f)
                j++;
            settle(&fs->v[p.v[i].f], p.v + i, j - i, scratch);
            i = j;
        }
        free(scratch);
    }
    free(p.v);
}
