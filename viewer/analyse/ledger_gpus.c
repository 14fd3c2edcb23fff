/* ledger_gpus.c: the ledgers of a process that drives several GPUs, each
 * GPU's apart (ledger.h): the claims resolved again for each GPU, the
 * findings about one GPU given their own GPU's time, gpu.pipeline_bubble
 * made of one GPU's idle while another worked, and the process's ledger
 * made their sum. */
#include "viewer/analyse/ledger.h"
#include "viewer/analyse/ledger_int.h"
#include "viewer/analyse/findings.h"
#include "viewer/model/steps.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_ival(const void *x, const void *y)
{
    const struct interval *a = x, *b = y;
    return a->a < b->a ? -1 : a->a > b->a ? 1 : (a->b > b->b) - (a->b < b->b);
}

/* v[0, n) sorted and merged where they overlap (several GPUs' parts of
 * one time: a piece of the process's time is given once); the new n. */
static size_t ivals_merge(struct interval *v, size_t n)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_ival);
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (k && v[i].a <= v[k - 1].b) {
            if (v[i].b > v[k - 1].b)
                v[k - 1].b = v[i].b;
        } else {
            v[k++] = v[i];
        }
    }
    return k;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The median of v[0, n) (sorted here; 0 if none). */
static int64_t median(int64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    return v[n / 2];
}

/* What a step could take with the GPUs' stages side by side: of the
 * steady iterations (model_steps_warmup), the median of the busiest GPU's
 * work in each (compute, communication and copies: the ledger's buckets
 * that are not idle), beside the median iteration (facts step_ns,
 * busiest_step_ns; none without iterations).  A bound, not a replay:
 * each GPU keeps its own work, and none waits for another's. */
static void step_bound(const struct ledger *l, struct finding_facts *x)
{
    size_t from = l->nsteps ? model_steps_warmup(l->steps, l->nsteps) : 0, n = l->nsteps - from;
    if (!n)
        return;
    int64_t *now = malloc(n * sizeof *now), *busiest = calloc(n, sizeof *busiest);
    if (!now || !busiest)
        model_out_of_memory();
    for (size_t k = from; k < l->nsteps; k++) {
        now[k - from] = 0;
        for (size_t i = 0; i < l->ngpus; i++) {
            const struct ledger *g = &l->gpus[i];
            if (!g->on || k >= g->nsteps)
                continue;
            int64_t busy = 0;
            for (int b = LB_COMPUTE; b <= LB_COPY; b++)
                model_add(&busy, g->step_ns[k][b]);
            busiest[k - from] = busy > busiest[k - from] ? busy : busiest[k - from];
            now[k - from] = g->step_len[k]; /* (each GPU's: the iteration's time within the life) */
        }
    }
    x->step_ns = median(now, n);
    x->busiest_step_ns = median(busiest, n);
    free(now);
    free(busiest);
}

/* The idle of each of the process's GPUs while another of them worked
 * that no finding claimed (each GPU's `peer`, left so by the split: their
 * claims were the host's, a sync or copy it blocked in, gpu.idle's pace),
 * as gpu.pipeline_bubble: their work waited for each other's (a model
 * split across GPUs, run one stage after the other).  Below IDLE_MIN_NS
 * and 1% of the GPUs' span it is noise: idle no finding claimed.  Placed
 * by the host range that held the most of it. */
