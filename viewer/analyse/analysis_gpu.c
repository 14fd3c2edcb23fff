/* analysis_gpu.c: copies (copy.pageable, copy.serialized) and GPU idle
 * gaps, by the host range they fell in: with work queued for the GPU
 * (gpu.stalled), and without (gpu.idle). */
#include "viewer/analyse/findings.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/model/steps.h"
#include "viewer/model/timeline.h"
#include "viewer/analyse/attribution.h"
#include "viewer/analyse/host_blocked.h"

#include <stdio.h>
#include <stdlib.h>

#define GT_MEM_PAGEABLE 1

int copy_is_pageable(const struct model *m, const struct call *c)
{
    enum api_role r = m->roles[c->api];
    return (r == ROLE_COPY_SYNC || r == ROLE_COPY_ASYNC) && c->mem_kind == GT_MEM_PAGEABLE &&
           (c->copy_kind == 1 || c->copy_kind == 2) && c->bytes > 0;
}

struct finding *note_pageable(struct findings *fs, const struct model *m, size_t pi, const struct call *c,
                              int64_t waited_ns, const struct ivals *busy)
{
    struct finding *f = findings_at(fs, m, F_COPY_PAGEABLE, (int)pi, c->site, c->tid, c->start);
    if (!f)
        return NULL;
    f->count++;
    f->facts.has |= FACT_PAGEABLE;
    model_add(&f->host_blocked_ns, c->end - c->start);
    model_add(&f->bytes, c->bytes);
    model_add(&f->gpu_wait_ns, waited_ns);
    /* what pinned memory saves: of an upload, the time compute kernels
     * idled while the host was blocked in it (pinned, it would not block;
     * while the GPU had kernels queued the block cost nothing; the slow
     * copy itself keeps only the copy engine busy), or the whole block
     * without GPU records; of a download the host needs, the copy itself, not the wait
     * for the work before it, which it would wait for anyway */
    if (c->copy_kind == GOP_HTOD && busy)
        charge_gaps(fs, f, (int)pi, busy, c->start, c->end);
    else
        charge_add(fs, f, (int)pi, c->copy_kind == GOP_HTOD ? c->start : c->start + waited_ns, c->end);
    return f;
}

void analyse_copies(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    /* pageable: from the host side without CUPTI; with it, analyse_syncs
     * notes them, with what each waited for (one finding, both facts) */
    for (size_t i = 0; i < p->ncalls && !p->cupti_active; i++)
        if (copy_is_pageable(m, &p->calls[i]))
            note_pageable(fs, m, pi, &p->calls[i], 0, NULL);
    if (!p->cupti_active)
        return;
    /* serialized: a host-to-device copy on a stream that also computes,
     * overlapping no kernel on the device */
    struct timeline *t = model_timeline(m, pi);
    for (size_t i = 0; i < p->ncalls; i++) {
        if (t->op_of_call[i] < 0)
            continue;
        const struct gop *g = &p->ops[t->op_of_call[i]];
        if (g->kind != GOP_MEMCPY || g->copy_kind != GOP_HTOD || g->end <= g->start)
            continue;
        if (!timeline_stream_computes(t, g->stream) || ivals_cover(&t->compute, g->start, g->end) > 0)
            continue;
        struct finding *f = findings_at(fs, m, F_COPY_SERIALIZED, (int)pi, p->calls[i].site, p->calls[i].tid,
                                        p->calls[i].start);
        if (!f)
            continue;
        f->count++;
        model_add(&f->exposed_ns, g->end - g->start);
        charge_add(fs, f, (int)pi, g->start, g->end);
    }
}

void filter_copies(const struct report_opts *o, struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        if (f->kind == F_COPY_PAGEABLE && f->count < o->min_repeats && f->bytes < o->pageable_min_bytes)
            f->count = 0; /* a one-off small copy: dropped by findings_finish */
    }
}

/* Whether range r is inside range outer (or is it). */
static int inside(const struct proc *p, int r, int outer)
{
    for (; r >= 0; r = p->ranges[r].parent)
        if (r == outer)
            return 1;
    return 0;
}

/* The range of the main thread that held the host for the gap [a, b), as
 * its place (model_range_place): of the ranges around its start, middle
 * and end, the one covering most of it, or a range inside that one that
 * covers at least half (the innermost says more: a trace's microsecond
 * times can leave the enclosing range a nanosecond ahead); -1 if none. */
