/* clock_align.c: each host's clock fitted to the reference host's from
 * the ends of the collectives they share (clock_align.h). */
#include "viewer/analyse/clock_align.h"
#include "viewer/analyse/coll_spill.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRIM_FLOOR_NS 20000.0  /* never trim closer than 20 us: a clean fit's MAD is near 0 */
#define TRIM_MADS 6.0          /* outliers: further than this many (normal-scaled) MADs */
#define DRIFT_MIN_SPAN_NS 1e9  /* drift fitted only over samples spanning 1 s or more */
#define DRIFT_MIN_SAMPLES 8
#define DRIFT_MAX 1e-3         /* 1000 ppm: more is a damaged file, not a crystal */

/* A host's samples: a uniform sample of at most CLOCK_SAMPLES of its
 * (reference time, its clock minus the reference's) pairs, by reservoir
 * sampling with a fixed seed, so that the same file gives the same fit. */
struct samples {
    double *x, *y;
    int64_t seen;
    uint64_t rng;
};

struct fitting {
    struct model *m;
    struct clock_fit *fit;
    int *host_of;              /* by process */
    int ref;
    struct samples *s;         /* by host */
    double *sum; int64_t *cnt; /* per host, within one group */
};

static uint64_t next_rand(uint64_t *s)
{
    uint64_t x = *s; /* xorshift64 */
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *s = x;
}

static void sample_add(struct samples *s, double x, double y)
{
    if (!s->x) {
        s->x = malloc(CLOCK_SAMPLES * sizeof *s->x);
        s->y = malloc(CLOCK_SAMPLES * sizeof *s->y);
        if (!s->x || !s->y)
            model_out_of_memory();
        s->rng = 0x9e3779b97f4a7c15ull;
    }
    int64_t k = s->seen++;
    if (k >= CLOCK_SAMPLES) {
        k = (int64_t)(next_rand(&s->rng) % (uint64_t)s->seen);
        if (k >= CLOCK_SAMPLES)
            return;
    }
    s->x[k] = x;
    s->y[k] = y;
}

static int is_p2p(const struct model *m, int api)
{
    const char *n = model_api_name(m, api);
    return !strcmp(n, "ncclSend") || !strcmp(n, "ncclRecv");
}

/* One (comm, seq) group: each host's mean kernel end, and a sample for
 * each host it shares with the reference.  Point-to-point operations are
 * left out: their sequence numbers are each rank's own count, which pairs
 * a send with its receive only by chance. */
static void group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct fitting *f = ctx;
    size_t nh = f->fit->nhosts;
    int hosts = 0;
    for (size_t k = 0; k < n; k++)
        if (v[k].api != v[0].api || is_p2p(f->m, v[k].api))
            return;
    if (model_seq_by_order(v[0].seq))
        return; /* matched by kernel order: checked only later, on the aligned clocks (order_match.h) */
    for (size_t h = 0; h < nh; h++) {
        f->sum[h] = 0;
        f->cnt[h] = 0;
    }
    for (size_t k = 0; k < n; k++) {
        if (v[k].gend <= v[k].gstart)
            continue;
        int h = f->host_of[v[k].proc];
        hosts += !f->cnt[h];
        f->sum[h] += (double)model_aligned(f->m, &f->m->procs[v[k].proc], v[k].gend);
        f->cnt[h]++;
    }
    if (hosts < 2)
        return;
    f->fit->across++;
    if (!f->cnt[f->ref])
        return;
    double ref = f->sum[f->ref] / (double)f->cnt[f->ref];
    for (size_t h = 0; h < nh; h++)
        if ((int)h != f->ref && f->cnt[h]) {
            f->fit->hosts[h].shared++;
            sample_add(&f->s[h], ref, f->sum[h] / (double)f->cnt[h] - ref);
        }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
    qsort(v, n, sizeof *v, cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The line (offset at mid, slope) through the samples whose residual
 * from the line given is within the trim; returns how many it used. */
static size_t fit_line(const struct samples *s, size_t n, double *off, double *slope, double *mid, double *work,
                       struct host_clock *hc)
{
    for (size_t i = 0; i < n; i++)
        work[i] = fabs(s->y[i] - (*off + *slope * (s->x[i] - *mid)));
    double mad = median(work, n) * 1.4826;
    double trim = TRIM_MADS * mad > TRIM_FLOOR_NS ? TRIM_MADS * mad : TRIM_FLOOR_NS;
    double sx = 0, sy = 0, lo = INFINITY, hi = -INFINITY;
    size_t used = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(s->y[i] - (*off + *slope * (s->x[i] - *mid))) <= trim) {
            sx += s->x[i];
            sy += s->y[i];
            lo = s->x[i] < lo ? s->x[i] : lo;
            hi = s->x[i] > hi ? s->x[i] : hi;
            used++;
        }
    if (!used)
        return 0;
    double mx = sx / (double)used, my = sy / (double)used, sxx = 0, sxy = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(s->y[i] - (*off + *slope * (s->x[i] - *mid))) <= trim) {
            sxx += (s->x[i] - mx) * (s->x[i] - mx);
            sxy += (s->x[i] - mx) * (s->y[i] - my);
        }
    double b = 0;
    if (used >= DRIFT_MIN_SAMPLES && hi - lo >= DRIFT_MIN_SPAN_NS && sxx > 0) {
        b = sxy / sxx;
        b = b > DRIFT_MAX ? DRIFT_MAX : b < -DRIFT_MAX ? -DRIFT_MAX : b;
    }
    /* the new line's residuals are measured against the samples kept */
    double ss = 0, mr = 0;
    for (size_t i = 0; i < n; i++)
        if (fabs(s->y[i] - (*off + *slope * (s->x[i] - *mid))) <= trim) {
            double r = fabs(s->y[i] - (my + b * (s->x[i] - mx)));
            ss += r * r;
            mr = r > mr ? r : mr;
        }
    *off = my;
    *slope = b;
    *mid = mx;
    hc->lo_ns = (int64_t)lo;
    hc->hi_ns = (int64_t)hi;
    hc->residual_ns = (int64_t)sqrt(ss / (double)used);
    hc->max_residual_ns = (int64_t)mr;
    return used;
}

