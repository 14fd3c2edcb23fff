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

/* A thread that has enqueued GPU work, and its two latest calls that did
 * (by start): a thread's calls do not overlap, so at any moment at most
 * the latest is still running and the one before has ended. */
struct worker {
    int tid;
    int32_t last[2]; /* -1: none */
};

/* Of the workers other than tid, and of the calls an earlier window
 * carried (in), the call that ended latest at or before t and at or after
 * lo: its index, -2 - its index in in->wk, or -1 if none. */
static int32_t waker(const struct rp_graph *g, const struct worker *w, size_t nw, const struct rp_carry *in, int tid,
                     int64_t lo, int64_t t)
{
    int32_t best = -1;
    int64_t best_end = INT64_MIN;
    for (size_t i = 0; i < nw; i++) {
        if (w[i].tid == tid)
            continue;
        for (int k = 0; k < 2; k++) {
            int32_t j = w[i].last[k];
            if (j < 0)
                continue;
            const struct rp_call *o = &g->calls[j];
            if (o->end >= lo && o->end <= t && (best == -1 || o->end > best_end)) {
                best = j;
                best_end = o->end;
            }
        }
    }
    for (size_t j = 0; in && j < in->nwk; j++) {
        const struct rp_lane *o = &in->wk[j];
        if (o->id != tid && o->m_end >= lo && o->m_end <= t && (best == -1 || o->m_end > best_end)) {
            best = -2 - (int32_t)j;
            best_end = o->m_end;
        }
    }
    return best;
}

/* Which of g's calls enqueued GPU work (an operation after the ghosts). */
static void calls_with_work(const struct rp_graph *g, uint8_t *work)
{
    for (size_t i = g->nghost; i < g->nops; i++)
        if (g->ops[i].call >= 0 && (size_t)g->ops[i].call < g->ncalls)
            work[g->ops[i].call] = 1;
}

int rp_wakes(struct rp_graph *g, const struct rp_carry *in)
{
    free(g->wake);
    g->wake = NULL;
    if (!g->ncalls)
        return 0;
    int32_t *wake = malloc(g->ncalls * sizeof *wake);
    uint8_t *work = calloc(g->ncalls, 1);
    struct idmap prev = { 0 }; /* thread id + 2 -> its latest call's end */
    struct idmap slot = { 0 }; /* thread id + 2 -> its index in workers */
    struct worker *workers = NULL;
    size_t nworkers = 0, cap = 0;
    int failed = !wake || !work;
    /* a thread's first call here follows its last of the window before */
    for (size_t i = 0; !failed && in && i < in->nthr; i++)
        idmap_put(&prev, (uint64_t)in->thr[i].id + 2, in->thr[i].m_end, 0);
    if (!failed)
        calls_with_work(g, work);
    for (size_t c = 0; !failed && c < g->ncalls; c++) {
        const struct rp_call *k = &g->calls[c];
        wake[c] = -1;
        if (k->tid < 0)
            continue;
        int64_t p_end;
        if (idmap_get(&prev, (uint64_t)k->tid + 2, &p_end) && k->start > p_end) {
            int32_t best = waker(g, workers, nworkers, in, k->tid, p_end, k->start);
            /* differences of times the model keeps within 2^60 (model.h) */
            if (best != -1) {
                int64_t end = best >= 0 ? g->calls[best].end : in->wk[-2 - best].m_end;
                int64_t d = k->start - end, gap = k->start - p_end;
                if (d <= RP_WAKE_NS && 2 * d < gap)
                    wake[c] = best;
            }
        }
        int64_t e;
        if (!idmap_get(&prev, (uint64_t)k->tid + 2, &e) || k->end > e)
            idmap_put(&prev, (uint64_t)k->tid + 2, k->end, 0);
        if (!work[c])
            continue;
        int64_t at;
        if (!idmap_get(&slot, (uint64_t)k->tid + 2, &at)) {
            if (nworkers == cap) {
                size_t want = cap ? 2 * cap : 8;
                struct worker *n = realloc(workers, want * sizeof *n);
                if (!n) {
                    failed = 1;
                    break;
                }
                workers = n;
                cap = want;
            }
            at = (int64_t)nworkers;
            workers[nworkers++] = (struct worker){ k->tid, { -1, -1 } };
            idmap_put(&slot, (uint64_t)k->tid + 2, at, 0);
        }
        workers[at].last[1] = workers[at].last[0];
        workers[at].last[0] = (int32_t)c;
    }
    idmap_free(&prev);
    idmap_free(&slot);
    free(workers);
    free(work);
    if (failed) {
        free(wake);
        return -1;
    }
    g->wake = wake;
    return 0;
}
