/* output_text.c: the report for a person, in 100 columns: the run, a
 * summary per rank, the collectives, then the findings ranked by cost.
 * Every string from the file is printed through term_text.h: escaped for
 * the terminal, cut between characters to fit a column. */
#include "viewer/read/symbolize.h"
#include "viewer/write/ledger_out.h"
#include "viewer/write/whatif_out.h"
#include "viewer/analyse/attribution.h"
#include "viewer/write/charges_out.h"
#include "viewer/write/devices_out.h"
#include "viewer/write/finding_out.h"
#include "viewer/write/input_notes.h"
#include "viewer/write/monitor_notes.h"
#include "viewer/write/window_notes.h"
#include "viewer/write/slowdown_out.h"
#include "viewer/write/plugin_notes.h"
#include "viewer/write/output.h"
#include "viewer/write/text_wrap.h"
#include "viewer/write/output_crossrank.h"
#include "viewer/write/unknown_comm.h"
#include "viewer/write/order_notes.h"
#include "common/term_text.h"

#include <stdlib.h>
#include <string.h>

/* What the tracer appends to a name it had to cut (collector/strtab.h;
 * docs/schema.md): past 4095 bytes, NVTX names, domains and Python file
 * and function names keep their head and end in it. */
#define NAME_CUT_MARK "\xe2\x80\xa6[cut]"

/* How many of the names interned by the run's processes were cut. */
static size_t names_cut(const struct model *m)
{
    size_t n = 0, mark = strlen(NAME_CUT_MARK);
    for (size_t i = 0; i < m->nprocs; i++)
        for (int k = 1; k < m->procs[i].nlabels; k++) {
            const char *l = m->procs[i].labels[k];
            size_t len = l ? strlen(l) : 0;
            n += len >= mark && !memcmp(l + len - mark, NAME_CUT_MARK, mark);
        }
    return n;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

const char *proc_label(int rank, int pid, char *buf, size_t len)
{
    if (rank >= 0)
        snprintf(buf, len, "rank %d", rank);
    else
        snprintf(buf, len, "pid %d", pid);
    return buf;
}

/* The GPU's name, else its device number where the tracer saw one (a
 * process whose name was not recorded), "-" only when neither is known. */
static const char *gpu_name(const struct proc *p, char *buf, size_t len)
{
    if (p->gpu[0])
        return p->gpu;
    if (p->device >= 0)
        snprintf(buf, len, "GPU %d", p->device);
    else
        snprintf(buf, len, "-");
    return buf;
}

const char *rank_cell(int rank, char *buf, size_t len)
{
    if (rank >= 0)
        snprintf(buf, len, "%d", rank);
    else
        snprintf(buf, len, "-");
    return buf;
}

static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0.0; }

/* "    what text...", the lines after the first indented under the text
 * (text_wrap.h): messages and suggestions run to 140 characters. */
#define COLUMNS TEXT_COLUMNS
#define INDENT 9 /* "    what " */
static void wrapped(FILE *out, const char *label, const char *text)
{
    char lead[16];
    snprintf(lead, sizeof lead, "    %-4s ", label);
    text_para(out, lead, INDENT, "%s", text);
}

/* "    summed over 3 ranks (0,2-3), the most on rank 3: 90.12 ms" under a
 * finding whose cost lay on several ranks (a group's, a straggler's: the
 * others' wait), so that no cost reads as more than a rank's wall time
 * without saying why; nothing when it lay on one. */