static void fit_host(struct samples *s, struct host_clock *hc)
{
    size_t n = s->seen < CLOCK_SAMPLES ? (size_t)s->seen : CLOCK_SAMPLES;
    if (!n)
        return;
    double *work = malloc(n * sizeof *work);
    if (!work)
        model_out_of_memory();
    memcpy(work, s->y, n * sizeof *work);
    /* first a constant through the median, robust to outliers; then the
     * line, twice, each time through the samples near the previous one */
    double off = median(work, n), slope = 0, mid = 0;
    size_t used = 0;
    for (int pass = 0; pass < 2; pass++) {
        size_t u = fit_line(s, n, &off, &slope, &mid, work, hc);
        if (!u)
            break;
        used = u;
    }
    free(work);
    if (!used)
        return;
    /* clocks 13 days apart are a damaged or crafted file, not NTP: left
     * as they are (and the times' sums within model.h's bounds) */
    if (fabs(off) > (double)((int64_t)1 << 50))
        return;
    hc->aligned = 1;
    hc->used = (int64_t)used;
    hc->outliers = (int64_t)(n - used);
    hc->offset_ns = (int64_t)llround(off);
    hc->drift_ppm = slope * 1e6;
    hc->mid_ns = (int64_t)mid;
}

int clock_align_hosts(const struct model *m)
{
    for (size_t i = 1; i < m->nprocs; i++)
        if (!model_same_host(&m->procs[i], &m->procs[0]))
            return 1;
    return 0;
}

