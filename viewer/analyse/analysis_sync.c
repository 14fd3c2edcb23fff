/* analysis_sync.c: host syncs (DESIGN "The analyses").
 *
 * For each call that can block the host until GPU work completes:
 *   scope    what it waits for: the device, one stream, or an event's stream
 *            up to the record;
 *   pending  GPU operations in the scope enqueued before the call began and
 *            not finished when it began;
 *   consumed device-to-host copies among them (and the call's own copy).
 * Explicit syncs are classified redundant / no_consumer / device_wide /
 * scalar_read (first that applies); implicit ones (blocking copies and
 * memsets, copies from pageable memory, frees) are scalar_read when they
 * deliver a few bytes, else implicit when they waited for pending work and
 * blocked at least --implicit-min-us.  Only explicit
 * syncs can be "redundant": a free with nothing pending is just a free.
 * Once every rank is analysed, each call site gets one verdict
 * (filter_syncs).
 */
#include "viewer/analyse/findings.h"
#include "viewer/analyse/analysis_setup.h"
#include "viewer/analyse/stream_deps.h"
#include "viewer/model/handles.h"
#include "viewer/model/idmap.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUPTI_DTOH 2

/* ---- one verdict per call site ----------------------------------------------
 *
 * A site's calls are classified one by one, so one line could be told two
 * ways: a cudaDeviceSynchronize after a copy to the host is
 * sync.device_wide ("wait for that stream instead") at the calls where the
 * copy was still running, and sync.no_consumer ("remove it") at one where
 * the copy had ended just before the call while other streams still ran.
 * Both cannot be the fix.  The site's code reads what the copy brought
 * whenever it runs; that the copy was done first at one call was the GPU's
 * timing, not the program's order, and removing the sync would race the
 * read there as much as anywhere.  So a site whose syncs fed a read at
 * some calls (device_wide, scalar_read) is that finding at all of them,
 * however many calls found nothing to read: narrowing the wait (or
 * reading later) is right at every call, removing it is right at none of
 * those that fed a read.  Of two such verdicts at one site, the one more
 * calls gave takes them (the first kind on a tie).  The calls merged keep
 * their claims on the rank's time, now the merged finding's, so what they
 * cost stays counted once (attribution.h): in the ledger and in what the
 * findings account for, with the finding the report shows. */

/* Whether a sync finding's calls fed a read of the host's. */
static int feeds_read(enum finding_kind k)
{
    return k == F_SYNC_DEVICE_WIDE || k == F_SYNC_SCALAR_READ;
}

/* A finding merged into another of its site: each one's marks' new
 * indexes (-1: past the cap). */
struct sync_merge {
    size_t to, from, next; /* next: the next merge into `to` (move_claims), SIZE_MAX: none */
    int16_t to_occ[FINDING_MARKS], from_occ[FINDING_MARKS];
};

static void merge_ranges(struct finding *to, const struct finding *from)
{
    to->unranged += from->unranged;
    for (int i = 0; i < FINDING_RANGES && from->ranges[i].hits; i++) {
        const struct range_hit *h = &from->ranges[i];
        int k;
        for (k = 0; k < FINDING_RANGES && to->ranges[k].hits && to->ranges[k].name != h->name; k++)
            ;
        if (k == FINDING_RANGES)
            continue; /* a fifth range: findings.c's note_range keeps four */
        struct range_hit *t = &to->ranges[k];
        if (!t->hits) {
            *t = *h;
            continue;
        }
        if (h->iter_min >= 0 && (t->iter_min < 0 || h->iter_min < t->iter_min))
            t->iter_min = h->iter_min;
        if (h->iter_max > t->iter_max)
            t->iter_max = h->iter_max;
        t->hits += h->hits;
    }
}

/* The two findings' marks (each in time order) as one list in time order,
 * the first FINDING_MARKS kept; g says where each old mark went. */