void lg_bubble(struct findings *fs, const struct model *m, size_t pi, struct ledger *l)
{
    const struct proc *p = &m->procs[pi];
    int64_t total = 0, blocked = 0, n = 0;
    struct launch_tally *by = NULL; /* its time by the host range it fell in */
    size_t nby = 0, top = 0;
    for (size_t k = 0; k < l->ngpus; k++) {
        const struct ledger *g = &l->gpus[k];
        for (size_t i = 0; i < g->npeer; i++) {
            model_add(&total, g->peer[i].b - g->peer[i].a);
            n++;
            lg_tally_range(&by, &nby, p, g->peer[i].a, g->peer[i].b);
        }
        model_add(&blocked, g->peer_blocked_ns);
    }
    for (size_t q = 0; q < nby; q++)
        top = by[q].ns > by[top].ns ? q : top;
    int label = nby ? by[top].label : -1;
    free(by);
    if (!total)
        return;
    int noise = total < IDLE_MIN_NS && total * 100 < l->span_ns;
    struct finding *f = noise ? NULL : findings_new(fs, m, F_GPU_PIPELINE_BUBBLE, (int)pi, BUBBLE_SITE);
    struct charge c = { 0, 0, (int)pi, (int)pi, BUBBLE_SITE, F_GPU_PIPELINE_BUBBLE, -1, 0 };
    for (size_t k = 0; k < l->ngpus; k++) {
        struct ledger *g = &l->gpus[k];
        int64_t mine = 0;
        size_t cap = g->nrows; /* (rows grow by doubling from any size) */
        c.gpu = (int16_t)(g->device + 1); /* each GPU's pieces its own time */
        for (size_t i = 0; i < g->npeer; i++) {
            c.a = g->peer[i].a;
            c.b = g->peer[i].b;
            model_add(&mine, c.b - c.a);
            lg_add_span(g, noise ? LB_IDLE_OTHER : LB_IDLE_PEER, c.a, c.b);
            if (!noise)
                lg_push_given(&fs->charges, c);
        }
        if (mine)
            lg_add_row(g, &cap, noise ? LB_IDLE_OTHER : LB_IDLE_PEER, noise ? NULL : &c, mine);
        if (f && mine && f->facts.ngpus < FACT_GPUS_MAX)
            f->facts.gpus[f->facts.ngpus++] = (struct finding_gpu){ g->device, mine };
    }
    if (noise)
        return;
    snprintf(f->callsite, sizeof f->callsite, "(whole process)");
    f->facts.has |= FACT_GPUS;
    f->count = n;
    f->gpu_idle_ns = total; /* each GPU's, summed: its pieces are each GPU's time */
    f->cost_ns = total;
    f->host_blocked_ns = blocked < total ? blocked : total; /* (the host's block of the whole of those gaps) */
    f->confidence = "medium";
    f->range = label >= 0 ? label + 1 : 0;
    step_bound(l, &f->facts);
}

/* The process's ledger made the sum of its GPUs': buckets, rows and
 * iterations (each GPU's iteration of the same time). */
void lg_sum_gpus(struct ledger *l, size_t *cap)
{
    memset(l->ns, 0, sizeof l->ns);
    for (size_t k = 0; k < l->nsteps; k++) {
        memset(l->step_ns[k], 0, sizeof l->step_ns[k]);
        l->step_len[k] = 0;
    }
    for (size_t i = 0; i < l->ngpus; i++) {
        const struct ledger *g = &l->gpus[i];
        if (!g->on)
            continue;
        for (int b = 0; b < LB_COUNT; b++)
            model_add(&l->ns[b], g->ns[b]);
        for (size_t r = 0; r < g->nrows; r++) {
            const struct ledger_row *row = &g->rows[r];
            struct charge c = { 0, 0, row->proc, row->proc, row->site, (int8_t)row->kind, -1, 0 };
            lg_note_row(l, cap, row->bucket, row->kind >= 0 ? &c : NULL, row->ns);
        }
        for (size_t k = 0; k < l->nsteps && k < g->nsteps; k++) {
            for (int b = 0; b < LB_COUNT; b++)
                model_add(&l->step_ns[k][b], g->step_ns[k][b]);
            model_add(&l->step_len[k], g->step_len[k]);
        }
    }
}

/* A claim that one GPU of a process is given pieces of: about every GPU,
 * or its own gpu.idle's or gpu.stalled's; not a dropped finding's. */
struct gpu_keep { int device; const struct idmap *dropped; };

static int keep_for_gpu(const struct charge *c, void *arg)
{
    const struct gpu_keep *k = arg;
    int d = charge_device(c);
    int64_t v;
    return (d < 0 || d == (k->device & (CHARGE_DEVICES - 1))) &&
           !idmap_get(k->dropped, finding_key(c->kind, c->proc, c->site), &v);
}

/* Process tl's ledger when it drives several GPUs, else NULL. */
static struct ledger *several(struct findings *fs, int tl)
{
    struct ledger *l = tl >= 0 && (size_t)tl < fs->nledgers ? &fs->ledgers[tl] : NULL;
    return l && l->on && l->ngpus ? l : NULL;
}

/* The findings about one GPU (gpu.idle, gpu.stalled of a process's
 * several) given their GPU's pieces: their cost is their GPU's time, as
 * their claims were (the process's pieces gave one GPU's gpu.idle the
 * time another GPU's claimed first).  The pieces stay grouped by process;
 * what the process's findings account for (by_proc) stays its time. */
