/* hang_place.c: where a rank that never entered a hung collective was
 * instead, for the comm.hang finding (FACT_PLACES): the fix it gives is
 * then "look at rank 3's cudaMemcpy at train.py:88, blocked since 2.1 s",
 * not "find where rank 3 was stuck".  In order of what says most: the call
 * it was blocked in at its writer's last commit (the inflight table; the
 * earliest, should several threads be blocked), else the innermost NVTX
 * range it had open (the latest opened), else host code, since its last
 * traced call ended.  The same for a whole recording and a monitor's
 * window: both keep the inflight table and the open ranges. */
#include "viewer/analyse/hang_place.h"

/* The user range of p still open that opened last, -1 if none: open
 * ranges nest, so on its thread it is the innermost. */
static int open_range(const struct proc *p)
{
    int best = -1;
    for (size_t i = 0; i < p->nranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        if (!r->open || !r->user)
            continue;
        if (best < 0 || r->start > p->ranges[best].start ||
            (r->start == p->ranges[best].start && r->depth > p->ranges[best].depth))
            best = (int)i;
    }
    return best;
}

void hang_place_facts(const struct model *m, size_t pi, struct finding *f)
{
    const struct proc *p = &m->procs[pi];
    struct finding_place w = { .rank = p->rank, .proc = (int)pi, .tid = -1, .label = -1 };
    int r;
    if (p->nstuck) {
        const struct stuck_call *c = &p->stuck[0]; /* the earliest */
        w.kind = PLACE_CALL;
        w.api = c->api;
        w.tid = c->tid;
        w.site = c->site;
        w.since_ns = model_aligned(m, p, c->start);
    } else if ((r = open_range(p)) >= 0) {
        w.kind = PLACE_RANGE;
        w.label = p->ranges[r].name;
        w.tid = p->ranges[r].tid;
        w.since_ns = model_aligned(m, p, p->ranges[r].start);
    } else {
        w.kind = PLACE_HOST;
        w.since_ns = model_aligned(m, p, p->calls_end);
    }
    f->facts.has |= FACT_PLACES;
    if (f->facts.nplaces < FACT_PLACES_MAX)
        f->facts.places[f->facts.nplaces++] = w;
}
