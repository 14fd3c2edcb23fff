/* analysis_comm.c: collectives within a rank (comm.exposed,
 * comm.same_stream) and across ranks, matched by (communicator, sequence):
 * comm.straggler, comm.mismatch, comm.hang. */
#include "viewer/findings.h"
#include "viewer/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Collectives (with a GPU time) per call site of a process. */
static int64_t collectives_at(const struct proc *p, int site)
{
    int64_t n = 0;
    for (size_t i = 0; i < p->ncolls; i++)
        n += p->colls[i].site && p->sites[p->colls[i].site].shown == site && p->colls[i].gend > p->colls[i].gstart;
    return n;
}

void analyse_comm(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    struct timeline *t = model_timeline(m, pi);
    for (size_t i = 0; i < p->ncolls; i++) {
        const struct coll *c = &p->colls[i];
        if (c->gend <= c->gstart || c->gstream < 0)
            continue;
        /* overlap as HTA computes it: merged compute intervals on the
         * device's other streams, intersected with the collective */
        int64_t dur = c->gend - c->gstart;
        int64_t ov = ivals_cover(timeline_compute_except(t, c->gstream), c->gstart, c->gend);
        if ((double)ov < o->exposed_fraction * (double)dur) {
            struct finding *f = findings_at(fs, m, F_COMM_EXPOSED, (int)pi, c->site, -1, c->start);
            if (f) {
                f->count++;
                model_add(&f->exposed_ns, dur - ov);
            }
        }
        if (timeline_stream_computes(t, c->gstream)) {
            struct finding *f = findings_at(fs, m, F_COMM_SAME_STREAM, (int)pi, c->site, -1, c->start);
            if (f) {
                f->count++;
                model_add(&f->exposed_ns, dur - ov);
            }
        }
    }
}

/* Exposed-collective findings of the whole run, now that each call site's
 * count is known. */
static void exposed_share(const struct model *m, const struct report_opts *o, struct findings *fs)
{
    /* a call site whose collectives are exposed only now and then (the
     * first one, waiting for the ranks to start; a rank briefly behind) is
     * not a pattern to fix */
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        if (f->kind == F_COMM_EXPOSED &&
            (double)f->count < o->exposed_share * (double)collectives_at(&m->procs[f->proc], f->callsite_id))
            f->count = 0;
    }
}

/* ---- across ranks ---------------------------------------------------------- */

struct member { const struct coll *c; int proc; };
struct group { int64_t comm, seq; struct member *v; int n, cap; int nranks; };

struct keyed { int64_t comm, seq; const struct coll *c; int proc; };

static int cmp_keyed(const void *a, const void *b)
{
    const struct keyed *x = a, *y = b;
    if (x->comm != y->comm)
        return x->comm < y->comm ? -1 : 1;
    if (x->seq != y->seq)
        return x->seq < y->seq ? -1 : 1;
    return x->proc - y->proc;
}

/* Groups every collective of the run by (comm, seq). */
static struct group *group_collectives(const struct model *m, size_t *ngroups)
{
    size_t total = 0, k = 0, n = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++)
        total += m->procs[pi].ncolls;
    struct keyed *all = malloc((total + 1) * sizeof *all);
    for (size_t pi = 0; pi < m->nprocs; pi++)
        for (size_t i = 0; i < m->procs[pi].ncolls; i++) {
            const struct coll *c = &m->procs[pi].colls[i];
            all[k++] = (struct keyed){ c->comm, c->seq, c, (int)pi };
        }
    qsort(all, k, sizeof *all, cmp_keyed);
    struct group *g = calloc(k + 1, sizeof *g);
    for (size_t i = 0; i < k; i++) {
        if (!n || g[n - 1].comm != all[i].comm || g[n - 1].seq != all[i].seq) {
            g[n].comm = all[i].comm;
            g[n].seq = all[i].seq;
            g[n].nranks = all[i].c->nranks;
            n++;
        }
        struct group *gr = &g[n - 1];
        if (gr->n == gr->cap) {
            gr->cap = gr->cap ? gr->cap * 2 : 8;
            gr->v = realloc(gr->v, (size_t)gr->cap * sizeof *gr->v);
        }
        gr->v[gr->n++] = (struct member){ all[i].c, all[i].proc };
    }
    free(all);
    *ngroups = n;
    return g;
}

static int64_t arrival(const struct model *m, const struct member *x)
{
    const struct proc *p = &m->procs[x->proc];
    return model_aligned(m, p, x->c->gend > x->c->gstart ? x->c->gstart : x->c->start);
}

/* The straggler (docs/report.md): the rank that is clearly last (by more
 * than --straggler-margin-us) in at least --straggler-clear-fraction of
 * the collectives, and that caused more than --straggler-fraction of all
 * the waiting.  "Last most of the time" alone is not enough: after a late
 * start, the remaining collectives of a step are paced by GPU queues rather
 * than by arrivals, and with many ranks someone is always a little last. */
