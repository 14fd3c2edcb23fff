/* hang_depth.c: a comm.hang says how far each rank got inside the
 * collective the run hung in, from what NCCL's profiler plugin recorded of
 * it (viewer/read/plugin_join.c): never entered ("not started"), posted
 * but no kernel channel started ("enqueued"), its kernel running with no
 * proxy step under way ("kernel running"), a proxy step waiting for its
 * peer ("waiting for a peer") or handed to the network ("network"), or
 * finished ("done").  Kept as the finding's facts (FACT_STOPS); as JSON
 * (write/finding_json.c): "stopped": [{"rank": R, "at": "..."}...]. */
#include "viewer/analyse/hang_depth.h"

void hang_depth_facts(const struct model *m, const struct coll_spill *spill, const struct coll_rec *v, size_t n,
                      struct finding *f)
{
    int known = 0;
    for (size_t k = 0; k < n; k++)
        known |= model_plugin_depth(&m->procs[v[k].proc], v[k].index) != PD_NONE;
    if (!known)
        return; /* the plugin saw none of it unfinished: nothing to add */
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        int at = -2; /* -2: not a member */
        for (size_t k = 0; k < n && at == -2; k++)
            if (v[k].proc == (int)pi)
                at = model_plugin_depth(&m->procs[pi], v[k].index);
        if (at == -2 && coll_spill_used(spill, pi, v[0].comm))
            at = -1; /* never entered it */
        if (at != -2)
            finding_add_stop(&f->facts, m->procs[pi].rank, at);
    }
}
