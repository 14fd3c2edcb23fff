/* whatif_job.c: the job's steps, every rank replayed together
 * (whatif_joint.h), once every rank is analysed: as measured, with the
 * straggler's extra host time gone (comm.straggler's prediction), with a
 * GPU's idle in a range gone from its host's time there (gpu.idle's), and
 * with every finding fixed (the job's "all fixed").
 *
 * The straggler's fix: its host time outside calls in the range where it
 * spent the most beyond the others (place_straggler's range) cut, per
 * step, to the other ranks' mean there.  gpu.idle's: its rank's host time
 * outside calls in the range its GPU idled in cut by the idle, per step,
 * and so on every rank whose GPU idled in a range of that name (the same
 * code).  A rank's cuts are in its tracked ranges (two), each the largest
 * of its findings' there. */
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/findings.h"
#include "viewer/analyse/whatif_joint.h"

#include <stdlib.h>
#include <string.h>

struct gather {
    const struct model *m;
    const struct findings *fs;
    struct wj_member *mem; size_t nmem, cap;
    struct wj_group *g; size_t ng, gcap;
};

/* A collective every member of which is in the run (as the straggler's
 * analysis takes them): its members, the probe of each its collective's
 * index until the summary it goes with is known. */
static void gather_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct gather *ga = ctx;
    if (n < 2 || n != (size_t)(v[0].nranks > 0 ? v[0].nranks : 0) ||
        (p2p_kind(ga->m, v[0].api) && !model_seq_by_order(v[0].seq)))
        return;
    if (ga->ng == ga->gcap) {
        ga->gcap = ga->gcap ? ga->gcap * 2 : 256;
        if (!(ga->g = realloc(ga->g, ga->gcap * sizeof *ga->g)))
            model_out_of_memory();
    }
    while (ga->nmem + n > ga->cap) {
        ga->cap = ga->cap ? ga->cap * 2 : 1024;
        if (!(ga->mem = realloc(ga->mem, ga->cap * sizeof *ga->mem)))
            model_out_of_memory();
    }
    /* each member's transfer: its measured time less its wait, the time
     * from the last arrival to its own end (on the aligned clock) */
    int64_t order = INT64_MIN, last = INT64_MIN;
    for (size_t k = 0; k < n; k++) {
        const struct coll_rec *c = &v[k];
        int64_t a = model_aligned(ga->m, &ga->m->procs[c->proc], c->gend > c->gstart ? c->gstart : c->start);
        last = a > last ? a : last;
    }
    for (size_t k = 0; k < n; k++) {
        const struct coll_rec *c = &v[k];
        const struct proc *p = &ga->m->procs[c->proc];
        int gpu = c->gend > c->gstart;
        int64_t raw = gpu ? c->gstart : c->start, al = model_aligned(ga->m, p, raw);
        int64_t e = model_aligned(ga->m, p, gpu ? c->gend : c->start);
        int in = (size_t)c->proc < ga->fs->nwhatif && ga->fs->whatif[c->proc].joint;
        ga->mem[ga->nmem + k] = (struct wj_member){ in ? c->proc : -1, in ? c->index : -1, e > last ? e - last : 0,
                                                    al - raw, al };
        order = e > order ? e : order;
    }
    ga->g[ga->ng++] = (struct wj_group){ ga->nmem, n, order };
    ga->nmem += n;
}

/* The members with their probes in variant v's summaries (the probes of
 * each are by replayed start, which differs by variant). */
static struct wj_member *members_of(const struct findings *fs, const struct gather *ga, const int *variant)
{
    size_t np = fs->nwhatif;
    struct idmap *at = calloc(np + 1, sizeof *at);
    struct wj_member *mv = malloc((ga->nmem + 1) * sizeof *mv);
    if (!at || !mv)
        model_out_of_memory();
    struct wj_cache c = { 0 }; /* every rank's in turn: it knows whose probes it holds */
    for (size_t r = 0; r < np; r++) {
        const struct wj_rank *w = fs->whatif[r].joint ? &fs->whatif[r].joint[variant[r]] : NULL;
        for (size_t k = 0; w && k < w->ncoll; k++)
            idmap_put(&at[r], (uint64_t)wj_probe_at(w, &c, k)->coll + 1, (int64_t)k, 0);
    }
    wj_cache_free(&c);
    for (size_t i = 0; i < ga->nmem; i++) {
        mv[i] = ga->mem[i];
        int64_t k;
        if (mv[i].rank >= 0)
            mv[i].probe = idmap_get(&at[mv[i].rank], (uint64_t)mv[i].probe + 1, &k) ? (int32_t)k : -1;
    }
    for (size_t r = 0; r < np; r++)
        idmap_free(&at[r]);
    free(at);
    return mv;
}

