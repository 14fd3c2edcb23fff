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
 */
#include "viewer/analyse/findings.h"
#include "viewer/model/idmap.h"
#include "viewer/proc_pass.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CUPTI_DTOH 2

struct scope { int device; int stream; int64_t cutoff; };

/* The latest cudaEventRecord of an event: its stream handle and start. */
struct record { int64_t stream, start; };

/* The scope of sync call i; returns 0 if it cannot be told.  `rec` is the
 * latest cudaEventRecord of the event an event sync waits for (NULL if
 * none). */
static int scope_of(const struct model *m, const struct timeline *t, size_t i, const struct record *rec,
                    struct scope *s)
{
    const struct proc *p = t->p;
    const struct call *c = &p->calls[i];
    s->device = 0;
    s->stream = -1;
    s->cutoff = c->start;
    switch (m->roles[c->api]) {
    case ROLE_SYNC_DEVICE:
    case ROLE_FREE:
        s->device = 1;
        return 1;
    case ROLE_SYNC_STREAM:
        s->stream = timeline_stream(t, c->stream);
        return s->stream >= 0;
    case ROLE_SYNC_EVENT:
        if (!rec)
            return 0;
        s->stream = timeline_stream(t, rec->stream);
        s->cutoff = rec->start;
        return s->stream >= 0;
    default: /* copies and memsets: the stream their own operation ran on */
        if (t->op_of_call[i] < 0)
            return 0;
        s->stream = p->ops[t->op_of_call[i]].stream;
        s->cutoff = c->start + 1; /* its own operation counts */
        return 1;
    }
}

struct pending {
    int n, streams[8], nstreams, consumed_streams[8], nconsumed_streams;
    int64_t consumed_bytes, last_end, last_end_consumed;
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
    /* an op pending at c->start runs at some time in [c->start - longest op, c->end] */
    for (size_t k = timeline_first_op_at(t, c->start - t->max_op_ns - 1); k < p->nops && p->ops[k].start <= c->end; k++) {
        const struct gop *g = &p->ops[k];
        int own = (int64_t)k == own_op;
        if (!own && (g->enq >= s->cutoff || g->end <= c->start))
            continue;
        if (!s->device && g->stream != s->stream)
            continue;
        pd->n++;
        note_stream(pd->streams, &pd->nstreams, g->stream);
        if (g->end > pd->last_end)
            pd->last_end = g->end;
        if (g->kind == GOP_MEMCPY && g->copy_kind == CUPTI_DTOH) {
            model_add(&pd->consumed_bytes, g->bytes);
            note_stream(pd->consumed_streams, &pd->nconsumed_streams, g->stream);
            if (g->end > pd->last_end_consumed)
                pd->last_end_consumed = g->end;
        }
    }
}

/* Idle time of the GPU right after t_end: until its next operation
 * starts; -1 when that is in a later window (nothing runs across the cut
 * at the window's end, so nothing in this window covers t_end then). */
static int64_t idle_after(const struct timeline *t, int64_t t_end)
{
    if (ivals_cover(&t->busy, t_end, t_end + 1))
        return 0;
    size_t k = timeline_first_op_at(t, t_end);
    if (k >= t->p->nops)
        return -1;
    return t->p->ops[k].start - t_end;
}

/* Scalar reads of earlier windows whose GPU idle time ran to this
 * window's first operation (or to the process's end: none). */
