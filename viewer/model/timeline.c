/* timeline.c: per-process indexes (see timeline.h). */
#include "viewer/model/timeline.h"
#include "viewer/model/handles.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/sort_by_time.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct ivals timeline_ops_union(const struct proc *p, int device, int which)
{
    struct ivals_build u = { 0 };
    do {
        for (size_t i = 0; i < p->nops; i++) {
            const struct gop *g = &p->ops[i];
            if (device >= 0 && g->device != device)
                continue;
            if (which == 1 && !(g->kind == GOP_KERNEL && !g->nccl))
                continue;
            if (which == 2 && !g->nccl)
                continue;
            ivals_build_add(&u, g->start, g->end);
        }
    } while (ivals_build_pass(&u));
    return u.u;
}

size_t timeline_devices(const struct proc *p, int *devs, size_t n)
{
    size_t nd = 0;
    for (size_t i = 0; i < p->nops; i++) {
        size_t k;
        for (k = 0; k < nd && devs[k] != p->ops[i].device; k++)
            ;
        if (k == nd && nd < n)
            devs[nd++] = p->ops[i].device;
    }
    return nd;
}

void timeline_build(struct timeline *t, const struct proc *p)
{
    memset(t, 0, sizeof *t);
    t->p = p;
    /* correlation -> its first operation: (id, index) pairs sorted by id,
     * stably, so that among equal ids the earliest operation comes first.
     * 16 bytes an operation, where a hash map took 80 at its load factor
     * (a quarter of the report's peak on a big rank). */
    struct sort_key *by_corr = malloc((p->nops + 1) * sizeof *by_corr);
    t->op_of_call = malloc((p->ncalls + 1) * sizeof *t->op_of_call);
    if (!by_corr || !t->op_of_call || p->nops > INT32_MAX)
        model_out_of_memory();
    size_t nk = 0;
    for (size_t i = 0; i < p->nops; i++) {
        int64_t d = p->ops[i].end - p->ops[i].start;
        if (d > t->max_op_ns)
            t->max_op_ns = d;
        if (p->ops[i].corr) /* 0: no correlation id */
            by_corr[nk++] = (struct sort_key){ p->ops[i].corr, i };
    }
    if (sort_keys(by_corr, nk) != 0)
        model_out_of_memory();
    /* stream handles: mapped by the first call that caused GPU work, over
     * the process's windows so far */
    struct stream_map *sm = p->smap;
    size_t hint = 0; /* the calls come nearly in their ids' order: searched near the last */
    for (size_t c = 0; c < p->ncalls; c++) {
        t->op_of_call[c] = p->calls[c].corr ? (int32_t)sort_keys_first_near(by_corr, nk, p->calls[c].corr, &hint) : -1;
        if (t->op_of_call[c] >= 0 && stream_map_get(sm, p->calls[c].stream) < 0)
            stream_map_put(sm, p->calls[c].stream, p->ops[t->op_of_call[c]].stream);
    }
    free(by_corr);
    t->busy = timeline_ops_union(p, -1, 0);
    timeline_join_gaps(p, &t->busy, &t->seen);
    t->compute = timeline_ops_union(p, -1, 1);
    t->comm = timeline_ops_union(p, -1, 2);
    if (sm->compute_preset)
        return; /* counted over the whole process (windows.c) */
    for (size_t i = 0; i < p->nops; i++) {
        const struct gop *g = &p->ops[i];
        if (g->kind == GOP_KERNEL && !g->nccl)
            stream_map_add_compute(sm, g->stream);
    }
}

int timeline_stream_computes(const struct timeline *t, int stream)
{
    return stream_map_computes(t->p->smap, stream);
}

const struct ivals *timeline_compute_except(struct timeline *t, int stream)
{
    for (size_t i = 0; i < t->nothers; i++)
        if (t->others[i].stream == stream)
            return &t->others[i].u;
    const struct proc *p = t->p;
    /* compute on the same GPU only: a process driving several GPUs overlaps
     * a collective on one only with kernels on that one */
    int dev = -1;
    for (size_t k = 0; k < p->nops && dev < 0; k++)
        if (p->ops[k].stream == stream)
            dev = p->ops[k].device;
    struct ivals_build u = { 0 };
    do {
        for (size_t k = 0; k < p->nops; k++) {
            const struct gop *g = &p->ops[k];
            if (g->kind == GOP_KERNEL && !g->nccl && g->stream != stream && (dev < 0 || g->device == dev))
                ivals_build_add(&u, g->start, g->end);
        }
    } while (ivals_build_pass(&u));
    t->others = realloc(t->others, (t->nothers + 1) * sizeof *t->others);
    t->others[t->nothers].stream = stream;
    t->others[t->nothers].u = u.u;
    return &t->others[t->nothers++].u;
}