static int gap_range(const struct proc *p, int64_t a, int64_t b)
{
    int best = -1;
    int64_t best_cover = 0;
    const int64_t at[3] = { a, a + (b - a) / 2, b - 1 };
    for (int k = 0; k < 3; k++) {
        int r = model_range_place(p, model_range_at(p, -1, at[k]));
        if (r < 0)
            continue;
        int64_t lo = p->ranges[r].start > a ? p->ranges[r].start : a;
        int64_t hi = p->ranges[r].end < b ? p->ranges[r].end : b;
        int deeper = best >= 0 && r != best && inside(p, r, best) && (hi - lo) * 2 >= b - a;
        int wider = hi - lo > best_cover && !(best >= 0 && inside(p, best, r) && best_cover * 2 >= b - a);
        if (best < 0 || deeper || wider) {
            best_cover = hi - lo;
            best = r;
        }
    }
    return best;
}

/* The tally of GPU `device`'s gaps while the host was in range label
 * `label` (-1: none), found or added. */
static struct idle_tally *tally_of(struct proc_pass *ps, int device, int label, int stalled)
{
    for (size_t i = 0; i < ps->nidle_tally; i++)
        if (ps->idle_tally[i].device == device && ps->idle_tally[i].label == label &&
            ps->idle_tally[i].stalled == stalled)
            return &ps->idle_tally[i];
    struct idle_tally *v = realloc(ps->idle_tally, (ps->nidle_tally + 1) * sizeof *v);
    if (!v)
        model_out_of_memory();
    ps->idle_tally = v;
    v[ps->nidle_tally] = (struct idle_tally){ .device = device, .label = label, .stalled = stalled };
    return &v[ps->nidle_tally++];
}

/* The state of GPU `device` of the process, found or added. */
static struct dev_idle *dev_state(struct proc_pass *ps, int device)
{
    for (size_t i = 0; i < ps->ndev_idle; i++)
        if (ps->dev_idle[i].device == device)
            return &ps->dev_idle[i];
    struct dev_idle *v = realloc(ps->dev_idle, (ps->ndev_idle + 1) * sizeof *v);
    if (!v)
        model_out_of_memory();
    ps->dev_idle = v;
    v[ps->ndev_idle] = (struct dev_idle){ device, 0, 0 };
    return &v[ps->ndev_idle++];
}

/* gpu.idle's key for a GPU and the range the host was in: its finding's
 * callsite_id, never a real site (those are >= 0) nor one of ledger_int.h's
 * (below -2^30): CHARGE_DEVICES GPUs apart (findings.h), 2^22 labels (NVTX
 * and Python strings) */
static int idle_key(int device, int label)
{
    return -1 - (device & (CHARGE_DEVICES - 1)) - CHARGE_DEVICES * ((label + 1) & 0x3fffff);
}

int charge_device(const struct charge *c)
{
    if (c->gpu)
        return c->gpu - 1;
    if ((c->kind != F_GPU_IDLE && c->kind != F_GPU_STALLED) || c->site >= 0)
        return -1;
    return (int)((-1 - (int64_t)c->site) % CHARGE_DEVICES); /* idle_key's device */
}

/* One gap of a GPU's work, a to b, claimed for gpu.idle but for the
 * host's blocking calls in it. */
