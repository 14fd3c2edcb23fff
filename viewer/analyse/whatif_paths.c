/* whatif_paths.c: a rank's summary for the replay of every rank together
 * (whatif_joint.h), from one window's replay (whatif.c): the region of
 * the graph back from each collective's start and from the steps' start
 * and end to the collectives before them (or the host), its longest path
 * from each, with the host's time in the tracked ranges on it.  A rank
 * read a window at a time carries across each cut the paths to what the
 * next window refers to (the streams' last operations, the events', a
 * thread's last call whose end an operation decided), so that its paths
 * go on through earlier windows as a rank read whole has them. */
#include "viewer/analyse/whatif_int.h"

#include <stdlib.h>
#include <string.h>

/* ---- the summary for the replay of every rank together (whatif_joint.h) ---- */

/* ---- what the summary carries across a cut (a rank read a window at a
 * time): the paths to what the next window's graph refers to ---- */


static const struct jthr *jthr_of(const struct jcarry *jc, int tid)
{
    for (size_t i = 0; jc && i < jc->nthr; i++)
        if (jc->thr[i].tid == tid)
            return &jc->thr[i];
    return NULL;
}



/* Thread tid's host time from a (before e) in one innermost range: where
 * the piece ends (> a), *label the range's name (-1: in none).  A gap
 * between two calls is split so: the host may spend it in ranges with no
 * call in them (a data loader's wait before the step's first call), and
 * it is theirs, not the next call's range's. */
static int64_t range_piece(const struct proc *p, int tid, int64_t a, int64_t e, int *label)
{
    int r = model_range_at(p, tid, a);
    size_t n = model_range_after(p, tid, a);
    int64_t to = e;
    if (r >= 0 && p->ranges[r].end < to)
        to = p->ranges[r].end;
    if (n < p->nuser_ranges && p->ranges[n].tid == tid && p->ranges[n].start < to)
        to = p->ranges[n].start;
    *label = r >= 0 ? p->ranges[r].name : -1;
    return to > a ? to : e;
}

/* Adds the gap of length ns that ends at `end` on thread tid to the host
 * time by range name (h->gaps; at: label + 1 -> its index). */
void whatif_gaps_add(const struct proc *p, struct hostside *h, size_t *gcap, struct idmap *at, int tid, int64_t end,
                     int64_t ns)
{
    for (int64_t a = end - ns, to; a < end; a = to) {
        int label;
        int64_t j;
        to = range_piece(p, tid, a, end, &label);
        if (label < 0)
            continue;
        if (!idmap_get(at, (uint64_t)label + 1, &j)) {
            if (h->ngaps == *gcap && !(h->gaps = realloc(h->gaps, (*gcap *= 2) * sizeof *h->gaps)))
                model_out_of_memory();
            j = (int64_t)h->ngaps;
            h->gaps[h->ngaps++] = (struct wj_gap){ label, 0 };
            idmap_put(at, (uint64_t)label + 1, j, 0);
        }
        model_add(&h->gaps[j].ns, to - a);
    }
}

int64_t whatif_gap_from(int64_t ns, int64_t end, int64_t first)
{
    return end <= first ? 0 : end - first < ns ? end - first : ns;
}

/* The part of the gap of length ns that ends at `end` on thread tid spent
 * in the tracked ranges, by slot. */
static void gap_tracked(const struct proc *p, const struct hostside *h, int tid, int64_t end, int64_t ns,
                        int64_t *out)
{
    for (int s = 0; s < WJ_LABELS; s++)
        out[s] = 0;
    for (int64_t a = end - ns, to; a < end; a = to) {
        int label;
        to = range_piece(p, tid, a, end, &label);
        for (int s = 0; s < WJ_LABELS; s++)
            if (label >= 0 && label == h->tracked[s])
                out[s] += to - a;
    }
}

/* The ranges with the most host time, of gaps[0, n), into tracked. */
void whatif_choose_tracked(const struct wj_gap *gaps, size_t n, int *tracked)
{
    for (int s = 0; s < WJ_LABELS; s++) {
        tracked[s] = -1;
        int64_t best = 0;
        for (size_t i = 0; i < n; i++) {
            int taken = 0;
            for (int q = 0; q < s; q++)
                taken |= tracked[q] == gaps[i].label;
            if (!taken && gaps[i].ns > best) {
                best = gaps[i].ns;
                tracked[s] = gaps[i].label;
            }
        }
    }
}

static const struct mthr *mthr_of(const struct mthr *mt, size_t n, int tid)
{
    for (size_t i = 0; i < n; i++)
        if (mt[i].tid == tid)
            return &mt[i];
    return NULL;
}

/* The steps from first to end; mt: each thread's as the windows before
 * left it (n of them); tracked: the ranges to track, chosen before (a
 * rank read a window at a time, whose host time by range the first
 * reading summed), or NULL: those of the most host time here. */
