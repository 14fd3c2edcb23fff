/* slowdown.c: a slowdown window split at the moment its slow steps began
 * (slowdown.h). */
#include "viewer/analyse/slowdown.h"
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/ledger.h"
#include "viewer/model/steps.h"
#include "viewer/model/timeline.h"

#include <stdlib.h>
#include <string.h>

/* A step that begins this little before the onset is the first slow one:
 * the onset is written to the microsecond (collector/monitor.c). */
#define ONSET_SLACK_NS 500000

/* A rank is named where the others' added wait for it a step is at least
 * this share of what a slow step grew by (most_changed). */
#define EXPLAINS_SHARE 0.5

/* The requesting process: the one whose host and pid the request's name
 * ends with (<ms>-<reason>-<host>-<pid>), among those with a window. */
static int requester(const struct model *m, const struct monitor_window *w)
{
    const char *dash = strrchr(w->request, '-');
    if (!dash)
        return -1;
    long pid = strtol(dash + 1, NULL, 10);
    size_t hlen = 0;
    const char *host = w->request, *r = strstr(w->request, w->reason);
    if (r && r[strlen(w->reason)] == '-') {
        host = r + strlen(w->reason) + 1;
        hlen = (size_t)(dash - host);
    }
    for (size_t i = 0; i < m->nwindows; i++) {
        const struct proc *p = &m->procs[m->windows[i].proc];
        if (p->pid == pid && (!hlen || (strlen(p->host) == hlen && !strncmp(p->host, host, hlen))))
            return m->windows[i].proc;
    }
    return -1;
}

static int cmp_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

static int64_t median(int64_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, cmp_i64);
    return v[n / 2];
}

/* Whether a step of process p is of the slow ones: it began at the onset
 * or after it (on the aligned clock, each host's fit applied). */
static int slow_step(const struct model *m, const struct proc *p, const struct slowdown_split *s,
                     const struct model_step *st)
{
    return model_aligned(m, p, st->start) >= s->onset - ONSET_SLACK_NS;
}

/* A rank's steps on either side of the onset. */
static void steps_split(const struct model *m, const struct findings *fs, struct slowdown_split *s,
                        struct slowdown_rank *r)
{
    r->first_slow_iter = -1;
    const struct proc *p = &m->procs[r->proc];
    if ((size_t)r->proc >= fs->nledgers || !fs->ledgers[r->proc].steps_known)
        return;
    const struct ledger *l = &fs->ledgers[r->proc];
    int64_t *len = malloc((l->nsteps + 1) * sizeof *len);
    if (!len)
        model_out_of_memory();
    for (int part = 0; part < 2; part++) {
        size_t n = 0;
        for (size_t k = 0; k < l->nsteps; k++) {
            const struct model_step *st = &l->steps[k];
            if (slow_step(m, p, s, st) != part || st->end <= st->start)
                continue;
            if (part && r->first_slow_iter < 0)
                r->first_slow_iter = st->iter;
            len[n++] = st->end - st->start;
        }
        r->steps[part] = (int64_t)n;
        r->step_ns[part] = median(len, n);
    }
    free(len);
}

/* Where rank r's steps grew: its ranges' time within its steps before the
 * onset against within those from it on (their spans, on its own clock:
 * a range outside every step, a set-up or a drain, is no step's). */
static void grew_where(const struct model *m, const struct findings *fs, struct slowdown_split *s,
                       const struct slowdown_rank *r)
{
    s->grew.label = -1;
    if ((size_t)r->proc >= fs->nledgers || !fs->ledgers[r->proc].steps_known)
        return;
    const struct ledger *l = &fs->ledgers[r->proc];
    const struct proc *p = &m->procs[r->proc];
    struct interval *v[2];
    struct ivals u[2] = { { NULL, 0 }, { NULL, 0 } };
    for (int part = 0; part < 2; part++) {
        if (!(v[part] = malloc((l->nsteps + 1) * sizeof *v[part])))
            model_out_of_memory();
        u[part].v = v[part];
        for (size_t k = 0; k < l->nsteps; k++) /* in time order and disjoint (ledger.c) */
            if (slow_step(m, p, s, &l->steps[k]) == part && l->steps[k].end > l->steps[k].start)
                v[part][u[part].n++] = (struct interval){ l->steps[k].start, l->steps[k].end };
    }
    range_growth(m, fs, (size_t)r->proc, &u[0], r->steps[0], &u[1], r->steps[1], &s->grew);
    free(v[0]);
    free(v[1]);
}

struct splitting {
    const struct model *m;
    struct slowdown_split *s;
    int *slot; /* process index -> index into s->ranks, -1 none */
};

/* One (communicator, sequence) group every member of which is here: who
 * arrived last (as comm.straggler has it: analysis_comm.c), on which side
 * of the onset.  Its side: where the requester's call of it was made (its
 * steps set the onset), else the last member's call. */
static void group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct splitting *c = ctx;
    const struct model *m = c->m;
    if (n < 2 || n != (size_t)(v[0].nranks > 0 ? v[0].nranks : 0) || p2p_kind(m, v[0].api) ||
        coll_group_unrecorded(m, v, n))
        return;
    int gpu = coll_group_on_gpu(v, n), who = -1;
    int64_t latest = INT64_MIN, call = INT64_MIN, mine = INT64_MIN;
    for (size_t k = 0; k < n; k++) {
        if (c->slot[v[k].proc] < 0)
            return;
        int64_t a = coll_arrival(m, &v[k], gpu), h = model_aligned(m, &m->procs[v[k].proc], v[k].start);
        if (a > latest) {
            latest = a;
            who = v[k].proc;
        }
        call = h > call ? h : call;
        if (v[k].proc == c->s->requester)
            mine = h;
    }
    for (size_t k = 1; k < n; k++)
        if (v[k].proc != v[0].proc)
            goto across;
    return; /* one process's GPUs: no rank to be late */
