/* windows.c: where a long rank can be cut into windows, and the rows of
 * each (windows.h). */
#include "viewer/read/windows.h"
#include "viewer/read/load_internal.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/timeline.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Candidates kept at most (past this, half of them go, by their hash): a
 * window needs one cut per WINDOW_ROWS records, and each candidate costs
 * about 50 bytes in the second pass. */
#define MAX_CANDIDATES (1 << 16)
/* A piece of a table, whose records' times the second pass notes: this
 * many rowids of a table of rows, or of a table of blocks. */
#define PIECE_ROWS 4096
#define PIECE_BLOCKS 16

/* The tables a window reads (ext_corr is read once per process). */
static const int tables[] = { RT_API_CALL, RT_CALL_BLOCK, RT_CUPTI_API, RT_CAPI_BLOCK, RT_GPU_OP, RT_GPU_BLOCK };
#define NTABLES (sizeof tables / sizeof *tables)

/* Past this a window is never needed: the setting is kept to it, so that
 * the factor a rank must pass (WINDOW_MIN_FACTOR) cannot overflow. */
#define WINDOW_ROWS_MOST (1ll << 40)

static int64_t rows_setting;
static pthread_once_t rows_once = PTHREAD_ONCE_INIT;

/* GPUTRACE_REPORT_WINDOW_ROWS, read once (workers plan their ranks at
 * the same time): a number of rows, 1 or more; a larger number than
 * WINDOW_ROWS_MOST is kept to it; anything else is said once, without the
 * value (whatever the environment held: control bytes, kilobytes). */
static void read_rows_setting(void)
{
    const char *e = getenv("GPUTRACE_REPORT_WINDOW_ROWS");
    rows_setting = WINDOW_ROWS;
    if (!e)
        return;
    char *end;
    errno = 0;
    long long n = strtoll(e, &end, 10);
    if (end != e && !*end && n > 0) {
        rows_setting = errno == ERANGE || n > WINDOW_ROWS_MOST ? WINDOW_ROWS_MOST : n;
        return;
    }
    fprintf(stderr, "gputrace-report: GPUTRACE_REPORT_WINDOW_ROWS is not a number of rows (1 or more): %d used\n",
            WINDOW_ROWS);
}

static int64_t window_rows(void)
{
    pthread_once(&rows_once, read_rows_setting);
    return rows_setting;
}