void whatif_hostside_make(const struct build *b, int64_t first, int64_t end, const struct mthr *mt, size_t nmt,
                          const int *tracked, struct hostside *h)
{
    const struct rp_graph *g = &b->g;
    const struct proc *p = b->p;
    h->tprev = whatif_alloc(g->ncalls, sizeof *h->tprev);
    h->gap = whatif_alloc(g->ncalls, sizeof *h->gap);
    h->cum = whatif_alloc(g->ncalls, sizeof *h->cum);
    h->gaps = whatif_alloc(16, sizeof *h->gaps);
    size_t gcap = 16;
    struct idmap last = { 0 }, at = { 0 };
    for (size_t c = 0; c < g->ncalls; c++) {
        const struct rp_call *k = &g->calls[c];
        int64_t j;
        h->tprev[c] = k->tid >= 0 && idmap_get(&last, (uint64_t)k->tid + 2, &j) ? (int32_t)j : -1;
        if (k->tid >= 0)
            idmap_put(&last, (uint64_t)k->tid + 2, (int64_t)c, 0);
        const struct mthr *before = h->tprev[c] < 0 && k->tid >= 0 ? mthr_of(mt, nmt, k->tid) : NULL;
        int64_t prev_end = h->tprev[c] >= 0 ? g->calls[h->tprev[c]].end : before ? before->end : INT64_MAX;
        h->gap[c] = k->start > prev_end ? k->start - prev_end : 0;
        /* the range thread's host time in the steps, by range name */
        if (!tracked && k->tid == p->range_tid && p->nuser_ranges && h->gap[c] && k->start >= first &&
            k->start <= end)
            whatif_gaps_add(p, h, &gcap, &at, k->tid, k->start, whatif_gap_from(h->gap[c], k->start, first));
    }
    idmap_free(&last);
    idmap_free(&at);
    if (tracked)
        memcpy(h->tracked, tracked, sizeof h->tracked);
    else
        whatif_choose_tracked(h->gaps, h->ngaps, h->tracked);
    for (size_t c = 0; c < g->ncalls; c++) {
        const struct rp_call *k = &g->calls[c];
        int64_t in[WJ_LABELS] = { 0 };
        if (k->tid >= 0 && p->nuser_ranges && h->gap[c] && h->tracked[0] >= 0)
            gap_tracked(p, h, k->tid, k->start, whatif_gap_from(h->gap[c], k->start, first), in);
        const struct mthr *before = h->tprev[c] < 0 && k->tid >= 0 ? mthr_of(mt, nmt, k->tid) : NULL;
        for (int s = 0; s < WJ_LABELS; s++)
            h->cum[c][s] = (h->tprev[c] >= 0 ? h->cum[h->tprev[c]][s] : before ? before->cum[s] : 0) + in[s];
    }
}

void whatif_hostside_free(struct hostside *h)
{
    free(h->tprev);
    free(h->gap);
    free(h->cum);
    free(h->gaps);
}

#define WALK_MAX 4096 /* elements walked back from a probe; past that, the host's (its time stands) */

/* A walk back that reached a node of an earlier window, at time `at`:
 * on along the critical path carried with it. */
static void walk_on(struct wj_pred *out, const struct jset *js, int64_t x, int64_t at)
{
    out->p = -1;
    out->d = x;
    if (!js || !js->has)
        return;
    for (int s = 0; s < WJ_LABELS; s++)
        out->host[s] += js->crit.host[s];
    if (js->crit.p >= 0) {
        out->p = js->crit.p;
        out->d = js->crit.d + (x - at);
    }
}

/* From time x at the end of element (kind, at) of replay t: walked back
 * along what decided each time to the latest collective (probe_of >= 0),
 * adding the host's time in the tracked ranges: out->p that collective's
 * probe and d the time since its end, or out->p -1 and d = x (the host's);
 * wprev: each call's thread's latest call before it whose end an
 * operation decided; jc: what the windows before carried (NULL: none). */
static void walk(const struct build *b, const struct rp_times *t, const struct hostside *h, const int32_t *wprev,
                 const int32_t *probe_of, const struct jcarry *jc, int kind, int32_t at, int64_t x,
                 struct wj_pred *out)
{
    const struct rp_graph *g = &b->g;
    memset(out, 0, sizeof *out);
    out->p = -1;
    out->d = x;
    for (int guard = 0; at >= 0 && guard < WALK_MAX; guard++) {
        int32_t c;
        if (kind == RP_PATH_OP) {
            if ((size_t)at < g->nghost) { /* an earlier window's */
                walk_on(out, jc && (size_t)at < jc->nghost ? &jc->ghost[at] : NULL, x, t->op_end[at]);
                return;
            }
            if (probe_of[at] >= 0) {
                out->p = probe_of[at];
                out->d = x - t->op_end[at];
                return;
            }
            if (t->op_by[at] >= 0) {
                at = t->op_by[at];
                continue;
            }
            c = g->ops[at].call; /* its launch: from its call's start */
        } else {
            if (t->call_by[at] >= 0) {
                kind = RP_PATH_OP;
                at = t->call_by[at];
                continue;
            }
            c = at;
        }
        if (g->calls[c].tid < 0)
            break;
        /* the host's own time back to the last call whose end an operation decided */
        int32_t w = wprev[c];
        const struct jthr *th = w < 0 ? jthr_of(jc, g->calls[c].tid) : NULL;
        for (int s = 0; s < WJ_LABELS; s++)
            out->host[s] += h->cum[c][s] - (w >= 0 ? h->cum[w][s] : th ? th->cum[s] : 0);
        if (th) { /* ... in an earlier window */
            walk_on(out, &th->s, x, th->w_end);
            return;
        }
        if (w < 0)
            break;
        kind = RP_PATH_OP;
        at = t->call_by[w];
    }
    out->p = -1;
    out->d = x;
}

