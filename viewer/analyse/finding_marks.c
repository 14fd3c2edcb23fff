/* finding_marks.c: where a finding's first occurrences happened, so that
 * the traces can place a marker at each (chrome_trace.c) instead of one at
 * the process's start.  Each mark takes the cost the analysis adds to its
 * finding until the next occurrence: every analysis adds an occurrence's
 * cost right after findings_at, so the difference is that occurrence's. */
#include "viewer/analyse/findings.h"

void finding_mark(struct finding *f, int proc, int tid, int64_t t)
{
    int64_t now = finding_cost(f);
    if (f->mark_open) { /* the previous mark's cost is all in now */
        struct finding_mark *prev = &f->marks[f->nmarks - 1];
        prev->cost = now - prev->snap;
        f->mark_open = 0;
    }
    if (f->nmarks >= FINDING_MARKS)
        return; /* past the cap: counted in the finding, not marked */
    f->marks[f->nmarks++] = (struct finding_mark){ t, 0, now, proc, tid };
    f->mark_open = 1;
}

int64_t finding_mark_cost(const struct finding *f, int k)
{
    if (k == f->nmarks - 1 && f->mark_open)
        return finding_cost(f) - f->marks[k].snap;
    return f->marks[k].cost;
}
