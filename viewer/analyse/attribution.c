/* attribution.c: resolves the findings' claims on each rank's time so that
 * every interval is charged to at most one finding (attribution.h). */
#include "viewer/analyse/attribution.h"
#include "viewer/analyse/findings.h"
#include "viewer/model/idmap.h"
#include "viewer/model/timeline.h"

#include <stdlib.h>
#include <string.h>

/* The order of causes: a claim of an earlier kind wins the time.  The
 * waiting that a straggler or a hang causes comes first (a collective
 * exposed while it waits for a late rank is waiting, not exposed); then a
 * collective on the compute stream (the one finding for it); then exposed
 * collectives; then NCCL's connection set-up and CUDA's set-up holding the
 * host; then the GPU idle with work queued for it; then the host's
 * blocking calls, the most specific first; the
 * GPU idle that no host sync explains comes last. */
static int rank_of(int kind)
{
    switch (kind) {
    case F_COMM_STRAGGLER: return 0;
    case F_COMM_HANG: return 1;
    case F_COMM_SAME_STREAM: return 2;
    case F_COMM_EXPOSED: return 3;
    case F_COMM_LAZY_CONNECT: return 4; /* the host held in NCCL's connection set-up: the GPU idle it leaves is its */
    /* the host held in a CUDA call of set-up: its own call's idle, which a
     * sync before it claims too (the idle after a sync until the next
     * work, what the host then did included); the set-up is what that
     * idle was made of, and removing it saves more than removing the sync
     * (the what-if: tests/data/golden/hand-setup_steps).  Before a stall:
     * a module loaded at a kernel's first launch may hold the context, so
     * work queued on another stream waits for it */
    case F_HOST_SETUP: return 5;
    /* the GPU idle with work queued for it: whatever the host did then
     * (a sync waiting for that work claims the same time), the GPU did
     * not run what it had */
    case F_GPU_STALLED: return 6;
    case F_COPY_PAGEABLE: return 7;
    case F_SYNC_DEVICE_WIDE: return 8;
    case F_SYNC_SCALAR_READ: return 9;
    case F_SYNC_IMPLICIT: return 10;
    case F_SYNC_NO_CONSUMER: return 11;
    case F_SYNC_REDUNDANT: return 12;
    case F_COPY_SERIALIZED: return 13;
    case F_GPU_IDLE: return 14;
    default: return 15;
    }
}

static void push(struct charge **v, size_t *n, size_t *cap, struct charge c)
{
    if (*n == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        if (!(*v = realloc(*v, *cap * sizeof **v)))
            model_out_of_memory();
    }
    (*v)[(*n)++] = c;
}

/* a claim's kind and occurrence are 8 bits (struct charge: 32 bytes) */
_Static_assert(F_KIND_COUNT <= 127 && FINDING_MARKS <= 127, "struct charge's kind and occ are int8_t");

void charge_add(struct findings *fs, const struct finding *f, int tl, int64_t a, int64_t b)
{
    if (b <= a)
        return;
    struct charges *c = &fs->charges;
    /* an occurrence claims right after findings_at marked it */
    int occ = f->mark_open ? f->nmarks - 1 : -1;
    push(&c->v, &c->n, &c->cap, (struct charge){ a, b, tl, f->proc, f->callsite_id, (int8_t)f->kind, (int8_t)occ, 0 });
}

/* One uncovered part, claimed (charge_gaps), but for p's stretches
 * without GPU records (charge_idle; p NULL: none). */
struct gap_claim { struct findings *fs; const struct finding *f; int tl; int64_t total; const struct proc *p; };

static void claim_part(void *arg, int64_t a, int64_t b)
{
    struct gap_claim *g = arg;
    charge_add(g->fs, g->f, g->tl, a, b);
    model_add(&g->total, b - a);
}

static void claim_gap(void *arg, int64_t a, int64_t b)
{
    struct gap_claim *g = arg;
    model_gpu_gap_split(g->p, a, b, claim_part, NULL, g);
}

int64_t charge_gaps(struct findings *fs, const struct finding *f, int tl, const struct ivals *busy, int64_t a, int64_t b)
{
    struct gap_claim g = { fs, f, tl, 0, NULL };
    ivals_split(busy, a, b, 0, claim_gap, &g);
    return g.total;
}

