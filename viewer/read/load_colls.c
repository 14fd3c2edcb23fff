/* load_colls.c: a process's collectives as its windows are read: the
 * parked ones brought in before a window, each matched to the kernel that
 * ran it (through ext_corr), which GPU work is NCCL's, and when a
 * collective is settled (load_colls.h; split from load_proc.c). */
#include "viewer/read/load_colls.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/tmpstore.h"
#include "format/record.h"

#include <stdlib.h>
#include <string.h>

int load_cmp_ext(const void *a, const void *b)
{
    const struct ext *x = a, *y = b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The first of the ext_corr rows (sorted by id) of a collective's
 * external id (its group's, for a grouped call), or NULL if it has none. */
static const struct ext *first_ext(const struct ext_list *x, const struct coll *c)
{
    return ext_first(x->v, x->n, c->group ? c->group : c->call_id);
}

/* The kernel that ran each collective of the process: the earliest kernel
 * with a correlation its external id (its group's, for a grouped call)
 * points at, through ext_corr, whether stored as rows or in blocks.  ops
 * are sorted by start; x is sorted by external id.  A window's kernels
 * come after earlier windows', so a collective matched there keeps its
 * kernel. */
void load_collective_kernels(struct proc *p, const struct ext_list *x)
{
    if (!p->ncolls || !x->n)
        return;
    /* correlation -> its earliest kernel, for the correlations external
     * ids point at only: a map of every kernel was a tenth of the peak */
    struct idmap first = { 0 };
    for (size_t i = 0; i < x->n; i++)
        idmap_put(&first, x->v[i].corr, -1, 1);
    int64_t k;
    /* and to its first copy or memset and the one that ends last: NCCL's
     * copy-engine collectives run no kernel (docs/nccl-ce.md) */
    struct idmap cfirst = { 0 }, clast = { 0 };
    for (size_t j = 0; j < p->nops; j++) { /* in start order: the first found is the earliest */
        const struct gop *g = &p->ops[j];
        if (g->kind == GOP_KERNEL && idmap_get(&first, g->corr, &k) && k < 0)
            idmap_put(&first, g->corr, (int64_t)j, 0);
        if (g->kind != GOP_KERNEL && idmap_get(&first, g->corr, &k)) {
            idmap_put(&cfirst, g->corr, (int64_t)j, 1);
            if (!idmap_get(&clast, g->corr, &k) || p->ops[k].end < g->end)
                idmap_put(&clast, g->corr, (int64_t)j, 0);
        }
    }
    for (size_t i = 0; i < p->ncolls; i++) {
        struct coll *c = &p->colls[i];
        if (c->gstream >= 0)
            continue; /* matched in an earlier window */
        const struct ext *e = first_ext(x, c);
        if (!e)
            continue;
        /* a grouped call's members share their kernels (one each, a GPU
         * each where one process drives several: nccl-tests -g 2): each
         * its own stream's, where the handle it was called on is mapped */
        int own = c->group && p->smap ? stream_map_get(p->smap, c->hstream) : -1;
        int64_t best = -1, lo = -1, hi = -1, l;
        for (int64_t id = e->id; e < x->v + x->n && e->id == id; e++) {
            if (idmap_get(&first, e->corr, &k) && k >= 0) {
                int mine = own >= 0 && p->ops[k].stream == own;
                int best_mine = best >= 0 && own >= 0 && p->ops[best].stream == own;
                if (best < 0 || mine > best_mine || (mine == best_mine && p->ops[k].start < p->ops[best].start))
                    best = k;
            }
            if (idmap_get(&cfirst, e->corr, &k) && idmap_get(&clast, e->corr, &l)) {
                if (lo < 0 || p->ops[k].start < p->ops[lo].start)
                    lo = k;
                if (hi < 0 || p->ops[l].end > p->ops[hi].end)
                    hi = l;
            }
        }
        if (best < 0 && lo >= 0) { /* no kernel: its copies' span, first start to last end, is its GPU time */
            c->gstart = p->ops[lo].start;
            c->gend = p->ops[hi].end;
            c->gstream = p->ops[lo].stream;
            c->kname = 0;
            continue;
        }
        if (best < 0)
            continue;
        const struct gop *g = &p->ops[best];
        c->gstart = g->start;
        c->gend = g->end;
        c->gstream = g->stream;
        c->kname = g->name;
    }
    idmap_free(&first);
    idmap_free(&cfirst);
    idmap_free(&clast);
}

int model_op_is_nccl(const struct proc *p, const struct gop *g)
{
    int64_t one;
    struct proc_exts *x = p->exts;
    if (x && !x->nccl_built) { /* made when the first operation is read: not beside a window's calls */
        for (size_t i = 0; i < x->list.n; i++)
            if (!((uint64_t)x->list.v[i].id & GT_XCORR_TAG)) /* a blocking CUDA call's work is not NCCL's */
                idmap_put(&x->nccl, x->list.v[i].corr, 1, 1);
        x->nccl_built = 1;
    }
    /* launched inside an NCCL call (a kernel, or the copies and memsets of
     * its copy-engine collectives: docs/nccl-ce.md), or a kernel named as
     * communication (comm_kernels.h) */
    if (x && idmap_get(&x->nccl, g->corr, &one))
        return 1;
    const char *name = g->name > 0 && g->name < p->nnames ? p->names[g->name] : NULL;
    int named = name && (p->comm_names ? p->comm_names[g->name] : !strncmp(name, "nccl", 4));
    return g->kind == GOP_KERNEL && named;
}

/* The collectives, put aside when the run was loaded (sorted by start),
 * that start before hi: appended to those loaded. */
void load_colls_before(struct model *m, struct proc *p, int64_t hi)
{
    enum { CHUNK = 256 };
    struct coll buf[CHUNK];
    while (p->colls_next < p->colls_parked) {
        size_t n = p->colls_parked - p->colls_next < CHUNK ? p->colls_parked - p->colls_next : CHUNK, k = 0;
        tmpstore_read(m->parked, p->colls_at + p->colls_next * sizeof *buf, buf, n * sizeof *buf);
        while (k < n && buf[k].start < hi)
            k++;
        if (!k)
            return;
        struct coll *v = realloc(p->colls, (p->ncolls + k) * sizeof *v);
        if (!v)
            model_out_of_memory();
        p->colls = v;
        memcpy(p->colls + p->ncolls, buf, k * sizeof *buf);
        p->ncolls += k;
        p->colls_next += k;
        if (k < n)
            return;
    }
}

int load_coll_settled(const struct proc *p, size_t i)
{
    const struct coll *c = &p->colls[i];
    if (c->gstream >= 0 || !p->exts)
        return 1;
    const struct ext_list *x = &p->exts->list;
    const struct ext *e = first_ext(x, c);
    if (!e)
        return 1; /* nothing points at a kernel for it */
    /* windows come in correlation order: the kernel of a correlation
     * below those loaded so far was in a window already read */
    for (int64_t id = e->id; e < x->v + x->n && e->id == id; e++)
        if ((int64_t)e->corr > p->corr_seen)
            return 0;
    return 1;
}

void load_release_colls(struct model *m, size_t pi, size_t n)
{
    struct proc *p = &m->procs[pi];
    if (!n)
        return;
    memmove(p->colls, p->colls + n, (p->ncolls - n) * sizeof *p->colls);
    p->ncolls -= n;
    p->colls_first += n;
}

