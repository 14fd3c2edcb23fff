/* join_clock.c: the two halves of correlate.c's join that do not go by
 * time alone (join_clock.h): blocking calls joined to CUPTI's records by
 * external correlation id, and the offset between the two clocks'
 * conversions, which the pairs of calls and records near each other agree
 * on, by which the CUPTI records are moved before the rest is joined by
 * time (and a second chance for the calls that still lack their record).
 *
 * Why an offset: the wrappers' times are TSC ticks converted by the
 * writer, CUPTI's are converted when CUPTI stamps them (our timestamp
 * callback), each with the calibration of its moment.  On a loaded host a
 * calibration point can be off by microseconds, and the two conversions of
 * the same instant then differ by as much (5.8 us seen; 115 us in a
 * process's first milliseconds, while the tick rate is known from a 1 ms
 * span only), more than the time join's slack.  The difference changes
 * only when the calibration does (at the writer's pace): over a short
 * stretch of time it is the same for every record.  That is an older
 * tracer's file: now a tick converts to the same ns whenever it is
 * converted (collector/clock.c), the offset is 0 where CUPTI took our
 * timestamp callback (process.clock_source "...+cupti"), and correlate.c
 * moves no record there (proc.one_clock). */
#include "viewer/read/join_clock.h"
#include "format/record.h"
#include "viewer/model/idmap.h"
#include "viewer/read/load_internal.h"

#include <stdlib.h>

int64_t call_end_bound(const struct proc *p, const struct sort_key *co, size_t i)
{
    const struct call *c = &p->calls[co[i].i];
    if (!call_end_unknown(c))
        return c->end;
    if (i + 1 < p->ncalls && p->calls[co[i + 1].i].tid == c->tid)
        return p->calls[co[i + 1].i].start;
    return c->start + MATCH_WIDE_NS;
}

const struct ext *ext_first(const struct ext *x, size_t nx, int64_t id)
{
    size_t lo = 0, hi = nx;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid].id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nx && x[lo].id == id ? &x[lo] : NULL;
}

struct group_call { int64_t tid, start; size_t i; int api; };

static int cmp_group_call(const void *x, const void *y)
{
    const struct group_call *a = x, *b = y;
    if (a->tid != b->tid)
        return a->tid < b->tid ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* The tracer pushes an NCCL group's id, its outermost ncclGroupStart's,
 * around the ncclGroupEnd that closes it (libtrace/wrap_nccl.c), which
 * enqueues the group's work: out[ncclGroupStart's index + 1] = that
 * ncclGroupEnd's index, the groups of each thread followed in time order,
 * their depth counted (an ncclGroupSimulateEnd closes one too, launching
 * nothing). */
static void group_ends(const struct model *m, const struct proc *p, struct idmap *out)
{
    int gs = model_api_named(m, "ncclGroupStart"), ge = model_api_named(m, "ncclGroupEnd"),
        sim = model_api_named(m, "ncclGroupSimulateEnd");
    if (gs < 0 || ge < 0)
        return;
    size_t n = 0;
    for (size_t i = 0; i < p->ncalls; i++)
        n += p->calls[i].api == gs || p->calls[i].api == ge || p->calls[i].api == sim;
    struct group_call *v = n ? malloc(n * sizeof *v) : NULL;
    if (!v)
        return; /* none, or no memory: the time join's, as before */
    n = 0;
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        if (c->api == gs || c->api == ge || c->api == sim)
            v[n++] = (struct group_call){ c->tid, c->start, i, c->api };
    }
    qsort(v, n, sizeof *v, cmp_group_call);
    size_t depth = 0, outer = 0;
    for (size_t k = 0; k < n; k++) {
        if (k && v[k].tid != v[k - 1].tid)
            depth = 0;
        if (v[k].api == gs) {
            if (depth++ == 0)
                outer = v[k].i;
        } else if (depth && --depth == 0 && v[k].api == ge) {
            idmap_put(out, (uint64_t)outer + 1, (int64_t)v[k].i, 1);
        }
    }
    free(v);
}