int64_t charge_idle(struct findings *fs, const struct finding *f, int tl, const struct proc *p, const struct ivals *busy,
                    int64_t a, int64_t b)
{
    struct gap_claim g = { fs, f, tl, 0, p };
    ivals_split(busy, a, b, 0, claim_gap, &g);
    return g.total;
}

void charges_drop(struct findings *fs, int proc, int first, int last)
{
    struct charges *c = &fs->charges;
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++)
        if (c->v[i].proc != proc || c->v[i].kind < first || c->v[i].kind > last)
            c->v[k++] = c->v[i];
    c->n = k;
}

/* Within one timeline and one cause: whether claim a comes after b, by
 * start, end, then kind, process and site, so that the same claim wins
 * whatever order the claims were noted in (a rank read in windows notes
 * them in another). */
static int claim_later(const struct charge *a, const struct charge *b)
{
    if (a->a != b->a)
        return a->a > b->a;
    if (a->b != b->b)
        return a->b > b->b;
    if (a->kind != b->kind)
        return a->kind > b->kind;
    if (a->proc != b->proc)
        return a->proc > b->proc;
    return a->site > b->site;
}

int charge_cmp(const void *x, const void *y)
{
    const struct charge *a = x, *b = y;
    if (a->tl != b->tl)
        return a->tl < b->tl ? -1 : 1;
    int ra = rank_of(a->kind), rb = rank_of(b->kind);
    if (ra != rb)
        return ra < rb ? -1 : 1;
    return claim_later(a, b) - claim_later(b, a);
}

/* src[0, n) merged, run by run, into dst: each pass merges neighbouring
 * runs in claim order (ties: the left run's first, so stable) until one is
 * left.  Returns where the sorted claims are (src or dst). */
static struct charge *merge_runs(struct charge *src, struct charge *dst, size_t n)
{
    for (;;) {
        size_t runs = 0;
        for (size_t i = 0; i < n;) {
            size_t mid = i + 1;
            while (mid < n && !claim_later(&src[mid - 1], &src[mid]))
                mid++;
            size_t end = mid < n ? mid + 1 : n;
            while (end < n && !claim_later(&src[end - 1], &src[end]))
                end++;
            size_t l = i, r = mid, k = i;
            while (l < mid && r < end)
                dst[k++] = claim_later(&src[l], &src[r]) ? src[r++] : src[l++];
            memcpy(dst + k, src + l, (mid - l) * sizeof *dst);
            k += mid - l;
            memcpy(dst + k, src + r, (end - r) * sizeof *dst);
            runs++;
            i = end;
        }
        if (runs <= 1)
            return dst;
        struct charge *t = src;
        src = dst;
        dst = t;
    }
}

/* (attribution.h) The analyses note one process's claims in time order,
 * cause after cause, so they are put in buckets by (timeline, cause) first,
 * stably, and each bucket is then a few sorted runs to merge: about linear,
 * where qsort's calls through a pointer per comparison were two thirds of
 * attribute_costs. */
void charges_sort(struct charge *v, size_t n, size_t nprocs)
{
    enum { CAUSES = 16 }; /* rank_of's values */
    size_t nb = nprocs * CAUSES;
    size_t *at = calloc(nb + 1, sizeof *at);
    struct charge *a = malloc(n * sizeof *a); /* one array beside v, as glibc's merge sort took */
    if (!at || !a)
        model_out_of_memory();
    for (size_t i = 0; i < n; i++)
        at[(size_t)v[i].tl * CAUSES + (size_t)rank_of(v[i].kind) + 1]++;
    for (size_t i = 0; i < nb; i++)
        at[i + 1] += at[i];
    for (size_t i = 0; i < n; i++) /* at[k]: where bucket k's next claim goes, then its end */
        a[at[(size_t)v[i].tl * CAUSES + (size_t)rank_of(v[i].kind)]++] = v[i];
    /* each bucket merged between a and v (whose claims are all in a now) */
    for (size_t k = 0, from = 0; k < nb; from = at[k++]) {
        size_t len = at[k] - from;
        struct charge *sorted = len > 1 ? merge_runs(a + from, v + from, len) : a + from;
        if (len && sorted != v + from)
            memcpy(v + from, sorted, len * sizeof *v);
    }
    free(at);
    free(a);
}

struct span { int64_t a, b; };

/* The parts of [a, b) that the sorted disjoint union u does not cover,
 * given to the claim (pieces kept, lengths summed into *cost). */