static void merge_marks(struct finding *to, const struct finding *from, struct sync_merge *g)
{
    struct finding_mark v[FINDING_MARKS];
    int a = 0, b = 0, n = 0;
    for (int k = 0; k < FINDING_MARKS; k++)
        g->to_occ[k] = g->from_occ[k] = -1;
    while (n < FINDING_MARKS && (a < to->nmarks || b < from->nmarks)) {
        int take_to = b >= from->nmarks || (a < to->nmarks && to->marks[a].t <= from->marks[b].t);
        if (take_to) {
            g->to_occ[a] = (int16_t)n;
            v[n++] = to->marks[a++];
        } else {
            g->from_occ[b] = (int16_t)n;
            v[n++] = from->marks[b++];
        }
    }
    memcpy(to->marks, v, (size_t)n * sizeof *v);
    to->nmarks = n;
    to->mark_open = 0;
}

/* Adds finding `from`'s occurrences to `to` (the same process and site)
 * and empties it (findings_finish drops it). */
static void merge_sync(struct finding *to, struct finding *from, struct sync_merge *g)
{
    to->count += from->count;
    model_add(&to->host_blocked_ns, from->host_blocked_ns);
    model_add(&to->gpu_idle_ns, from->gpu_idle_ns);
    if (from->waited_blocked > to->waited_blocked) { /* what the longest one waited for */
        to->waited_blocked = from->waited_blocked;
        to->waited_other = from->waited_other;
        memcpy(to->waited_for, from->waited_for, sizeof to->waited_for);
    }
    merge_ranges(to, from);
    merge_marks(to, from, g);
    from->count = 0;
}

/* A claim's mark through the merges into one finding from merge i on
 * (its `next`s), each renumbering the marks the finding had. */
static int occ_after(const struct sync_merge *g, size_t i, int occ)
{
    for (; i != SIZE_MAX; i = g[i].next)
        occ = occ >= 0 && occ < FINDING_MARKS ? g[i].to_occ[occ] : -1;
    return occ;
}

/* The claims of the merged findings: `from`'s become `to`'s, each naming
 * its occurrence's new mark.  One pass over the claims. */
static void move_claims(struct findings *fs, struct sync_merge *g, size_t n)
{
    struct idmap at = { 0 }; /* a merged finding's key -> 2 x its (first) merge, + 1 for a `from` */
    for (size_t i = 0; i < n; i++) {
        const struct finding *to = &fs->v[g[i].to], *from = &fs->v[g[i].from];
        g[i].next = SIZE_MAX;
        for (size_t k = i + 1; k < n && g[i].next == SIZE_MAX; k++)
            if (g[k].to == g[i].to)
                g[i].next = k;
        idmap_put(&at, finding_key(to->kind, to->proc, to->callsite_id), (int64_t)(2 * i), 1);
        idmap_put(&at, finding_key(from->kind, from->proc, from->callsite_id), (int64_t)(2 * i + 1), 0);
    }
    for (size_t k = 0; k < fs->charges.n; k++) {
        struct charge *c = &fs->charges.v[k];
        int64_t v;
        if (!idmap_get(&at, finding_key(c->kind, c->proc, c->site), &v))
            continue;
        const struct sync_merge *m = &g[v / 2];
        int occ = c->occ;
        if (v % 2) /* a claim of `from`: its mark in the merge, then in any later one */
            occ = occ_after(g, m->next, occ >= 0 && occ < FINDING_MARKS ? m->from_occ[occ] : -1);
        else
            occ = occ_after(g, (size_t)(v / 2), occ);
        c->occ = (int8_t)occ;
        c->kind = (int8_t)fs->v[m->to].kind;
    }
    idmap_free(&at);
}

/* The site a sync finding's verdict is for: its call site; with none
 * known, the calls of its API (its first occurrence's) at no known site,
 * which are one finding of each kind already.  A Kineto trace read back
 * has no call sites: its cudaDeviceSynchronize calls are then one site, as
 * the line they came from was in its recording, and get its verdict. */