size_t join_by_ext(struct model *m, struct proc *p, struct cupti_rec *a, size_t n, const struct ext *x, size_t nx,
                   uint8_t *exact)
{
    if (!nx || !n)
        return 0;
    /* correlation -> the call whose id was pushed when CUPTI made it: calls
     * of CUDA's APIs (their id tagged); ungrouped NCCL operations (their
     * own id, around the call: what CUPTI recorded inside, their kernel's
     * launch first); and the ncclGroupEnd that closes a group, around
     * which its ncclGroupStart's id was pushed */
    int group_start = model_api_named(m, "ncclGroupStart");
    struct idmap ends = { 0 };
    group_ends(m, p, &ends);
    struct idmap want = { 0 };
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        int64_t owner = (int64_t)i;
        if (c->call_id <= 0 || (c->api == group_start && !idmap_get(&ends, (uint64_t)i + 1, &owner)))
            continue;
        int of_cuda = cupti_api_has_records(m, c->api);
        int64_t id = (int64_t)(of_cuda ? GT_XCORR_TAG | (uint64_t)c->call_id : (uint64_t)c->call_id); /* as pushed */
        const struct ext *e = ext_first(x, nx, id);
        for (; e && e < x + nx && e->id == id; e++)
            idmap_put(&want, e->corr, owner, 1);
    }
    idmap_free(&ends);
    size_t joined = 0;
    if (want.n) {
        for (size_t k = 0; k < n; k++) {
            int64_t i;
            if (!idmap_get(&want, a[k].corr, &i))
                continue;
            struct call *c = &p->calls[i];
            /* its own record (of its API: the runtime's, not the driver's
             * made for it), and every other one made inside it */
            a[k].claimed = 1;
            if (!cupti_api_has_records(m, c->api)) {
                /* an NCCL operation: its record is the first made inside it
                 * (the records are in time order), its kernel's launch, as
                 * the time join takes it; no anchor of the clocks' offset
                 * (it is no record of the call itself) */
                if (!c->corr && a[k].tid == c->tid)
                    c->corr = a[k].corr;
                continue;
            }
            if (!c->corr && a[k].tid == c->tid && cupti_call_api(m, a[k].domain, a[k].cbid) == c->api) {
                c->corr = a[k].corr;
                a[k].claimed = 2; /* an anchor of the clocks' offset */
            }
            if (!exact[i]) {
                exact[i] = 1;
                joined++;
            }
        }
    }
    idmap_free(&want);
    return joined;
}

/* ---- the clocks' offset -------------------------------------------------
 *
 * Each pair of a call and a record of its API on its thread near it (the
 * CANDIDATES nearest on either side within MATCH_WIDE_NS) allows the
 * offsets (CUPTI's time minus the wrapper's) that put the record, moved
 * back by it, inside the call: from r.end - c.end to r.start - c.start.  The
 * true pairs of a stretch of time all allow the stretch's offset, and
 * together hardly anything else (each record begins a little after its
 * call, ends a little before); wrong pairs scatter.  So each stretch of a
 * thread's calls (BUCKET_NS) takes the offset most pairs allow, the exact
 * joins' pairs counting EXACT_VOTES each: none if that holds 0 (no sign of
 * drift: records stay at their own times), else the middle of the range
 * (the least move, to its edge, left the records there, and runs of
 * launches a few hundred ns apart were then paired one off).  In a run of
 * launches the pairs one off agree on an offset too, but fewer of them
 * (the run's ends and the other APIs' calls around it disagree), and the
 * exact joins settle it.  A stretch whose votes do not agree (fewer than
 * two, unless there is one only) keeps the thread's offset before it.  An
 * offset that changed within a stretch leaves some of its calls unmatched:
 * they get a second chance with the offsets of their stretch and those on
 * either side, and none (join_second_chance).  None of this where the two
 * clocks are one (correlate.c): the offset is 0 there, and the votes of a
 * loaded run's late records could only move it off. */
#define BUCKET_NS 250000
#define VOTERS 16      /* calls of a stretch that vote, besides the exact ones */
#define CANDIDATES 8   /* records each votes with, on either side of it */
#define EXACT_VOTES 4

struct edge { int64_t x; int w; };
struct votes { struct edge *e; size_t n, cap; };

/* Edges by x, ends before starts at one x (and by weight within those:
 * a total order on the values, so any correct sort gives the same array). */