/* ---- a probe's paths: the region of the graph back from it to the
 * collectives before it (or the host), its longest path from each ---- */

enum { N_OP, N_END, N_CS, N_CE }; /* an operation's start, its end; a call's start, its end */
#define REGION_MAX 512 /* nodes a probe's region holds; past that (or the horizon), a node's own critical path */

struct rnode { int kind; int32_t i; int state; int64_t dist; int64_t lab[WJ_LABELS]; };
struct redge { int kind; int32_t i; int64_t w; int64_t lab[WJ_LABELS]; };

struct region {
    const struct build *b;
    const struct rp_times *t;
    const struct hostside *h;
    const int32_t *wprev, *probe_of;
    const struct jcarry *jc; /* what the windows before carried (NULL: none) */
    const struct mthr *mt; size_t nmt; /* ... each thread's host time up to them */
    const int64_t *ends;     /* the rank's probes' replayed ends so far, by index */
    const uint8_t *mode;     /* the fix's call modes (NULL: none) */
    int64_t horizon;         /* nodes before this time are not opened */
    int64_t host_from;       /* the probe being made: where its path from the host alone starts */
    struct idmap ix;
    struct rnode *v; size_t n, cap;
    size_t *stack, *post; size_t nstack, npost;
};

static int64_t node_time(const struct region *rg, int kind, int32_t i)
{
    const struct rp_times *t = rg->t;
    return kind == N_OP ? t->op_start[i] : kind == N_END ? t->op_end[i] : kind == N_CS ? t->call_start[i] : t->call_end[i];
}

/* Whether a node is where paths start: a collective's end, a call with
 * no call before it that an operation ended (the host alone, or what an
 * earlier window carried), an earlier window's operation. */
static int is_source(const struct region *rg, int kind, int32_t i)
{
    const struct rp_graph *g = &rg->b->g;
    if (kind == N_END)
        return rg->probe_of[i] >= 0 || (size_t)i < g->nghost;
    if (kind == N_CS)
        return g->calls[i].tid < 0 || rg->wprev[i] < 0;
    return 0;
}

static int64_t nonneg(int64_t x)
{
    return x > 0 ? x : 0;
}

/* The edges into node (kind, i): what its time is the latest of, each
 * with its weight (the replay's where it decided the time; else what the
 * replay would add: nothing after an operation, the typical latency after
 * a launch). */
static int edges_in(const struct region *rg, int kind, int32_t i, struct redge *e)
{
    const struct rp_graph *g = &rg->b->g;
    const struct rp_times *t = rg->t;
    int n = 0;
    memset(e, 0, 8 * sizeof *e);
    if (kind == N_END) {
        e[n++] = (struct redge){ N_OP, i, t->op_end[i] - t->op_start[i], { 0 } };
    } else if (kind == N_OP) {
        const struct rp_op *o = &g->ops[i];
        int32_t by = t->op_by[i];
        int64_t lat = nonneg(t->op_start[i] - t->call_start[o->call]);
        e[n++] = (struct redge){ N_CS, o->call, by < 0 ? lat : (lat < g->lat_typical ? lat : g->lat_typical), { 0 } };
        int32_t from[RP_DEPS + 1];
        int nf = 0;
        if (t->op_prev[i] >= 0)
            from[nf++] = t->op_prev[i];
        for (int k = 0; k < o->ndep && nf < RP_DEPS + 1; k++)
            from[nf++] = o->dep[k];
        for (int k = 0; k < nf; k++)
            e[n++] = (struct redge){ N_END, from[k], by == from[k] ? nonneg(t->op_start[i] - t->op_end[from[k]]) : 0,
                                     { 0 } };
        if (by >= 0) { /* an extra wait a fix added */
            int known = 0;
            for (int k = 0; k < nf; k++)
                known |= from[k] == by;
            if (!known && n < 8)
                e[n++] = (struct redge){ N_END, by, nonneg(t->op_start[i] - t->op_end[by]), { 0 } };
        }
    } else if (kind == N_CS) {
        int32_t w = rg->wprev[i];
        e[n] = (struct redge){ N_CE, w, nonneg(t->call_start[i] - t->call_end[w]), { 0 } };
        for (int s = 0; s < WJ_LABELS; s++)
            e[n].lab[s] = rg->h->cum[i][s] - rg->h->cum[w][s];
        n++;
    } else {
        const struct rp_call *c = &g->calls[i];
        int32_t by = t->call_by[i];
        int64_t own = by >= 0 ? nonneg(t->call_end[i] - t->op_end[by]) : t->call_end[i] - t->call_start[i];
        e[n++] = (struct redge){ N_CS, i, own, { 0 } };
        int narrow = rg->mode && rg->mode[i] == RP_NARROW;
        for (uint32_t k = 0; by >= 0 && k < c->nwait && n < 8; k++) {
            int32_t op = g->waits[c->wait_first + k];
            if (!narrow || g->ops[op].to_host) /* what it waits for, as replay.c's call_end has it */
                e[n++] = (struct redge){ N_END, op, own, { 0 } };
        }
    }
    return n;
}

