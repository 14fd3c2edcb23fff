/* whatif_joint.c: every rank's steps replayed together from their
 * summaries (whatif_joint.h).
 *
 * Each rank's collectives are taken in its order (a probe follows only
 * collectives before it), a cursor a rank: a collective no other rank
 * shares ends its measured time after its arrival; one shared waits for
 * every member to reach it, then ends for each when the last arrived (on
 * the aligned clock) plus its transfer time.  Ranks whose collectives come
 * in orders no cursor can follow (a group waited for by a member still
 * behind another group) are unblocked by ending the blocked group of the
 * earliest measured end with what its members' times are so far. */
#include "viewer/analyse/whatif_joint.h"
#include "viewer/model/model.h"
#include "viewer/model/tmpstore.h"

#include <stdlib.h>
#include <string.h>

struct solve {
    const struct wj_rank *const *r;
    size_t nr;
    const struct wj_member *mem;
    const struct wj_group *g;
    const double *cut;
    struct wj_cache *cache; /* per rank: its probes put aside, as read */
    int64_t **end;   /* per rank, per collective probe: its end so far */
    int32_t **grp;   /* ... its group, -1: none */
    uint8_t **seen;  /* ... counted as arrived at its group */
    uint8_t *done;   /* per group: ended */
    size_t *arrived; /* per group: its members at their cursors */
};

/* Times and paths are the replays' (within +-2^61 ns: replay.c), but a
 * damaged file's add up along a chain of collectives: each sum here
 * saturates and is kept within +-2^61 too (model.h), so that none passes
 * 64 bits. */
#define JT_BITS 61
static int64_t jt_add(int64_t a, int64_t b)
{
    model_add(&a, b);
    return model_clamp(a, JT_BITS);
}
static int64_t jt_sub(int64_t a, int64_t b)
{
    return jt_add(a, b == INT64_MIN ? INT64_MAX : -b);
}

static int64_t cut_of(const struct solve *s, size_t r, const struct wj_pred *q)
{
    double x = 0;
    for (int k = 0; s->cut && k < WJ_LABELS; k++)
        x += s->cut[r * WJ_LABELS + k] * (double)q->host[k];
    const double lim = (double)((int64_t)1 << JT_BITS); /* converted only within 64 bits */
    return model_clamp(x < -lim ? INT64_MIN : x > lim ? INT64_MAX : (int64_t)x, JT_BITS);
}

/* Probe k of rank r, with what came before it as ended so far: the
 * latest of its paths. */
static int64_t arrive(const struct solve *s, size_t r, size_t k)
{
    const struct wj_rank *w = s->r[r];
    const struct wj_probe *q = wj_probe_at(w, &s->cache[r], k);
    int64_t a = INT64_MIN;
    if (q->host.p)
        a = jt_sub(q->host.d, cut_of(s, r, &q->host));
    for (int i = 0; i < q->npred; i++) {
        const struct wj_pred *e = &q->pred[i];
        if (e->p < 0 || (size_t)e->p >= w->ncoll || (size_t)e->p == k)
            continue;
        int64_t x = jt_sub(jt_add(s->end[r][e->p], e->d), cut_of(s, r, e));
        a = x > a ? x : a;
    }
    return a == INT64_MIN ? q->at : a;
}

static void resolve(struct solve *s, size_t gi)
{
    const struct wj_group *g = &s->g[gi];
    int64_t last = INT64_MIN;
    for (size_t i = g->first; i < g->first + g->n; i++) {
        const struct wj_member *m = &s->mem[i];
        int in = m->rank >= 0 && s->r[m->rank] && m->probe >= 0;
        int64_t a = in ? jt_add(arrive(s, (size_t)m->rank, (size_t)m->probe), m->off) : m->arrived;
        last = a > last ? a : last;
    }
    for (size_t i = g->first; i < g->first + g->n; i++) {
        const struct wj_member *m = &s->mem[i];
        if (m->rank >= 0 && s->r[m->rank] && m->probe >= 0)
            s->end[m->rank][m->probe] = jt_add(jt_sub(last, m->off), m->xfer);
    }
    s->done[gi] = 1;
}

/* Moves rank r's cursor on as far as it goes; whether it moved. */
static int advance(struct solve *s, size_t r, size_t *cur)
{
    const struct wj_rank *w = s->r[r];
    int moved = 0;
    while (*cur < w->ncoll) {
        size_t k = *cur;
        int32_t g = s->grp[r][k];
        if (g < 0) {
            s->end[r][k] = jt_add(arrive(s, r, k), wj_probe_at(w, &s->cache[r], k)->dur);
        } else if (!s->done[g]) {
            if (!s->seen[r][k]) {
                s->seen[r][k] = 1;
                s->arrived[g]++;
            }
            if (s->arrived[g] < s->g[g].n)
                break;
            resolve(s, (size_t)g);
        }
        (*cur)++;
        moved = 1;
    }
    return moved;
}