static inline int edge_less(const struct edge *a, const struct edge *b)
{
    return a->x < b->x || (a->x == b->x && a->w < b->w);
}

static inline void edge_swap(struct edge *a, struct edge *b)
{
    struct edge t = *a;
    *a = *b;
    *b = t;
}

/* Sorts the votes' edges in place: a quicksort with the comparison inline
 * (median of three, insertion sort below 16, the smaller side first so
 * that the stack stays at log n).  qsort's calls through a pointer for
 * each comparison were a tenth of the report's time, a stretch's few
 * hundred edges at a time. */
static void sort_edges(struct edge *e, size_t n)
{
    while (n > 16) {
        size_t mid = n / 2, last = n - 1;
        if (edge_less(&e[mid], &e[0]))
            edge_swap(&e[mid], &e[0]);
        if (edge_less(&e[last], &e[0]))
            edge_swap(&e[last], &e[0]);
        if (edge_less(&e[last], &e[mid]))
            edge_swap(&e[last], &e[mid]);
        struct edge pivot = e[mid];
        size_t i = 0, j = last;
        for (;;) { /* Hoare's partition: e[0..j] <= pivot <= e[j+1..] */
            while (edge_less(&e[i], &pivot))
                i++;
            while (edge_less(&pivot, &e[j]))
                j--;
            if (i >= j)
                break;
            edge_swap(&e[i++], &e[j--]);
        }
        size_t left = j + 1;
        if (left < n - left) {
            sort_edges(e, left);
            e += left;
            n -= left;
        } else {
            sort_edges(e + left, n - left);
            n = left;
        }
    }
    for (size_t i = 1; i < n; i++) {
        struct edge x = e[i];
        size_t j = i;
        for (; j > 0 && edge_less(&x, &e[j - 1]); j--)
            e[j] = e[j - 1];
        e[j] = x;
    }
}

/* How long before its record a call whose end is unknown may begin (the
 * wrapper's work between its clock read and the real call: tens of ns;
 * more when the thread is preempted there). */
#define UNTIMED_LEAD_NS 500

/* The vote of call c and record r, weight w, if it allows an offset the
 * clocks can have drifted by.  A call whose end is unknown votes as if it
 * ended UNTIMED_LEAD_NS after its record would, had it begun with it: its
 * start alone places the record. */
static void vote(struct votes *v, const struct call *c, const struct cupti_rec *r, int w)
{
    int64_t c_end = call_end_unknown(c) ? c->start + (r->end - r->start) + UNTIMED_LEAD_NS : c->end;
    int64_t lo = r->end - c_end, hi = r->start - c->start;
    if (lo > hi) {
        /* a record longer than the call: not its, whatever the offset;
         * unless by no more than twice the slack, around it: a call
         * recorded in CUPTI's own callback, whose record brackets it (a
         * static runtime's calls: without their votes only wrong pairs
         * voted, and moved the records 7 us) */
        if (lo - hi > 2 * MATCH_SLACK_NS)
            return;
        lo -= MATCH_SLACK_NS;
        hi += MATCH_SLACK_NS;
    }
    /* a record far shorter than the call is hardly its (a call's record
     * lasts as long as it, but for the wrapper's own few hundred ns), and
     * allows a wide range of offsets, agreeing with those of other wrong
     * pairs (runs of 20 us calls with the short records after them
     * outvoted the true pairs): it votes only if it is more than half as
     * long as the call, or shorter by no more than the slack */
    if (hi < -MATCH_WIDE_NS || lo > MATCH_WIDE_NS ||
        (hi - lo > MATCH_SLACK_NS && 2 * (r->end - r->start) < c_end - c->start))
        return;
    if (lo < -MATCH_WIDE_NS)
        lo = -MATCH_WIDE_NS;
    if (hi > MATCH_WIDE_NS)
        hi = MATCH_WIDE_NS;
    if (v->n + 2 > v->cap) {
        v->cap = v->cap ? v->cap * 2 : 256;
        if (!(v->e = realloc(v->e, v->cap * sizeof *v->e)))
            model_out_of_memory();
    }
    v->e[v->n++] = (struct edge){ lo, w };
    v->e[v->n++] = (struct edge){ hi + 1, -w };
}

