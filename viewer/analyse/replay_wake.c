/* replay_wake.c: which calls a thread made when another thread woke it
 * (replay.h: rp_wakes).
 *
 * The replay keeps the host time between a thread's calls as measured.
 * That is wrong for a thread that was waiting for another one: PyTorch's
 * backward pass runs on the autograd engine's thread, which starts
 * launching 0.1-0.2 ms after the main thread's last forward launch and
 * hands back 0.15-0.4 ms after its own last launch (a real loop on an
 * H200, tests/gpu/run.sh step 9).  Kept as measured, those gaps pinned
 * each backward pass to its measured time, and with both of the loop's
 * syncs removed the replay predicted no gain where the loop went from
 * 9.3 to 5.8 ms a step.  A call made soon after another thread's call
 * that enqueued GPU work, in a gap of its own thread that this explains
 * the most of, is taken as woken by it: it moves as that call moves.
 * A thread that only polls (NCCL's watchdog querying events) enqueues
 * nothing, so it wakes no one. */
#include "viewer/analyse/replay.h"
#include "viewer/model/idmap.h"

#include <stdlib.h>

int rp_wakes(struct rp_graph *g)
{
    free(g->wake);
    g->wake = NULL;
    if (!g->ncalls)
        return 0;
    int32_t *wake = malloc(g->ncalls * sizeof *wake);
    uint8_t *work = calloc(g->ncalls, 1);
    struct idmap prev = { 0 }; /* thread id + 2 -> its latest call's end */
    if (!wake || !work) {
        free(wake);
        free(work);
        return -1;
    }
    for (size_t i = g->nghost; i < g->nops; i++)
        if (g->ops[i].call >= 0 && (size_t)g->ops[i].call < g->ncalls)
            work[g->ops[i].call] = 1;
    for (size_t c = 0; c < g->ncalls; c++) {
        const struct rp_call *k = &g->calls[c];
        wake[c] = -1;
        if (k->tid < 0)
            continue;
        int64_t p_end;
        if (idmap_get(&prev, (uint64_t)k->tid + 2, &p_end) && k->start > p_end) {
            int32_t best = -1;
            for (size_t j = c, n = 0; j-- > 0 && n < RP_WAKE_LOOK; n++) {
                const struct rp_call *o = &g->calls[j];
                if (o->tid >= 0 && o->tid != k->tid && work[j] && o->end >= p_end && o->end <= k->start &&
                    (best < 0 || o->end > g->calls[best].end))
                    best = (int32_t)j;
            }
            /* differences of times the model keeps within 2^60 (model.h) */
            if (best >= 0) {
                int64_t d = k->start - g->calls[best].end, gap = k->start - p_end;
                if (d <= RP_WAKE_NS && 2 * d < gap)
                    wake[c] = best;
            }
        }
        int64_t e;
        if (!idmap_get(&prev, (uint64_t)k->tid + 2, &e) || k->end > e)
            idmap_put(&prev, (uint64_t)k->tid + 2, k->end, 0);
    }
    idmap_free(&prev);
    free(work);
    g->wake = wake;
    return 0;
}