/* The mean of the ranks' step times (ns), and their mean step count. */
static double solve_mean(const struct findings *fs, const struct gather *ga, const int *variant, const double *cut,
                         int64_t *steps)
{
    size_t np = fs->nwhatif;
    const struct wj_rank **rv = calloc(np + 1, sizeof *rv);
    double *step = calloc(np + 1, sizeof *step);
    if (!rv || !step)
        model_out_of_memory();
    for (size_t r = 0; r < np; r++)
        rv[r] = fs->whatif[r].joint ? &fs->whatif[r].joint[variant[r]] : NULL;
    struct wj_member *mv = members_of(fs, ga, variant);
    double sum = 0;
    int64_t nsteps = 0;
    size_t n = 0;
    int rc = wj_solve(rv, np, mv, ga->g, ga->ng, cut, step);
    if (rc == 0)
        for (size_t r = 0; r < np; r++)
            if (rv[r] && step[r] > 0) {
                sum += step[r];
                nsteps += rv[r]->steps;
                n++;
            }
    free(mv);
    free(rv);
    free(step);
    *steps = n ? nsteps / (int64_t)n : 0;
    return n ? sum / (double)n : -1;
}

/* A rank's host time a step outside calls in the range named `name`. */
static double gap_per_step(const struct model *m, const struct whatif_proc *w, size_t r, const char *name)
{
    const struct wj_rank *j = &w->joint[0];
    int64_t n = j->gap_steps ? j->gap_steps : j->steps;
    for (size_t i = 0; i < j->ngaps; i++)
        if (!strcmp(model_label(&m->procs[r], j->gaps[i].label), name))
            return n > 0 ? (double)j->gaps[i].ns / (double)n : 0;
    return 0;
}

/* Straggler f's cut: its rank's host time in its range, per step, to the
 * others' mean there; 0 when its range is not one its summary tracks. */
static int straggler_cut(const struct model *m, const struct findings *fs, const struct finding *f, double *cut)
{
    size_t s = (size_t)f->proc;
    if (f->proc < 0 || s >= fs->nwhatif || !fs->whatif[s].joint || f->range <= 0)
        return 0;
    int label = f->range - 1;
    const char *name = model_label(&m->procs[s], label);
    int sl = -1;
    for (int k = 0; k < WJ_LABELS; k++)
        if (fs->whatif[s].joint[0].label[k] == label)
            sl = k;
    if (sl < 0)
        return 0;
    double own = gap_per_step(m, &fs->whatif[s], s, name), others = 0;
    size_t n = 0;
    for (size_t q = 0; q < fs->nwhatif && q < m->nprocs; q++)
        if (q != s && fs->whatif[q].joint) {
            others += gap_per_step(m, &fs->whatif[q], q, name);
            n++;
        }
    if (!n || own <= 0)
        return 0;
    others /= (double)n;
    double c = own > others ? (own - others) / own : 0, *at = &cut[s * WJ_LABELS + (size_t)sl];
    *at = c > *at ? c : *at;
    return 1;
}

/* A GPU idle a step of finding f (0: none known): of its steady steps,
 * as the steps replayed are (a first batch's long load in a warm-up step
 * is no part of them; the step that starts their clock is). */
static double idle_per_step(const struct findings *fs, const struct finding *f)
{
    size_t s = (size_t)f->proc;
    if (f->proc < 0 || s >= fs->nwhatif || !fs->whatif[s].steps)
        return 0;
    return (double)f->gpu_idle_steady_ns / (double)(fs->whatif[s].steps + fs->whatif[s].lead_steps);
}

/* gpu.idle f's cut: its rank's host time outside calls in the range where
 * its GPU idled, per step, less `idle` a step (the host work the GPU
 * waited for, overlapped or gone; none where it idled in warm-up steps
 * alone); 0 when its range is not tracked. */
static int idle_cut(const struct model *m, const struct findings *fs, const struct finding *f, double idle,
                    double *cut)
{
    size_t s = (size_t)f->proc;
    if (f->proc < 0 || s >= fs->nwhatif || !fs->whatif[s].joint || f->range <= 0 || !fs->whatif[s].steps)
        return 0;
    int label = f->range - 1, sl = -1;
    for (int k = 0; k < WJ_LABELS; k++)
        if (fs->whatif[s].joint[0].label[k] == label)
            sl = k;
    if (sl < 0)
        return 0;
    double gap = gap_per_step(m, &fs->whatif[s], s, model_label(&m->procs[s], label));
    if (gap <= 0)
        return 0;
    if (idle <= 0) /* its idle all in warm-up steps: the steady step as it is */
        return 1;
    double c = idle < gap ? idle / gap : 1, *at = &cut[s * WJ_LABELS + (size_t)sl];
    *at = c > *at ? c : *at;
    return 1;
}