/* The offset the votes agree on most (see above), or `prev` if fewer than
 * two votes do.  (One pair alone counts: a thread that makes one call a
 * stretch follows its offset so.  In a file of one clock a lone call
 * whose record began out of reach, its thread preempted, paired with an
 * earlier call's record and moved its stretch's records by -140 us:
 * there is no vote there now, correlate.c.) */
static int64_t agreed(struct votes *v, int64_t prev)
{
    if (!v->n)
        return prev;
    sort_edges(v->e, v->n);
    int cur = 0, best = 0;
    for (size_t i = 0; i < v->n; i++)
        if ((cur += v->e[i].w) > best)
            best = cur;
    if (best < 2 && v->n != 2) /* (one pair alone is unambiguous: a call, the one record near it) */
        return prev;
    /* the ranges held by that many: 0 if one holds it, else the middle of
     * the one nearest the offset before */
    int64_t pick = prev, dist = INT64_MAX;
    cur = 0;
    for (size_t i = 0; i + 1 < v->n; i++) {
        cur += v->e[i].w;
        if (cur != best || v->e[i + 1].x == v->e[i].x)
            continue;
        int64_t lo = v->e[i].x, hi = v->e[i + 1].x - 1;
        if (lo <= 0 && hi >= 0)
            return 0;
        int64_t mid = lo / 2 + hi / 2, dd = mid > prev ? mid - prev : prev - mid;
        if (dd < dist) {
            dist = dd;
            pick = mid;
        }
    }
    return pick;
}

int join_shift_records(struct model *m, const struct proc *p, const struct sort_key *co, const uint8_t *exact,
                       struct cupti_rec *a, size_t n, struct join_offsets *out)
{
    *out = (struct join_offsets){ 0 };
    if (!n || !p->ncalls)
        return 0;
    /* the exact joins' own records (claimed 2) by correlation, the first
     * of each: sorted (correlation, index) pairs searched near the last
     * (correlate.c's join_by_time does the same), not a hash map grown
     * by doubling into fresh memory */
    struct sort_key *own = malloc((n + 1) * sizeof *own);
    size_t nown = 0, hint = 0;
    if (!own)
        model_out_of_memory();
    for (size_t k = 0; k < n; k++)
        if (a[k].claimed == 2)
            own[nown++] = (struct sort_key){ a[k].corr, k };
    if (sort_keys(own, nown) != 0)
        model_out_of_memory();
    struct votes v = { 0 };
    struct stretch *st = NULL;
    size_t nst = 0, cap = 0, j = 0;
    int voters = 0;
    for (size_t ci = 0; ci < p->ncalls; ci++) {
        const struct call *c = &p->calls[co[ci].i];
        if (!nst || st[nst - 1].tid != c->tid || c->start - st[nst - 1].from >= BUCKET_NS) {
            if (nst) /* the stretch before ends */
                st[nst - 1].d = agreed(&v, nst > 1 && st[nst - 2].tid == st[nst - 1].tid ? st[nst - 2].d : 0);
            GROW(st, nst, cap);
            st[nst++] = (struct stretch){ c->start, 0, c->tid };
            v.n = 0;
            voters = 0;
        }
        int64_t k;
        if (exact[co[ci].i]) {
            if (c->corr && (k = sort_keys_first_near(own, nown, c->corr, &hint)) >= 0)
                vote(&v, c, &a[k], EXACT_VOTES);
            continue;
        }
        if (voters >= VOTERS || !cupti_api_has_records(m, c->api))
            continue;
        voters++;
        /* the records of its API nearest it on either side, within the
         * window: the first of its thread that begins at or after it, and
         * back and forth from there */
        while (j < n && (a[j].tid < c->tid || (a[j].tid == c->tid && a[j].start < c->start)))
            j++;
        int got = 0;
        for (size_t r = j; got < CANDIDATES && r-- > 0 && a[r].tid == c->tid && a[r].start >= c->start - MATCH_WIDE_NS;)
            if (!a[r].claimed && cupti_call_api(m, a[r].domain, a[r].cbid) == c->api) {
                vote(&v, c, &a[r], 1);
                got++;
            }
        got = 0;
        for (size_t r = j; got < CANDIDATES && r < n && a[r].tid == c->tid && a[r].start <= c->start + MATCH_WIDE_NS; r++)
            if (!a[r].claimed && cupti_call_api(m, a[r].domain, a[r].cbid) == c->api) {
                vote(&v, c, &a[r], 1);
                got++;
            }
    }
    st[nst - 1].d = agreed(&v, nst > 1 && st[nst - 2].tid == st[nst - 1].tid ? st[nst - 2].d : 0);
    free(v.e);
    free(own);
    /* each record moves by the stretch of its thread it began in, in
     * CUPTI's clock (both in (thread, start) order); a thread without
     * calls keeps its times */
    int moved = 0;
    for (size_t k = 0, s = 0; k < n; k++) {
        while (s < nst && (st[s].tid < a[k].tid || (st[s].tid == a[k].tid && s + 1 < nst && st[s + 1].tid == a[k].tid &&
                                                    st[s + 1].from + st[s + 1].d <= a[k].start)))
            s++;
        if (s == nst || st[s].tid != a[k].tid || !st[s].d)
            continue;
        a[k].start -= st[s].d;
        a[k].end -= st[s].d;
        a[k].shift = (int32_t)st[s].d; /* |d| <= MATCH_WIDE_NS */
        moved = 1;
    }
    *out = (struct join_offsets){ st, nst };
    return moved;
}