static void run(struct solve *s, size_t ngroups)
{
    size_t *cur = calloc(s->nr + 1, sizeof *cur);
    if (!cur)
        return;
    for (size_t gi = 0; gi < ngroups; gi++) /* members not replayed are there already */
        for (size_t i = s->g[gi].first; i < s->g[gi].first + s->g[gi].n; i++)
            if (s->mem[i].rank < 0 || !s->r[s->mem[i].rank] || s->mem[i].probe < 0)
                s->arrived[gi]++;
    for (;;) {
        int moved = 0, left = 0;
        for (size_t r = 0; r < s->nr; r++) {
            if (!s->r[r])
                continue;
            moved |= advance(s, r, &cur[r]);
            left |= cur[r] < s->r[r]->ncoll;
        }
        if (!left)
            break;
        if (moved)
            continue;
        /* blocked: the waiting group that ended first, ended now */
        int32_t best = -1;
        for (size_t r = 0; r < s->nr; r++) {
            if (!s->r[r] || cur[r] >= s->r[r]->ncoll)
                continue;
            int32_t g = s->grp[r][cur[r]];
            if (g >= 0 && (best < 0 || s->g[g].order < s->g[best].order))
                best = g;
        }
        if (best < 0)
            break;
        resolve(s, (size_t)best);
    }
    free(cur);
}

int wj_solve(const struct wj_rank *const *ranks, size_t nranks, const struct wj_member *mem,
             const struct wj_group *groups, size_t ngroups, const double *cut, double *step_ns)
{
    struct solve s = { ranks, nranks, mem, groups, cut, calloc(nranks + 1, sizeof *s.cache),
                       calloc(nranks + 1, sizeof *s.end), calloc(nranks + 1, sizeof *s.grp),
                       calloc(nranks + 1, sizeof *s.seen), calloc(ngroups + 1, 1),
                       calloc(ngroups + 1, sizeof *s.arrived) };
    int rc = s.cache && s.end && s.grp && s.seen && s.done && s.arrived ? 0 : -1;
    for (size_t r = 0; r < nranks && rc == 0; r++) {
        const struct wj_rank *w = ranks[r];
        if (!w)
            continue;
        s.end[r] = malloc((w->ncoll + 1) * sizeof **s.end);
        s.grp[r] = malloc((w->ncoll + 1) * sizeof **s.grp);
        s.seen[r] = calloc(w->ncoll + 1, 1);
        if (!s.end[r] || !s.grp[r] || !s.seen[r]) {
            rc = -1;
            break;
        }
        for (size_t k = 0; k < w->ncoll; k++) {
            s.end[r][k] = w->ends ? w->ends[k] : jt_add(w->v[k].at, w->v[k].dur); /* (no ends: none put aside) */
            s.grp[r][k] = -1;
        }
    }
    for (size_t gi = 0; gi < ngroups && rc == 0; gi++)
        for (size_t i = groups[gi].first; i < groups[gi].first + groups[gi].n; i++) {
            const struct wj_member *m = &mem[i];
            if (m->rank >= 0 && (size_t)m->rank < nranks && ranks[m->rank] && m->probe >= 0 &&
                (size_t)m->probe < ranks[m->rank]->ncoll)
                s.grp[m->rank][m->probe] = (int32_t)gi;
        }
    if (rc == 0)
        run(&s, ngroups);
    for (size_t r = 0; r < nranks; r++) {
        const struct wj_rank *w = ranks[r];
        step_ns[r] = -1;
        if (rc == 0 && w && w->steps > 0)
            step_ns[r] = (double)jt_sub(arrive(&s, r, w->ncoll + 1), arrive(&s, r, w->ncoll)) / (double)w->steps;
        if (s.end)
            free(s.end[r]);
        if (s.grp)
            free(s.grp[r]);
        if (s.seen)
            free(s.seen[r]);
        if (s.cache)
            wj_cache_free(&s.cache[r]);
    }
    free(s.cache);
    free(s.end);
    free(s.grp);
    free(s.seen);
    free(s.done);
    free(s.arrived);
    return rc;
}

void wj_rank_free(struct wj_rank *r)
{
    if (!r)
        return;
    free(r->v);
    free(r->gaps);
    free(r->chunks);
    free(r->ends);
    r->v = NULL;
    r->gaps = NULL;
    r->chunks = NULL;
    r->ends = NULL;
}

const struct wj_probe *wj_probe_at(const struct wj_rank *w, struct wj_cache *c, size_t k)
{
    if (k >= w->nspilled)
        return &w->v[k - w->nspilled];
    if (c->n && c->of == w && k >= c->first && k < c->first + c->n)
        return &c->buf[k - c->first];
    size_t lo = 0, hi = w->nchunks; /* the chunk that holds it: the last starting at or before k */
    while (hi - lo > 1) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->chunks[mid].first <= k)
            lo = mid;
        else
            hi = mid;
    }
    const struct wj_chunk *ch = &w->chunks[lo];
    if (ch->n > c->cap) {
        struct wj_probe *b = realloc(c->buf, ch->n * sizeof *b);
        if (!b)
            model_out_of_memory();
        c->buf = b;
        c->cap = ch->n;
    }
    tmpstore_read(w->store, ch->at, c->buf, ch->n * sizeof *c->buf);
    c->of = w;
    c->first = ch->first;
    c->n = ch->n;
    return &c->buf[k - c->first];
}

void wj_cache_free(struct wj_cache *c)
{
    free(c->buf);
    memset(c, 0, sizeof *c);
}

void wj_spill(struct wj_rank *w, struct tmpstore *store)
{
    size_t n = w->ncoll - w->nspilled;
    if (!n)
        return;
    struct wj_chunk *ch = realloc(w->chunks, (w->nchunks + 1) * sizeof *ch);
    if (!ch)
        return; /* kept in memory */
    w->chunks = ch;
    ch[w->nchunks++] = (struct wj_chunk){ tmpstore_append(store, w->v, n * sizeof *w->v), w->nspilled, n };
    w->store = store;
    w->nspilled = w->ncoll;
}
