/* proc_report.c: one process of the run through the report: its calls and
 * GPU operations loaded, whole or a window at a time (windows.h),
 * analysed, summarised and exported, then freed. */
#include "viewer/read/load.h"
#include "viewer/proc_report.h"
#include "viewer/analyse/proc_pass.h"
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/passes.h"
#include "viewer/model/timeline.h"
#include "viewer/model/stream_map.h"
#include "viewer/read/windows.h"

#include <stdlib.h>

/* Whether a window mapped a stream handle that an earlier window's syncs
 * looked up before it was seen: whole, the process would have known it. */

/* The syncs of every window again, knowing every stream handle of the
 * process from the start, as a whole process does. */
static void syncs_again(struct model *m, const struct report_sinks *k, size_t pi, const struct proc_windows *w)
{
    struct proc_pass *ps = m->procs[pi].pass;
    ps->ndue = 0; /* their findings go: found again below */
    m->procs[pi].unscoped_syncs = 0; /* and are counted again */
    /* with CUPTI records the pageable copies are noted by analyse_syncs too */
    findings_drop(k->fs, (int)pi, F_SYNC_REDUNDANT, m->procs[pi].cupti_active ? F_COPY_PAGEABLE : F_SYNC_SCALAR_READ);
    deps_free(&ps->deps);
    /* and the events CUPTI named by id, learned again as the windows
     * load, as in the first pass */
    stream_map_forget_events(m->procs[pi].smap);
    for (size_t i = 0; i < w->n; i++) {
        load_window(m, pi, &w->v[i].rows, w->v[i].lo, w->v[i].hi);
        analyse_syncs(m, k->o, k->fs, pi);
        load_drop_window(m, pi);
    }
    ps->ndue = 0; /* idle up to the process's end: none */
}

/* Every window again, in order, for the passes that want the process's
 * findings all made (passes.h: final_window, the what-if's replay), once
 * every collective is done with (no pass is handed them again). */
static void final_again(struct model *m, const struct report_sinks *k, size_t pi, const struct proc_windows *w)
{
    struct pass_ctx c = { m, k->o, k->fs, NULL };
    if (!passes_final_wanted(&c))
        return;
    /* the collectives are read again, each window those before its end,
     * as the first time: the what-if's graph links the NCCL kernels to
     * their calls by them, and its summary for every rank together names
     * them (by the same numbers: from the first on) */
    struct proc *p = &m->procs[pi];
    size_t first = p->colls_first, next = p->colls_next;
    /* and a collective is settled once a window past its kernel's launch
     * is read, as the first time: the correlation seen so far starts
     * again (left at the first reading's last, every collective would be
     * released before the window of its kernel) */
    int64_t corr_seen = p->corr_seen;
    load_release_colls(m, pi, p->ncolls);
    p->colls_first = p->colls_next = 0;
    p->corr_seen = -1;
    for (size_t i = 0; i < w->n; i++) {
        load_window(m, pi, &w->v[i].rows, w->v[i].lo, w->v[i].hi);
        passes_final_window(&c, pi);
        load_drop_window(m, pi);
        size_t n = 0;
        while (n < p->ncolls && load_coll_settled(p, n))
            n++;
        load_release_colls(m, pi, n);
    }
    load_release_colls(m, pi, p->ncolls);
    p->colls_first = first;
    p->colls_next = next;
    p->corr_seen = corr_seen;
}

/* The spill is one scratch store for every worker: a process's batch is
 * written whole, under the lock, and where it went is its own run's. */
static void spill_lock(const struct report_sinks *k)
{
    if (k->spill_lock)
        pthread_mutex_lock(k->spill_lock);
}

static void spill_unlock(const struct report_sinks *k)
{
    if (k->spill_lock)
        pthread_mutex_unlock(k->spill_lock);
}

/* The collectives loaded that are done with, in order (all of them at the
 * process's end): into the findings, the collectives table and the spill,
 * then freed.  A collective waits for its kernel's window, which is its
 * call's but for a group whose ncclGroupEnd falls past a cut; those after
 * it wait with it, so that all go in the order a whole process has. */
static void colls_done(struct model *m, const struct report_sinks *k, size_t pi, int all)
{
    const struct proc *p = &m->procs[pi];
    size_t n = 0;
    while (n < p->ncolls && (all || load_coll_settled(p, n)))
        n++;
    if (!n)
        return;
    struct pass_ctx c = { m, k->o, k->fs, NULL };
    passes_colls_done(&c, pi, n);
    summary_add_colls(m, k->s, pi, n);
    spill_lock(k);
    coll_spill_add_batch(k->spill, pi, p->colls, n, p->colls_first);
    spill_unlock(k);
    load_release_colls(m, pi, n);
}

int report_process(struct model *m, const struct report_sinks *k, size_t pi, char *err, size_t errlen)
{
    int rc = 0;
    struct pass_ctx c = { m, k->o, k->fs, NULL };
    load_begin_proc(m, pi);
    m->procs[pi].pass = proc_pass_new();
    struct proc_windows w = { 0 };
    int windowed = windows_plan(m, pi, &w) == 0;
    struct kineto_rank *kr = k->kineto ? kineto_open_rank(k->kineto[pi], m, pi, err, errlen) : NULL;
    if (k->kineto && !kr)
        rc = -1;
    summary_begin_proc(m, k->s, pi);
    for (size_t i = 0; i < (windowed ? w.n : 1); i++) {
        if (windowed) {
            load_window(m, pi, &w.v[i].rows, w.v[i].lo, w.v[i].hi);
        } else {
            load_window(m, pi, NULL, INT64_MIN, INT64_MAX);
            load_drop_exts(m, pi); /* loaded for good: the peak without them */
        }
        passes_window(&c, pi);
        summary_add_window(m, k->s, pi);
        if (k->ct)
            chrome_trace_window(k->ct, m, pi);
        if (kr)
            kineto_rank_window(kr, m, pi);
        load_drop_window(m, pi);
        colls_done(m, k, pi, 0);
    }
    m->procs[pi].pass->ndue = 0; /* idle up to the process's end: none */
    if (windowed && stream_map_found_missed(m->procs[pi].smap))
        syncs_again(m, k, pi, &w);
    colls_done(m, k, pi, 1);
    if (windowed)
        final_again(m, k, pi, &w);
    windows_free(&w);
    passes_proc_end(&c, pi);
    summary_end_proc(m, k->s, pi);
    if (k->ct)
        chrome_trace_proc_end(k->ct, m, pi);
    if (kr && kineto_close_rank(kr, m, pi, err, errlen) != 0)
        rc = -1;
    spill_lock(k);
    coll_spill_end_proc(k->spill, pi);
    spill_unlock(k);
    load_end_proc(m, pi);
    proc_pass_free(m->procs[pi].pass);
    m->procs[pi].pass = NULL;
    return rc;
}