across:;
    int part = (mine != INT64_MIN ? mine : call) >= c->s->onset;
    c->s->colls[part]++;
    struct slowdown_rank *r = &c->s->ranks[c->slot[who]];
    r->last[part]++;
    for (size_t k = 0; k < n; k++)
        r->caused_ns[part] += (double)latest - (double)coll_arrival(m, &v[k], gpu);
}

/* The rank whose steps stand for the slowdown's: the requester's (its
 * steps set the trigger off), else the one whose median step grew most;
 * -1 if none has slow steps. */
static int reference(const struct slowdown_split *s)
{
    int ref = -1;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct slowdown_rank *r = &s->ranks[i];
        if (r->proc == s->requester && r->steps[1])
            return (int)i;
        if (r->steps[1] && (ref < 0 || r->step_ns[1] - r->step_ns[0] >
                                           s->ranks[ref].step_ns[1] - s->ranks[ref].step_ns[0]))
            ref = (int)i;
    }
    return ref;
}

/* The rank whose others' wait per collective grew most from before the
 * onset to after it, where that explains the slowdown: the others' added
 * wait for it, a step (per collective, times the collectives of a slow
 * step), at least half of what a step grew by (the requester's, whose
 * steps set the trigger off; else the rank's whose grew most).  Where
 * every rank slowed alike, one of them is always a little later than
 * before (mon-slowdown_alike: 0.04 -> 0.26 ms a collective, 0.9 ms a
 * step of 8.1): no rank. */
static int most_changed(const struct slowdown_split *s)
{
    int best = -1, ref = reference(s);
    double grew_most = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct slowdown_rank *r = &s->ranks[i];
        double before = s->colls[0] ? r->caused_ns[0] / (double)s->colls[0] : 0;
        double after = s->colls[1] ? r->caused_ns[1] / (double)s->colls[1] : 0;
        if (s->colls[1] && after - before > grew_most) {
            grew_most = after - before;
            best = (int)i;
        }
    }
    if (best < 0 || ref < 0 || !s->ranks[ref].steps[1])
        return best;
    const struct slowdown_rank *q = &s->ranks[ref];
    double step_grew = (double)q->step_ns[1] - (double)q->step_ns[0];
    double per_step = grew_most * (double)s->colls[1] / (double)q->steps[1];
    return step_grew <= 0 || per_step >= EXPLAINS_SHARE * step_grew ? best : -1;
}

void analyse_slowdown(const struct model *m, struct findings *fs, struct coll_spill *spill)
{
    const struct monitor_window *w = NULL;
    for (size_t i = 0; i < m->nwindows && !w; i++)
        if (m->windows[i].slow_from)
            w = &m->windows[i];
    if (!w)
        return;
    struct slowdown_split *s = calloc(1, sizeof *s);
    int *slot = malloc((m->nprocs + 1) * sizeof *slot);
    if (!s || !slot || !(s->ranks = calloc(m->nwindows + 1, sizeof *s->ranks)))
        model_out_of_memory();
    /* the onset on the requester's clock, aligned as its records are
     * (realtime less its offset); with no requester here, on the
     * realtime clock as the run's start is.  Every figure is the file's:
     * one that places the onset past any time the model holds (model.h,
     * model_ns) makes no split */
    s->requester = requester(m, w);
    int64_t own;
    int ok;
    if (s->requester >= 0) {
        const struct proc *p = &m->procs[s->requester];
        /* its own window row's onset, on its own clock where it wrote one:
         * the realtime clock can step against that one between the
         * process's start (its clock_offset) and the trigger */
        int64_t mine = 0;
        for (size_t i = 0; i < m->nwindows && !mine; i++)
            if (m->windows[i].proc == s->requester && !strcmp(m->windows[i].request, w->request))
                mine = m->windows[i].onset_own;
        if (mine) {
            own = mine;
            ok = 1;
        } else {
            ok = !__builtin_sub_overflow(w->slow_from, p->clock_offset, &own) && own == model_ns(own);
        }
        if (ok)
            s->onset = model_aligned(m, p, own);
    } else {
        ok = !__builtin_sub_overflow(w->slow_from, m->t0, &s->onset);
    }
    if (!ok || s->onset != model_ns(s->onset)) {
        free(slot);
        slowdown_free(s);
        return;
    }
    for (size_t i = 0; i <= m->nprocs; i++)
        slot[i] = -1;
    for (size_t i = 0; i < m->nwindows; i++) {
        int pi = m->windows[i].proc;
        if (slot[pi] >= 0)
            continue;
        slot[pi] = (int)s->nranks;
        s->ranks[s->nranks++].proc = pi;
    }
    for (size_t i = 0; i < s->nranks; i++)
        steps_split(m, fs, s, &s->ranks[i]);
    struct splitting c = { m, s, slot };
    coll_spill_groups(spill, group, &c);
    s->changed = most_changed(s);
    /* where the named rank's steps grew; with none named, the reference
     * rank's (every rank slowed alike: where one did is where all did) */
    s->grew_rank = s->changed >= 0 ? s->changed : s->colls[1] ? reference(s) : -1;
    s->grew.label = -1;
    if (s->grew_rank >= 0)
        grew_where(m, fs, s, &s->ranks[s->grew_rank]);
    free(slot);
    fs->slowdown = s;
}

void slowdown_free(struct slowdown_split *s)
{
    if (!s)
        return;
    free(s->ranks);
    free(s);
}