static size_t rnode_at(struct region *rg, int kind, int32_t i)
{
    uint64_t key = ((uint64_t)kind << 32 | (uint32_t)i) + 1;
    int64_t at;
    if (idmap_get(&rg->ix, key, &at))
        return (size_t)at;
    if (rg->n == rg->cap) {
        rg->cap = rg->cap ? rg->cap * 2 : 64;
        if (!(rg->v = realloc(rg->v, rg->cap * sizeof *rg->v)) ||
            !(rg->stack = realloc(rg->stack, 9 * rg->cap * sizeof *rg->stack)) ||
            !(rg->post = realloc(rg->post, rg->cap * sizeof *rg->post)))
            model_out_of_memory();
    }
    rg->v[rg->n] = (struct rnode){ kind, i, 0, INT64_MIN, { 0 } };
    idmap_put(&rg->ix, key, (int64_t)rg->n, 0);
    return rg->n++;
}

/* The region back from the root, in an order where each node comes after
 * every node it leads to (a depth-first search's post-order, reversed). */
static void region_order(struct region *rg, size_t root)
{
    struct redge e[8];
    rg->nstack = rg->npost = 0;
    rg->stack[rg->nstack++] = root;
    while (rg->nstack) {
        size_t u = rg->stack[rg->nstack - 1];
        struct rnode *x = &rg->v[u];
        if (x->state == 0) {
            x->state = 1;
            int kind = x->kind;
            int32_t i = x->i;
            /* a source, or past the horizon or the size: not opened */
            if ((u != root && is_source(rg, kind, i)) || (u != root && (node_time(rg, kind, i) < rg->horizon ||
                                                                        rg->n + 8 > REGION_MAX))) {
                x->state = 3;
                continue;
            }
            int n = edges_in(rg, kind, i, e);
            for (int k = 0; k < n; k++) {
                size_t v = rnode_at(rg, e[k].kind, e[k].i);
                if (rg->v[v].state == 0)
                    rg->stack[rg->nstack++] = v;
            }
        } else {
            rg->nstack--;
            if (x->state == 1 || x->state == 3) {
                x->state = x->state == 1 ? 2 : 4;
                rg->post[rg->npost++] = u;
            }
        }
    }
}

/* Path c into probe q; `from`: where it starts, for a path from the host
 * alone (what carrying it to a later window's probe goes by). */
static void add_pred(struct region *rg, struct wj_probe *q, const struct wj_pred *c, int64_t from)
{
    const int64_t *ends = rg->ends;
    if (c->p < 0) { /* the host alone: the latest it gives */
        if (!q->host.p || c->d > q->host.d) {
            q->host = *c;
            q->host.p = 1;
            rg->host_from = from;
        }
        return;
    }
    for (int k = 0; k < q->npred; k++)
        if (q->pred[k].p == c->p) {
            if (c->d > q->pred[k].d)
                q->pred[k] = *c;
            return;
        }
    if (q->npred < WJ_PREDS) {
        q->pred[q->npred++] = *c;
        return;
    }
    /* full: the one that gives the earliest time as replayed goes */
    int worst = 0;
    int64_t wv = INT64_MAX;
    for (int k = 0; k < q->npred; k++) {
        int64_t v = ends[q->pred[k].p] + q->pred[k].d;
        if (v < wv) {
            wv = v;
            worst = k;
        }
    }
    if (ends[c->p] + c->d > wv)
        q->pred[worst] = *c;
}

/* The paths carried with a node of an earlier window (NULL or none: its
 * time `at` stands, as the host's) into q, each longer by `add` and with
 * the host's time lab more.  Those that start before q's horizon are
 * left to the node's critical path (walk), as a rank read whole leaves
 * the nodes there: the node's own paths reach a span back from it, further
 * than q's, and carried on window after window they reached back to the
 * first (in every probe a path from the host alone at the process's start,
 * and paths from collectives five steps back whose waits, as measured,
 * outlast a straggler's fixed steps: the job's step all fixed 2.8% longer
 * than read whole, tests/data/windows/train_demo_straggler_carried.sql). */