static uint64_t verdict_site(const struct finding *f)
{
    return finding_key(0, f->proc, f->callsite_id > 0 ? f->callsite_id : -1 - f->api);
}

/* Each site's sync.no_consumer merged into the finding of its site that
 * fed a read, if there is one, and of two such, the smaller into the
 * larger (the comment above). */
static void one_verdict_per_site(struct findings *fs)
{
    struct idmap best = { 0 }; /* (proc, site) -> 1 + the finding that takes the site's others */
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        if (!feeds_read(f->kind) || !f->count)
            continue;
        uint64_t key = verdict_site(f);
        int64_t b;
        if (idmap_get(&best, key, &b)) {
            const struct finding *o = &fs->v[b - 1];
            if (o->count > f->count || (o->count == f->count && o->kind <= f->kind))
                continue;
        }
        idmap_put(&best, key, (int64_t)i + 1, 0);
    }
    struct sync_merge *g = NULL;
    size_t n = 0;
    for (size_t i = 0; i < fs->n && best.n; i++) {
        struct finding *f = &fs->v[i];
        int64_t b;
        if (!f->count || (f->kind != F_SYNC_NO_CONSUMER && !feeds_read(f->kind)) ||
            !idmap_get(&best, verdict_site(f), &b) || (size_t)(b - 1) == i)
            continue;
        if (!(g = realloc(g, (n + 1) * sizeof *g)))
            model_out_of_memory();
        g[n] = (struct sync_merge){ (size_t)(b - 1), i, SIZE_MAX, { 0 }, { 0 } };
        merge_sync(&fs->v[b - 1], f, &g[n]);
        n++;
    }
    if (n)
        move_claims(fs, g, n);
    free(g);
    idmap_free(&best);
}

/* A site whose syncs waited for pending work at some calls (no_consumer,
 * scalar_read, device_wide, implicit) is not redundant at the others: on
 * those the GPU had simply finished first (a host held up, a loaded
 * machine), and the sync still orders what follows.  Its calls with
 * nothing pending are dropped with it, not told as a second finding. */
void filter_syncs(struct findings *fs)
{
    one_verdict_per_site(fs);
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *r = &fs->v[i];
        if (r->kind != F_SYNC_REDUNDANT || !r->count || r->callsite_id <= 0)
            continue; /* with no known site, two syncs are not one */
        for (size_t k = 0; k < fs->n; k++) {
            const struct finding *o = &fs->v[k];
            if (k != i && o->count && o->proc == r->proc && o->callsite_id == r->callsite_id &&
                (o->kind == F_SYNC_NO_CONSUMER || o->kind == F_SYNC_SCALAR_READ || o->kind == F_SYNC_DEVICE_WIDE ||
                 o->kind == F_SYNC_IMPLICIT)) {
                r->count = 0; /* dropped by findings_finish */
                break;
            }
        }
    }
}

/* What a sync waits for: the device (everything enqueued before `cutoff`),
 * or, per CUPTI stream, work enqueued before that stream's cutoff (its
 * own stream up to the call, and through events and the legacy default
 * stream the streams it waited on: stream_deps.h). */
struct scope {
    int device, n;
    int64_t cutoff;
    int stream[DEP_STREAMS + 1];
    int64_t before[DEP_STREAMS + 1];
};

/* The scope's streams from a dependency clock (handles the process has not
 * mapped to a CUPTI stream ran nothing to wait for). */
static void scope_add(const struct timeline *t, int64_t handle, int64_t before, struct scope *s)
{
    int st = timeline_stream(t, handle);
    if (st < 0 || s->n == DEP_STREAMS + 1)
        return;
    s->stream[s->n] = st;
    s->before[s->n++] = before;
}

