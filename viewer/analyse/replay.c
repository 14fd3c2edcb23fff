/* replay.c: the dependency graph replayed (see replay.h).
 *
 * One pass over the calls in measured order: every dependency points
 * back in that order (a call's operations are enqueued by it, an
 * operation waits for earlier ones on its stream and for events recorded
 * before, a sync waits for operations enqueued before it), so each time
 * is known when it is needed.
 *   - A call starts after its thread's previous call ended, plus the host
 *     time measured between them; one that another thread woke
 *     (rp_wakes), after that thread's call ended plus the delay measured.
 *   - An operation starts at the latest of: its enqueueing plus its launch
 *     latency, the end of the previous operation on its stream, the ends
 *     of the operations it waits for.  Its latency is what the measured
 *     times show when the launch was the latest of those (capped at
 *     lat_cap: a delay the graph does not explain stays unexplained), else
 *     what is less than the measured wait.
 *   - A call that waited ends when the last operation in its scope ends,
 *     plus the time it took to return measured after that; one that did
 *     not wait lasts as long as measured, or until its scope ends if that
 *     is later in the replay. */
#include "viewer/analyse/replay.h"
#include "viewer/model/model.h"
#include "viewer/model/idmap.h"

#include <stdlib.h>
#include <string.h>

/* Replayed times are kept within +-2^61 ns, as the model keeps a span
 * (model.h: times within 2^60, their differences within 2^61): each is
 * an earlier one plus a measured span or gap, so a damaged file's times
 * could otherwise add up past 64 bits over a chain of operations. */
#define RP_T_BITS 61
static inline int64_t rp_t(int64_t t)
{
    return model_clamp(t, RP_T_BITS);
}

/* last: its latest call or operation; wk: a thread's two latest calls of
 * this graph that enqueued GPU work, the latest first (-1: none) */
struct lane { int64_t m_end, r_end; int32_t last; int32_t wk[2]; };