static void claim_gap(const struct model *m, struct findings *fs, size_t pi, const struct ivals *blocked,
                      const struct dev_idle *d, int64_t a, int64_t b)
{
    const struct proc *p = &m->procs[pi];
    int r = gap_range(p, a, b);
    int label = r >= 0 ? p->ranges[r].name : -1;
    /* gpu.idle's finding is made at the process's end: its key claims */
    struct finding key = { .kind = F_GPU_IDLE, .proc = (int)pi, .callsite_id = idle_key(d->device, label) };
    int64_t ns = charge_gaps(fs, &key, (int)pi, blocked, a, b);
    if (!ns)
        return; /* the host was blocked throughout */
    struct proc_pass *ps = p->pass;
    if (!ps->steady_known) {
        struct model_step *v;
        size_t n = model_steps(p, &v), wu = model_steps_warmup(v, n);
        ps->steady_from = n ? v[wu].start : INT64_MIN;
        ps->steady_to = n ? v[n - 1].end : INT64_MAX;
        ps->steady_known = 1;
        free(v);
    }
    struct idle_tally *tl = tally_of(ps, d->device, label, 0);
    model_add(&tl->ns, ns);
    /* the part of the gap in the steady steps (a gap from a warm-up
     * step's last work into the first steady one is partly theirs), less
     * the host's blocking calls in that part, as charge_gaps left them out */
    int64_t lo = a > ps->steady_from ? a : ps->steady_from, hi = b < ps->steady_to ? b : ps->steady_to;
    if (hi > lo) {
        int64_t part = hi - lo - ivals_cover(blocked, lo, hi);
        model_add(&tl->steady_ns, part < 0 ? 0 : part > ns ? ns : part);
    }
    tl->n++;
}

/* gpu.stalled: the GPU idle while work was queued for it.  A gap ends
 * when an operation starts; if the call that enqueued it had returned
 * before (plus a launch's latency), the GPU sat idle with that work
 * queued: nothing the host did or did not submit explains that part,
 * but something the work waited for that ran on no GPU of this process's
 * records (a stream waiting on an event recorded late, a host function,
 * another process on the GPU, records the trace lacks).  On HTA's
 * send/recv trace a 704-byte read was charged 463 ms of such gaps (as
 * sync.scalar_read, first, "keep the value on the GPU"), 64 ms at a time
 * while a CUDA graph enqueued long before waited to start; on its sampled
 * 128-rank trace an NCCL kernel launched 2.7 ms before a 64 ms gap was
 * gpu.idle's, "the host does not submit work fast enough", while the host
 * launched 19 more kernels in its first millisecond. */
#define STALL_LAT_NS WHATIF_LAT_CAP_NS /* a launch's latency, as the replay caps it (findings.h) */

/* When op g was surely queued: its call's end (the call found by its
 * correlation id among the calls before it, the nearest 4096) plus a
 * launch's latency; or, its call not among them, the start of the
 * earliest of them with a higher id (CUPTI numbers calls in the order
 * they are made: g's call came before it), the same read whole or a
 * window at a time; INT64_MAX if not known. */
static int64_t queued_at(const struct timeline *t, const struct gop *g)
{
    const struct proc *p = t->p;
    if (!g->corr)
        return INT64_MAX;
    /* back from the op's start: CUPTI's ids grow with the calls' starts,
     * so past a few calls of lower ids (threads' clocks may cross by a
     * little) its call is not further back */
    size_t c = timeline_first_call_at(t, g->start), later = SIZE_MAX;
    for (size_t n = 0, below = 0; c-- > 0 && n < 4096 && below < 64; n++) {
        if (p->calls[c].corr == g->corr)
            return p->calls[c].end + STALL_LAT_NS;
        if (p->calls[c].corr > g->corr)
            later = c; /* made after g's call: the earliest such so far */
        below += p->calls[c].corr && p->calls[c].corr < g->corr;
    }
    return later != SIZE_MAX ? p->calls[later].start : INT64_MAX;
}

/* From when in the gap [a, b) of GPU device (-1: the process's one) work
 * was queued that started at b (b: none); *what its operation, *queued
 * when it was queued.  On one of several GPUs, one of whose streams waits
 * for another's events (from the first such wait on: pipeline_by), not
 * while another GPU of the process worked: the work may have waited for
 * that (a pipeline's stage for the one before it), which is in the
 * records. */
static int64_t stalled_from(const struct timeline *t, int device, int64_t a, int64_t b, const struct gop **what,
                            int64_t *queued)
{
    const struct proc_pass *ps = t->p->pass;
    const struct proc *p = t->p;
    int64_t from = b;
    *what = NULL;
    for (size_t k = timeline_first_op_at(t, b); k < p->nops && p->ops[k].start == b; k++) {
        const struct gop *g = &p->ops[k];
        int64_t q = device < 0 || g->device == device ? queued_at(t, g) : INT64_MAX;
        if (q < from) {
            from = q;
            *what = g;
        }
    }
    *queued = from < a ? a : from;
    if (device >= 0 && pipeline_by(ps, b) && from < b) {
        int64_t other = ivals_end_before(&t->busy, b); /* every GPU's work */
        from = other > from ? (other < b ? other : b) : from;
    }
    return from < a ? a : from;
}