void clock_align_fit(struct model *m, struct coll_spill *spill)
{
    struct clock_fit *fit = calloc(1, sizeof *fit);
    int *host_of = calloc(m->nprocs + 1, sizeof *host_of);
    if (!fit || !host_of || !(fit->hosts = calloc(m->nprocs + 1, sizeof *fit->hosts)))
        model_out_of_memory();
    m->clock = fit;
    int ref_proc = 0; /* the first rank's process (those with no rank sort first) */
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].rank >= 0) {
            ref_proc = (int)i;
            break;
        }
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        size_t h = 0;
        while (h < fit->nhosts && !model_same_host(fit->hosts[h].proc, p)) /* by name and boot id */
            h++;
        if (h == fit->nhosts) {
            fit->hosts[h].host = p->host;
            fit->hosts[h].boot_id = p->boot_id;
            fit->hosts[h].proc = p;
            fit->hosts[h].first_rank = p->rank;
            fit->nhosts++;
        }
        if (p->rank >= 0 && (fit->hosts[h].first_rank < 0 || p->rank < fit->hosts[h].first_rank))
            fit->hosts[h].first_rank = p->rank;
        fit->hosts[h].nprocs++;
        host_of[i] = (int)h;
    }
    if (!m->nprocs) {
        free(host_of);
        return;
    }
    struct fitting f = { m, fit, host_of, host_of[ref_proc], calloc(fit->nhosts, sizeof *f.s),
                         calloc(fit->nhosts, sizeof *f.sum), calloc(fit->nhosts, sizeof *f.cnt) };
    if (!f.s || !f.sum || !f.cnt)
        model_out_of_memory();
    fit->hosts[f.ref].reference = 1;
    if (fit->nhosts > 1)
        coll_spill_groups(spill, group, &f);
    for (size_t h = 0; h < fit->nhosts; h++) {
        struct host_clock *hc = &fit->hosts[h];
        if (!hc->reference) {
            fit_host(&f.s[h], hc);
            fit->unaligned += !hc->aligned;
            if (hc->aligned && hc->residual_ns > fit->residual_ns)
                fit->residual_ns = hc->residual_ns;
        }
        free(f.s[h].x);
        free(f.s[h].y);
    }
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct host_clock *hc = &fit->hosts[host_of[i]];
        if (hc->aligned)
            m->procs[i].align = (struct clock_corr){ hc->offset_ns, hc->mid_ns, hc->lo_ns, hc->hi_ns,
                                                     hc->drift_ppm / 1e6, 1 };
    }
    /* a host whose clock ran ahead now starts before the run did: the
     * run's start moves back to it, so that no aligned time is negative */
    int64_t first = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        int64_t t = model_aligned(m, &m->procs[i], m->procs[i].start);
        first = t < first ? t : first;
    }
    if (first < 0) {
        m->t0 += first;
        for (size_t i = 0; i < m->nprocs; i++)
            if (m->procs[i].align.on) {
                m->procs[i].align.mid -= first;
                m->procs[i].align.lo -= first;
                m->procs[i].align.hi -= first;
            }
    }
    free(f.s);
    free(f.sum);
    free(f.cnt);
    free(host_of);
}

/* ---- confidence ------------------------------------------------------------ */

struct leads { const struct model *m; double *sum; int64_t *n; };

/* The last rank's lead over the one before it, in each full group (as
 * comm.straggler counts them). */
static void lead_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct leads *l = ctx;
    if (n < 2 || n != (size_t)(v[0].nranks > 0 ? v[0].nranks : 0))
        return;
    if (coll_group_unrecorded(l->m, v, n)) /* as comm.straggler leaves it out */
        return;
    int64_t latest = INT64_MIN, second = INT64_MIN;
    int who = -1, gpu = coll_group_on_gpu(v, n);
    for (size_t k = 0; k < n; k++) {
        int64_t a = coll_arrival(l->m, &v[k], gpu);
        if (a > latest) {
            second = latest;
            latest = a;
            who = v[k].proc;
        } else if (a > second) {
            second = a;
        }
    }
    l->sum[who] += (double)latest - (double)second;
    l->n[who]++;
}

void clock_align_confidence(const struct model *m, struct findings *fs, struct coll_spill *spill)
{
    const struct clock_fit *fit = m->clock;
    if (!fit || fit->nhosts < 2)
        return;
    int any = 0;
    for (size_t i = 0; i < fs->n; i++)
        any |= fs->v[i].kind == F_COMM_STRAGGLER && fs->v[i].proc >= 0;
    if (!any)
        return;
    struct leads l = { m, calloc(m->nprocs + 1, sizeof *l.sum), calloc(m->nprocs + 1, sizeof *l.n) };
    if (!l.sum || !l.n)
        model_out_of_memory();
    coll_spill_groups(spill, lead_group, &l);
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        if (f->kind != F_COMM_STRAGGLER || f->proc < 0)
            continue;
        double lead = l.n[f->proc] ? l.sum[f->proc] / (double)l.n[f->proc] : 0;
        int ref_rank = -1;
        for (size_t h = 0; h < fit->nhosts; h++)
            if (fit->hosts[h].reference)
                ref_rank = fit->hosts[h].first_rank;
        /* why, for its message (write/finding_text.c) */
        if (fit->unaligned) {
            f->facts.clock_low = 1;
            f->facts.unaligned = fit->unaligned;
            f->facts.ref_rank = ref_rank;
        } else if (lead < CLOCK_MARGIN_FACTOR * (double)fit->residual_ns) {
            f->facts.clock_low = 2;
            f->facts.lead_ns = lead;
            f->facts.factor = CLOCK_MARGIN_FACTOR;
            f->facts.residual_ns = fit->residual_ns;
        } else {
            continue;
        }
        f->confidence = "low";
    }
    free(l.sum);
    free(l.n);
}

void clock_align_free(struct model *m)
{
    if (m->clock) {
        free(m->clock->hosts);
        free(m->clock);
        m->clock = NULL;
    }
}