/* The state of a thread or a stream, by id (+ 2, never 0). */
static struct lane *lane(struct idmap *ix, struct lane **v, size_t *n, size_t *cap, int64_t id, int *fresh)
{
    int64_t at;
    *fresh = 0;
    if (idmap_get(ix, (uint64_t)id + 2, &at))
        return &(*v)[at];
    if (*n == *cap) {
        size_t c = *cap ? *cap * 2 : 64;
        struct lane *p = realloc(*v, c * sizeof *p);
        if (!p)
            return NULL;
        *v = p;
        *cap = c;
    }
    idmap_put(ix, (uint64_t)id + 2, (int64_t)*n, 0);
    *fresh = 1;
    (*v)[*n] = (struct lane){ 0, 0, -1, { -1, -1 } };
    return &(*v)[(*n)++];
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* Measured: when an operation could have started by its stream and its
 * waits (the previous operation's end on its own stream, by op index). */
static int64_t measured_ready(const struct rp_graph *g, const int64_t *prev_end_m, size_t i)
{
    const struct rp_op *o = &g->ops[i];
    int64_t r = prev_end_m[i];
    for (int k = 0; k < o->ndep; k++)
        r = max64(r, g->ops[o->dep[k]].end);
    return r;
}

/* Each operation's previous one on its measured stream: its end. */
static int prev_ends(const struct rp_graph *g, int64_t *out)
{
    struct idmap ix = { 0 };
    struct lane *v = NULL;
    size_t n = 0, cap = 0;
    int fresh, rc = 0;
    for (size_t i = 0; i < g->nops; i++) {
        struct lane *s = lane(&ix, &v, &n, &cap, g->ops[i].stream, &fresh);
        if (!s) {
            rc = -1;
            break;
        }
        out[i] = fresh ? INT64_MIN : s->m_end;
        s->m_end = max64(s->m_end, g->ops[i].end);
    }
    idmap_free(&ix);
    free(v);
    return rc;
}

struct run {
    const struct rp_graph *g;
    const struct rp_fix *fx;
    struct rp_times *t;
    const int64_t *prev_end_m;
    struct idmap thr_ix, str_ix;
    struct lane *thr, *str;
    size_t nthr, cthr, nstr, cstr;
    int64_t shift; /* the latest call's replayed less measured end */
};

static int op_replay(struct run *r, size_t i, int64_t anchor_m, int64_t anchor_r)
{
    const struct rp_graph *g = r->g;
    const struct rp_op *o = &g->ops[i];
    int64_t stream = r->fx && r->fx->op_stream && r->fx->op_stream[i] != INT64_MIN ? r->fx->op_stream[i] : o->stream;
    int fresh;
    struct lane *s = lane(&r->str_ix, &r->str, &r->nstr, &r->cstr, stream, &fresh);
    if (!s)
        return -1;
    int64_t ready_m = measured_ready(g, r->prev_end_m, i);
    /* which of its launch and its stream (with its waits) decided its
     * start; the other's latency is the typical one or none (gap taken
     * only where the stream's work decided: ready_m is INT64_MIN for a
     * stream's first operation with no waits, past int64's range) */
    int64_t lat = o->start - anchor_m, gap = 0;
    if (anchor_m >= ready_m) {
        if (r->t->op_unexpl)
            r->t->op_unexpl[i] = lat > g->lat_cap ? lat - g->lat_cap : 0;
        lat = lat < 0 ? 0 : lat > g->lat_cap ? g->lat_cap : lat; /* a delay the graph does not know: capped */
    } else {
        if (r->t->op_unexpl)
            r->t->op_unexpl[i] = 0;
        lat = lat < 0 ? 0 : lat < g->lat_typical ? lat : g->lat_typical;
        gap = o->start - ready_m;
        gap = gap < 0 ? 0 : gap; /* the GPU's own gap between operations, kept whatever its cause */
    }
    int64_t ready = INT64_MIN;
    int32_t by = -1; /* what decided its start: an operation, or (-1) its launch */
    if (!fresh) {
        ready = s->r_end;
        by = s->last;
    }
    for (int k = 0; k < o->ndep; k++)
        if (r->t->op_end[o->dep[k]] > ready) {
            ready = r->t->op_end[o->dep[k]];
            by = o->dep[k];
        }
    if (r->fx && r->fx->op_extra_dep && r->fx->op_extra_dep[i] >= 0 && r->t->op_end[r->fx->op_extra_dep[i]] > ready) {
        ready = r->t->op_end[r->fx->op_extra_dep[i]];
        by = r->fx->op_extra_dep[i];
    }
    int64_t st = anchor_r + lat;
    if (ready != INT64_MIN && ready + gap > st)
        st = ready + gap;
    else
        by = -1;
    if (r->t->op_by)
        r->t->op_by[i] = by;
    if (r->t->op_prev)
        r->t->op_prev[i] = fresh ? -1 : s->last;
    float scale = r->fx && r->fx->op_scale && r->fx->op_scale[i] > 0 ? r->fx->op_scale[i] : 1;
    /* a span the model keeps (model.h) even times a scale from other
     * copies' bandwidth, which a damaged file makes anything */
    double scaled = (double)(o->end - o->start) * scale;
    int64_t dur = scaled < (double)((int64_t)1 << RP_T_BITS) ? (int64_t)scaled : (int64_t)1 << RP_T_BITS;
    st = rp_t(st);
    int64_t end = rp_t(st + dur);
    r->t->op_start[i] = st;
    r->t->op_end[i] = end;
    if (fresh || end >= s->r_end) {
        s->r_end = end;
        s->last = (int32_t)i;
    }
    return 0;
}

static void call_end(struct run *r, size_t c, int64_t rs)
{
    const struct rp_graph *g = r->g;
    const struct rp_call *k = &g->calls[c];
    int mode = r->fx && r->fx->call_mode ? r->fx->call_mode[c] : RP_KEEP;
    int64_t dur = k->end - k->start, scope_m = INT64_MIN, scope_r = INT64_MIN;
    int32_t last = -1; /* the operation of its scope that ends last */
    for (uint32_t w = 0; w < k->nwait; w++) {
        int32_t op = g->waits[k->wait_first + w];
        scope_m = max64(scope_m, g->ops[op].end);
        if ((mode != RP_NARROW || g->ops[op].to_host) && r->t->op_end[op] > scope_r) {
            scope_r = r->t->op_end[op];
            last = op;
        }
    }
    int waited = k->nwait && scope_m > k->start;
    /* what is left of the call without its wait: the return after it */
    int64_t own = waited ? max64(0, k->end - max64(scope_m, k->start)) : dur;
    int64_t end;
    if (mode == RP_REMOVE)
        end = rs;
    else if (mode == RP_NO_WAIT || !k->nwait)
        end = rs + own;
    else if (waited && scope_r == INT64_MIN) /* narrowed to nothing */
        end = rs + own;
    else if (waited)
        end = max64(rs, scope_r) + own;
    else
        end = max64(rs + dur, scope_r);
    r->t->call_start[c] = rs;
    r->t->call_end[c] = rp_t(end);
    if (r->t->call_by) /* its end set by its scope's last operation, or by the host */
        r->t->call_by[c] = mode != RP_REMOVE && mode != RP_NO_WAIT && last >= 0 && scope_r > rs ? last : -1;
}

/* The lanes of c, seeded into the run (last: none, as at a process's start). */
static int seed(struct run *r, const struct rp_carry *c)
{
    int fresh;
    r->shift = c->shift;
    for (size_t i = 0; i < c->nthr; i++) {
        struct lane *l = lane(&r->thr_ix, &r->thr, &r->nthr, &r->cthr, c->thr[i].id, &fresh);
        if (!l)
            return -1;
        *l = (struct lane){ c->thr[i].m_end, c->thr[i].r_end, -1, { -1, -1 } };
    }
    for (size_t i = 0; i < c->nstr; i++) {
        struct lane *l = lane(&r->str_ix, &r->str, &r->nstr, &r->cstr, c->str[i].id, &fresh);
        if (!l)
            return -1;
        *l = (struct lane){ c->str[i].m_end, c->str[i].r_end,
                            c->str[i].last >= 0 && (size_t)c->str[i].last < r->g->nghost ? c->str[i].last : -1,
                            { -1, -1 } };
    }
    return 0;
}

/* The lanes of a map, into an array (id, ends). */
static int export_lanes(const struct idmap *ix, const struct lane *v, size_t n, struct rp_lane **out, size_t *nout)
{
    struct rp_lane *a = malloc((n + 1) * sizeof *a);
    if (!a)
        return -1;
    size_t k = 0;
    for (size_t i = 0; i < ix->cap; i++)
        if (ix->key[i])
            a[k++] = (struct rp_lane){ (int64_t)(ix->key[i] - 2), v[ix->val[i]].m_end, v[ix->val[i]].r_end,
                                       v[ix->val[i]].last };
    free(*out);
    *out = a;
    *nout = k;
    return 0;
}

/* The carry's waker j, as rp_wakes named it from the measured carry: in
 * a replay carried from elsewhere (a fix's from an earlier state), one it
 * does not hold is none. */
static const struct rp_lane *ghost_waker(const struct rp_carry *c, int32_t j)
{
    return c && j >= 0 && (size_t)j < c->nwk ? &c->wk[j] : NULL;
}

/* The calls that may wake a thread of the next graph (rp_carry's wk):
 * each thread's two latest that enqueued GPU work, of those carried in
 * and this graph's (its lanes' wk): the carried ones still among them in
 * their order, then this graph's by thread in the lanes' order (each
 * thread's older first), an order the measured calls alone decide. */
static int export_wakers(const struct run *r, const struct rp_times *t, struct rp_carry *c)
{
    const struct rp_graph *g = r->g;
    struct rp_lane *out = malloc((c->nwk + 2 * r->nthr + 1) * sizeof *out);
    if (!out)
        return -1;
    size_t n = 0;
    struct idmap later = { 0 }; /* thread id + 2 -> its carried ones after this one */
    uint8_t *keep = calloc(c->nwk + 1, 1);
    if (!keep) {
        free(out);
        return -1;
    }
    for (size_t i = c->nwk; i-- > 0;) {
        int64_t after = 0, at;
        idmap_get(&later, (uint64_t)c->wk[i].id + 2, &after);
        const struct lane *l = idmap_get(&r->thr_ix, (uint64_t)c->wk[i].id + 2, &at) ? &r->thr[at] : NULL;
        int here = l ? (l->wk[0] >= 0) + (l->wk[1] >= 0) : 0;
        keep[i] = after + here < 2;
        idmap_put(&later, (uint64_t)c->wk[i].id + 2, after + 1, 0);
    }
    idmap_free(&later);
    for (size_t i = 0; i < c->nwk; i++)
        if (keep[i])
            out[n++] = c->wk[i];
    free(keep);
    for (size_t i = 0; i < r->nthr; i++)
        for (int k = 1; k >= 0; k--) {
            int32_t w = r->thr[i].wk[k];
            if (w >= 0)
                out[n++] = (struct rp_lane){ g->calls[w].tid, g->calls[w].end, t->call_end[w], -1 };
        }
    free(c->wk);
    c->wk = out;
    c->nwk = n;
    return 0;
}

int rp_replay(const struct rp_graph *g, const struct rp_fix *fx, struct rp_times *t)
{
    return rp_replay_carry(g, fx, t, NULL);
}

int rp_replay_carry(const struct rp_graph *g, const struct rp_fix *fx, struct rp_times *t, struct rp_carry *carry)
{
    struct run r = { .g = g, .fx = fx, .t = t };
    int64_t *prev = malloc((g->nops + 1) * sizeof *prev);
    int rc = prev ? prev_ends(g, prev) : -1;
    r.prev_end_m = prev;
    if (rc == 0 && carry)
        rc = seed(&r, carry);
    size_t oi = g->nghost;
    for (size_t k = 0; k < g->nghost; k++) { /* an earlier window's: given */
        if (t->op_by)
            t->op_by[k] = -1;
        if (t->op_prev)
            t->op_prev[k] = -1;
    }
    for (size_t c = 0; c < g->ncalls && rc == 0; c++) {
        const struct rp_call *k = &g->calls[c];
        int64_t rs;
        if (k->tid < 0) {
            rs = rp_t(k->start + r.shift);
            if (t->call_prev)
                t->call_prev[c] = -1;
        } else {
            int fresh;
            struct lane *th = lane(&r.thr_ix, &r.thr, &r.nthr, &r.cthr, k->tid, &fresh);
            if (!th) {
                rc = -1;
                break;
            }
            rs = rp_t(fresh ? k->start + r.shift : th->r_end + (k->start - th->m_end));
            int32_t prev_c = fresh ? -1 : th->last;
            int32_t w = !fresh && g->wake ? g->wake[c] : -1;
            const struct rp_lane *gw = w <= -2 ? ghost_waker(carry, -2 - w) : NULL;
            if (w >= 0 || gw) { /* woken: when its waker ended, plus the delay measured (rp_wakes) */
                int64_t at = w >= 0 ? rp_t(t->call_end[w] + (k->start - g->calls[w].end))
                                    : rp_t(gw->r_end + (k->start - gw->m_end));
                rs = at > th->r_end ? at : th->r_end;
                /* a waker of an earlier window: no call of this graph decided it */
                prev_c = at >= th->r_end ? (w >= 0 ? w : -1) : prev_c;
            }
            if (t->call_prev)
                t->call_prev[c] = prev_c;
        }
        /* the operations it enqueued (they follow their call's order) */
        int enq = 0;
        for (; oi < g->nops && g->ops[oi].call <= (int32_t)c && rc == 0; oi++)
            if (g->ops[oi].call == (int32_t)c) {
                rc = op_replay(&r, oi, k->start, rs);
                enq = 1;
            }
        call_end(&r, c, rs);
        if (k->tid >= 0) {
            int fresh;
            struct lane *th = lane(&r.thr_ix, &r.thr, &r.nthr, &r.cthr, k->tid, &fresh);
            if (!th) {
                rc = -1;
                break;
            }
            th->m_end = k->end;
            th->r_end = t->call_end[c];
            th->last = (int32_t)c;
            if (enq) { /* a waker of the next graph's threads, maybe (export_wakers) */
                th->wk[1] = th->wk[0];
                th->wk[0] = (int32_t)c;
            }
        }
        r.shift = t->call_end[c] - k->end;
    }
    if (rc == 0 && carry) {
        carry->shift = r.shift;
        if (export_lanes(&r.thr_ix, r.thr, r.nthr, &carry->thr, &carry->nthr) != 0 ||
            export_lanes(&r.str_ix, r.str, r.nstr, &carry->str, &carry->nstr) != 0 ||
            export_wakers(&r, t, carry) != 0)
            rc = -1;
    }
    idmap_free(&r.thr_ix);
    idmap_free(&r.str_ix);
    free(r.thr);
    free(r.str);
    free(prev);
    return rc;
}

static struct rp_lane *lanes_dup(const struct rp_lane *v, size_t n)
{
    struct rp_lane *a = malloc((n + 1) * sizeof *a);
    if (a && n)
        memcpy(a, v, n * sizeof *a);
    return a;
}

int rp_carry_copy(struct rp_carry *to, const struct rp_carry *from)
{
    rp_carry_free(to);
    to->shift = from->shift;
    to->thr = lanes_dup(from->thr, from->nthr);
    to->str = lanes_dup(from->str, from->nstr);
    to->wk = lanes_dup(from->wk, from->nwk);
    to->nthr = to->thr ? from->nthr : 0;
    to->nstr = to->str ? from->nstr : 0;
    to->nwk = to->wk ? from->nwk : 0;
    return to->thr && to->str && to->wk ? 0 : -1;
}

void rp_carry_free(struct rp_carry *c)
{
    free(c->thr);
    free(c->str);
    free(c->wk);
    memset(c, 0, sizeof *c);
}

int64_t rp_map_time(const struct rp_graph *g, const struct rp_times *t, const uint32_t *idx, size_t n, int64_t at)
{
    size_t lo = 0, hi = n; /* the first call of the thread that ends after `at` */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (g->calls[idx[mid]].end <= at)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return at;
    uint32_t c = idx[lo - 1];
    return at + (t->call_end[c] - g->calls[c].end);
}

/* An element [a, b) of the path, handed on clipped to [t0, ...). */
static void hand(void (*fn)(void *, int, int32_t, int64_t, int64_t), void *ctx, int kind, int32_t index, int64_t a,
                 int64_t b, int64_t t0)
{
    a = a > t0 ? a : t0;
    fn(ctx, kind, index, a, b > a ? b : a);
}

void rp_critical(const struct rp_graph *g, const struct rp_times *t, int from_kind, int32_t from, int64_t t0,
                 void (*fn)(void *ctx, int kind, int32_t index, int64_t a, int64_t b), void *ctx)
{
    int kind = from_kind == RP_PATH_OP ? RP_PATH_OP : RP_PATH_CALL;
    int32_t at = from;
    /* each step back goes to an earlier time: bounded by the elements */
    for (size_t guard = 0; at >= 0 && guard <= g->ncalls + g->nops; guard++) {
        if (kind == RP_PATH_CALL) {
            int32_t by = t->call_by[at];
            int64_t begin = by >= 0 ? t->op_end[by] : t->call_start[at];
            if (t->call_end[at] > t0)
                hand(fn, ctx, RP_PATH_CALL, at, begin, t->call_end[at], t0);
            if (begin <= t0)
                return;
            if (by >= 0) {
                kind = RP_PATH_OP;
                at = by;
                continue;
            }
            /* before the call: the host's own time since its thread's previous call */
            int32_t prev = t->call_prev[at];
            hand(fn, ctx, RP_PATH_HOST, at, prev >= 0 ? t->call_end[prev] : t0, t->call_start[at], t0);
            at = prev;
            continue;
        }
        int32_t by = t->op_by[at];
        hand(fn, ctx, RP_PATH_OP, at, t->op_start[at], t->op_end[at], t0);
        if (t->op_start[at] <= t0)
            return;
        if (by >= 0) {
            hand(fn, ctx, RP_PATH_GAP, at, t->op_end[by], t->op_start[at], t0);
            at = by;
            continue;
        }
        /* its launch decided it: the latency from its call's start */
        int32_t c = g->ops[at].call;
        if (c < 0) /* an earlier window's operation: the path is cut there */
            return;
        hand(fn, ctx, RP_PATH_LAUNCH, at, t->call_start[c], t->op_start[at], t0);
        if (t->call_start[c] <= t0)
            return;
        int32_t prev = t->call_prev[c];
        hand(fn, ctx, RP_PATH_HOST, c, prev >= 0 ? t->call_end[prev] : t0, t->call_start[c], t0);
        kind = RP_PATH_CALL;
        at = prev;
    }
}