static void add_carried(struct region *rg, struct wj_probe *q, const struct jset *js, int64_t at, int64_t add,
                        const int64_t *lab)
{
    struct wj_pred c = { 0 };
    if (!js || !js->has) {
        c.p = -1;
        c.d = at + add;
        for (int s = 0; s < WJ_LABELS; s++)
            c.host[s] = lab[s];
        add_pred(rg, q, &c, at);
        return;
    }
    for (int k = -2; k < js->q.npred; k++) {
        int64_t from = at;
        if (k == -2) { /* its critical path */
            c = js->crit;
        } else if (k == -1) {
            if (!js->q.host.p || js->host_from < rg->horizon)
                continue;
            c = js->q.host;
            c.p = -1;
            from = js->host_from;
        } else {
            c = js->q.pred[k];
            if (rg->ends[c.p] < rg->horizon)
                continue;
        }
        c.d += add;
        for (int s = 0; s < WJ_LABELS; s++)
            c.host[s] += lab[s];
        add_pred(rg, q, &c, from);
    }
}

/* Probe q, at time x at node (kind, i) (x later than its time by the host's
 * own time after it, for a call's end). */
static void probe_paths(struct region *rg, int kind, int32_t i, int64_t x, struct wj_probe *q)
{
    q->at = x;
    q->npred = 0;
    memset(&q->host, 0, sizeof q->host);
    rg->host_from = INT64_MIN;
    if (i < 0) { /* nothing before it: the host's */
        q->host = (struct wj_pred){ x, { 0 }, 1 };
        rg->host_from = x;
        return;
    }
    idmap_free(&rg->ix);
    memset(&rg->ix, 0, sizeof rg->ix);
    rg->n = 0;
    size_t root = rnode_at(rg, kind, i);
    region_order(rg, root);
    rg->v[root].dist = x - node_time(rg, kind, i);
    struct redge e[8];
    for (size_t k = rg->npost; k-- > 0;) {
        struct rnode *u = &rg->v[rg->post[k]];
        if (u->dist == INT64_MIN)
            continue;
        if (u->state == 4 || (rg->post[k] != root && is_source(rg, u->kind, u->i))) {
            struct wj_pred c = { 0 };
            const struct jthr *th = u->kind == N_CS && is_source(rg, N_CS, u->i) && rg->b->g.calls[u->i].tid >= 0
                                        ? jthr_of(rg->jc, rg->b->g.calls[u->i].tid) : NULL;
            if (u->kind == N_END && (size_t)u->i < rg->b->g.nghost) { /* an earlier window's */
                const struct jset *js = rg->jc && (size_t)u->i < rg->jc->nghost ? &rg->jc->ghost[u->i] : NULL;
                add_carried(rg, q, js, rg->t->op_end[u->i], u->dist, u->lab);
                continue;
            }
            if (th) { /* the thread's call before, in an earlier window */
                int64_t lab[WJ_LABELS];
                for (int s = 0; s < WJ_LABELS; s++)
                    lab[s] = rg->h->cum[u->i][s] - th->cum[s] + u->lab[s];
                add_carried(rg, q, &th->s, th->w_end, rg->t->call_start[u->i] - th->w_end + u->dist, lab);
                continue;
            }
            if (u->kind == N_END && rg->probe_of[u->i] >= 0) {
                c.p = rg->probe_of[u->i];
                c.d = u->dist;
            } else if (u->kind == N_CS && is_source(rg, N_CS, u->i)) {
                c.p = -1;
                c.d = rg->t->call_start[u->i] + u->dist;
                for (int s = 0; s < WJ_LABELS && rg->b->g.calls[u->i].tid >= 0; s++)
                    c.host[s] = rg->h->cum[u->i][s];
            } else { /* past the horizon: its own critical path back */
                int wk = u->kind == N_OP || u->kind == N_END ? RP_PATH_OP : RP_PATH_CALL;
                int32_t wi = u->i;
                if (u->kind == N_CS) { /* a call's start: from the call that ended the host's wait */
                    wi = rg->wprev[u->i];
                    wk = RP_PATH_CALL;
                }
                walk(rg->b, rg->t, rg->h, rg->wprev, rg->probe_of, rg->jc, wk, wi,
                     node_time(rg, u->kind, u->i) + u->dist, &c);
                /* ... with the host's own time from that call's end to
                 * this start, which the walk from that call's end does not
                 * see (a straggler's sleep in its forward: a path through
                 * it with 15 ms a step of it unseen, left by the fix) */
                for (int s = 0; s < WJ_LABELS && u->kind == N_CS; s++)
                    c.host[s] += rg->h->cum[u->i][s] - rg->h->cum[wi][s];
            }
            for (int s = 0; s < WJ_LABELS; s++)
                c.host[s] += u->lab[s];
            add_pred(rg, q, &c, u->kind == N_CS && is_source(rg, N_CS, u->i) ? rg->t->call_start[u->i]
                                                                            : node_time(rg, u->kind, u->i));
            continue;
        }
        int n = edges_in(rg, u->kind, u->i, e);
        for (int j = 0; j < n; j++) {
            int64_t at;
            if (!idmap_get(&rg->ix, ((uint64_t)e[j].kind << 32 | (uint32_t)e[j].i) + 1, &at))
                continue;
            struct rnode *v = &rg->v[at];
            u = &rg->v[rg->post[k]]; /* (v may not move: the region is built) */
            if (u->dist + e[j].w > v->dist) {
                v->dist = u->dist + e[j].w;
                for (int s = 0; s < WJ_LABELS; s++)
                    v->lab[s] = u->lab[s] + e[j].lab[s];
            }
        }
    }
}