static void give(struct charges *c, const struct span *u, size_t nu, const struct charge *cl, int64_t a, int64_t b,
                 int64_t *cost, size_t *given_cap)
{
    size_t lo = 0, hi = nu;
    while (lo < hi) { /* the first span ending after a */
        size_t mid = (lo + hi) / 2;
        if (u[mid].b <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; a < b; i++) {
        int64_t end = i < nu && u[i].a < b ? u[i].a : b;
        if (end > a) {
            struct charge *last = c->ngiven ? &c->given[c->ngiven - 1] : NULL;
            if (last && last->b == a && last->tl == cl->tl && last->kind == cl->kind && last->proc == cl->proc &&
                last->site == cl->site) {
                last->b = end; /* one piece, however the claims were cut (a long rank's windows cut them) */
            } else {
                struct charge piece = *cl;
                piece.a = a;
                piece.b = end;
                push(&c->given, &c->ngiven, given_cap, piece);
            }
            model_add(cost, end - a);
        }
        if (i >= nu || u[i].a >= b)
            break;
        a = u[i].b > a ? u[i].b : a;
    }
}

/* u := u merged with the sorted disjoint spans l. */
static void merge_into(struct span **u, size_t *nu, const struct span *l, size_t nl)
{
    struct span *t = malloc((*nu + nl + 1) * sizeof *t);
    if (!t)
        model_out_of_memory();
    size_t i = 0, j = 0, n = 0;
    while (i < *nu || j < nl) {
        struct span s = j >= nl || (i < *nu && (*u)[i].a <= l[j].a) ? (*u)[i++] : l[j++];
        if (n && s.a <= t[n - 1].b) {
            if (s.b > t[n - 1].b)
                t[n - 1].b = s.b;
        } else {
            t[n++] = s;
        }
    }
    free(*u);
    *u = t;
    *nu = n;
}

/* The resolution's state over one process's claims: the time given so
 * far (u), a cause's claims' union while it is resolved (level). */
struct resolver { struct span *u, *level; size_t nu, lcap, given_cap; };

/* Claims v[0, n) of one process and one kind of cause, sorted by start,
 * each given the parts of its time that no claim before it was (into
 * out's pieces), and that share handed to got(); claims keep() refuses
 * (NULL: none) are left out. */
static void resolve_cause(struct resolver *r, struct charges *out, const struct charge *v, size_t n,
                          int (*keep)(const struct charge *, void *),
                          void (*got)(const struct charge *, int64_t, void *), void *arg)
{
    if (n > r->lcap) {
        r->lcap = n * 2;
        if (!(r->level = realloc(r->level, r->lcap * sizeof *r->level)))
            model_out_of_memory();
    }
    size_t nl = 0;
    int64_t end = INT64_MIN; /* claims of one kind overlapping each other: the earlier wins */
    for (size_t q = 0; q < n; q++) {
        const struct charge *cl = &v[q];
        int64_t a = cl->a > end ? cl->a : end, b = cl->b;
        if (b <= a || (keep && !keep(cl, arg)))
            continue;
        end = b;
        int64_t share = 0;
        give(out, r->u, r->nu, cl, a, b, &share, &r->given_cap);
        if (got)
            got(cl, share, arg);
        if (nl && a <= r->level[nl - 1].b)
            r->level[nl - 1].b = b > r->level[nl - 1].b ? b : r->level[nl - 1].b;
        else
            r->level[nl++] = (struct span){ a, b };
    }
    merge_into(&r->u, &r->nu, r->level, nl);
}

/* attribute_costs' share of a claim: its finding's cost, its occurrence's,
 * its process's total. */
struct costing { struct findings *fs; struct idmap *kept; };

static void add_cost(const struct charge *cl, int64_t share, void *arg)
{
    struct costing *k = arg;
    int64_t fi = 0;
    idmap_get(k->kept, finding_key(cl->kind, cl->proc, cl->site), &fi);
    struct finding *f = &k->fs->v[fi];
    model_add(&f->cost_ns, share);
    if (cl->occ >= 0 && cl->occ < f->nmarks)
        model_add(&f->marks[cl->occ].cost, share);
    model_add(&k->fs->charges.by_proc[cl->tl], share);
}

void attribute_costs(struct findings *fs, const struct model *m, const struct report_opts *o)
{
    struct charges *c = &fs->charges;
    struct idmap kept = { 0 };
    for (size_t i = 0; i < fs->n; i++) {
        fs->v[i].cost_ns = 0;
        for (int k = 0; k < fs->v[i].nmarks; k++)
            fs->v[i].marks[k].cost = 0; /* each occurrence's share of what the finding is given (below) */
        if (finding_kept(&fs->v[i], o))
            idmap_put(&kept, finding_key((int)fs->v[i].kind, fs->v[i].proc, fs->v[i].callsite_id), (int64_t)i, 1);
    }
    free(c->by_proc);
    c->nprocs = m->nprocs;
    if (!(c->by_proc = calloc(m->nprocs + 1, sizeof *c->by_proc)))
        model_out_of_memory();
    /* the claims of kept findings, clipped to their process's life */
    size_t k = 0;
    for (size_t i = 0; i < c->n; i++) {
        struct charge cl = c->v[i];
        int64_t fi;
        if (cl.tl < 0 || (size_t)cl.tl >= m->nprocs || !idmap_get(&kept, finding_key(cl.kind, cl.proc, cl.site), &fi))
            continue;
        const struct proc *p = &m->procs[cl.tl];
        if (cl.a < p->start)
            cl.a = p->start;
        if (cl.b > p->end)
            cl.b = p->end;
        if (cl.b > cl.a)
            c->v[k++] = cl;
    }
    c->n = k;
    if (c->n)
        charges_sort(c->v, c->n, m->nprocs);
    free(c->given);
    c->given = NULL;
    c->ngiven = 0;
    struct resolver r = { 0 };
    struct costing costing = { fs, &kept };
    for (size_t i = 0; i < c->n;) {
        /* one process, one kind of cause: claims sorted by start */
        size_t j = i;
        while (j < c->n && c->v[j].tl == c->v[i].tl && rank_of(c->v[j].kind) == rank_of(c->v[i].kind))
            j++;
        if (!i || c->v[i].tl != c->v[i - 1].tl)
            r.nu = 0; /* a new process: nothing charged yet */
        resolve_cause(&r, c, c->v + i, j - i, NULL, add_cost, &costing);
        i = j;
    }
    free(r.u);
    free(r.level);
    idmap_free(&kept);
}

void charges_resolve_some(const struct charge *v, size_t n, int (*keep)(const struct charge *, void *), void *arg,
                          struct charge **out, size_t *nout)
{
    struct charges got = { 0 };
    struct resolver r = { 0 };
    for (size_t i = 0; i < n;) {
        size_t j = i; /* one kind of cause, as attribute_costs takes them */
        while (j < n && rank_of(v[j].kind) == rank_of(v[i].kind))
            j++;
        resolve_cause(&r, &got, v + i, j - i, keep, NULL, arg);
        i = j;
    }
    free(r.u);
    free(r.level);
    *out = got.given;
    *nout = got.ngiven;
}

size_t charges_next(const struct findings *fs, const struct finding *f, size_t from)
{
    const struct charges *c = &fs->charges;
    for (size_t i = from; i < c->ngiven; i++)
        if (c->given[i].kind == (int)f->kind && c->given[i].proc == f->proc && c->given[i].site == f->callsite_id)
            return i;
    return c->ngiven;
}

size_t charges_spread(const struct findings *fs, const int *group, size_t leader, int64_t *per_proc, size_t nprocs)
{
    memset(per_proc, 0, nprocs * sizeof *per_proc);
    const struct charges *c = &fs->charges;
    for (size_t i = leader; i < fs->n; i++) {
        if (group ? group[i] != (int)leader : i != leader)
            continue;
        const struct finding *f = &fs->v[i];
        for (size_t k = 0; k < c->ngiven; k++) {
            const struct charge *g = &c->given[k];
            if (g->kind == (int)f->kind && g->proc == f->proc && g->site == f->callsite_id && g->tl >= 0 &&
                (size_t)g->tl < nprocs)
                model_add(&per_proc[g->tl], g->b - g->a);
        }
    }
    size_t n = 0;
    for (size_t p = 0; p < nprocs; p++)
        n += per_proc[p] > 0;
    return n;
}

void charges_free(struct charges *c)
{
    free(c->v);
    free(c->given);
    free(c->by_proc);
    memset(c, 0, sizeof *c);
}