static void scope_from(const struct timeline *t, const struct stream_deps *d, const struct dep_clock *dc,
                       struct scope *s)
{
    for (int i = 0; i < dc->n; i++)
        scope_add(t, dc->e[i].handle, dc->e[i].t, s);
    if (dc->all > INT64_MIN) /* through the legacy stream: every blocking stream's earlier work */
        for (size_t k = 0; k < d->nblocking; k++)
            scope_add(t, d->blocking[k], dc->all, s);
}

/* The scope of sync call i; returns 0 if it cannot be told. */
static int scope_of(const struct model *m, const struct timeline *t, const struct stream_deps *d, size_t i,
                    struct scope *s)
{
    const struct proc *p = t->p;
    const struct call *c = &p->calls[i];
    memset(s, 0, sizeof *s);
    s->cutoff = c->start;
    struct dep_clock dc;
    switch (m->roles[c->api]) {
    case ROLE_SYNC_DEVICE:
    case ROLE_FREE:
        s->device = 1;
        return 1;
    case ROLE_SYNC_STREAM:
        if (timeline_stream(t, c->stream) < 0 && !deps_is_legacy(c->stream))
            return 0;
        deps_stream_scope(d, c->stream, c->start, &dc);
        scope_from(t, d, &dc, s);
        return 1;
    case ROLE_SYNC_EVENT: {
        const struct dep_clock *e = deps_event(d, c->event);
        if (!e)
            return 0;
        scope_from(t, d, e, s);
        return s->n > 0;
    }
    default: /* copies and memsets: the stream their own operation ran on, and what it waited for */
        if (t->op_of_call[i] < 0)
            return 0;
        deps_stream_scope(d, c->stream, c->start + 1, &dc); /* its own operation counts */
        scope_from(t, d, &dc, s);
        int own = p->ops[t->op_of_call[i]].stream, have = 0;
        for (int k = 0; k < s->n; k++)
            have |= s->stream[k] == own;
        if (!have && s->n < DEP_STREAMS + 1) {
            s->stream[s->n] = own;
            s->before[s->n++] = c->start + 1;
        }
        return 1;
    }
}

/* Whether operation g is in the scope: enqueued before its stream's cutoff. */
static int in_scope(const struct scope *s, const struct gop *g)
{
    if (s->device)
        return g->enq < s->cutoff;
    for (int k = 0; k < s->n; k++)
        if (s->stream[k] == g->stream && g->enq < s->before[k])
            return 1;
    return 0;
}

struct pending {
    int n, streams[8], nstreams, consumed_streams[8], nconsumed_streams;
    int64_t consumed_bytes, last_end, last_end_consumed;
    int64_t last_op;          /* the pending operation that ended last: what the sync waited for (-1: none) */
    int ended_inside;         /* some operation of the device, in scope or not, ended during the call */
};

static void note_stream(int *v, int *n, int s)
{
    for (int i = 0; i < *n; i++)
        if (v[i] == s)
            return;
    if (*n < 8)
        v[(*n)++] = s;
}

static void find_pending(const struct timeline *t, const struct call *c, const struct scope *s, int64_t own_op,
                         struct pending *pd)
{
    const struct proc *p = t->p;
    memset(pd, 0, sizeof *pd);
    pd->last_op = -1;
    /* an op pending at c->start runs at some time in [c->start - longest op, c->end] */
    for (size_t k = timeline_first_op_at(t, c->start - t->max_op_ns - 1); k < p->nops && p->ops[k].start <= c->end; k++) {
        const struct gop *g = &p->ops[k];
        int own = (int64_t)k == own_op;
        if (g->end > c->start && g->end <= c->end)
            pd->ended_inside = 1;
        if (!own && (g->end <= c->start || !in_scope(s, g)))
            continue;
        pd->n++;
        note_stream(pd->streams, &pd->nstreams, g->stream);
        if (g->end > pd->last_end)
            pd->last_end = g->end;
        if (!own && (pd->last_op < 0 || g->end > p->ops[pd->last_op].end))
            pd->last_op = (int64_t)k; /* what it waited for is work before its own */
        if (g->kind == GOP_MEMCPY && g->copy_kind == CUPTI_DTOH) {
            model_add(&pd->consumed_bytes, g->bytes);
            note_stream(pd->consumed_streams, &pd->nconsumed_streams, g->stream);
            if (g->end > pd->last_end_consumed)
                pd->last_end_consumed = g->end;
        }
    }
}

