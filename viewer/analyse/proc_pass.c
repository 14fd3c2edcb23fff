/* proc_pass.c: the analyses' state of one process across its windows
 * (proc_pass.h): made, kept in step with the collectives loaded, freed. */
#include "viewer/analyse/proc_pass.h"
#include "viewer/model/model.h"

#include <stdlib.h>
#include <string.h>

struct proc_pass *proc_pass_new(void)
{
    struct proc_pass *ps = calloc(1, sizeof *ps);
    if (!ps)
        model_out_of_memory();
    return ps;
}

void proc_pass_free(struct proc_pass *ps)
{
    if (!ps)
        return;
    deps_free(&ps->deps);
    free(ps->due);
    free(ps->setup_due);
    free(ps->coll_overlap);
    free(ps->coll_hideable);
    free(ps->coll_exposed);
    free(ps->dev_idle);
    free(ps->idle_tally);
    free(ps->blocked.v);
    idmap_free(&ps->site_colls);
    idmap_free(&ps->stream_dev);
    idmap_free(&ps->event_stream);
    free(ps);
}

void proc_pass_colls_sync(struct proc_pass *ps, const struct proc *p)
{
    size_t gone = p->colls_first - ps->coll_first; /* released since: never fewer than before */
    if (gone >= ps->ncoll_values) {
        ps->ncoll_values = 0;
    } else if (gone) {
        ps->ncoll_values -= gone;
        memmove(ps->coll_overlap, ps->coll_overlap + gone, ps->ncoll_values * sizeof *ps->coll_overlap);
        memmove(ps->coll_hideable, ps->coll_hideable + gone, ps->ncoll_values * sizeof *ps->coll_hideable);
        memmove(ps->coll_exposed, ps->coll_exposed + gone, ps->ncoll_values * sizeof *ps->coll_exposed);
    }
    ps->coll_first = p->colls_first;
    if (p->ncolls <= ps->ncoll_values)
        return;
    if (p->ncolls > ps->coll_values_cap) {
        size_t cap = p->ncolls;
        int64_t *ov = realloc(ps->coll_overlap, cap * sizeof *ov);
        if (ov)
            ps->coll_overlap = ov;
        int64_t *hv = realloc(ps->coll_hideable, cap * sizeof *hv);
        if (hv)
            ps->coll_hideable = hv;
        struct coll_exposed *xv = realloc(ps->coll_exposed, cap * sizeof *xv);
        if (xv)
            ps->coll_exposed = xv;
        if (!ov || !hv || !xv)
            model_out_of_memory();
        ps->coll_values_cap = cap;
    }
    for (size_t i = ps->ncoll_values; i < p->ncolls; i++) {
        ps->coll_overlap[i] = ps->coll_hideable[i] = -1;
        ps->coll_exposed[i].n = -1;
    }
    ps->ncoll_values = p->ncolls;
}

int64_t proc_pass_coll_overlap(const struct proc_pass *ps, const struct proc *p, size_t i)
{
    size_t at = p->colls_first + i;
    if (at < ps->coll_first || at - ps->coll_first >= ps->ncoll_values)
        return -1;
    return ps->coll_overlap[at - ps->coll_first];
}
