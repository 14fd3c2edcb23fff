/* passes.c: the table of the analyses, in the order they run (passes.h),
 * and what finishes the findings once every pass has run. */
#include "viewer/analyse/passes.h"
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/analysis_setup.h"
#include "viewer/analyse/attribution.h"
#include "viewer/analyse/ledger.h"
#include "viewer/analyse/slowdown.h"

/* Each hook, named for its pass and point, calls the analysis with what
 * it takes. */
static void sync_window(const struct pass_ctx *c, size_t pi) { analyse_syncs(c->m, c->o, c->fs, pi); }
static void copy_window(const struct pass_ctx *c, size_t pi) { analyse_copies(c->m, c->fs, pi); }
static void copy_across(const struct pass_ctx *c) { filter_copies(c->o, c->fs); }
static void sync_across(const struct pass_ctx *c) { filter_syncs(c->fs); }
static void sync_proc_end(const struct pass_ctx *c, size_t pi) { setup_proc_end(c->m, c->fs, pi); }
static void comm_window(const struct pass_ctx *c, size_t pi) { analyse_comm(c->m, c->o, c->fs, pi); }
static void comm_colls_done(const struct pass_ctx *c, size_t pi, size_t n)
{
    analyse_colls_done(c->m, c->o, c->fs, pi, n);
}
static void comm_proc_end(const struct pass_ctx *c, size_t pi) { analyse_comm_end(c->m, c->fs, pi); }
static void comm_across(const struct pass_ctx *c) { analyse_comm_across(c->m, c->o, c->fs, c->spill); }
static void idle_window(const struct pass_ctx *c, size_t pi) { analyse_idle(c->m, c->o, c->fs, pi); }
static void idle_proc_end(const struct pass_ctx *c, size_t pi) { analyse_idle_end(c->m, c->o, c->fs, pi); }
static void ledger_window_hook(const struct pass_ctx *c, size_t pi) { ledger_window(c->m, c->o, c->fs, pi); }
static void ledger_end_hook(const struct pass_ctx *c, size_t pi) { ledger_proc_end(c->m, c->fs, pi); }
static void host_window(const struct pass_ctx *c, size_t pi) { note_host_time(c->m, c->fs, pi); }
static void whatif_hook(const struct pass_ctx *c, size_t pi)
{
    if (!c->o->no_whatif)
        whatif_window(c->m, c->o, c->fs, pi);
}
static void whatif_pre_hook(const struct pass_ctx *c, size_t pi)
{
    if (!c->o->no_whatif)
        whatif_pre_window(c->m, c->fs, pi);
}
static int whatif_wanted(const struct pass_ctx *c) { return !c->o->no_whatif; }
static void whatif_end_hook(const struct pass_ctx *c, size_t pi)
{
    if (!c->o->no_whatif)
        whatif_proc_end(c->m, c->fs, pi);
}
static void whatif_across_hook(const struct pass_ctx *c) { whatif_across(c->m, c->fs, c->spill); }
static void p2p_window_hook(const struct pass_ctx *c, size_t pi) { p2p_window(c->m, pi); }
static void p2p_colls_hook(const struct pass_ctx *c, size_t pi, size_t n) { p2p_colls_done(c->m, pi, n); }
static void p2p_across(const struct pass_ctx *c) { analyse_p2p(c->m, c->fs, c->spill); }
static void slowdown_across(const struct pass_ctx *c) { analyse_slowdown(c->m, c->fs, c->spill); }

/* The order: the point-to-point pairs first (across ranks, their
 * findings come before the others', as the report has always listed
 * them); within a window, the syncs before the copies (a pageable copy's
 * sync is the sync analysis's to see first); across ranks, the one-off
 * small pageable copies dropped before the collectives' findings are
 * made; the ledger after the idle gaps (it reads the host's blocking
 * calls analysis_gpu.c gathers, proc_pass.h). */