/* The first record of thread tid that begins at or after t (records in
 * (thread, start) order). */
static size_t first_rec_from(const struct cupti_rec *a, size_t n, int tid, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a[mid].tid < tid || (a[mid].tid == tid && a[mid].start < t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void join_second_chance(struct model *m, struct proc *p, const struct sort_key *co, struct cupti_rec *a, size_t n,
                        struct join_offsets *o)
{
    const struct stretch *st = o->st;
    for (size_t ci = 0, s = 0; ci < p->ncalls && o->n; ci++) {
        struct call *c = &p->calls[co[ci].i];
        while (s + 1 < o->n && (st[s].tid < c->tid || (st[s + 1].tid == c->tid && st[s + 1].from <= c->start)))
            s++;
        if (c->corr || st[s].tid != c->tid || !cupti_api_has_records(m, c->api))
            continue;
        int64_t bound = call_end_bound(p, co, ci), untimed = call_end_unknown(c);
        /* the offsets to try: its stretch's and those around it, and none,
         * but the one the record moved by (not always its call's
         * stretch's: a record made just before a stretch whose offset is
         * negative moved by that stretch's) */
        int64_t d[4] = { s > 0 && st[s - 1].tid == c->tid ? st[s - 1].d : st[s].d,
                         s + 1 < o->n && st[s + 1].tid == c->tid ? st[s + 1].d : st[s].d, 0, st[s].d };
        for (size_t k = first_rec_from(a, n, c->tid, c->start - MATCH_WIDE_NS);
             !c->corr && k < n && a[k].tid == c->tid && a[k].start <= bound + MATCH_WIDE_NS; k++) {
            /* a record the first pass gave a call it lay in or beside,
             * at this stretch's offset, may be this call's own at its
             * neighbour's: a process's first stretch, whose few calls
             * agreed on no offset, kept none while the records were
             * 100 us off, and a call's record lay inside the next call */
            if ((a[k].claimed && a[k].claimed != CLAIMED_BY_TIME) || cupti_call_api(m, a[k].domain, a[k].cbid) != c->api)
                continue;
            for (int t = 0; t < 4; t++) {
                if (d[t] == a[k].shift) /* tried */
                    continue;
                int64_t rs = a[k].start + a[k].shift - d[t], re = a[k].end + a[k].shift - d[t];
                if (rs >= c->start - MATCH_SLACK_NS && re <= bound + MATCH_SLACK_NS && re >= c->start) {
                    c->corr = a[k].corr;
                    a[k].claimed = 1;
                    if (untimed)
                        c->end = untimed_end(c, rs, re, bound);
                    break;
                }
            }
        }
    }
    free(o->st);
    *o = (struct join_offsets){ 0 };
}