/* What the sync waited for, for its finding: the pending operation that
 * ended last, and whether it ran on a stream the sync did not name (it was
 * reached through an event). */
static void note_waited(const struct model *m, const struct timeline *t, const struct call *c,
                        const struct pending *pd, struct finding *f)
{
    int64_t blocked = c->end - c->start;
    if (pd->last_op < 0 || blocked < f->waited_blocked)
        return;
    const struct proc *p = t->p;
    const struct gop *g = &p->ops[pd->last_op];
    int named = m->roles[c->api] == ROLE_SYNC_STREAM ? timeline_stream(t, c->stream) : -2;
    f->waited_blocked = blocked;
    f->waited_other = named != -2 && g->stream != named;
    snprintf(f->waited_for, sizeof f->waited_for, "%s", model_op_name(p, g));
}

/* Scalar reads of earlier windows whose GPU idle time ran to this
 * window's first operation (or to the process's end: none). */
static void idle_due(struct findings *fs, const struct proc *p, size_t pi)
{
    struct proc_pass *ps = p->pass;
    if (!ps->ndue || !p->nops)
        return;
    for (size_t i = 0; i < ps->ndue; i++) {
        struct finding *f = &fs->v[ps->due[i].finding];
        const struct ivals none = { NULL, 0 };
        model_add(&f->gpu_idle_ns, charge_idle(fs, f, (int)pi, p, &none, ps->due[i].t_end, p->ops[0].start));
    }
    ps->ndue = 0;
}

static void add_idle_due(struct proc_pass *ps, size_t finding, int64_t t_end);

/* The GPU idle a sync caused (docs/report.md, "How costs are attributed"):
 * the device's idle parts from `from` until its next operation starting at
 * or after the call's end, claimed for f and added to its gpu_idle_ns; when
 * that operation is in a later window (nothing runs across the cut), the
 * rest waits for it (idle_due). */
static void claim_idle(struct findings *fs, struct finding *f, const struct timeline *t, size_t pi, int64_t from,
                       int64_t end)
{
    const struct proc *p = t->p;
    size_t k = timeline_first_op_at(t, end);
    int64_t to = end;
    if (k < p->nops)
        to = p->ops[k].start;
    else if (t->busy.n && t->busy.v[t->busy.n - 1].b > to)
        to = t->busy.v[t->busy.n - 1].b;
    model_add(&f->gpu_idle_ns, charge_idle(fs, f, (int)pi, p, &t->busy, from, to));
    if (k >= p->nops)
        add_idle_due(p->pass, (size_t)(f - fs->v), to);
}

static void add_idle_due(struct proc_pass *ps, size_t finding, int64_t t_end)
{
    if (ps->ndue == ps->due_cap) {
        ps->due_cap = ps->due_cap ? ps->due_cap * 2 : 16;
        if (!(ps->due = realloc(ps->due, ps->due_cap * sizeof *ps->due)))
            model_out_of_memory();
    }
    ps->due[ps->ndue++] = (struct idle_due){ finding, t_end };
}

/* api_call.copy_kind of a host-to-device and a device-to-host copy (docs/schema.md) */
#define CALL_COPY_HTOD 1
#define CALL_COPY_DTOH 2
/* api_call.mem_kind of pageable host memory */
#define CALL_MEM_PAGEABLE 1

/* The bytes of the device-to-host cudaMemcpyAsync that call i's thread made
 * just before it on the same stream (0: none, or not in this window): a
 * stream sync right after one is the host's read of it, needed however
 * soon the copy was done (it was not known to be: without the sync the
 * read races the copy), so never redundant; a few bytes are a scalar read
 * even when the copy had finished before the sync began. */