static const struct analysis_pass passes[] = {
    { "p2p", p2p_window_hook, NULL, NULL, p2p_colls_hook, NULL, p2p_across },
    { "sync", sync_window, NULL, NULL, NULL, sync_proc_end, sync_across },
    { "copy", copy_window, NULL, NULL, NULL, NULL, copy_across },
    { "comm", comm_window, NULL, NULL, comm_colls_done, comm_proc_end, comm_across },
    { "idle", idle_window, NULL, NULL, NULL, idle_proc_end, NULL },
    { "host_time", host_window, NULL, NULL, NULL, NULL, NULL }, /* where a straggler's time went */
    { "ledger", ledger_window_hook, NULL, NULL, NULL, ledger_end_hook, NULL }, /* each rank's time accounted for */
    /* a slowdown window's slow steps against those before (the ledger's
     * iterations) */
    { "slowdown", NULL, NULL, NULL, NULL, NULL, slowdown_across },
    /* each finding's fix replayed: the step time it would give; on the
     * process's findings all made (final_window: the same read whole or a
     * window at a time; one read so sums its host time by range first) */
    { "whatif", whatif_pre_hook, whatif_hook, whatif_wanted, NULL, whatif_end_hook, whatif_across_hook },
};
#define NPASSES (sizeof passes / sizeof *passes)

void passes_window(const struct pass_ctx *c, size_t pi)
{
    const struct proc *p = &c->m->procs[pi];
    for (size_t i = 0; i < NPASSES; i++)
        if (passes[i].window)
            passes[i].window(c, pi);
    if (p->win_lo == INT64_MIN && p->win_hi == INT64_MAX) /* read whole: its findings are all made */
        passes_final_window(c, pi);
}

int passes_final_wanted(const struct pass_ctx *c)
{
    for (size_t i = 0; i < NPASSES; i++)
        if (passes[i].final_window && (!passes[i].final_wanted || passes[i].final_wanted(c)))
            return 1;
    return 0;
}

void passes_final_window(const struct pass_ctx *c, size_t pi)
{
    for (size_t i = 0; i < NPASSES; i++)
        if (passes[i].final_window)
            passes[i].final_window(c, pi);
}

void passes_colls_done(const struct pass_ctx *c, size_t pi, size_t n)
{
    for (size_t i = 0; i < NPASSES; i++)
        if (passes[i].colls_done)
            passes[i].colls_done(c, pi, n);
}

void passes_proc_end(const struct pass_ctx *c, size_t pi)
{
    for (size_t i = 0; i < NPASSES; i++)
        if (passes[i].proc_end)
            passes[i].proc_end(c, pi);
}

/* Confidence (docs/report.md, "Confidence"): high when the finding rests
 * on GPU records and repeated at its call site (or on the calls' own facts
 * across ranks: a mismatch, a hang); medium when it is a one-off, inferred
 * from host times alone (no CUPTI records in its process), or a whole
 * process's GPU idle (a guess at its cause); comm.straggler sets its own
 * (analysis_comm.c), low when its margin is near what unaligned clocks
 * could make up. */
static void assign_confidence(struct findings *fs, const struct model *m, const struct report_opts *o)
{
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        switch (f->kind) {
        case F_COMM_STRAGGLER:
            break;
        case F_COMM_MISMATCH:
        case F_COMM_HANG:
            f->confidence = "high";
            break;
        case F_GPU_IDLE:
        case F_GPU_STALLED: /* what its work waited for is not in the records */
        case F_GPU_LAUNCH_BOUND: /* a whole process's gaps: their cause a reading of the host's pace */
        case F_GPU_PIPELINE_BUBBLE: /* which GPU's work it waited for is a reading of the times */
            f->confidence = "medium";
            break;
        case F_COMM_EXPOSED:
            if (f->facts.has & FACT_UNCLAIMED) { /* a figure of the whole process, no call site's */
                f->confidence = "medium";
                break;
            }
            /* fall through */
        default: {
            int gpu = f->proc >= 0 && m->procs[f->proc].cupti_active;
            f->confidence = gpu && f->count >= o->min_repeats ? "high" : "medium";
        }
        }
    }
}

void passes_across(const struct pass_ctx *c)
{
    for (size_t i = 0; i < NPASSES; i++)
        if (passes[i].across)
            passes[i].across(c);
    /* every finding is in, with its claims: each interval of a rank's time
     * charged once (the messages, written by write/, quote the costs) */
    attribute_costs(c->fs, c->m, c->o);
    ledger_resolve(c->fs, c->m); /* the waste split by finding: their order */
    finding_steps(c->fs, c->m);  /* ... and by iteration: how steady each is */
    finding_marks_from_charges(c->fs);
    assign_confidence(c->fs, c->m, c->o);
    host_times_free(c->fs, c->m->nprocs); /* what placed the stragglers */
}