static void idle_due(struct findings *fs, const struct proc *p)
{
    struct proc_pass *ps = p->pass;
    if (!ps->ndue || !p->nops)
        return;
    for (size_t i = 0; i < ps->ndue; i++)
        model_add(&fs->v[ps->due[i].finding].gpu_idle_ns, p->ops[0].start - ps->due[i].t_end);
    ps->ndue = 0;
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

void analyse_syncs(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->cupti_active)
        return; /* scopes need GPU times */
    struct timeline *t = model_timeline(m, pi);
    struct proc_pass *ps = p->pass;
    idle_due(fs, p);
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        enum api_role r = m->roles[c->api];
        if (r == ROLE_EVENT_RECORD) { /* each event's latest record, as calls are walked in order */
            idmap_put(&ps->record_stream, (uint64_t)c->event, c->stream, 0);
            idmap_put(&ps->record_start, (uint64_t)c->event, c->start, 0);
        }
        int expl = model_is_explicit_sync(m, c), impl = !expl && model_is_implicit_sync(m, c);
        if (!expl && !impl)
            continue;
        struct scope s;
        struct record rec;
        int have_rec = r == ROLE_SYNC_EVENT && idmap_get(&ps->record_stream, (uint64_t)c->event, &rec.stream) &&
                       idmap_get(&ps->record_start, (uint64_t)c->event, &rec.start);
        if (!scope_of(m, t, i, have_rec ? &rec : NULL, &s)) {
            if (expl) /* counted, never dropped silently (a window may still map its stream: syncs_again) */
                m->procs[pi].unscoped_syncs++;
            continue;
        }
        struct pending pd;
        int64_t own = expl ? -1 : t->op_of_call[i];
        find_pending(t, c, &s, own, &pd);
        int64_t blocked = c->end - c->start;
        struct finding *f = NULL;
        if (expl && pd.n == 0) {
            f = findings_at(fs, m, F_SYNC_REDUNDANT, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            model_add(&f->host_blocked_ns, blocked);
        } else if (expl && pd.consumed_bytes == 0) {
            f = findings_at(fs, m, F_SYNC_NO_CONSUMER, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            model_add(&f->host_blocked_ns, blocked);
        } else if (expl && s.device && pd.nstreams > 1 && pd.nconsumed_streams == 1 &&
                   c->end > pd.last_end_consumed) {
            f = findings_at(fs, m, F_SYNC_DEVICE_WIDE, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            int64_t extra = c->end - (pd.last_end_consumed > c->start ? pd.last_end_consumed : c->start);
            model_add(&f->host_blocked_ns, extra);
        } else if (pd.consumed_bytes > 0 && pd.consumed_bytes <= o->scalar_bytes) {
            f = findings_at(fs, m, F_SYNC_SCALAR_READ, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            int64_t idle = idle_after(t, c->end);
            if (idle >= 0)
                model_add(&f->gpu_idle_ns, idle);
            else
                add_idle_due(ps, (size_t)(f - fs->v), c->end);
            model_add(&f->host_blocked_ns, blocked);
        } else if (impl && pd.n > 0 && blocked >= o->implicit_min_ns) {
            f = findings_at(fs, m, F_SYNC_IMPLICIT, (int)pi, c->site, c->tid, c->start);
            if (!f)
                continue;
            model_add(&f->host_blocked_ns, blocked);
        }
        if (f && !f->count++)
            f->api = c->api; /* the API its message names: its first occurrence's */
    }
}

void describe_syncs(const struct model *m, struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        const char *api = f->api > 0 ? model_api_name(m, f->api) : "sync";
        double ms = (double)finding_cost(f) / 1e6;
        switch (f->kind) {
        case F_SYNC_REDUNDANT:
            snprintf(f->message, sizeof f->message, "%s waited %s with nothing pending on the GPU (%.2f ms)", api, times_text(f->count).s, ms);
            snprintf(f->suggestion, sizeof f->suggestion, "remove it: there was no GPU work to wait for");
            break;
        case F_SYNC_NO_CONSUMER:
            snprintf(f->message, sizeof f->message, "%s blocked the host %s (%.2f ms) but no result was copied back", api, times_text(f->count).s, ms);
            snprintf(f->suggestion, sizeof f->suggestion, "to order streams use cudaEventRecord + cudaStreamWaitEvent; otherwise remove it");
            break;
        case F_SYNC_DEVICE_WIDE:
            snprintf(f->message, sizeof f->message, "%s waited for every stream %s; the data read sat on one stream: %.2f ms waited beyond it", api, times_text(f->count).s, ms);
            snprintf(f->suggestion, sizeof f->suggestion, "wait for that stream or an event recorded after the copy (cudaStreamSynchronize / cudaEventSynchronize) instead of the whole device");
            break;
        case F_SYNC_SCALAR_READ:
            snprintf(f->message, sizeof f->message, "%s read a few bytes back %s (like .item() or print(tensor)); the GPU then idled %.2f ms", api, times_text(f->count).s, ms);
            snprintf(f->suggestion, sizeof f->suggestion, "keep the value on the GPU, or copy it asynchronously into pinned memory and read it a step later");
            break;
        case F_SYNC_IMPLICIT:
            snprintf(f->message, sizeof f->message, "%s synchronised implicitly %s, blocking the host %.2f ms", api, times_text(f->count).s, ms);
            snprintf(f->suggestion, sizeof f->suggestion, "use the Async form with pinned memory, and move frees and allocations out of the loop");
            break;
        default:
            break;
        }
    }
}
