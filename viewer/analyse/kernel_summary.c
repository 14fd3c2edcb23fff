/* kernel_summary.c: the kernel table of the summary (summary.h): for each
 * kernel name, over all ranks, how often it ran and for how long.  Built
 * one process at a time, while its GPU operations are loaded: per-process
 * sums by name id first (ids are per process), then one lookup by name
 * text per distinct kernel of the process, so the cost is one pass over
 * the operations plus the number of distinct kernels. */
#define _GNU_SOURCE
#include "viewer/analyse/summary.h"

#include <stdlib.h>
#include <string.h>

struct per_name { int64_t count, total_ns, max_ns; int nccl; };

/* The entry of `name`, made if new.  Names that share a hash take the
 * next key: a collision costs a probe, never a merged row. */
static struct kernel_summary *entry(struct summary *s, const char *name)
{
    for (uint64_t key = idmap_text_key(name);; key = key + 1 ? key + 1 : 1) { /* 0 is not a key */
        int64_t k;
        if (!idmap_get(&s->kernel_index, key, &k)) {
            if (s->nkernels == s->kernels_cap) {
                s->kernels_cap = s->kernels_cap ? s->kernels_cap * 2 : 64;
                struct kernel_summary *v = realloc(s->kernels, s->kernels_cap * sizeof *v);
                if (!v)
                    model_out_of_memory();
                s->kernels = v;
            }
            struct kernel_summary *e = &s->kernels[s->nkernels];
            memset(e, 0, sizeof *e);
            e->name = strdup(name);
            if (!e->name)
                model_out_of_memory();
            e->last_proc = -1;
            idmap_put(&s->kernel_index, key, (int64_t)s->nkernels++, 0);
            return e;
        }
        if (!strcmp(s->kernels[k].name, name))
            return &s->kernels[k];
    }
}

struct kernel_summary *kernels_entry(struct summary *s, const char *name)
{
    return entry(s, name);
}

void kernels_begin_proc(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    /* name ids index p->names; anything else (0, a damaged id) is "?" */
    s->nby_name = p->nnames > 0 ? (size_t)p->nnames : 1;
    free(s->by_name);
    if (!(s->by_name = calloc(s->nby_name, sizeof *s->by_name)))
        model_out_of_memory();
}

void kernels_add_window(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    struct per_name *by = s->by_name;
    size_t nn = s->nby_name;
    for (size_t i = 0; i < p->nops; i++) {
        const struct gop *g = &p->ops[i];
        if (g->kind != GOP_KERNEL)
            continue;
        /* --range: launched inside such a range (on the thread with the
         * most ranges, where collectives are placed too) */
        if (s->range_filter && !model_range_within(p, model_range_at(p, -1, g->enq), s->range_filter))
            continue;
        size_t id = g->name > 0 && (size_t)g->name < nn ? (size_t)g->name : 0;
        int64_t d = g->end > g->start ? g->end - g->start : 0;
        by[id].count++;
        model_add(&by[id].total_ns, d);
        if (d > by[id].max_ns)
            by[id].max_ns = d;
        by[id].nccl |= g->nccl;
    }
}

void kernels_end_proc(const struct model *m, struct summary *s, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    struct per_name *by = s->by_name;
    for (size_t id = 0; id < s->nby_name; id++) {
        if (!by[id].count)
            continue;
        struct kernel_summary *e = entry(s, model_kernel_name(p, (int)id));
        e->count += by[id].count;
        model_add(&e->total_ns, by[id].total_ns);
        if (by[id].max_ns > e->max_ns)
            e->max_ns = by[id].max_ns;
        e->nccl |= by[id].nccl;
        if (e->last_proc != (int)pi) {
            e->last_proc = (int)pi;
            e->ranks++;
        }
        model_add(&s->kernel_ns, by[id].total_ns);
    }
    free(s->by_name);
    s->by_name = NULL;
    s->nby_name = 0;
}

static int cmp_kernel(const void *a, const void *b)
{
    const struct kernel_summary *x = a, *y = b;
    if (x->total_ns != y->total_ns)
        return x->total_ns > y->total_ns ? -1 : 1;
    return strcmp(x->name, y->name);
}

void kernels_end(struct summary *s)
{
    if (s->nkernels)
        qsort(s->kernels, s->nkernels, sizeof *s->kernels, cmp_kernel);
    idmap_free(&s->kernel_index); /* its indexes no longer hold */
}

void kernels_free(struct summary *s)
{
    for (size_t i = 0; i < s->nkernels; i++)
        free(s->kernels[i].name);
    free(s->kernels);
    free(s->by_name);
    idmap_free(&s->kernel_index);
}