/* Index of the first of the n sorted values above t. */
static size_t above(const int64_t *x, size_t n, int64_t t)
{
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x[mid] <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ---- the first pass: candidates, right after each host sync ------------- */

struct candidates {
    struct proc_scan scan;     /* first: the pass hands this back */
    const struct model *m;
    uint8_t *api;              /* the APIs of the calls seen (proc.api_wrapped) */
    int64_t *v; size_t n, cap;
    int level;                 /* kept: those whose hash ends in this many 0 bits */
};

/* A candidate's hash: which are kept when there are too many is decided by
 * it, the same for each run, and spread evenly over the rank's time
 * whatever the pattern of its steps (keeping every other one, a rank whose
 * every other step runs a collective across the candidate kept none that
 * hold). */
static uint64_t hash64(int64_t x)
{
    uint64_t z = (uint64_t)x + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int kept(int64_t x, int level)
{
    return !(hash64(x) & ((1ull << level) - 1));
}

static void candidate_call(struct proc_scan *s, const struct call *c)
{
    struct candidates *k = (struct candidates *)s;
    if (c->api < k->m->napis)
        k->api[c->api] = 1;
    if (!model_is_explicit_sync(k->m, c) && !model_is_implicit_sync(k->m, c))
        return;
    int64_t x = c->end + MATCH_SLACK_NS + 1; /* times are within +-2^60 (model_ns) */
    if (!kept(x, k->level))
        return;
    if (k->n == k->cap) {
        if (k->cap >= MAX_CANDIDATES) { /* half of them go, and of those to come */
            k->level++;
            size_t n = 0;
            for (size_t i = 0; i < k->n; i++)
                if (kept(k->v[i], k->level))
                    k->v[n++] = k->v[i];
            k->n = n;
            if (!kept(x, k->level) || k->n == k->cap)
                return;
        } else {
            k->cap = k->cap ? k->cap * 2 : 1024;
            if (!(k->v = realloc(k->v, k->cap * sizeof *k->v)))
                model_out_of_memory();
        }
    }
    k->v[k->n++] = x;
}

static void no_capi(struct proc_scan *s, int64_t start, int64_t end, uint32_t corr)
{
    (void)s, (void)start, (void)end, (void)corr;
}

static void no_op(struct proc_scan *s, const struct gop *g)
{
    (void)s, (void)g;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* ---- the second pass: which candidates hold, and where the rows are ----- */

struct piece { int64_t first, last, min, max, n; };
struct pieces { struct piece *v; size_t n, cap; };

struct proving {
    struct proc_scan scan;     /* first: the pass hands this back */
    struct proc *p;
    const int64_t *x; size_t nx;           /* the candidates, sorted */
    /* per interval between candidates (nx + 1 of them): records, and the
     * lowest and highest correlation ids of API records and of operations
     * (-1 and INT64_MAX when none) */
    int64_t *count, *capi_max, *capi_min, *op_max, *op_min;
    int32_t *across;                       /* records running across each candidate, as differences */
    struct piece *cur;                     /* the piece being read */
};

static void note_piece(struct piece *pc, int64_t start)
{
    pc->n++;
    if (start < pc->min)
        pc->min = start;
    if (start > pc->max)
        pc->max = start;
}

/* A record from start to end runs across the candidates in [a, b). */
static void across(struct proving *v, size_t a, size_t b)
{
    if (a < b) {
        v->across[a]++;
        v->across[b]--;
    }
}

static void corr_into(int64_t *max, int64_t *min, uint32_t corr)
{
    if ((int64_t)corr > *max)
        *max = corr;
    if ((int64_t)corr < *min)
        *min = corr;
}

/* Calls and API records: those that start before a candidate must end
 * more than the slack before it. */
static void host_record(struct proving *v, int64_t start, int64_t end)
{
    note_piece(v->cur, start);
    size_t i = above(v->x, v->nx, start);
    v->count[i]++;
    across(v, i, above(v->x, v->nx, end + MATCH_SLACK_NS));
}

static void proving_call(struct proc_scan *s, const struct call *c)
{
    host_record((struct proving *)s, c->start, c->end);
}

static void proving_capi(struct proc_scan *s, int64_t start, int64_t end, uint32_t corr)
{
    struct proving *v = (struct proving *)s;
    host_record(v, start, end);
    size_t i = above(v->x, v->nx, start);
    corr_into(&v->capi_max[i], &v->capi_min[i], corr);
}

/* GPU operations: those that start before a candidate must end by it. */
static void proving_op(struct proc_scan *s, const struct gop *g)
{
    struct proving *v = (struct proving *)s;
    note_piece(v->cur, g->start);
    size_t i = above(v->x, v->nx, g->start);
    v->count[i]++;
    corr_into(&v->op_max[i], &v->op_min[i], g->corr);
    size_t b = above(v->x, v->nx, g->end - 1); /* candidates below the end */
    across(v, i, b);
    if (g->kind == GOP_KERNEL && !model_op_is_nccl(v->p, g))
        stream_map_add_compute(v->p->smap, g->stream);
}

/* Reads table t of process pi piece by piece into v, noting each piece's
 * records in out; on the second connection with `second`.  Returns -1 if
 * a read failed. */
static int prove_table(struct model *m, size_t pi, int t, struct proving *v, struct pieces *out, int second)
{
    struct proc *p = &m->procs[pi];
    struct rowruns pieces;
    if (rowruns_pieces(model_db(m, p, second), t, &p->rows->t[t], rowruns_is_block(t) ? PIECE_BLOCKS : PIECE_ROWS,
                       &pieces) != 0)
        model_out_of_memory();
    int rc = 0;
    for (size_t k = 0; k < pieces.n && !rc; k++) {
        struct piece pc = { pieces.v[k].first, pieces.v[k].last, INT64_MAX, INT64_MIN, 0 };
        struct rowruns one = { &pieces.v[k], 1, 1, -1 };
        v->cur = &pc;
        rc = model_scan_table(m, pi, t, &one, &v->scan, second) != SQLITE_OK;
        if (!rc && pc.n) {
            GROW(out->v, out->n, out->cap);
            out->v[out->n++] = pc;
        }
    }
    free(pieces.v);
    return rc ? -1 : 0;
}

static void proving_init(struct proving *v, struct proc *p, const int64_t *x, size_t nx)
{
    *v = (struct proving){ { proving_call, proving_capi, proving_op }, p, x, nx, NULL, NULL, NULL, NULL, NULL, NULL, NULL };
    v->count = calloc(nx + 1, sizeof *v->count);
    v->capi_max = malloc((nx + 1) * sizeof *v->capi_max);
    v->capi_min = malloc((nx + 1) * sizeof *v->capi_min);
    v->op_max = malloc((nx + 1) * sizeof *v->op_max);
    v->op_min = malloc((nx + 1) * sizeof *v->op_min);
    v->across = calloc(nx + 1, sizeof *v->across);
    if (!v->count || !v->capi_max || !v->capi_min || !v->op_max || !v->op_min || !v->across)
        model_out_of_memory();
    for (size_t i = 0; i <= nx; i++) {
        v->capi_max[i] = v->op_max[i] = -1;
        v->capi_min[i] = v->op_min[i] = INT64_MAX;
    }
}

static void proving_free(struct proving *v)
{
    free(v->count);
    free(v->capi_max);
    free(v->capi_min);
    free(v->op_max);
    free(v->op_min);
    free(v->across);
}

/* The GPU's tables, proved on the second connection meanwhile: decoding
 * rows is most of the pass's time, as of the report's. */
struct gpu_job { struct model *m; size_t pi; struct proving *v; struct pieces *pcs; int second, rc; };

enum { FIRST_GPU_TABLE = 4 }; /* tables[]: the host's first, then the GPU's */

static void *prove_gpu(void *arg)
{
    struct gpu_job *j = arg;
    j->rc = 0;
    for (size_t t = FIRST_GPU_TABLE; t < NTABLES && !j->rc; t++)
        j->rc = prove_table(j->m, j->pi, tables[t], j->v, &j->pcs[t], j->second);
    return NULL;
}

/* Both halves of the second pass into a: counts and crossings added, the
 * GPU's correlation ids from b. */
static void proving_join(struct proving *a, const struct proving *b)
{
    for (size_t i = 0; i <= a->nx; i++) {
        a->count[i] += b->count[i];
        a->across[i] += b->across[i];
        a->op_max[i] = b->op_max[i];
        a->op_min[i] = b->op_min[i];
    }
}

/* ---- the windows ------------------------------------------------------------ */

/* Adds a piece's rows to a window's, joined to the run before when they
 * follow on. */
static void push_rows(struct rowruns *r, const struct piece *pc)
{
    r->count += pc->n;
    if (r->n && pc->first <= r->v[r->n - 1].last + 1) {
        if (pc->last > r->v[r->n - 1].last)
            r->v[r->n - 1].last = pc->last;
    } else if (rowruns_push(r, pc->first, pc->last) != 0) {
        model_out_of_memory();
    }
}

/* Whether a cut at x would part a stretch without GPU records (model.h,
 * gpu_gaps) from the launches of the work in flight at its hand-over:
 * x within MODEL_GAP_INFLIGHT_NS before it, or at it (gap_inflight.c
 * reads them in the window the hand-over is in; none where CUPTI dropped
 * records). */
static int parts_inflight(const struct proc *p, int64_t x)
{
    if (p->dropped_cupti)
        return 0;
    size_t i = p->ngpu_gaps ? model_gpu_gap_after(p, x) : 0;
    return i < p->ngpu_gaps && p->gpu_gaps[i].held >= x && x >= p->gpu_gaps[i].held - MODEL_GAP_INFLIGHT_NS;
}

/* A window this many times its size is cut even where that parts a
 * hand-over from its work in flight (a profiler stretch every 100 ms or
 * so): memory stays bounded, and that read-back stops at the cut. */
#define WINDOW_INFLIGHT_GROWTH 4

/* The cuts that hold, a window's worth of records apart; then each
 * window's rows: the pieces whose records start within it.  Returns -1 if
 * no cut holds. */
static int make_windows(const struct proc *p, const struct proving *v, const struct pieces *pcs, int64_t target,
                        struct proc_windows *w)
{
    size_t nx = v->nx;
    /* correlation ids after each candidate: the lowest of API records and
     * operations in the intervals from it on */
    int64_t *capi_after = malloc((nx + 2) * sizeof *capi_after), *op_after = malloc((nx + 2) * sizeof *op_after);
    int64_t *cuts = malloc((nx + 1) * sizeof *cuts);
    size_t ncuts = 0;
    if (!capi_after || !op_after || !cuts)
        model_out_of_memory();
    capi_after[nx + 1] = op_after[nx + 1] = INT64_MAX;
    for (size_t i = nx + 1; i-- > 0;) {
        capi_after[i] = v->capi_min[i] < capi_after[i + 1] ? v->capi_min[i] : capi_after[i + 1];
        op_after[i] = v->op_min[i] < op_after[i + 1] ? v->op_min[i] : op_after[i + 1];
    }
    int64_t capi_before = -1, op_before = -1, acc = 0, runs_across = 0;
    for (size_t c = 0; c < nx; c++) { /* candidate c: intervals 0..c before it, c+1.. after */
        runs_across += v->across[c];
        acc += v->count[c];
        if (v->capi_max[c] > capi_before)
            capi_before = v->capi_max[c];
        if (v->op_max[c] > op_before)
            op_before = v->op_max[c];
        if (acc >= target && !runs_across && capi_before < op_after[c + 1] && op_before < capi_after[c + 1] &&
            (acc / WINDOW_INFLIGHT_GROWTH >= target || !parts_inflight(p, v->x[c]))) {
            cuts[ncuts++] = v->x[c];
            acc = 0;
        }
    }
    free(capi_after);
    free(op_after);
    if (!ncuts) {
        free(cuts);
        return -1;
    }
    w->n = ncuts + 1;
    if (!(w->v = calloc(w->n, sizeof *w->v)))
        model_out_of_memory();
    for (size_t k = 0; k < w->n; k++) {
        struct window *win = &w->v[k];
        win->lo = k ? cuts[k - 1] : INT64_MIN;
        win->hi = k < ncuts ? cuts[k] : INT64_MAX;
        for (size_t t = 0; t < NTABLES; t++) {
            const struct pieces *ps = &pcs[t];
            struct rowruns *r = &win->rows.t[tables[t]];
            for (size_t j = 0; j < ps->n; j++)
                if (ps->v[j].max >= win->lo && ps->v[j].min < win->hi)
                    push_rows(r, &ps->v[j]);
        }
    }
    free(cuts);
    return 0;
}

int windows_plan(struct model *m, size_t pi, struct proc_windows *w)
{
    struct proc *p = &m->procs[pi];
    memset(w, 0, sizeof *w);
    int64_t target = window_rows(), total = 0;
    if (!p->rows)
        return -1;
    for (size_t t = 0; t < NTABLES; t++) {
        if (p->rows->t[tables[t]].count < 0)
            return -1; /* unknown: read whole */
        total += p->rows->t[tables[t]].count;
    }
    if (total <= target * WINDOW_MIN_FACTOR)
        return -1;

    struct candidates k = { { candidate_call, no_capi, no_op }, m, calloc((size_t)m->napis + 1, 1), NULL, 0, 0, 0 };
    if (!k.api)
        model_out_of_memory();
    int bad = model_scan_table(m, pi, RT_API_CALL, NULL, &k.scan, 0) != SQLITE_OK ||
              model_scan_table(m, pi, RT_CALL_BLOCK, NULL, &k.scan, 0) != SQLITE_OK;
    if (bad || !k.n) {
        free(k.v);
        free(k.api);
        return -1;
    }
    /* a window's CUPTI records of an API the process has wrapped calls of
     * are those calls' own, whichever window the calls are in */
    free(p->api_wrapped);
    p->api_wrapped = k.api;
    qsort(k.v, k.n, sizeof *k.v, cmp_i64);
    size_t nx = 1;
    for (size_t i = 1; i < k.n; i++)
        if (k.v[i] != k.v[nx - 1])
            k.v[nx++] = k.v[i];

    struct proving v, vg; /* the host's tables, the GPU's */
    struct pieces pcs[NTABLES] = { { 0 } };
    int rc = -1;
    proving_init(&v, p, k.v, nx);
    proving_init(&vg, p, k.v, nx);
    load_exts(m, pi); /* which kernels are NCCL's */
    struct gpu_job job = { m, pi, &vg, pcs, m->dbs2 != NULL, 0 };
    pthread_t th;
    int threaded = m->dbs2 && rowruns_threads() && pthread_create(&th, NULL, prove_gpu, &job) == 0;
    int host_rc = 0;
    for (size_t t = 0; t < FIRST_GPU_TABLE && !host_rc; t++)
        host_rc = prove_table(m, pi, tables[t], &v, &pcs[t], 0);
    if (threaded)
        pthread_join(th, NULL);
    else
        prove_gpu(&job);
    if (!host_rc && !job.rc) { /* else a read failed: read whole (which says so) */
        proving_join(&v, &vg);
        rc = make_windows(p, &v, pcs, target, w);
    }
    free(k.v);
    proving_free(&v);
    proving_free(&vg);
    for (size_t t = 0; t < NTABLES; t++)
        free(pcs[t].v);
    if (rc != 0) {
        windows_free(w);
        p->smap->ncompute_streams = 0; /* read whole: counted as it loads */
        return -1;
    }
    p->smap->compute_preset = 1;
    if (getenv("GPUTRACE_REPORT_WINDOW_ROWS")) /* whoever sets it sees what it did */
        fprintf(stderr, "gputrace-report: rank %d (pid %d) read in %zu windows\n", p->rank, p->pid, w->n);
    return 0;
}

void windows_free(struct proc_windows *w)
{
    for (size_t k = 0; k < w->n; k++)
        rowruns_free(&w->v[k].rows);
    free(w->v);
    memset(w, 0, sizeof *w);
}