static void spread_text(FILE *out, const struct model *m, const struct findings *fs, const int *group, size_t leader)
{
    int64_t *per = calloc(m->nprocs + 1, sizeof *per);
    int *rv = malloc((m->nprocs + 1) * sizeof *rv);
    if (!per || !rv)
        model_out_of_memory();
    size_t n = charges_spread(fs, group, leader, per, m->nprocs), k = 0, most = 0;
    for (size_t p = 0; p < m->nprocs && n > 1; p++) {
        if (per[p] <= 0)
            continue;
        rv[k++] = m->procs[p].rank;
        if (per[p] > per[most] || per[most] <= 0)
            most = p;
    }
    if (n > 1) {
        for (size_t a = 1; a < k; a++) /* ranks in order (a rank's processes sort together) */
            for (size_t b = a; b > 0 && rv[b] < rv[b - 1]; b--) {
                int swap = rv[b];
                rv[b] = rv[b - 1];
                rv[b - 1] = swap;
            }
        /* the rank list cut (",...") to keep the line within the report's
         * columns: a list has no space to wrap at (16 ranks 0,8,...,120
         * made 111) */
        char ranks[256], on[64], line[400];
        proc_label(m->procs[most].rank, m->procs[most].pid, on, sizeof on);
        for (size_t room = sizeof ranks;; room -= 8) {
            rank_list(rv, k, ranks, room);
            snprintf(line, sizeof line, "    summed over %zu ranks (%s), the most on %s: %.2f ms", n, ranks, on,
                     ms(per[most]));
            if (strlen(line) <= TEXT_COLUMNS || room <= 32)
                break;
        }
        fprintf(out, "%s\n", line);
    }
    free(rv);
    free(per);
}

/* Processes whose program took CUPTI for a profiler of its own (model.h,
 * gpu_gaps): the stretches their GPU records are missing, and what is left
 * out. */
static void handed_over_text(FILE *out, const struct model *m)
{
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        if (!p->ngpu_gaps)
            continue;
        char who[64];
        if (p->rank >= 0)
            snprintf(who, sizeof who, "rank %d (pid %d)", p->rank, p->pid);
        else
            snprintf(who, sizeof who, "pid %d", p->pid);
        size_t closed = 0, lost = 0;
        int64_t held = 0, inflight = 0;
        for (size_t k = 0; k < p->ngpu_gaps; k++) {
            const struct gpu_gap *g = &p->gpu_gaps[k];
            if (g->to != INT64_MAX) {
                closed++;
                model_add(&held, g->to - g->held);
            }
            if (g->from < g->held) { /* work in flight at its hand-over (gap_inflight.c) */
                lost++;
                model_add(&inflight, g->held - g->from);
            }
        }
        if (closed)
            text_para(out, "note: ", 6,
                      "%s: the program's own profiler (torch.profiler, or another CUPTI client) held CUPTI %zu"
                      " time%s, %.1f ms in all, the first %.1f ms into the process; the GPU records of those"
                      " stretches are its profiler's, its calls in them are left out of the analyses, and the"
                      " ledger counts them not_recorded",
                      who, closed, closed == 1 ? "" : "s", (double)held / 1e6,
                      (double)(p->gpu_gaps[0].held - p->start) / 1e6);
        if (p->gpu_until) {
            int64_t took = p->gpu_gaps[p->ngpu_gaps - 1].held;
            int64_t at = took - p->start, left = p->end > took ? p->end - took : 0;
            text_para(out, "note: ", 6,
                      "%s: the program's own profiler (torch.profiler, or another CUPTI client) took CUPTI %.1f"
                      " ms into the process%s; its GPU records end there%s, and its calls of the %.1f ms after are"
                      " left out of the analyses (the profiler's own trace can be read with gputrace import)",
                      who, (double)at / 1e6, closed ? " and kept it" : "",
                      p->gpu_until < took ? " (or before: work in flight then, below)" : "", (double)left / 1e6);
        }
        if (lost)
            text_para(out, "note: ", 6,
                      "%s: GPU work in flight at %zu of those hand-overs lost its records (the tracer hands CUPTI"
                      " over with a forced flush): the %.1f ms in all from its launch, or the last recorded work's"
                      " end, to the hand-over are not GPU idle either (not_recorded in the ledger's span)",
                      who, lost, (double)inflight / 1e6);
    }
}

