/* findings.c: the store of findings: aggregation per call site, the
 * repetition rules, ranking by cost.  The analyses that fill it run as
 * passes (passes.c). */
#define _GNU_SOURCE
#include "viewer/analyse/findings.h"
#include "viewer/analyse/slowdown.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const finding_names[F_KIND_COUNT] = {
#define X(id, name, cost) [F_##id] = name,
    FINDING_KINDS(X)
#undef X
};

const enum cost_field finding_cost_field[F_KIND_COUNT] = {
#define X(id, name, cost) [F_##id] = COST_##cost,
    FINDING_KINDS(X)
#undef X
};

void report_opts_default(struct report_opts *o)
{
    o->exposed_fraction = 0.2;
    o->idle_gap_ns = 100000;
    o->scalar_bytes = 1024;
    o->implicit_min_ns = 20000;
    o->min_repeats = 2;
    o->straggler_fraction = 0.5;
    o->straggler_margin_ns = 2000000;
    o->straggler_clear_fraction = 0.15;
    o->exposed_share = 0.25;
    o->pageable_min_bytes = 1 << 20;
    o->min_cost_ms = -1;
}

static void note_range(struct finding *f, const struct proc *p, int r)
{
    if (r < 0) {
        f->unranged++;
        return;
    }
    const struct nvtx *n = &p->ranges[r];
    int k;
    for (k = 0; k < FINDING_RANGES && f->ranges[k].hits && f->ranges[k].name != n->name; k++)
        ;
    if (k == FINDING_RANGES)
        return; /* a fifth range: rare, and the first four say enough */
    struct range_hit *h = &f->ranges[k];
    if (!h->hits) {
        h->name = n->name;
        h->iter_min = h->iter_max = n->iter;
    } else if (n->iter >= 0) {
        if (h->iter_min < 0 || n->iter < h->iter_min)
            h->iter_min = n->iter;
        if (n->iter > h->iter_max)
            h->iter_max = n->iter;
    }
    h->hits++;
}

struct finding *findings_at(struct findings *fs, const struct model *m, enum finding_kind kind, int proc, int site,
                            int tid, int64_t t)
{
    struct proc *p = &m->procs[proc];
    int r = model_range_at(p, tid, t);
    site = model_site_shown(m, p, site); /* one finding per line shown, whatever the stacks behind it */
    if (fs->range_filter && !model_range_within(p, r, fs->range_filter))
        return NULL;
    struct finding *f = NULL;
    for (size_t i = 0; i < fs->n && !f; i++)
        if (fs->v[i].kind == kind && fs->v[i].proc == proc && fs->v[i].callsite_id == site)
            f = &fs->v[i];
    if (!f)
        f = findings_new(fs, m, kind, proc, site);
    note_range(f, p, r);
    finding_mark(f, proc, tid, t);
    return f;
}

struct finding *findings_find(struct findings *fs, const struct model *m, enum finding_kind kind, int proc, int site)
{
    site = model_site_shown(m, &m->procs[proc], site);
    for (size_t i = 0; i < fs->n; i++)
        if (fs->v[i].kind == kind && fs->v[i].proc == proc && fs->v[i].callsite_id == site)
            return &fs->v[i];
    return NULL;
}

struct finding *findings_new(struct findings *fs, const struct model *m, enum finding_kind kind, int proc, int callsite_id)
{
    if (fs->n == fs->cap) {
        fs->cap = fs->cap ? fs->cap * 2 : 32;
        fs->v = realloc(fs->v, fs->cap * sizeof *fs->v);
        if (!fs->v) {
            fprintf(stderr, "gputrace-report: out of memory\n");
            exit(1);
        }
    }
    struct finding *f = &fs->v[fs->n++];
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->proc = proc;
    f->rank = proc >= 0 ? m->procs[proc].rank : -1;
    f->callsite_id = callsite_id;
    f->confidence = "high";
    f->iter_first = f->iter_last = -1;
    if (proc >= 0 && callsite_id > 0)
        model_callsite(m, &m->procs[proc], callsite_id, f->callsite, sizeof f->callsite);
    return f;
}

int finding_from_torch(const struct model *m, const struct finding *f)
{
    if (f->proc < 0 || f->callsite_id <= 0)
        return 0;
    char stack[8192];
    const char *s = model_pystack(m, &m->procs[f->proc], f->callsite_id, stack, sizeof stack);
    /* a frame of an installed package whose path names torch
     * (site-packages/torch/distributed/..., its stand-in in the tests) */
    for (const char *line = s; line && *line;) {
        const char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if ((memmem(line, n, "site-packages/", 14) || memmem(line, n, "dist-packages/", 14)) && memmem(line, n, "torch", 5))
            return 1;
        line = end ? end + 1 : NULL;
    }
    return 0;
}

int64_t finding_cost(const struct finding *f)
{
    return f->cost_ns;
}

int64_t finding_measured(const struct finding *f)
{
    switch (finding_cost_field[f->kind]) {
    case COST_host_blocked: return f->host_blocked_ns;
    case COST_gpu_idle: return f->gpu_idle_ns;
    case COST_exposed: return f->exposed_ns;
    case COST_wait: return f->wait_ns;
    }
    return 0;
}

static int needs_repeats(enum finding_kind k)
{
    return k == F_SYNC_SCALAR_READ || k == F_SYNC_IMPLICIT;
}

