/* straggler_place.c: where a straggler's time went (docs/report.md,
 * comm.straggler): over the stretches before the collectives it was
 * clearly last to (each rank's own, from its arrival at the communicator's
 * previous collective), the NVTX range in which it spent the most time
 * beyond the other ranks' mean, and how much of that was in traced calls
 * (at which call site) or outside them (host work the trace does not see).
 * The same for one rank across a moment (range_growth): where its steps'
 * time grew when a slowdown began (slowdown.c). */
#include "viewer/analyse/findings.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Per process, while its calls are loaded: the time of its calls inside
 * each user range (innermost, on the call's thread), and at each call site
 * as shown. */
struct host_time { int64_t *in_range; size_t nranges; int64_t *at_site; int nsites; };

void note_host_time(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!fs->host_times && !(fs->host_times = calloc(m->nprocs + 1, sizeof *fs->host_times)))
        model_out_of_memory();
    struct host_time *h = &fs->host_times[pi];
    if (!h->in_range && p->nuser_ranges && !(h->in_range = calloc(p->nuser_ranges, sizeof *h->in_range)))
        model_out_of_memory();
    h->nranges = p->nuser_ranges;
    if (!h->at_site && p->nsites && !(h->at_site = calloc((size_t)p->nsites, sizeof *h->at_site)))
        model_out_of_memory();
    h->nsites = p->nsites;
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        int64_t d = c->end - c->start;
        int r = h->nranges ? model_range_at(p, c->tid, c->start) : -1;
        if (r >= 0 && (size_t)r < h->nranges)
            model_add(&h->in_range[r], d);
        if (c->site > 0 && c->site < h->nsites)
            model_add(&h->at_site[model_site_shown(m, (struct proc *)p, c->site)], d);
    }
}

void host_times_take(struct findings *fs, struct findings *from, size_t pi, size_t nprocs)
{
    if (!from->host_times)
        return;
    if (!fs->host_times && !(fs->host_times = calloc(nprocs + 1, sizeof *fs->host_times)))
        model_out_of_memory();
    fs->host_times[pi] = from->host_times[pi];
    memset(&from->host_times[pi], 0, sizeof from->host_times[pi]);
}

void host_times_free(struct findings *fs, size_t nprocs)
{
    if (!fs->host_times)
        return;
    for (size_t i = 0; i < nprocs; i++) {
        free(fs->host_times[i].in_range);
        free(fs->host_times[i].at_site);
    }
    free(fs->host_times);
    fs->host_times = NULL;
}

/* One range name of one process: exclusive time (its ranges' time less
 * their children's), time in traced calls, iterations. */
struct name_time { const char *name; int label; int64_t excl, calls, iter_min, iter_max; };

static size_t times_by_name(const struct model *m, const struct findings *fs, size_t pi, const struct ivals *win,
                            struct name_time **out)
{
    const struct proc *p = &m->procs[pi];
    size_t n = p->nuser_ranges, k = 0;
    int64_t *excl = calloc(n + 1, sizeof *excl);
    struct name_time *v = calloc(n + 1, sizeof *v);
    if (!excl || !v)
        model_out_of_memory();
    int64_t *within = calloc(n + 1, sizeof *within); /* each range's time inside the windows */
    if (!within)
        model_out_of_memory();
    for (size_t r = 0; r < n; r++) {
        const struct nvtx *x = &p->ranges[r];
        within[r] = win ? ivals_cover(win, x->start, x->end) : x->end - x->start;
        model_add(&excl[r], within[r]);
        if (x->parent >= 0 && (size_t)x->parent < n)
            model_add(&excl[x->parent], -within[r]);
    }
    const struct host_time *h = fs->host_times ? &fs->host_times[pi] : NULL;
    for (size_t r = 0; r < n; r++) {
        const char *name = model_label(p, p->ranges[r].name);
        size_t j;
        for (j = 0; j < k && strcmp(v[j].name, name); j++)
            ;
        if (j == k)
            v[k++] = (struct name_time){ name, p->ranges[r].name, 0, 0, -1, -1 };
        model_add(&v[j].excl, excl[r]);
        int64_t dur = p->ranges[r].end - p->ranges[r].start;
        if (h && r < h->nranges && dur > 0) { /* the calls' time, in the share of the range inside the windows */
            double share = (double)h->in_range[r] * ((double)within[r] / (double)dur);
            model_add(&v[j].calls, share < 9e18 ? (int64_t)share : INT64_MAX); /* a saturated sum stays in range */
        }
        if (!within[r])
            continue; /* its iterations are those of the windows */
        int64_t it = p->ranges[r].iter;
        if (it >= 0 && (v[j].iter_min < 0 || it < v[j].iter_min))
            v[j].iter_min = it;
        if (it > v[j].iter_max)
            v[j].iter_max = it;
    }
    free(excl);
    free(within);
    *out = v;
    return k;
}