static int64_t read_before(const struct model *m, const struct proc *p, size_t i)
{
    const struct call *c = &p->calls[i];
    /* a look a few dozen calls back (other threads' calls between) */
    for (size_t k = i, seen = 0; k-- > 0 && seen < 64; seen++) {
        const struct call *b = &p->calls[k];
        if (b->tid != c->tid)
            continue;
        /* from pageable memory the copy blocked and was its own sync (the
         * sync after it is the copy's: deps_after_copy) */
        return m->roles[b->api] == ROLE_COPY_ASYNC && b->copy_kind == CALL_COPY_DTOH && b->stream == c->stream &&
                       b->mem_kind != CALL_MEM_PAGEABLE
                   ? (b->bytes > 0 ? b->bytes : 1)
                   : 0;
    }
    return 0;
}

/* The pageable copy call i's thread made just before it, on its stream,
 * when that copy is what the sync waited for (pd->last_op): the
 * cudaStreamSynchronize that PyTorch's c10 adds after every blocking copy
 * (`.to(device)`, `.cpu()`), which waits for the tail of a pageable upload
 * that cudaMemcpyAsync returned from once staged.  It is the copy's: the
 * fix (pinned memory, non_blocking=True) removes both.  SIZE_MAX: none. */
static size_t pageable_copy_waited(const struct model *m, const struct timeline *t, size_t i, const struct pending *pd)
{
    const struct proc *p = t->p;
    const struct call *c = &p->calls[i];
    for (size_t k = i, seen = 0; k-- > 0 && seen < 64; seen++) {
        const struct call *b = &p->calls[k];
        if (b->tid != c->tid)
            continue;
        return copy_is_pageable(m, b) && b->stream == c->stream && pd->last_op >= 0 && t->op_of_call[k] == pd->last_op
                   ? k
                   : SIZE_MAX;
    }
    return SIZE_MAX;
}

/* The GPU of a stream handle's stream, -1 if not known (ps->stream_dev). */
static int stream_device(const struct timeline *t, const struct proc_pass *ps, int64_t handle)
{
    int s = timeline_stream(t, handle);
    int64_t d = 0;
    return s >= 0 && idmap_get(&ps->stream_dev, (uint64_t)s + 1, &d) ? (int)d - 1 : -1;
}

/* A record or a wait of the walk below: whether a stream of one GPU
 * waits for an event recorded on another GPU's, and from when
 * (ps->waits_across, waits_from).  Each event's stream is noted at every
 * record, whatever GPUs the process has driven so far (a window of one
 * GPU's work may record what a later one waits for); the GPUs are told
 * at the wait, once the process has driven several. */
static void note_across(const struct model *m, const struct timeline *t, struct proc_pass *ps, const struct call *c,
                        int multi)
{
    if (m->roles[c->api] == ROLE_EVENT_RECORD) {
        idmap_put(&ps->event_stream, (uint64_t)c->event, c->stream, 0);
        return;
    }
    int64_t rec = 0;
    if (!multi || !idmap_get(&ps->event_stream, (uint64_t)c->event, &rec))
        return;
    int dev = stream_device(t, ps, c->stream), from = stream_device(t, ps, rec);
    if (dev >= 0 && from >= 0 && from != dev && (!ps->waits_across || c->start < ps->waits_from)) {
        ps->waits_across = 1;
        ps->waits_from = c->start; /* (the calls in time order: the first) */
    }
}