static void stragglers(const struct model *m, const struct report_opts *o, struct findings *fs,
                       struct group *g, size_t ng)
{
    size_t np = m->nprocs;
    int64_t *last_count = calloc(np + 1, sizeof *last_count), *clear = calloc(np + 1, sizeof *clear);
    /* waits are summed as doubles: a file whose ranks' clocks disagree
     * absurdly (a damaged clock offset) must not overflow them */
    double *waits = calloc(np + 1, sizeof *waits), total_wait = 0;
    int64_t full = 0;
    for (size_t i = 0; i < ng; i++) {
        if (g[i].n < 2 || g[i].n != g[i].nranks)
            continue;
        full++;
        int64_t latest = INT64_MIN, second = INT64_MIN;
        int who = -1;
        for (int k = 0; k < g[i].n; k++) {
            int64_t a = arrival(m, &g[i].v[k]);
            if (a > latest) {
                second = latest;
                latest = a;
                who = g[i].v[k].proc;
            } else if (a > second) {
                second = a;
            }
        }
        last_count[who]++;
        if ((double)latest - (double)second >= (double)o->straggler_margin_ns)
            clear[who]++;
        for (int k = 0; k < g[i].n; k++) {
            double w = (double)latest - (double)arrival(m, &g[i].v[k]);
            waits[who] += w;
            total_wait += w;
        }
    }
    for (size_t pi = 0; pi < np; pi++) {
        if (!full || (double)clear[pi] < o->straggler_clear_fraction * (double)full ||
            waits[pi] <= o->straggler_fraction * total_wait)
            continue;
        struct finding *f = findings_new(fs, m, F_COMM_STRAGGLER, (int)pi, 0);
        f->count = last_count[pi];
        f->wait_ns = waits[pi] < 9e18 ? (int64_t)waits[pi] : INT64_MAX;
        snprintf(f->callsite, sizeof f->callsite, "(whole process)");
        snprintf(f->extra_json, sizeof f->extra_json,
                 "\"straggler_rank\": %d, \"collectives\": %lld, \"clearly_last\": %lld, \"wait_share\": %.3f",
                 m->procs[pi].rank, (long long)full, (long long)clear[pi],
                 total_wait > 0 ? waits[pi] / total_wait : 0.0);
        snprintf(f->message, sizeof f->message,
                 "rank %d reached %lld of %s last (%lld by more than %.1f ms); the other ranks waited %.2f ms for it",
                 m->procs[pi].rank, (long long)last_count[pi], count_text(full, "collective", "collectives").s, (long long)clear[pi],
                 (double)o->straggler_margin_ns / 1e6, (double)f->wait_ns / 1e6);
        snprintf(f->suggestion, sizeof f->suggestion,
                 "look at what rank %d does before its collectives (data loading, uneven work, a slower GPU or host)",
                 m->procs[pi].rank);
    }
    free(last_count);
    free(clear);
    free(waits);
}

static int same_call(const struct coll *a, const struct coll *b)
{
    return a->api == b->api && a->count == b->count && a->dtype == b->dtype && a->peer == b->peer && a->op == b->op;
}

static void mismatches(const struct model *m, struct findings *fs, struct group *g, size_t ng)
{
    for (size_t i = 0; i < ng; i++) {
        struct group *gr = &g[i];
        if (gr->n < 2 || m->roles[gr->v[0].c->api] != ROLE_NCCL_OP)
            continue;
        if (!strcmp(model_api_name(m, gr->v[0].c->api), "ncclSend") || !strcmp(model_api_name(m, gr->v[0].c->api), "ncclRecv"))
            continue; /* point to point: peers differ by nature */
        /* the majority call */
        int best = 0, best_n = 0;
        for (int a = 0; a < gr->n; a++) {
            int n = 0;
            for (int b = 0; b < gr->n; b++)
                n += same_call(gr->v[a].c, gr->v[b].c);
            if (n > best_n) {
                best_n = n;
                best = a;
            }
        }
        if (best_n == gr->n)
            continue;
        char ranks[256] = "";
        int first_proc = -1;
        for (int b = 0; b < gr->n; b++)
            if (!same_call(gr->v[best].c, gr->v[b].c)) {
                size_t l = strlen(ranks);
                snprintf(ranks + l, sizeof ranks - l, "%s%d", l ? ", " : "", m->procs[gr->v[b].proc].rank);
                if (first_proc < 0)
                    first_proc = gr->v[b].proc;
            }
        struct finding *f = findings_new(fs, m, F_COMM_MISMATCH, -1, 0); /* one per (comm, seq) */
        f->count = 1;
        const struct coll *want = gr->v[best].c, *got = NULL;
        for (int b = 0; b < gr->n; b++)
            if (!same_call(want, gr->v[b].c))
                got = gr->v[b].c;
        f->wait_ns = 0;
        model_callsite(m, &m->procs[first_proc], got->site, f->callsite, sizeof f->callsite);
        snprintf(f->extra_json, sizeof f->extra_json, "\"comm_id\": %lld, \"seq\": %lld, \"ranks\": [%s]",
                 (long long)gr->comm, (long long)gr->seq, ranks);
        snprintf(f->message, sizeof f->message,
                 "collective %lld of communicator %llx: rank(s) %s called %s(count %lld, type %d) where the others called %s(count %lld, type %d)",
                 (long long)gr->seq, (unsigned long long)gr->comm, ranks, model_api_name(m, got->api), (long long)got->count,
                 got->dtype, model_api_name(m, want->api), (long long)want->count, want->dtype);
        snprintf(f->suggestion, sizeof f->suggestion,
                 "the ranks issue different collectives at the same point: look for rank-dependent control flow or shapes");
    }
}