void output_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs)
{
    int missing_cupti = 0, killed = 0, running = 0;
    int64_t latest = model_latest_end(m);
    int64_t refused = 0, unscoped = 0, cupti_only = 0, dropped_host = 0, dropped_cupti = 0;
    int dropping = 0;
    int64_t unfinished = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        model_add(&unfinished, m->procs[i].unfinished_ops);
        missing_cupti += !m->procs[i].cupti_active;
        if (!m->procs[i].has_end && !model_proc_cut_running(m, i)) { /* a window's: said above */
            int live = model_proc_running(m, i, latest);
            running += live;
            killed += !live;
        }
        refused += m->procs[i].refused_colls;
        unscoped += m->procs[i].unscoped_syncs;
        model_add(&dropped_host, m->procs[i].dropped_host);
        model_add(&dropped_cupti, m->procs[i].dropped_cupti);
        dropping += m->procs[i].dropped_host > 0 || m->procs[i].dropped_cupti > 0;
    }
    for (size_t i = 0; i < s->nranks; i++)
        cupti_only += s->ranks[i].cupti_only_calls;
    char t[4096]; /* a string of the file, escaped */
    /* wrapped: a run's id is any length (an imported file's name: 121 columns once) */
    text_para(out, "gputrace report: ", 17, "run %s, %zu process(es)", term_text(m->run_id, t, sizeof t), m->nprocs);
    window_notes_text(out, m); /* monitor windows: first, since every figure below is of them */
    slowdown_text(out, m, fs); /* ... a slowdown's slow steps against those before */
    monitor_notes_text(out, m); /* a monitored run's own files: aggregates, and the windows to read */
    if (missing_cupti)
        fprintf(out, "note: %d process(es) have no GPU records (CUPTI off, or none in the trace): GPU-time\n"
                     "      analyses skip them\n", missing_cupti);
    handed_over_text(out, m);
    if (killed)
        fprintf(out, "note: %d process(es) were killed before they finished: their data ends at the last flush\n", killed);
    if (running)
        fprintf(out, "note: %d process(es) were still running when read (their writers' heartbeats went on): their\n"
                     "      data ends at their last heartbeat\n", running);
    plugin_note_text(out, m, 0); /* only when some did not join: else at the end */
    if (refused)
        fprintf(out, "note: %lld NCCL operation(s) returned an error and enqueued nothing:\n"
                     "      left out of the collectives\n",
                (long long)refused);
    unknown_comm_text(out, m);
    order_notes_text(out, m); /* collectives matched by kernel order */
    if (dropping)
        fprintf(out, "note: %d process(es) lost records the tracer could not keep (%lld host, %lld GPU;\n"
                     "      buffers full or out of memory): the analyses miss them\n", dropping, (long long)dropped_host, (long long)dropped_cupti);
    if (symbolize_lines_missed())
        fprintf(out, "note: native call sites are shown as module+offset: libdw.so.1 (elfutils) could not be\n"
                     "      loaded to read their files and lines (e.g. apt install libdw1, dnf install elfutils-libs)\n");
    if (unfinished)
        fprintf(out, "note: %lld GPU operation(s) had not ended when their process's records were written (a\n"
                     "      kernel still running, or work queued behind one): no GPU times, left out\n",
                (long long)unfinished);
    if (s->failed_total) /* the most frequent kind; JSON lists them all */
        fprintf(out, "note: %lld call(s) returned an error, most often %s with %d (x%lld)\n",
                (long long)s->failed_total, term_cell(model_api_name(m, s->failed[0].api), 40, TERM_CUT, t, sizeof t),
                (int)s->failed[0].result,
                (long long)s->failed[0].count);
    if (m->damaged[0]) /* wrapped: a path, SQLite's error and what was being read */
        text_para(out, "note: ", 6, "%s", term_text(m->damaged, t, sizeof t));
    input_notes_text(out, m); /* files and runs of the inputs left out */
    if (cupti_only)
        fprintf(out, "note: %lld call(s) were seen only in CUPTI's records (a static runtime, driver entry points,\n"
                     "      a trace of another tool): their findings have no call site\n", (long long)cupti_only);
    if (unscoped)
        fprintf(out, "note: %lld sync(s) waited on a stream or event the trace cannot name (no call with GPU work\n"
                     "      on it, no CUPTI record of it): not analysed\n", (long long)unscoped);
    size_t cut = names_cut(m);
    if (cut)
        fprintf(out, "note: %zu name(s) longer than the tracer keeps (4095 bytes) were cut:\n"
                     "      each ends in \"" NAME_CUT_MARK "\"\n", cut);
    if (fs->range_filter) { /* what --range restricts, and what it cannot: first, since it changes the tables */
        char note[sizeof t + 512];
        snprintf(note, sizeof note, "--range %s: the kernel and collective tables count the GPU work launched"
                 " inside its ranges, however long after it ran, and the call-site findings the calls made inside"
                 " them; the phase table shows the ranges themselves by the host's clock, so a range that only"
                 " launches work is short beside its kernels. The rank table and the ledger cover the whole run (time"
                 " lost to a call outside the ranges is no finding's there), as do the whole-process and cross-rank"
                 " findings (a straggler, an idle GPU)",
                 term_text(fs->range_filter, t, sizeof t));
        fputc('\n', out);
        wrapped(out, "note", note);
    }
    fprintf(out, "\n%-5s %-8s %-18s %9s %6s %10s %10s %9s %15s\n", "rank", "pid", "gpu", "wall ms", "busy%",
            "compute ms", "comm ms", "exposed%", "host blocked ms");
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_summary *r = &s->ranks[i];
        const struct proc *p = &m->procs[r->proc];
        char rc[16], gpu[32];
        fprintf(out, "%-5s %-8d %s %9.1f %6.1f %10.1f %10.1f %9.1f %15.1f\n", rank_cell(r->rank, rc, sizeof rc), r->pid,
                term_cell(gpu_name(p, gpu, sizeof gpu), 18, TERM_CUT | TERM_PAD, t, sizeof t), ms(r->wall_ns),
                pct(r->gpu_busy_ns, r->wall_ns), ms(r->compute_ns), ms(r->comm_ns), pct(r->exposed_comm_ns, r->comm_ns),
                ms(r->sync_blocked_ns));
        devices_text(out, s, r); /* a row per GPU when it drives several */
    }
    /* the words a new user stumbled on: busy% counts a GPU waiting inside
     * NCCL, so a rank that waits for the straggler looks busier than it */
    if (s->nranks > 1 && s->ncolls)
        fprintf(out, "(busy%%: of the wall time, the GPU ran a kernel or a copy, including a kernel waiting inside\n"
                     " NCCL for a late rank: the ledger below, c.wait, sets that apart; exposed%%: of the communication,\n"
                     " the part with no compute beside it; host blocked: time in syncs and blocking copies)\n");
    else if (s->nranks)
        fprintf(out, "(busy%%: of the wall time, the GPU ran a kernel or a copy; exposed%%: of the communication, the\n"
                     " part with no compute beside it; host blocked: time in syncs and blocking copies)\n");
    output_clock_text(out, m);
    if (s->ncolls) {
        fprintf(out, "\n%-18s %12s %6s %10s %10s %10s %10s %-8s\n", "collective", "bytes", "count", "total ms",
                "mean us", "algbw GB/s", "busbw GB/s", "algo");
        for (size_t i = 0; i < s->ncolls; i++) {
            const struct coll_summary *c = &s->colls[i];
            char algo[64];
            fprintf(out, "%s %12lld %6lld %10.2f %10.1f %10.2f %10.2f %s\n", term_cell(c->op, 18, TERM_PAD, t, sizeof t),
                    (long long)c->bytes,
                    (long long)c->count, ms(c->total_ns), c->count ? (double)c->total_ns / (double)c->count / 1e3 : 0.0,
                    c->algbw_gbs, c->busbw_gbs,
                    term_cell(c->algorithm[0] ? c->algorithm : "-", 8, TERM_PAD, algo, sizeof algo));
        }
        if (s->nranks > 1)
            fprintf(out, "(the bandwidths are of each kernel's whole time, as nccl-tests time it: a wait for a late\n"
                         " rank inside it counts, so a straggler lowers them; the ledger's c.xfer is the transfer alone)\n");
    }
    output_p2p_text(out, m);
    if (s->nkernels) {
        size_t top = s->nkernels < KERNELS_SHOWN ? s->nkernels : KERNELS_SHOWN;
        fprintf(out, "\n%-52s %9s %10s %10s %7s\n", m->nprocs > 1 ? "kernel (GPU time, all ranks)" : "kernel (GPU time)", "count", "total ms", "mean us",
                "share%");
        for (size_t i = 0; i < top; i++) {
            const struct kernel_summary *k = &s->kernels[i];
            /* a template's head says more than its tail: cut at the end */
            fprintf(out, "%s %9lld %10.2f %10.1f %7.1f\n", term_cell(k->name, 52, TERM_CUT | TERM_ELLIPSIS | TERM_PAD, t, sizeof t),
                    (long long)k->count, ms(k->total_ns),
                    (double)k->total_ns / (double)k->count / 1e3, pct(k->total_ns, s->kernel_ns));
        }
        if (s->nkernels > top)
            fprintf(out, "(%zu more kernels: --format json lists up to %d)\n", s->nkernels - top, KERNELS_JSON);
    }
    if (s->nphases) {
        fprintf(out, "\n%-5s %-32s %6s %10s %6s %10s %11s\n", "rank", fs->range_filter ? "phase (the --range ranges)" : "phase (top-level NVTX range)", "count",
                "wall ms", "busy%", "comm ms", "exposed ms");
        int shown_of_rank = 0;
        for (size_t i = 0; i < s->nphases; i++) {
            const struct phase_summary *ph = &s->phases[i];
            shown_of_rank = i && s->phases[i - 1].proc == ph->proc ? shown_of_rank + 1 : 0;
            if (shown_of_rank >= 6)
                continue; /* the six longest phases of a rank say enough */
            char rc[16];
            fprintf(out, "%-5s %s %6lld %10.1f %6.1f %10.1f %11.1f\n", rank_cell(ph->rank, rc, sizeof rc),
                    term_cell(ph->name, 32, TERM_CUT | TERM_PAD, t, sizeof t), (long long)ph->count,
                    ms(ph->wall_ns), pct(ph->gpu_busy_ns, ph->wall_ns), ms(ph->comm_ns), ms(ph->exposed_comm_ns));
        }
    }
    ledger_text(out, m, s, fs);
    whatif_text(out, m, fs);
    /* The same finding at the same call site on several ranks is one entry
     * here (JSON keeps one per rank): ranks listed, counts and costs summed. */
    size_t n = fs->n;
    int *group = malloc((n + 1) * sizeof *group);
    if (!group)
        model_out_of_memory();
    size_t groups = findings_group(m, fs, group);
    fprintf(out, "\nfindings (%zu), what to fix first: by the GPU time each cost (idle, or communication not\n"
                 "overlapped) on the rank where it cost most; each lost millisecond is counted once, in one finding:\n",
            groups);
    if (!groups)
        fprintf(out, "  none\n");
    size_t shown = 0;
    /* a group where its leader, its costliest member, stands in the one
     * order of the findings (findings_group) */
    for (size_t i = 0; i < n; i++) {
        if (group[i] != (int)i)
            continue;
        const struct finding *f = &fs->v[i];
        char ranks[256] = "";
        int64_t cost = 0, count = 0, members = 0, worst = -1;
        const struct finding *wf = f; /* the member that cost most: the "what" line's */
        int *rv = malloc((n + 1) * sizeof *rv);
        for (size_t j = i; j < n; j++) {
            if (group[j] != (int)i)
                continue;
            rv[members++] = fs->v[j].rank;
            model_add(&cost, finding_cost(&fs->v[j]));
            if (finding_cost(&fs->v[j]) > worst) {
                worst = finding_cost(&fs->v[j]);
                wf = &fs->v[j];
            }
            count += fs->v[j].count;
        }
        for (int64_t a = 1; a < members; a++) /* ranks in order */
            for (int64_t b = a; b > 0 && rv[b] < rv[b - 1]; b--) {
                int swap = rv[b];
                rv[b] = rv[b - 1];
                rv[b - 1] = swap;
            }
        char who[300], head[512], gpu_time[96];
        int hl;
        ++shown;
        /* the rank list ("0-3", "0,2,3") cut (",...") to keep the line
         * within the columns: it has no space to wrap at (4 ranks of 9
         * digits made 109) */
        for (size_t room = sizeof ranks;; room -= 8) {
            rank_list(rv, (size_t)members, ranks, room);
            if (f->proc >= 0 && f->rank < 0) /* a process no launcher gave a rank */
                proc_label(f->rank, m->procs[f->proc].pid, who, sizeof who);
            else if (f->rank < 0)
                snprintf(who, sizeof who, "all ranks");
            else
                snprintf(who, sizeof who, "rank%s %s", members > 1 ? "s" : "", ranks);
            hl = snprintf(head, sizeof head, "%2zu. %-18s %-14s %9.2f ms %s, %lld time%s,", shown,
                          finding_names[f->kind], who, ms(cost), finding_cost_words(f), (long long)count,
                          count == 1 ? "" : "s");
            if (hl <= COLUMNS || room <= 32 || members < 2)
                break;
        }
        free(rv);
        /* the confidence on the next line where a long rank list or count would pass the 100 columns */
        fprintf(out, "\n%s%s%s confidence\n", head, hl + 1 + (int)strlen(f->confidence) + 11 > COLUMNS ? "\n    " : " ",
                f->confidence);
        spread_text(out, m, fs, group, i);
        char steady[256];
        if (*finding_steady(m, wf, members > 1, steady, sizeof steady))
            wrapped(out, "each", steady);
        if (*finding_gpu_time(fs, group, i, gpu_time, sizeof gpu_time)) { /* what orders it, beside its cost */
            char line[160];
            snprintf(line, sizeof line, "%s, each GPU's counted (what orders the findings)", gpu_time);
            wrapped(out, "gpus", line);
        }
        fprintf(out, "    at   %s\n", term_text(f->callsite[0] ? f->callsite : "(unknown call site)", t, sizeof t));
        char code[240];
        if (*model_source_text(m, f->callsite, code, sizeof code)) /* the line itself, where its file is here */
            wrapped(out, "code", term_text(code, t, sizeof t));
        char range[FINDING_RANGE_LEN];
        if (*finding_range(m, f, range, sizeof range)) {
            char in[sizeof t + 64]; /* wrapped: a range's name can be long */
            term_text(range, t, sizeof t);
            if (f->iter_first >= 0 && f->iter_last > f->iter_first)
                snprintf(in, sizeof in, "%s (iterations %lld-%lld)", t, (long long)f->iter_first,
                         (long long)f->iter_last);
            else if (f->iter_first >= 0)
                snprintf(in, sizeof in, "%s (iteration %lld)", t, (long long)f->iter_first);
            else
                snprintf(in, sizeof in, "%s", t);
            wrapped(out, "in", in);
        }
        char what[sizeof t + 160], said[FINDING_TEXT_LEN];
        term_text(finding_message(m, wf, said, sizeof said), t, sizeof t);
        int64_t measured = finding_measured(wf);
        if (measured - finding_cost(wf) > measured / 100) { /* the message quotes what was measured */
            size_t l = strlen(t);
            snprintf(t + l, sizeof t - l, " (%.2f ms of it is this finding's cost; the rest is time counted already, in"
                     " the cost of a finding that caused it, such as a late rank's, or twice in this one's)",
                     ms(finding_cost(wf)));
        }
        if (members > 1)
            snprintf(what, sizeof what, "on %s: %s", proc_label(wf->rank, wf->proc >= 0 ? m->procs[wf->proc].pid : -1,
                     who, sizeof who), t); /* the worst, by cost */
        else
            snprintf(what, sizeof what, "%s", t);
        wrapped(out, "what", what);
        wrapped(out, "fix", term_text(finding_suggestion(m, wf, said, sizeof said), t, sizeof t));
        if (*whatif_text_finding(fs, wf, said, sizeof said))
            wrapped(out, "gain", said);
    }
    free(group);
    if (fs->below_min_cost)
        fprintf(out, "\n(%zu more finding(s), per rank, cost less than --min-cost %.2f ms: not shown; --min-cost 0\n"
                     "shows them, --format json lists them)\n", fs->below_min_cost, ms(fs->min_cost_ns));
    charges_text(out, m, s, fs);
    plugin_note_text(out, m, 1);
}