void analyse_syncs(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->cupti_active)
        return; /* scopes need GPU times */
    struct timeline *t = model_timeline(m, pi);
    struct proc_pass *ps = p->pass;
    idle_due(fs, p, pi);
    setup_due(m, fs, t, pi);
    struct stream_deps *d = &ps->deps;
    /* each stream's GPU, for a process that drives several */
    for (size_t k = 0; k < p->nops && !ps->multi_gpu; k++) {
        if (!ps->first_device) /* (device + 1: the first seen, in any window) */
            ps->first_device = p->ops[k].device + 1;
        ps->multi_gpu = p->ops[k].device + 1 != ps->first_device;
    }
    const int multi = ps->multi_gpu;
    for (size_t k = 0, last = SIZE_MAX; multi && k < p->nops; k++)
        if (last == SIZE_MAX || p->ops[k].stream != p->ops[last].stream || p->ops[k].device != p->ops[last].device) {
            idmap_put(&ps->stream_dev, (uint64_t)p->ops[k].stream + 1, p->ops[k].device + 1, 0);
            last = k;
        }
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        enum api_role r = m->roles[c->api];
        /* the dependency graph, as the calls are walked in order (a call
         * only CUPTI saw has the stream and event its CUDA_EVENT or
         * SYNCHRONIZATION record named, cupti_calls.c; without one it adds
         * nothing) */
        int args = c->event && c->stream != CUPTI_STREAM_UNKNOWN;
        if ((r == ROLE_EVENT_RECORD || r == ROLE_STREAM_WAIT) && args)
            note_across(m, t, ps, c, multi);
        if (r == ROLE_EVENT_RECORD && args)
            deps_record(d, c->event, c->stream, c->start);
        else if (r == ROLE_STREAM_WAIT && args)
            deps_wait(d, c->stream, c->event);
        else if (r == ROLE_STREAM_CREATE)
            deps_created(d, c->stream, c->bytes);
        else if ((t->op_of_call[i] >= 0 || r == ROLE_NCCL_OP) && !(c->stream == 0 && model_api_per_thread(m, c->api)))
            deps_launch(d, c->stream, c->start); /* (stream 0 of a _ptsz call is its thread's stream, not the legacy one) */
        int expl = model_is_explicit_sync(m, c), impl = !expl && model_is_implicit_sync(m, c);
        int after_copy = expl && r == ROLE_SYNC_STREAM && deps_after_copy(d, c->tid, c->stream);
        int copy = r == ROLE_COPY_SYNC || r == ROLE_COPY_ASYNC;
        deps_note_call(d, c->tid, impl && copy ? c->stream : DEPS_NO_COPY);
        if (!expl && !impl) {
            if (setup_call(r, t->op_of_call[i] >= 0))
                setup_note(m, fs, t, pi, c);
            continue;
        }
        struct scope s;
        if (!scope_of(m, t, d, i, &s)) {
            if (impl && copy_is_pageable(m, c))
                note_pageable(fs, m, pi, c, 0, &t->compute);
            if (expl) /* counted, never dropped silently (a window may still map its stream: syncs_again) */
                m->procs[pi].unscoped_syncs++;
            continue;
        }
        struct pending pd;
        int64_t own = expl ? -1 : t->op_of_call[i];
        find_pending(t, c, &s, own, &pd);
        int64_t blocked = c->end - c->start;
        struct finding *f = NULL;
        if (impl && copy_is_pageable(m, c) &&
            !(pd.consumed_bytes > 0 && pd.consumed_bytes <= o->scalar_bytes)) {
            /* a pageable copy and the sync it implies are one finding with
             * both facts (a few bytes read back are a scalar read instead) */
            /* waited for the work before it: to the copy's start, but no
             * later than that work's end; with none pending, the copy's
             * late start is the driver's staging of pageable memory, no
             * wait (the AlexNet trace's 1.95 ms "waiting for earlier GPU
             * work", with none before its first copy) */
            int64_t waited = 0;
            if (own >= 0 && pd.n > 0 && p->ops[own].start > c->start) {
                int64_t to = p->ops[own].start < c->end ? p->ops[own].start : c->end;
                to = pd.last_end < to ? pd.last_end : to;
                waited = to > c->start ? to - c->start : 0;
            }
            f = note_pageable(fs, m, pi, c, waited, &t->compute);
            if (f && waited > 0)
                note_waited(m, t, c, &pd, f);
            continue;
        }
        size_t copy_i = after_copy && pd.n > 0 ? pageable_copy_waited(m, t, i, &pd) : SIZE_MAX;
        if (copy_i != SIZE_MAX) {
            const struct call *b = &p->calls[copy_i];
            f = findings_find(fs, m, F_COPY_PAGEABLE, (int)pi, b->site);
            if (f) { /* one more fact of the copy's occurrence: its sync's block */
                model_add(&f->host_blocked_ns, blocked);
                if (b->copy_kind == CALL_COPY_HTOD)
                    charge_gaps(fs, f, (int)pi, &t->compute, c->start, c->end);
                else
                    charge_add(fs, f, (int)pi, c->start, c->end);
            }
            continue;
        }
        int64_t read = expl && r == ROLE_SYNC_STREAM && pd.n == 0 ? read_before(m, p, i) : 0;
        if (read > 0 && read <= o->scalar_bytes)
            pd.consumed_bytes = read; /* the read it orders: a scalar read (below) */
        else if (read > 0)
            continue; /* the sync a read of the copy needs: no finding */
        if (expl && pd.n == 0 && pd.consumed_bytes == 0 &&
            ((pd.ended_inside && blocked >= o->implicit_min_ns) || after_copy)) {
            /* GPU work ended while it blocked, so it may have waited for it
             * by a way the trace does not show: never called redundant; and
             * the sync that .cpu() adds after a blocking copy is part of the
             * copy */
            continue;
        } else if (expl && pd.n == 0 && pd.consumed_bytes == 0) {
            f = findings_at(fs, m, F_SYNC_REDUNDANT, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            model_add(&f->host_blocked_ns, blocked);
            charge_add(fs, f, (int)pi, c->start, c->end);
        } else if (expl && pd.consumed_bytes == 0) {
            f = findings_at(fs, m, F_SYNC_NO_CONSUMER, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            model_add(&f->host_blocked_ns, blocked);
            /* its cost: the GPU idle from when what it waited for ended (the
             * device drained) to the next operation; gaps before, while that
             * work was still pending (a stream waiting on another's event),
             * are no idle the sync caused (a cudaDeviceSynchronize of HTA's
             * send/recv trace was charged 101 ms of them, where the GPU idled
             * 19 us after the drain) */
            claim_idle(fs, f, t, pi, pd.last_end > c->start && pd.last_end < c->end ? pd.last_end : c->start, c->end);
        } else if (expl && s.device && pd.nstreams > 1 && pd.nconsumed_streams == 1 &&
                   c->end > pd.last_end_consumed) {
            f = findings_at(fs, m, F_SYNC_DEVICE_WIDE, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            int64_t from = pd.last_end_consumed > c->start ? pd.last_end_consumed : c->start;
            model_add(&f->host_blocked_ns, c->end - from);
            charge_add(fs, f, (int)pi, from, c->end);
        } else if (pd.consumed_bytes > 0 && pd.consumed_bytes <= o->scalar_bytes) {
            f = findings_at(fs, m, F_SYNC_SCALAR_READ, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            claim_idle(fs, f, t, pi, c->start, c->end);
            model_add(&f->host_blocked_ns, blocked);
        } else if (impl && pd.n > 0 && blocked >= o->implicit_min_ns) {
            f = findings_at(fs, m, F_SYNC_IMPLICIT, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            model_add(&f->host_blocked_ns, blocked);
            claim_idle(fs, f, t, pi, c->start, c->end);
        } else if (impl && r == ROLE_FREE && pd.n == 0) {
            setup_note(m, fs, t, pi, c); /* a free that waited for nothing: its time is the driver's */
            continue;
        }
        if (f && !f->count++)
            f->api = c->api; /* the API its message names: its first occurrence's */
        if (f)
            note_waited(m, t, c, &pd, f);
    }
    setup_window_end(t, pi);
}