/* The stalled part [a, b) of a gap, claimed for gpu.stalled whatever the
 * host did (ranked before the syncs' claims, attribution.c). */
static void claim_stall(const struct model *m, struct findings *fs, size_t pi, const struct dev_idle *d, int64_t a,
                        int64_t b, const struct gop *g)
{
    const struct proc *p = &m->procs[pi];
    int r = gap_range(p, a, b);
    int label = r >= 0 ? p->ranges[r].name : -1;
    struct finding key = { .kind = F_GPU_STALLED, .proc = (int)pi, .callsite_id = idle_key(d->device, label) };
    charge_add(fs, &key, (int)pi, a, b);
    struct idle_tally *tl = tally_of(p->pass, d->device, label, 1);
    model_add(&tl->ns, b - a);
    tl->n++;
    if (b - a > tl->longest) {
        tl->longest = b - a;
        snprintf(tl->what, sizeof tl->what, "%s", model_op_name(p, g));
    }
}

/* The gaps of one GPU's busy intervals in this window: a gap between two
 * windows is the one between the last busy end of the earlier and the
 * first busy start of this one (proc_pass.h carries the former).  Every
 * gap of --idle-gap-us or more is gpu.stalled's where work was queued
 * (above), and the rest of it is claimed but for the host's blocking
 * calls (host_blocked.h), at the lowest rank of cause (attribution.c):
 * what a sync or a copy found wasteful claims is theirs, the rest is
 * gpu.idle's, placed by the host range it fell in.  A gap was once dropped
 * whole when any sync touched it, and with it the data loading that the
 * small upload at its end did not explain. */
/* The parts of [a, b) before the last one that lie outside process pi's
 * stretches without GPU records (model.h, gpu_gaps: no idle known there),
 * each claimed as a gap when of --idle-gap-us or more (every part, with
 * all: the process's end); returns where the last part starts (b: none).
 * The stretches of a window are in its busy union already (timeline.seen);
 * these are those between windows, and after the last work. */
struct recorded_parts {
    const struct model *m; const struct report_opts *o; struct findings *fs; size_t pi;
    const struct ivals *blocked; const struct dev_idle *d; int all;
    int64_t a, b; /* the part seen last, not claimed yet (a == b: none) */
};

static void claim_part(struct recorded_parts *r)
{
    if (r->b > r->a && (r->all || r->b - r->a >= r->o->idle_gap_ns))
        claim_gap(r->m, r->fs, r->pi, r->blocked, r->d, r->a, r->b);
}

static void recorded_part(void *arg, int64_t a, int64_t b)
{
    struct recorded_parts *r = arg;
    claim_part(r); /* the one before: not the last */
    r->a = a;
    r->b = b;
}

static int64_t claim_recorded(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi,
                              const struct ivals *blocked, const struct dev_idle *d, int64_t a, int64_t b, int all)
{
    struct recorded_parts r = { m, o, fs, pi, blocked, d, all, a, a };
    model_gpu_gap_split(&m->procs[pi], a, b, recorded_part, NULL, &r);
    if (r.b == b && r.b > r.a && !all)
        return r.a; /* the last part, up to b: the caller's */
    claim_part(&r);
    return b;
}

static void gaps_of(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi,
                    const struct timeline *t, const struct ivals *busy, const struct ivals *blocked, struct dev_idle *d,
                    int device)
{
    for (size_t k = 0; k < busy->n; k++) {
        if (!k && !d->have_busy)
            continue; /* no gap before the first busy interval */
        int64_t a = k ? busy->v[k - 1].b : d->busy_end, b = busy->v[k].a;
        if (!k) /* across a cut */
            a = claim_recorded(m, o, fs, pi, blocked, d, a, b, 0);
        if (b - a < o->idle_gap_ns)
            continue;
        const struct gop *g;
        int64_t queued, q = stalled_from(t, device, a, b, &g, &queued);
        if (b - q >= o->idle_gap_ns) {
            claim_stall(m, fs, pi, d, q, b, g);
            b = q; /* the rest of the gap: gpu.idle's, however short */
            if (b <= a)
                continue;
        }
        /* on one of several GPUs that wait for each other, its work queued
         * while another GPU worked waited for that: no host's pace, the
         * pipeline's bubble (the ledger's, ledger.c) */
        if (device >= 0 && pipeline_by(t->p->pass, busy->v[k].a) && queued < b)
            b = queued;
        if (b > a)
            claim_gap(m, fs, pi, blocked, d, a, b);
    }
    if (busy->n) {
        d->busy_end = busy->v[busy->n - 1].b;
        d->have_busy = 1;
    }
}