/* The graph's operation of each collective of the process, by its kernel's
 * start on its stream (-1: none). */
int32_t *whatif_colls_of_ops(const struct build *b)
{
    const struct proc *p = b->p;
    int32_t *v = whatif_alloc(b->g.nops, sizeof *v);
    struct idmap at = { 0 };
    for (size_t k = 0; k < p->ncolls; k++)
        if (p->colls[k].gend > p->colls[k].gstart && p->colls[k].gstart > 0 && !model_coll_comm_unknown(&p->colls[k]))
            idmap_put(&at, (uint64_t)p->colls[k].gstart * 31 + (uint64_t)p->colls[k].gstream, (int64_t)k, 1);
    for (size_t i = 0; i < b->g.nops; i++) {
        int64_t k;
        v[i] = -1;
        if (i < b->g.nghost) /* an earlier window's */
            continue;
        const struct gop *o = &p->ops[b->op_of_rp[i]];
        v[i] = o->nccl && idmap_get(&at, (uint64_t)b->g.ops[i].start * 31 + (uint64_t)b->g.ops[i].stream, &k) &&
                       p->colls[k].gstart == b->g.ops[i].start ? (int32_t)(p->colls_first + (size_t)k) : -1;
    }
    idmap_free(&at);
    return v;
}

struct at_op { int64_t t; int32_t op; };

static int by_at_op(const void *x, const void *y)
{
    const struct at_op *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}


static void probe_reset(struct wj_probe *q, int64_t x)
{
    memset(q, 0, sizeof *q);
    q->at = x;
}

/* A step probe at time x, reached from the range thread's last call ended
 * by `measured` (N_CE), or from the operation `op` (>= 0: a step's GPU
 * work ending last). */
static void step_probe(struct region *rg, const struct jwin *in, int64_t measured, int64_t x, int32_t op,
                       struct wj_probe *q)
{
    const struct rp_graph *g = &rg->b->g;
    rg->horizon = x - in->span;
    if (op >= 0) {
        if (rg->probe_of[op] >= 0) { /* the end of a collective */
            *q = (struct wj_probe){ .at = x, .pred = { { 0, { 0 }, rg->probe_of[op] } }, .npred = 1 };
            return;
        }
        probe_paths(rg, N_END, op, x, q);
        return;
    }
    size_t lo = 0, hi = in->nidx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->calls[in->idx[mid]].end <= measured)
            lo = mid + 1;
        else
            hi = mid;
    }
    const struct jthr *th = lo ? NULL : jthr_of(rg->jc, rg->b->p->range_tid);
    const struct mthr *mt = lo ? NULL : mthr_of(rg->mt, rg->nmt, rg->b->p->range_tid);
    if (th || mt) { /* the range thread's last call was in an earlier window */
        int64_t lab[WJ_LABELS] = { 0 };
        for (int s = 0; mt && s < WJ_LABELS; s++)
            lab[s] = mt->cum[s] - (th ? th->cum[s] : 0);
        probe_reset(q, x);
        rg->host_from = INT64_MIN;
        add_carried(rg, q, th ? &th->s : NULL, th ? th->w_end : x, th ? x - th->w_end : 0, lab);
        return;
    }
    probe_paths(rg, N_CE, lo ? (int32_t)in->idx[lo - 1] : -1, x, q);
}

/* The probe at the end of operation op. */
static void op_probe(struct region *rg, const struct jwin *in, int32_t op, struct wj_probe *q)
{
    int64_t x = rg->t->op_end[op];
    if (rg->probe_of[op] >= 0) {
        *q = (struct wj_probe){ .at = x, .pred = { { 0, { 0 }, rg->probe_of[op] } }, .npred = 1 };
        return;
    }
    rg->horizon = x - in->span;
    probe_paths(rg, N_END, op, x, q);
}

/* A rank read a window at a time: its steps' end probe where the last
 * step ends here, the later of the host's (its range thread's at that
 * time) and the end of the GPU work enqueued in the steps, which may have
 * been enqueued in an earlier window (jc->gin, gaft: as acc_window keeps
 * the steps' time). */