void lg_gpus_own(struct findings *fs)
{
    struct charges *c = &fs->charges;
    struct idmap of = { 0 };
    for (size_t i = 0; i < fs->n; i++)
        if ((fs->v[i].facts.has & FACT_DEVICE) && several(fs, fs->v[i].proc)) {
            idmap_put(&of, finding_key(fs->v[i].kind, fs->v[i].proc, fs->v[i].callsite_id), (int64_t)i, 1);
            fs->v[i].cost_ns = 0;
        }
    if (!of.n)
        return;
    size_t extra = 0;
    for (size_t pi = 0; pi < fs->nledgers; pi++)
        for (size_t k = 0; several(fs, (int)pi) && k < fs->ledgers[pi].ngpus; k++)
            extra += fs->ledgers[pi].gpus[k].npieces;
    struct charge *v = malloc((c->ngiven + extra + 1) * sizeof *v);
    if (!v)
        model_out_of_memory();
    size_t n = 0;
    for (size_t i = 0; i <= c->ngiven; i++) {
        const struct ledger *l = i ? several(fs, c->given[i - 1].tl) : NULL;
        if (l && (i == c->ngiven || c->given[i].tl != c->given[i - 1].tl)) /* its pieces done: its GPUs' own */
            for (size_t k = 0; k < l->ngpus; k++)
                for (size_t q = 0; q < l->gpus[k].npieces; q++) {
                    const struct charge *g = &l->gpus[k].pieces[q];
                    int64_t fi;
                    if (charge_device(g) >= 0 && idmap_get(&of, finding_key(g->kind, g->proc, g->site), &fi)) {
                        v[n++] = *g;
                        model_add(&fs->v[fi].cost_ns, g->b - g->a);
                    }
                }
        if (i < c->ngiven) {
            int64_t fi;
            const struct charge *g = &c->given[i];
            if (!(several(fs, g->tl) && charge_device(g) >= 0 && idmap_get(&of, finding_key(g->kind, g->proc, g->site), &fi)))
                v[n++] = *g;
        }
    }
    free(c->given);
    c->given = v;
    c->ngiven = n;
    idmap_free(&of);
}

/* What the findings of a process that drives several GPUs account for
 * (by_proc): the time of the process its pieces cover, each GPU's pieces
 * together (two GPUs' pieces of one time count once). */
void lg_by_proc_union(struct findings *fs)
{
    struct charges *c = &fs->charges;
    for (size_t pi = 0; c->by_proc && pi < c->nprocs; pi++) {
        if (!several(fs, (int)pi))
            continue;
        size_t n = 0;
        for (size_t i = 0; i < c->ngiven; i++)
            n += c->given[i].tl == (int)pi;
        struct interval *u = malloc((n + 1) * sizeof *u);
        if (!u)
            model_out_of_memory();
        n = 0;
        for (size_t i = 0; i < c->ngiven; i++)
            if (c->given[i].tl == (int)pi)
                u[n++] = (struct interval){ c->given[i].a, c->given[i].b };
        n = ivals_merge(u, n);
        c->by_proc[pi] = 0;
        for (size_t k = 0; k < n; k++)
            model_add(&c->by_proc[pi], u[k].b - u[k].a);
        free(u);
    }
}

/* Each GPU's pieces, for the processes that drive several: their claims
 * resolved again, each GPU's apart (the process's pieces gave one GPU's
 * gpu.idle the time another GPU's claimed first). */
void lg_gpu_pieces(struct findings *fs, const struct idmap *dropped)
{
    const struct charges *c = &fs->charges;
    for (size_t i = 0; i < c->n;) {
        size_t j = i; /* one process's claims: sorted by process first */
        while (j < c->n && c->v[j].tl == c->v[i].tl)
            j++;
        size_t pi = (size_t)c->v[i].tl;
        struct ledger *l = pi < fs->nledgers ? &fs->ledgers[pi] : NULL;
        for (size_t k = 0; l && l->on && k < l->ngpus; k++) {
            struct gpu_keep keep = { l->gpus[k].device, dropped };
            charges_resolve_some(c->v + i, j - i, keep_for_gpu, &keep, &l->gpus[k].pieces, &l->gpus[k].npieces);
        }
        i = j;
    }
}
