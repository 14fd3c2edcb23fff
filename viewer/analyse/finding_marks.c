/* finding_marks.c: where a finding's first occurrences happened, so that
 * the traces can place a marker at each (chrome_trace.c) instead of one at
 * the process's start.  An occurrence's cost is what its claims were given
 * (attribution.c: each claim names the mark of the occurrence that made it,
 * the one open when it was made: every analysis claims right after
 * findings_at); occurrences past the cap add to no mark. */
#include "viewer/analyse/findings.h"
#include "viewer/model/idmap.h"

void finding_mark(struct finding *f, int proc, int tid, int64_t t)
{
    f->mark_open = 0;
    if (f->nmarks >= FINDING_MARKS)
        return; /* past the cap: counted in the finding, not marked */
    f->marks[f->nmarks++] = (struct finding_mark){ t, 0, proc, tid };
    f->mark_open = 1;
}

int64_t finding_mark_cost(const struct finding *f, int k)
{
    return f->marks[k].cost;
}

void finding_marks_from_charges(struct findings *fs)
{
    struct idmap of = { 0 }; /* (kind, proc, site) -> the finding's index, for those without marks */
    size_t want = 0;
    for (size_t i = 0; i < fs->n; i++)
        if (!fs->v[i].nmarks && fs->v[i].count > 0) {
            idmap_put(&of, finding_key(fs->v[i].kind, fs->v[i].proc, fs->v[i].callsite_id), (int64_t)i, 1);
            want++;
        }
    /* one pass over the pieces given (a finding's are in time order per
     * rank): the first FINDING_MARKS of each */
    const struct charges *c = &fs->charges;
    for (size_t k = 0; k < c->ngiven && want; k++) {
        const struct charge *g = &c->given[k];
        int64_t i;
        if (g->b <= g->a || !idmap_get(&of, finding_key(g->kind, g->proc, g->site), &i))
            continue;
        struct finding *f = &fs->v[i];
        if (f->nmarks >= FINDING_MARKS)
            continue;
        f->marks[f->nmarks++] = (struct finding_mark){ g->a, g->b - g->a, g->tl, -1 };
        f->marks_charged = 1;
        want -= f->nmarks == FINDING_MARKS;
    }
    idmap_free(&of);
}