/* Whether g is a GPU idle in a range of the name of f's (on any rank). */
static int same_idle(const struct model *m, const struct finding *f, const struct finding *g)
{
    if (g->kind != F_GPU_IDLE || g->range <= 0 || f->range <= 0 || g->proc < 0 || (size_t)g->proc >= m->nprocs)
        return 0;
    return !strcmp(model_label(&m->procs[f->proc], f->range - 1), model_label(&m->procs[g->proc], g->range - 1));
}

/* Finding f's prediction, every rank together, with rank cuts one_cut. */
static int predict(struct findings *fs, const struct gather *ga, const int *variant, const double *one_cut, double now,
                   struct finding *f)
{
    int64_t st;
    double fixed = solve_mean(fs, ga, variant, one_cut, &st);
    if (fixed <= 0)
        return 0;
    f->wi_steps = fs->whatif[f->proc].steps;
    f->wi_now_ns = (int64_t)(now * (double)f->wi_steps);
    f->wi_fixed_ns = (int64_t)(fixed * (double)f->wi_steps);
    return 1;
}

void whatif_job(const struct model *m, struct findings *fs, struct coll_spill *spill)
{
    size_t np = fs->nwhatif, have = 0;
    for (size_t r = 0; r < np; r++)
        have += fs->whatif[r].joint != NULL;
    if (have >= 2 && spill) {
        struct gather ga = { .m = m, .fs = fs };
        coll_spill_groups(spill, gather_group, &ga);
        int *variant = calloc(np + 1, sizeof *variant);
        /* the cuts, a share of each rank's host time in each range it tracks */
        double *cut = calloc(np * WJ_LABELS + 1, sizeof *cut), *one_cut = calloc(np * WJ_LABELS + 1, sizeof *one_cut);
        if (!variant || !cut || !one_cut)
            model_out_of_memory();
        int64_t steps;
        double now = ga.ng ? solve_mean(fs, &ga, variant, NULL, &steps) : -1;
        /* each straggler, then each GPU idle in a range, alone; all of
         * them in "all fixed" */
        int cuts = 0;
        for (int kind = 0; kind < 2 && now > 0; kind++)
            for (size_t i = 0; i < fs->n; i++) {
                struct finding *f = &fs->v[i];
                if (f->kind != (kind ? F_GPU_IDLE : F_COMM_STRAGGLER))
                    continue;
                memset(one_cut, 0, np * WJ_LABELS * sizeof *one_cut);
                /* a range's code is every rank's: its fix (a loader that
                 * keeps ahead) cuts the idle on every rank it is found on,
                 * not this rank's alone, whose collectives would still
                 * wait for the others; each by the largest idle a step
                 * among them, as a rank whose GPU sat in a collective
                 * waiting for another's load shows less idle than its own
                 * host's wait (2 ranks: 1.0 ms a step against 3.0) */
                double idle = 0;
                for (size_t k = 0; kind && k < fs->n; k++)
                    if (k == i || same_idle(m, f, &fs->v[k]))
                        idle = idle_per_step(fs, &fs->v[k]) > idle ? idle_per_step(fs, &fs->v[k]) : idle;
                int ok = kind ? idle_cut(m, fs, f, idle, one_cut) : straggler_cut(m, fs, f, one_cut);
                for (size_t k = 0; ok && kind && k < fs->n; k++)
                    if (k != i && same_idle(m, f, &fs->v[k]))
                        idle_cut(m, fs, &fs->v[k], idle, one_cut);
                if (ok && predict(fs, &ga, variant, one_cut, now, f)) {
                    cuts++;
                    for (size_t k = 0; k < np * WJ_LABELS; k++)
                        cut[k] = one_cut[k] > cut[k] ? one_cut[k] : cut[k];
                }
            }
        free(one_cut);
        for (size_t r = 0; r < np; r++) /* every rank's own fixes, its collectives moved where that is a finding */
            variant[r] = fs->whatif[r].comm_found ? 2 : 1;
        int64_t st;
        double all = now > 0 ? solve_mean(fs, &ga, variant, cuts ? cut : NULL, &st) : -1;
        if (now > 0 && all > 0)
            fs->wjob = (struct whatif_job){ 1, steps, now, all };
        free(variant);
        free(cut);
        free(ga.mem);
        free(ga.g);
    }
    for (size_t r = 0; r < np; r++) {
        if (!fs->whatif[r].joint)
            continue;
        for (int v = 0; v < 3; v++)
            wj_rank_free(&fs->whatif[r].joint[v]);
        free(fs->whatif[r].joint);
        fs->whatif[r].joint = NULL;
    }
}
