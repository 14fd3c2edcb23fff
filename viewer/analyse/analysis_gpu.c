/* analysis_gpu.c: copies (copy.pageable, copy.serialized) and GPU idle
 * gaps that no host sync explains (gpu.idle). */
#include "viewer/analyse/findings.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/model/timeline.h"
#include "viewer/analyse/attribution.h"

#include <stdio.h>
#include <stdlib.h>

#define GT_MEM_PAGEABLE 1
#define CUPTI_HTOD 1

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
    if (c->copy_kind == CUPTI_HTOD && busy)
        charge_gaps(fs, f, (int)pi, busy, c->start, c->end);
    else
        charge_add(fs, f, (int)pi, c->copy_kind == CUPTI_HTOD ? c->start : c->start + waited_ns, c->end);
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
        if (g->kind != GOP_MEMCPY || g->copy_kind != CUPTI_HTOD || g->end <= g->start)
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

/* Whether a call is a host sync for gpu.idle: one that waits for the
 * device, and NCCL's communicator calls, which block too. */
static int blocks_host(const struct model *m, const struct call *c)
{
    return model_is_explicit_sync(m, c) || model_is_implicit_sync(m, c) || m->roles[c->api] == ROLE_NCCL_OTHER;
}

/* Sweeps call c into the latest end of the host syncs (of some length). */
static void sweep_sync(const struct model *m, const struct call *c, int64_t *sync_end)
{
    if (c->end > c->start && c->end > *sync_end && blocks_host(m, c))
        *sync_end = c->end;
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
    v[ps->ndev_idle] = (struct dev_idle){ device, 0, 0, 0, 0 };
    return &v[ps->ndev_idle++];
}

/* gpu.idle's key for a GPU: its finding's callsite_id, never a real site */
static int idle_key(int device)
{
    return -1 - (device & 0x7fff);
}

/* The gaps of one GPU's busy intervals in this window: a gap between two
 * windows is the one between the last busy end of the earlier and the
 * first busy start of this one (proc_pass.h carries the former). */
static void gaps_of(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi,
                    const struct ivals *busy, struct dev_idle *d, int64_t sync_end)
{
    const struct proc *p = &m->procs[pi];
    /* the latest end of the syncs (of some length) that began before the
     * gap's end, swept along with the gaps: both go in time order */
    size_t j = 0;
    for (size_t k = 0; k < busy->n; k++) {
        if (!k && !d->have_busy)
            continue; /* no gap before the first busy interval */
        int64_t a = k ? busy->v[k - 1].b : d->busy_end, b = busy->v[k].a;
        if (b - a < o->idle_gap_ns)
            continue;
        for (; j < p->ncalls && p->calls[j].start < b; j++)
            sweep_sync(m, &p->calls[j], &sync_end);
        /* a sync that ended in the gap (or just before it) explains it:
         * the host was blocked, then had to refill the queue; one began
         * before the gap ended and ended after a - slack overlaps it */
        int64_t slack = o->idle_gap_ns / 2;
        if (sync_end > a - slack)
            continue;
        model_add(&d->idle_ns, b - a);
        d->idle_n++;
        charge_add_key(fs, F_GPU_IDLE, (int)pi, idle_key(d->device), (int)pi, a, b);
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
    size_t nd = 0;
    for (size_t i = 0; i < p->nops; i++) {
        size_t k;
        for (k = 0; k < nd && devs[k] != p->ops[i].device; k++)
            ;
        if (k == nd && nd < 64)
            devs[nd++] = p->ops[i].device;
    }
    int64_t sync0 = ps->sync_end;
    for (size_t k = 0; k < nd; k++) {
        struct dev_idle *d = dev_state(ps, devs[k]);
        if (nd == 1) {
            gaps_of(m, o, fs, pi, &t->busy, d, sync0);
            continue;
        }
        struct ivals_build u = { 0 };
        do
            for (size_t i = 0; i < p->nops; i++)
                if (p->ops[i].device == devs[k])
                    ivals_build_add(&u, p->ops[i].start, p->ops[i].end);
        while (ivals_build_pass(&u));
        gaps_of(m, o, fs, pi, &u.u, dev_state(ps, devs[k]), sync0);
        free(u.u.v);
    }
    /* this window's syncs all began before any later gap ends */
    for (size_t j = 0; j < p->ncalls; j++)
        sweep_sync(m, &p->calls[j], &ps->sync_end);
}

void analyse_idle_end(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    const struct proc_pass *ps = p->pass;
    if (!p->cupti_active)
        return;
    for (size_t k = 0; k < ps->ndev_idle; k++) {
        const struct dev_idle *d = &ps->dev_idle[k];
        if (!d->idle_n)
            continue;
        struct finding *f = findings_new(fs, m, F_GPU_IDLE, (int)pi, 0);
        f->callsite_id = idle_key(d->device);
        f->count = d->idle_n;
        f->gpu_idle_ns = d->idle_ns;
        f->confidence = "medium";
        if (ps->ndev_idle > 1) {
            snprintf(f->callsite, sizeof f->callsite, "(GPU %d)", d->device);
            f->facts.has |= FACT_DEVICE;
            f->facts.device = d->device;
        } else {
            snprintf(f->callsite, sizeof f->callsite, "(whole process)");
        }
    }
}