/* The others' mean of what `get` reads of range name `name` (ranks
 * without that range count as 0). */
static double others_mean(struct name_time **all, const size_t *nall, size_t np, size_t skip, const char *name,
                          int calls)
{
    double sum = 0;
    size_t others = 0;
    for (size_t q = 0; q < np; q++) {
        if (q == skip)
            continue;
        others++;
        for (size_t j = 0; j < nall[q]; j++)
            if (!strcmp(all[q][j].name, name))
                sum += (double)(calls ? all[q][j].calls : all[q][j].excl);
    }
    return others ? sum / (double)others : 0;
}

/* The call site (as shown) of process pi with the most call time beyond
 * the others' mean at the same line: its id into *site (0: none), the
 * excess out. */
static double site_excess(const struct model *m, const struct findings *fs, size_t pi, int *site)
{
    const struct host_time *h = &fs->host_times[pi];
    double best = 0;
    char t[2048], u[2048];
    *site = 0;
    for (int s = 1; s < h->nsites; s++) {
        if (!h->at_site[s])
            continue;
        model_callsite(m, &m->procs[pi], s, t, sizeof t);
        double sum = 0;
        size_t others = 0;
        for (size_t q = 0; q < m->nprocs; q++) {
            if (q == pi)
                continue;
            others++;
            const struct host_time *o = &fs->host_times[q];
            for (int z = 1; z < o->nsites; z++)
                if (o->at_site[z] && !strcmp(model_callsite(m, &m->procs[q], z, u, sizeof u), t))
                    sum += (double)o->at_site[z];
        }
        double ex = (double)h->at_site[s] - (others ? sum / (double)others : 0);
        if (ex > best) {
            best = ex;
            *site = s;
        }
    }
    return best;
}

void place_straggler(const struct model *m, struct findings *fs, size_t fi, size_t pi, const struct ivals *wins,
                     int64_t late)
{
    if (!fs->host_times || m->nprocs < 2)
        return;
    size_t np = m->nprocs;
    struct name_time **all = calloc(np, sizeof *all);
    size_t *nall = calloc(np, sizeof *nall);
    if (!all || !nall)
        model_out_of_memory();
    for (size_t q = 0; q < np; q++)
        nall[q] = times_by_name(m, fs, q, wins ? &wins[q] : NULL, &all[q]);
    /* the range where it spent the most beyond the others */
    double best = 0;
    size_t bj = 0;
    for (size_t j = 0; j < nall[pi]; j++) {
        double ex = (double)all[pi][j].excl - others_mean(all, nall, np, pi, all[pi][j].name, 0);
        if (ex > best) {
            best = ex;
            bj = j;
        }
    }
    struct finding *f = &fs->v[fi];
    if (best > 0) {
        const struct name_time *b = &all[pi][bj];
        double in_calls = (double)b->calls - others_mean(all, nall, np, pi, b->name, 1);
        f->range = b->label + 1;
        f->iter_first = b->iter_min;
        f->iter_last = b->iter_max;
        f->facts.placed = 1;
        f->facts.late = late;
        f->facts.excess = best;
        f->facts.in_calls = in_calls;
        f->facts.at_site = site_excess(m, fs, pi, &f->facts.site);
    }
    for (size_t q = 0; q < np; q++)
        free(all[q]);
    free(all);
    free(nall);
}

/* A range name's time in v[0, n), 0 if absent. */
static const struct name_time *named(const struct name_time *v, size_t n, const char *name)
{
    for (size_t j = 0; j < n; j++)
        if (!strcmp(v[j].name, name))
            return &v[j];
    return NULL;
}

void range_growth(const struct model *m, const struct findings *fs, size_t pi, const struct ivals *was, int64_t nwas,
                  const struct ivals *now, int64_t nnow, struct range_growth *g)
{
    memset(g, 0, sizeof *g);
    g->label = -1;
    if (nwas <= 0 || nnow <= 0)
        return;
    int64_t before = nwas, after = nnow;
    struct name_time *va, *vb;
    size_t na = times_by_name(m, fs, pi, was, &va), nb = times_by_name(m, fs, pi, now, &vb);
    double best = 0;
    for (size_t j = 0; j < nb; j++) {
        const struct name_time *x = named(va, na, vb[j].name);
        double a = (double)vb[j].excl / (double)after, b = x ? (double)x->excl / (double)before : 0;
        if (a - b > best) {
            best = a - b;
            *g = (struct range_growth){ vb[j].label, b, a, x ? (double)x->calls / (double)before : 0,
                                        (double)vb[j].calls / (double)after };
        }
    }
    free(va);
    free(vb);
}