static void hangs(const struct model *m, struct findings *fs, struct group *g, size_t ng)
{
    int ended_badly = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++)
        ended_badly |= !m->procs[pi].has_end || m->procs[pi].has_signal || m->procs[pi].inflight > 0;
    if (!ended_badly)
        return;
    int64_t reported_comm = 0;
    int have_reported = 0;
    for (size_t i = 0; i < ng; i++) {
        struct group *gr = &g[i];
        if (gr->n >= gr->nranks || (have_reported && gr->comm == reported_comm))
            continue;
        /* members: the processes that ever used this communicator */
        char missing[256] = "";
        for (size_t pi = 0; pi < m->nprocs; pi++) {
            int member = 0, entered = 0;
            for (size_t k = 0; k < m->procs[pi].ncolls && !member; k++)
                member = m->procs[pi].colls[k].comm == gr->comm;
            for (int k = 0; k < gr->n; k++)
                entered |= gr->v[k].proc == (int)pi;
            if (member && !entered) {
                size_t l = strlen(missing);
                snprintf(missing + l, sizeof missing - l, "%s%d", l ? ", " : "", m->procs[pi].rank);
            }
        }
        if (!*missing)
            continue;
        struct finding *f = findings_new(fs, m, F_COMM_HANG, -1, 0);
        f->count = 1;
        for (int k = 0; k < gr->n; k++) {
            const struct proc *p = &m->procs[gr->v[k].proc];
            model_add(&f->wait_ns, p->end > gr->v[k].c->start ? p->end - gr->v[k].c->start : 0);
        }
        model_callsite(m, &m->procs[gr->v[0].proc], gr->v[0].c->site, f->callsite, sizeof f->callsite);
        snprintf(f->extra_json, sizeof f->extra_json, "\"comm_id\": %lld, \"seq\": %lld, \"missing_ranks\": [%s]",
                 (long long)gr->comm, (long long)gr->seq, missing);
        snprintf(f->message, sizeof f->message,
                 "the run ended with %d rank(s) waiting in %s (collective %lld of communicator %llx) that rank(s) %s never entered",
                 gr->n, model_api_name(m, gr->v[0].c->api), (long long)gr->seq, (unsigned long long)gr->comm, missing);
        snprintf(f->suggestion, sizeof f->suggestion,
                 "find where rank(s) %s were stuck (their last calls, and the inflight table) before this collective", missing);
        reported_comm = gr->comm;
        have_reported = 1;
    }
}

void analyse_comm_across(const struct model *m, const struct report_opts *o, struct findings *fs)
{
    exposed_share(m, o, fs);
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        if (f->kind == F_COMM_EXPOSED) {
            snprintf(f->message, sizeof f->message, "%s ran less than %.0f%% overlapped by compute: %.2f ms exposed",
                     count_text(f->count, "collective", "collectives").s, o->exposed_fraction * 100, (double)f->exposed_ns / 1e6);
            snprintf(f->suggestion, sizeof f->suggestion, "launch collectives on their own stream as soon as their inputs are ready (bucketed gradients), so that compute hides them");
        } else if (f->kind == F_COMM_SAME_STREAM) {
            snprintf(f->message, sizeof f->message, "%s launched on a stream that also runs compute cannot overlap it",
                     count_text(f->count, "collective", "collectives").s);
            snprintf(f->suggestion, sizeof f->suggestion, "use a separate communication stream, ordered with cudaEventRecord + cudaStreamWaitEvent");
        }
    }
    size_t ng;
    struct group *g = group_collectives(m, &ng);
    stragglers(m, o, fs, g, ng);
    mismatches(m, fs, g, ng);
    hangs(m, fs, g, ng);
    for (size_t i = 0; i < ng; i++)
        free(g[i].v);
    free(g);
}