static void gpu_end(struct region *rg, const struct jwin *in, struct jcarry *jc)
{
    const struct rp_graph *g = &rg->b->g;
    const struct rp_times *t = rg->t;
    int32_t bin = -1, baft = -1;
    for (size_t k = g->nghost; k < g->nops; k++) {
        int64_t cs = g->calls[g->ops[k].call].start;
        if (cs < in->first)
            continue;
        int32_t *best = in->last != INT64_MIN && cs <= in->last ? &bin : &baft;
        if (*best < 0 || t->op_end[k] > t->op_end[*best])
            *best = (int32_t)k;
    }
    if (in->last != INT64_MIN) { /* what came after the last step end before is in the steps now */
        if (jc->gaft_t > jc->gin_t) {
            jc->gin = jc->gaft;
            jc->gin_t = jc->gaft_t;
        }
        jc->gaft_t = INT64_MIN;
    }
    if (bin >= 0 && t->op_end[bin] > jc->gin_t) {
        op_probe(rg, in, bin, &jc->gin);
        jc->gin_t = t->op_end[bin];
    }
    if (baft >= 0 && t->op_end[baft] > jc->gaft_t) {
        op_probe(rg, in, baft, &jc->gaft);
        jc->gaft_t = t->op_end[baft];
    }
    if (in->last == INT64_MIN)
        return;
    int64_t x = whatif_map_at(rg->b, t, in->idx, in->nidx, in->shift_in, in->last);
    struct wj_probe *q = in->tent ? &jc->end_t : &jc->end;
    if (jc->gin_t > x)
        *q = jc->gin;
    else
        step_probe(rg, in, in->last, x, -1, q);
    q->coll = -1;
    if (in->tent) {
        jc->has_end_t = 1;
        jc->end_t_step = in->last;
    } else {
        jc->has_end = 1;
        jc->end_step = in->last;
    }
}

/* The GPU work enqueued before the first step, by stream (jc->pre): each
 * stream's operation ending last here, probed where it ends later than
 * any before it (a rank read a window at a time: that work may be in
 * earlier windows than the first step's start). */
static void pre_work(struct region *rg, const struct jwin *in, struct jcarry *jc)
{
    const struct rp_graph *g = &rg->b->g;
    const struct rp_times *t = rg->t;
    int32_t best[PRE_STREAMS];
    for (int i = 0; i < PRE_STREAMS; i++)
        best[i] = -1;
    for (size_t k = g->nghost; k < g->nops; k++) {
        if (g->calls[g->ops[k].call].start >= in->first)
            continue;
        int i = 0;
        while (i < jc->npre && jc->pre[i].stream != g->ops[k].stream)
            i++;
        if (i == jc->npre) {
            if (i == PRE_STREAMS)
                continue;
            jc->pre[jc->npre++].stream = g->ops[k].stream;
            jc->pre[i].t = INT64_MIN;
        }
        if (best[i] < 0 || t->op_end[k] > t->op_end[best[i]])
            best[i] = (int32_t)k;
    }
    for (int i = 0; i < jc->npre; i++)
        if (best[i] >= 0 && t->op_end[best[i]] > jc->pre[i].t) {
            op_probe(rg, in, best[i], &jc->pre[i].q);
            jc->pre[i].t = t->op_end[best[i]];
        }
}

/* The paths carried to the next window: to each operation it refers to
 * (keep) and to each thread's latest call whose end an operation decided
 * (or, with none here, what came to this window). */
static void joint_carry(struct region *rg, const struct jwin *in, const int32_t *wprev, struct jcarry *jc)
{
    const struct rp_graph *g = &rg->b->g;
    const struct rp_times *t = rg->t;
    struct jset *sets = whatif_alloc(in->nkeep + 1, sizeof *sets);
    for (size_t i = 0; i < in->nkeep; i++) {
        int32_t k = in->keep[i];
        struct jset *js = &sets[i];
        if ((size_t)k < g->nghost) {
            if ((size_t)k < jc->nghost)
                *js = jc->ghost[k];
        } else if (rg->probe_of[k] >= 0) {
            js->q.pred[0] = js->crit = (struct wj_pred){ 0, { 0 }, rg->probe_of[k] };
            js->q.npred = js->has = 1;
        } else {
            rg->horizon = t->op_end[k] - in->span;
            probe_paths(rg, N_END, k, t->op_end[k], &js->q);
            js->host_from = rg->host_from;
            walk(rg->b, t, rg->h, wprev, rg->probe_of, rg->jc, RP_PATH_OP, k, t->op_end[k], &js->crit);
            js->has = 1;
        }
    }
    size_t nthr = jc->nthr;
    struct jthr *thr = whatif_alloc(nthr + g->ncalls + 1, sizeof *thr);
    if (nthr)
        memcpy(thr, jc->thr, nthr * sizeof *thr);
    struct idmap last = { 0 };
    for (size_t c = 0; c < g->ncalls; c++)
        if (g->calls[c].tid >= 0)
            idmap_put(&last, (uint64_t)g->calls[c].tid + 2, (int64_t)c, 0);
    for (size_t k = 0; k < last.cap; k++) {
        if (!last.key[k])
            continue;
        int32_t l = (int32_t)last.val[k], w = t->call_by[l] >= 0 ? l : wprev[l];
        if (w < 0)
            continue; /* what came to this window stands */
        struct jthr x = { g->calls[w].tid, t->call_end[w], { 0 }, { { 0 }, { 0 }, 0, 0 } };
        for (int s = 0; s < WJ_LABELS; s++)
            x.cum[s] = rg->h->cum[w][s];
        rg->horizon = t->call_end[w] - in->span;
        probe_paths(rg, N_CE, w, t->call_end[w], &x.s.q);
        x.s.host_from = rg->host_from;
        walk(rg->b, t, rg->h, wprev, rg->probe_of, rg->jc, RP_PATH_CALL, w, t->call_end[w], &x.s.crit);
        x.s.has = 1;
        size_t at = 0;
        while (at < nthr && thr[at].tid != x.tid)
            at++;
        thr[at] = x;
        nthr += at == nthr;
    }
    idmap_free(&last);
    free(jc->thr);
    jc->thr = thr;
    jc->nthr = nthr;
    free(jc->at_op);
    free(jc->at_set);
    jc->at_op = whatif_alloc(in->nkeep + 1, sizeof *jc->at_op);
    if (in->nkeep)
        memcpy(jc->at_op, in->keep, in->nkeep * sizeof *jc->at_op);
    jc->at_set = sets;
    jc->nat = in->nkeep;
}