void timeline_drop_except(struct timeline *t)
{
    for (size_t i = 0; i < t->nothers; i++)
        free(t->others[i].u.v);
    free(t->others);
    t->others = NULL;
    t->nothers = 0;
}

int timeline_join_gaps(const struct proc *p, const struct ivals *u, struct ivals *out)
{
    *out = *u;
    if (!p->ngpu_gaps || !u->n)
        return 0;
    /* between its first work and its last only: before and after them is
     * no idle of the GPU's either way (the stretches between a window's
     * work and the last one's: analysis_gpu.c, claim_recorded) */
    int64_t lo = u->v[0].a, hi = u->v[u->n - 1].b;
    struct ivals_build b = { 0 };
    size_t first = model_gpu_gap_after(p, lo); /* those that end after lo */
    do { /* both in start order: merged */
        size_t i = 0, k = first;
        while (i < u->n || (k < p->ngpu_gaps && p->gpu_gaps[k].from < hi)) {
            if (k == p->ngpu_gaps || p->gpu_gaps[k].from >= hi || (i < u->n && u->v[i].a <= p->gpu_gaps[k].from)) {
                ivals_build_add(&b, u->v[i].a, u->v[i].b);
                i++;
            } else {
                int64_t from = p->gpu_gaps[k].from > lo ? p->gpu_gaps[k].from : lo;
                int64_t to = p->gpu_gaps[k].to < hi ? p->gpu_gaps[k].to : hi;
                if (to > from)
                    ivals_build_add(&b, from, to);
                k++;
            }
        }
    } while (ivals_build_pass(&b));
    *out = b.u;
    return 1;
}

void timeline_free(struct timeline *t)
{
    if (t->seen.v != t->busy.v)
        free(t->seen.v);
    free(t->op_of_call);
    free(t->busy.v);
    free(t->compute.v);
    free(t->comm.v);
    timeline_drop_except(t);
}

int timeline_stream(const struct timeline *t, int64_t handle)
{
    int s = stream_map_get(t->p->smap, handle);
    if (s < 0) /* not seen so far: noted, in case a later window maps it */
        stream_map_note_missed(t->p->smap, handle);
    return s;
}

size_t timeline_first_op_at(const struct timeline *t, int64_t ts)
{
    return sorted_first_at(t->p->ops, t->p->nops, sizeof *t->p->ops, offsetof(struct gop, start), ts);
}

size_t timeline_first_call_at(const struct timeline *t, int64_t ts)
{
    return sorted_first_at(t->p->calls, t->p->ncalls, sizeof *t->p->calls, offsetof(struct call, start), ts);
}

int64_t ivals_end_before(const struct ivals *s, int64_t b)
{
    size_t k = sorted_first_at(s->v, s->n, sizeof *s->v, offsetof(struct interval, a), b);
    return k ? s->v[k - 1].b : INT64_MIN;
}

struct timeline *model_timeline(const struct model *m, size_t pi)
{
    struct model *mm = (struct model *)m; /* a cache: logically const */
    if (!mm->timelines)
        mm->timelines = calloc(m->nprocs + 1, sizeof *mm->timelines);
    if (!mm->timelines[pi]) {
        mm->timelines[pi] = malloc(sizeof **mm->timelines);
        timeline_build(mm->timelines[pi], &m->procs[pi]);
    }
    return mm->timelines[pi];
}

void model_free_timeline(struct model *m, size_t pi)
{
    if (m->timelines && m->timelines[pi]) {
        timeline_free(m->timelines[pi]);
        free(m->timelines[pi]);
        m->timelines[pi] = NULL;
    }
}

void model_free_timelines(struct model *m)
{
    for (size_t i = 0; m->timelines && i < m->nprocs; i++)
        model_free_timeline(m, i);
    free(m->timelines);
    m->timelines = NULL;
}