/* Each GPU's idle gaps, window by window: for a process that drives one
 * GPU its busy union; for one that drives several, each GPU's own (one
 * GPU idle while another works is idle). */
void analyse_idle(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->cupti_active)
        return;
    struct timeline *t = model_timeline(m, pi);
    struct proc_pass *ps = p->pass;
    int devs[64];
    size_t nd = timeline_devices(p, devs, 64);
    /* the blocks of earlier windows that reach past a GPU's last busy end,
     * then this window's */
    int64_t keep_from = INT64_MAX;
    for (size_t k = 0; k < ps->ndev_idle; k++)
        if (ps->dev_idle[k].have_busy && ps->dev_idle[k].busy_end < keep_from)
            keep_from = ps->dev_idle[k].busy_end;
    size_t from = 0;
    while (from < ps->blocked.n && ps->blocked.v[from].b <= keep_from)
        from++;
    struct ivals carry = { ps->blocked.v + from, ps->blocked.n - from };
    struct ivals now = host_blocked_union(m, pi, &carry);
    free(ps->blocked.v);
    ps->blocked = now;
    const struct ivals blocked = ps->blocked;
    for (size_t k = 0; k < nd; k++) {
        struct dev_idle *d = dev_state(ps, devs[k]);
        if (nd == 1) { /* (one of several GPUs alone in the window: that GPU's, as read whole) */
            gaps_of(m, o, fs, pi, t, &t->seen, &blocked, d, ps->multi_gpu ? devs[0] : -1);
            continue;
        }
        struct ivals u = timeline_ops_union(p, devs[k], 0), seen;
        int joined = timeline_join_gaps(p, &u, &seen);
        gaps_of(m, o, fs, pi, t, &seen, &blocked, dev_state(ps, devs[k]), devs[k]);
        if (joined)
            free(seen.v);
        free(u.v);
    }
}

void analyse_idle_end(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    const struct proc_pass *ps = p->pass;
    if (!p->cupti_active)
        return;
    /* a process that did not end (killed, stuck, read while it runs): its
     * GPUs idle from their last work until it was last known alive is a
     * gap too (ledger.c counts it so, and so leaves out a window's whose
     * last GPU records CUPTI still held); a hang's wait claims it first */
    if (model_proc_unended(p) && !model_proc_gpu_cut(m, pi))
        for (size_t k = 0; k < ps->ndev_idle; k++) {
            const struct dev_idle *d = &ps->dev_idle[k];
            if (d->have_busy && p->end - d->busy_end >= o->idle_gap_ns)
                claim_recorded(m, o, fs, pi, &ps->blocked, d, d->busy_end, p->end, 1);
        }
    for (size_t k = 0; k < ps->nidle_tally; k++) {
        const struct idle_tally *d = &ps->idle_tally[k];
        if (!d->n)
            continue;
        struct finding *f = findings_new(fs, m, d->stalled ? F_GPU_STALLED : F_GPU_IDLE, (int)pi, 0);
        f->callsite_id = idle_key(d->device, d->label);
        f->count = d->n;
        f->gpu_idle_ns = d->ns;
        f->gpu_idle_steady_ns = d->steady_ns;
        if (d->stalled)
            snprintf(f->waited_for, sizeof f->waited_for, "%s", d->what);
        f->confidence = "medium";
        f->range = d->label >= 0 ? d->label + 1 : 0; /* where the host was: finding_range names it */
        f->iter_first = f->iter_last = -1;
        if (ps->ndev_idle > 1) {
            snprintf(f->callsite, sizeof f->callsite, "(GPU %d)", d->device);
            f->facts.has |= FACT_DEVICE;
            f->facts.device = d->device;
        } else {
            snprintf(f->callsite, sizeof f->callsite, "(whole process)");
        }
    }
}