/* Replay t's summary (t with its "decided by" arrays) appended to w: its
 * collectives' probes, its steps' start and end probes (into jc), and for
 * a rank read a window at a time what the next window's carries (jc:
 * what this one's carried in, then what it carries on). */
void whatif_joint_summary(const struct build *b, const struct jwin *in, const struct rp_times *t,
                          const struct rp_fix *fx, const struct hostside *h, const int32_t *coll_of,
                          struct wj_rank *w, struct jcarry *jc, const struct mthr *mt, size_t nmt)
{
    const struct rp_graph *g = &b->g;
    int32_t *wprev = whatif_alloc(g->ncalls, sizeof *wprev);
    for (size_t c = 0; c < g->ncalls; c++) {
        int32_t q = h->tprev[c];
        wprev[c] = q < 0 ? -1 : t->call_by[q] >= 0 ? q : wprev[q];
    }
    struct at_op *ops = whatif_alloc(g->nops, sizeof *ops);
    int32_t *probe_of = whatif_alloc(g->nops, sizeof *probe_of);
    size_t n = 0, base = w->ncoll, local = base - w->nspilled; /* (the first nspilled put aside) */
    for (size_t k = 0; k < g->nops; k++) {
        probe_of[k] = -1;
        if (coll_of[k] >= 0)
            ops[n++] = (struct at_op){ t->op_start[k], (int32_t)k };
    }
    qsort(ops, n, sizeof *ops, by_at_op); /* a probe follows only those before it */
    for (size_t i = 0; i < n; i++)
        probe_of[ops[i].op] = (int32_t)(base + i);
    struct wj_probe *v = realloc(w->v, (local + n + 1) * sizeof *v);
    int64_t *ends = realloc(w->ends, (base + n + 1) * sizeof *ends);
    if (!v || !ends)
        model_out_of_memory();
    w->v = v;
    w->ends = ends;
    for (int s = 0; s < WJ_LABELS; s++)
        w->label[s] = h->tracked[s];
    for (size_t i = 0; i < n; i++) { /* what a path to a probe reads of the others: their ends */
        int32_t k = ops[i].op;
        w->v[local + i] = (struct wj_probe){ .at = t->op_start[k], .dur = g->ops[k].end - g->ops[k].start,
                                             .coll = coll_of[k] };
        w->ends[base + i] = t->op_start[k] + w->v[local + i].dur;
    }
    struct region rg = { .b = b, .t = t, .h = h, .wprev = wprev, .probe_of = probe_of, .jc = in->keep ? jc : NULL, .mt = mt, .nmt = nmt, .ends = w->ends, .mode = fx ? fx->call_mode : NULL };
    for (size_t i = 0; i < n; i++) {
        int32_t k = ops[i].op;
        rg.horizon = t->op_start[k] - in->span;
        probe_paths(&rg, N_OP, k, t->op_start[k], &w->v[local + i]);
    }
    w->ncoll = base + n;
    /* the steps' start: the range thread's last call by then (a later
     * end of the GPU work enqueued before them may take its place once
     * the streams they enqueue on are known: whatif.c's joint_finish) */
    pre_work(&rg, in, jc);
    if (in->start_here) {
        step_probe(&rg, in, in->first, whatif_map_at(b, t, in->idx, in->nidx, in->shift_in, in->first), -1,
                   &jc->start);
        jc->start.coll = -1;
        jc->has_start = 1;
    }
    /* ... their end: the later of the host's and its GPU work's (steps_time) */
    if (in->keep) {
        gpu_end(&rg, in, jc);
    } else if (in->last != INT64_MIN) {
        int64_t x = whatif_map_at(b, t, in->idx, in->nidx, in->shift_in, in->last);
        int32_t at = -1;
        for (size_t k = g->nghost; k < g->nops; k++) {
            const struct rp_call *c = &g->calls[g->ops[k].call];
            if (c->start >= in->first && c->start <= in->last && t->op_end[k] > x) {
                x = t->op_end[k];
                at = (int32_t)k;
            }
        }
        step_probe(&rg, in, in->last, x, at, &jc->end);
        jc->end.coll = -1;
        jc->has_end = 1;
        jc->end_step = in->last;
    }
    if (in->keep)
        joint_carry(&rg, in, wprev, jc);
    idmap_free(&rg.ix);
    free(rg.v);
    free(rg.stack);
    free(rg.post);
    free(wprev);
    free(ops);
    free(probe_of);
}