static int cmp_cost(const void *a, const void *b)
{
    const struct finding *x = a, *y = b;
    /* the GPU time lost first (the ledger's waste), then all it was charged */
    if (x->waste_ns != y->waste_ns)
        return x->waste_ns > y->waste_ns ? -1 : 1;
    int64_t cx = finding_cost(x), cy = finding_cost(y);
    if (cx != cy)
        return cx > cy ? -1 : 1;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->rank != y->rank)
        return x->rank < y->rank ? -1 : 1;
    /* the same order whatever order the analyses found them in */
    if (x->proc != y->proc)
        return x->proc < y->proc ? -1 : 1;
    return x->callsite_id < y->callsite_id ? -1 : x->callsite_id > y->callsite_id;
}

/* The range most occurrences were in, if most were in one. */
static void name_range(struct finding *f)
{
    if (f->proc < 0)
        return;
    const struct range_hit *best = NULL;
    for (int i = 0; i < FINDING_RANGES && f->ranges[i].hits; i++)
        if (!best || f->ranges[i].hits > best->hits)
            best = &f->ranges[i];
    if (!best || best->hits < f->unranged)
        return;
    f->range = best->name + 1;
    f->iter_first = best->iter_min;
    f->iter_last = best->iter_max;
}

int finding_kept(const struct finding *f, const struct report_opts *o)
{
    return f->count > 0 && !(needs_repeats(f->kind) && f->count < o->min_repeats);
}

int finding_shown(const struct finding *f)
{
    return !f->below_min_cost;
}

int64_t findings_min_cost_default(const struct model *m)
{
    int64_t life = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].end - m->procs[i].start > life)
            life = m->procs[i].end - m->procs[i].start;
    return life / 200 < 1000000 ? life / 200 : 1000000;
}

/* --min-cost: a floor under what is worth reading first; what a hang or a
 * mismatch cost says nothing of whether it matters (the run is wrong). */
static void mark_min_cost(struct findings *fs, const struct report_opts *o, const struct model *m)
{
    fs->min_cost_ns = o->min_cost_ms >= 0 ? (int64_t)(o->min_cost_ms * 1e6) : findings_min_cost_default(m);
    fs->below_min_cost = 0;
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        f->below_min_cost = f->kind != F_COMM_HANG && f->kind != F_COMM_MISMATCH && finding_cost(f) < fs->min_cost_ns;
        fs->below_min_cost += (size_t)f->below_min_cost;
        /* "0.00 ms" is no cost to be sure of: a finding that saves nothing
         * measurable is not one to read as certain */
        if (finding_cost(f) < 5000 && f->confidence && !strcmp(f->confidence, "high") && f->kind != F_COMM_HANG &&
            f->kind != F_COMM_MISMATCH)
            f->confidence = "medium";
    }
}

void findings_finish(struct findings *fs, const struct report_opts *o, const struct model *m)
{
    size_t k = 0;
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        if (!finding_kept(f, o))
            continue;
        name_range(f);
        fs->v[k++] = *f;
    }
    fs->n = k;
    if (fs->n)
        qsort(fs->v, fs->n, sizeof *fs->v, cmp_cost);
    mark_min_cost(fs, o, m);
}

/* Whether two findings' ranges have the same name (their processes' labels differ). */
static int same_range(const struct model *m, const struct finding *a, const struct finding *b)
{
    const char *x = a->range > 0 && a->proc >= 0 ? model_label(&m->procs[a->proc], a->range - 1) : "";
    const char *y = b->range > 0 && b->proc >= 0 ? model_label(&m->procs[b->proc], b->range - 1) : "";
    return !strcmp(x ? x : "", y ? y : "");
}

size_t findings_group(const struct model *m, const struct findings *fs, int *group)
{
    size_t groups = 0;
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        group[i] = -1;
        if (!finding_shown(f))
            continue; /* in no group: not shown */
        for (size_t j = 0; j < i && group[i] < 0; j++) {
            const struct finding *g = &fs->v[j];
            if (group[j] == (int)j && g->kind == f->kind && g->rank >= 0 && f->rank >= 0 &&
                !strcmp(g->callsite, f->callsite) && same_range(m, g, f))
                group[i] = (int)j;
        }
        if (group[i] < 0) {
            group[i] = (int)i;
            groups++;
        }
    }
    return groups;
}

void findings_drop(struct findings *fs, int proc, enum finding_kind first, enum finding_kind last)
{
    size_t k = 0;
    for (size_t i = 0; i < fs->n; i++)
        if (fs->v[i].proc != proc || fs->v[i].kind < first || fs->v[i].kind > last)
            fs->v[k++] = fs->v[i];
    fs->n = k;
    charges_drop(fs, proc, (int)first, (int)last);
}

int findings_range_known(const struct model *m, const char *name)
{
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        const struct proc *p = &m->procs[pi];
        for (size_t r = 0; r < p->nuser_ranges; r++)
            if (!strcmp(model_label(p, p->ranges[r].name), name))
                return 1;
    }
    return 0;
}

void findings_free(struct findings *fs)
{
    free(fs->v);
    charges_free(&fs->charges);
    ledgers_free(fs);
    free(fs->whatif);
    free(fs->wsites);
    slowdown_free(fs->slowdown);
    memset(fs, 0, sizeof *fs);
}

void finding_add_rank(struct finding_facts *x, int rank)
{
    x->has |= FACT_RANKS;
    if (x->nranks < FACT_RANKS_MAX)
        x->ranks[x->nranks] = rank;
    x->nranks++;
}

void finding_add_stop(struct finding_facts *x, int rank, int at)
{
    x->has |= FACT_STOPS;
    if (x->nstops < FACT_STOPS_MAX)
        x->stops[x->nstops++] = (struct finding_stop){ rank, at };
}
