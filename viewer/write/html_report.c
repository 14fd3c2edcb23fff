/* html_report.c: gputrace-report --html FILE, the report for the person
 * who would rather look than read: one self-contained page (no script, no
 * font, no image fetched: it opens offline and from a mail attachment)
 * with the time of each rank as stacked bars, step times per iteration,
 * a rank x collective heatmap of arrival lateness (a straggler is a dark
 * row), the findings with their cost as bars, call sites and fixes, and
 * for imported traces what their source could not support ("Not checked");
 * at the top, the first findings to fix, each a link to its card, and
 * below the charts the text report's tables (html_tables.c).
 * The charts are inline SVG (html_charts.c); the style prints on paper. */
#include "viewer/write/ledger_out.h"
#include "viewer/write/charges_out.h"
#include "viewer/analyse/attribution.h"
#include "viewer/write/finding_out.h"
#include "viewer/write/html.h"
#include "viewer/write/whatif_out.h"
#include "viewer/write/output.h"
#include "viewer/write/out_file.h"
#include "viewer/write/monitor_notes.h"
#include "viewer/write/window_notes.h"
#include "viewer/write/slowdown_out.h"
#include "viewer/read/import_inputs.h"
#include "common/term_text.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

void html_text(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    for (; s && *s; s++) {
        unsigned char c = *s;
        uint32_t cp;
        int n = c < 0x80 ? 1 : term_utf8_char(s, &cp);
        if (n == 0) { /* invalid UTF-8 (the page says it is UTF-8): U+FFFD for each byte */
            fputs("\xef\xbf\xbd", out);
            continue;
        }
        if (n > 1) {
            fwrite(s, 1, (size_t)n, out);
            s += n - 1;
            continue;
        }
        if (c == '<')
            fputs("&lt;", out);
        else if (c == '>')
            fputs("&gt;", out);
        else if (c == '&')
            fputs("&amp;", out);
        else if (c == '"')
            fputs("&quot;", out);
        else if (c == '\'')
            fputs("&#39;", out);
        else if (c >= 0x20 || c == '\n' || c == '\t')
            fputc(c, out);
    }
}

static const char style[] =
    "body{font:14px/1.45 system-ui,sans-serif;color:#222;max-width:960px;margin:24px auto;padding:0 16px}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;border-bottom:1px solid #ddd}"
    "p.sub{color:#666;margin:0 0 12px}p.none{color:#666;font-style:italic}svg{width:100%;height:auto;display:block}"
    "table{border-collapse:collapse;width:100%}td,th{text-align:left;padding:3px 6px;border-bottom:1px solid #eee;"
    "vertical-align:top}th{font-weight:600}td.n{text-align:right;white-space:nowrap}"
    ".finding{border:1px solid #ddd;border-radius:4px;padding:8px 12px;margin:10px 0;break-inside:avoid}"
    ".finding h3{font-size:15px;margin:0 0 4px}.finding .kind{font-family:monospace;color:#a11}"
    "svg.cost{width:200px;height:14px;display:inline-block;vertical-align:middle;margin-right:8px}"
    "code{font-size:12px;background:#f5f5f5;padding:1px 3px;border-radius:2px;word-break:break-all}"
    ".fix{background:#eef7ee;padding:4px 8px;border-left:3px solid #2ca02c;margin-top:4px}"
    ".share{color:#555}.where{color:#555;font-size:90%}tr.hot td{font-weight:600;background:#fff4e5}"
    ".src{margin:.2em 0 .2em 1em;padding:.2em .5em;background:#f4f4f4;border-left:3px solid #bbb;white-space:pre-wrap}"
    "@media print{body{margin:0;max-width:none}h2{break-after:avoid}svg{break-inside:avoid}a{color:inherit}}";

static double ms(int64_t ns) { return (double)ns / 1e6; }

static void rank_table(FILE *out, const struct summary *s)
{
    fputs("<table><tr><th>rank</th><th>wall ms</th><th>GPU busy ms</th><th>compute ms</th><th>communication ms</th>"
          "<th>exposed comm ms</th><th>host blocked ms</th><th>collectives</th></tr>", out);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_summary *r = &s->ranks[i];
        char rc[16];
        fprintf(out, "<tr><td>%s</td><td class=n>%.2f</td><td class=n>%.2f</td><td class=n>%.2f</td><td class=n>%.2f</td>"
                     "<td class=n>%.2f</td><td class=n>%.2f</td><td class=n>%lld</td></tr>",
                rank_cell(r->rank, rc, sizeof rc), ms(r->wall_ns), ms(r->gpu_busy_ns), ms(r->compute_ns), ms(r->comm_ns), ms(r->exposed_comm_ns),
                ms(r->sync_blocked_ns), (long long)r->collectives);
    }
    fputs("</table>", out);
}


/* One finding group (findings_group): the members summed, as the text
 * report lists them; the costliest member's words, and where the cost lay
 * (charges_spread: per process), for the bar's whole. */
struct card {
    int64_t cost, count, wall;
    size_t members, over;
    const struct finding *worst;
    char ranks[256];   /* "0-3", "0,2,3": the members' ranks */
    char over_ranks[256]; /* the ranks the cost lay on, when several */
    char whole[320];   /* what the bar is a share of, in words */
    char gpu_time[96]; /* the GPU time lost over several GPUs (finding_gpu_time), "" */
};

static int64_t proc_wall(const struct summary *s, size_t proc)
{
    for (size_t i = 0; i < s->nranks; i++)
        if ((size_t)s->ranks[i].proc == proc)
            return s->ranks[i].wall_ns;
    return 0;
}

static void sort_ints(int *v, size_t n)
{
    for (size_t a = 1; a < n; a++)
        for (size_t b = a; b > 0 && v[b] < v[b - 1]; b--) {
            int swap = v[b];
            v[b] = v[b - 1];
            v[b - 1] = swap;
        }
}

/* The bar's whole: the wall time of the ranks the cost lay on, summed when
 * several (a cost summed over ranks against their summed time: a 1% cost
 * shows a 1% bar); else the members' processes'; else, for a finding of
 * no process and no charge, the run's longest process. */
static void card_whole(struct card *c, const struct model *m, const struct summary *s, const int64_t *per,
                       const struct findings *fs, const int *group, size_t leader)
{
    int *rv = malloc((m->nprocs + 1) * sizeof *rv);
    if (!rv)
        model_out_of_memory();
    size_t k = 0;
    for (size_t p = 0; p < m->nprocs; p++)
        if (per[p] > 0) {
            model_add(&c->wall, proc_wall(s, p));
            rv[k++] = m->procs[p].rank;
        }
    if (!k)
        for (size_t j = leader; j < fs->n; j++)
            if (group[j] == (int)leader && fs->v[j].proc >= 0) {
                c->wall += proc_wall(s, (size_t)fs->v[j].proc);
                rv[k++] = fs->v[j].rank;
            }
    sort_ints(rv, k);
    rank_list(rv, k, c->over_ranks, sizeof c->over_ranks);
    if (k == 1 && (rv[0] >= 0 || c->worst->proc >= 0)) {
        char who[64];
        int proc = c->worst->proc >= 0 ? c->worst->proc : 0;
        snprintf(c->whole, sizeof c->whole, "%s's wall time", proc_label(rv[0], m->procs[proc].pid, who, sizeof who));
    } else if (k > 1) {
        snprintf(c->whole, sizeof c->whole, "the wall time of ranks %s, summed", c->over_ranks);
    } else {
        for (size_t i = 0; i < s->nranks; i++)
            c->wall = s->ranks[i].wall_ns > c->wall ? s->ranks[i].wall_ns : c->wall;
        snprintf(c->whole, sizeof c->whole, "the run's wall time (its longest process)");
    }
    free(rv);
}

static void card_of(struct card *c, const struct model *m, const struct summary *s, const struct findings *fs,
                    const int *group, size_t leader, int64_t *per)
{
    memset(c, 0, sizeof *c);
    c->worst = &fs->v[leader];
    int *rv = malloc((fs->n + 1) * sizeof *rv);
    if (!rv)
        model_out_of_memory();
    int64_t worst = -1;
    for (size_t j = leader; j < fs->n; j++) {
        if (group[j] != (int)leader)
            continue;
        const struct finding *f = &fs->v[j];
        rv[c->members++] = f->rank;
        model_add(&c->cost, finding_cost(f));
        c->count += f->count;
        if (finding_cost(f) > worst) {
            worst = finding_cost(f);
            c->worst = f;
        }
    }
    sort_ints(rv, c->members);
    rank_list(rv, c->members, c->ranks, sizeof c->ranks);
    free(rv);
    c->over = charges_spread(fs, group, leader, per, m->nprocs);
    card_whole(c, m, s, per, fs, group, leader);
    finding_gpu_time(fs, group, leader, c->gpu_time, sizeof c->gpu_time);
}

static void card_who(FILE *out, const struct model *m, const struct finding *f, const struct card *c)
{
    char who[64];
    if (f->proc >= 0 && f->rank < 0) /* a process no launcher gave a rank: by its pid */
        fprintf(out, "on %s", proc_label(f->rank, m->procs[f->proc].pid, who, sizeof who));
    else if (f->rank < 0)
        fputs("across ranks", out);
    else
        fprintf(out, "on rank%s %s", c->members > 1 ? "s" : "", c->ranks);
}

/* Where the finding is in the Chrome trace (--chrome-trace): its marker's
 * name, and where the earliest of them is, placed as chrome_trace.c places
 * it: at its occurrence's time on its process's track (its own process's
 * when the occurrence was on another's thread-less time, a straggler's
 * others' wait); a collective's own finding at its kernels, on their
 * streams.  What to type in Perfetto's search box and where it lands. */
static void trace_place(FILE *out, const struct model *m, const struct finding *f)
{
    if (f->nmarks <= 0 || f->proc < 0 || (size_t)f->proc >= m->nprocs)
        return;
    char who[64];
    fprintf(out, "<div class=\"where\">in the Chrome trace (<code>--chrome-trace</code>): search <code>%s</code>;",
            finding_names[f->kind]);
    if ((f->kind == F_COMM_EXPOSED || f->kind == F_COMM_SAME_STREAM) && !(f->facts.has & FACT_UNCLAIMED)) {
        fprintf(out, " its markers are on %s's streams, at its collectives' kernels</div>",
                proc_label(f->rank, m->procs[f->proc].pid, who, sizeof who));
        return;
    }
    int first = -1, on = f->proc;
    int64_t at = 0;
    for (int k = 0; k < f->nmarks; k++) {
        const struct finding_mark *mk = &f->marks[k];
        if (mk->proc < 0 || (size_t)mk->proc >= m->nprocs)
            continue;
        int64_t t = model_aligned(m, &m->procs[mk->proc], mk->t);
        if (first < 0 || t < at) {
            first = k;
            at = t;
            on = mk->tid < 0 ? f->proc : mk->proc;
        }
    }
    if (first < 0) {
        fputs("</div>", out);
        return;
    }
    fprintf(out, " its first marker is on %s's track at %.3f ms</div>",
            proc_label(m->procs[on].rank, m->procs[on].pid, who, sizeof who), (double)at / 1e6);
}

/* A finding group as a card: what, where, its cost as a share of the wall
 * time it lay in, and the fix, in the words of its costliest member. */
static void finding_card(FILE *out, const struct model *m, const struct findings *fs, const struct finding *f,
                         const struct card *c, size_t nth)
{
    const struct finding *wf = c->worst;
    fprintf(out, "<div class=\"finding\" id=\"finding-%zu\"><h3>%zu. <span class=\"kind\">%s</span> ", nth, nth,
            finding_names[f->kind]);
    card_who(out, m, f, c);
    fputs("</h3><div>", out);
    double share = c->wall > 0 ? 100.0 * (double)c->cost / (double)c->wall : 0;
    html_cost_bar(out, c->cost, c->wall, c->whole);
    fprintf(out, "<b>%.2f ms</b> %s%s%s%s, %lld time%s", ms(c->cost), finding_cost_words(f),
            *c->gpu_time ? " (" : "", c->gpu_time, *c->gpu_time ? ")" : "", (long long)c->count,
            c->count == 1 ? "" : "s");
    if (c->over > 1) /* a straggler's: the others' wait; a group's: its ranks' */
        fprintf(out, ", summed over %zu ranks (%s)", c->over, c->over_ranks);
    if (c->wall > 0)
        fprintf(out, " &middot; <span class=\"share\">%.1f%% of %s</span>", share, c->whole);
    if (f->confidence)
        fprintf(out, " <small>(confidence: %s)</small>", f->confidence);
    fputs("</div>", out);
    char steady[256];
    if (*finding_steady(m, wf, c->members > 1, steady, sizeof steady)) {
        fputs("<div class=\"steady\">each ", out);
        html_text(out, steady);
        fputs("</div>", out);
    }
    if (f->callsite[0]) {
        fputs("<div>at <code>", out);
        html_text(out, f->callsite);
        fputs("</code>", out);
        char range[FINDING_RANGE_LEN];
        if (*finding_range(m, f, range, sizeof range)) {
            fputs(" in <code>", out);
            html_text(out, range);
            fputs("</code>", out);
            if (f->iter_first >= 0)
                fprintf(out, " (iterations %lld-%lld)", (long long)f->iter_first, (long long)f->iter_last);
        }
        fputs("</div>", out);
        char code[240];
        if (*model_source_text(m, f->callsite, code, sizeof code)) {
            fputs("<pre class=\"src\">", out);
            html_text(out, code);
            fputs("</pre>", out);
        }
    }
    fputs("<div>", out);
    char text[FINDING_TEXT_LEN];
    if (c->members > 1) { /* the words are the costliest member's: say whose */
        char who[64];
        fprintf(out, "on %s: ", proc_label(wf->rank, wf->proc >= 0 ? m->procs[wf->proc].pid : -1, who, sizeof who));
    }
    html_text(out, finding_message(m, wf, text, sizeof text));
    fputs("</div><div class=\"fix\"><b>fix:</b> ", out);
    html_text(out, finding_suggestion(m, wf, text, sizeof text));
    fputs("</div>", out);
    trace_place(out, m, wf);
    whatif_html_finding(out, fs, wf);
    fputs("</div>", out);
}

/* The cards of the findings' groups (findings_group: the same kind at
 * the same call site on several ranks is one problem, as the text report
 * lists it; JSON keeps one per rank), in the one order of the outputs:
 * what the summary at the top and the cards below are made of. */
struct cards { struct card *v; size_t *leader; size_t n; };

static void cards_make(struct cards *cs, const struct model *m, const struct summary *s, const struct findings *fs,
                       const int *group)
{
    cs->n = 0;
    cs->v = malloc((fs->n + 1) * sizeof *cs->v);
    cs->leader = malloc((fs->n + 1) * sizeof *cs->leader);
    int64_t *per = calloc(m->nprocs + 1, sizeof *per);
    if (!cs->v || !cs->leader || !per)
        model_out_of_memory();
    for (size_t i = 0; i < fs->n; i++) {
        if (group[i] != (int)i)
            continue; /* under --min-cost, or a member of an earlier group */
        card_of(&cs->v[cs->n], m, s, fs, group, i, per);
        cs->leader[cs->n++] = i;
    }
    free(per);
}

/* "Fix first": the first three cards, a line each (what, where, its cost,
 * the fix), each a link to its card, so that the top of the page says
 * what to do before the charts explain why. */
#define FIX_FIRST 3
static void fix_first(FILE *out, const struct model *m, const struct findings *fs, const struct cards *cs)
{
    fputs("<h2>Fix first</h2><div id=\"fix-first\">", out);
    if (!cs->n) {
        fputs("<p class=\"none\">Nothing found that wastes GPU time.</p></div>", out);
        return;
    }
    fputs("<ol>", out);
    for (size_t k = 0; k < cs->n && k < FIX_FIRST; k++) {
        const struct card *c = &cs->v[k];
        const struct finding *f = &fs->v[cs->leader[k]];
        fprintf(out, "<li><a href=\"#finding-%zu\"><span class=\"kind\">%s</span></a> ", k + 1, finding_names[f->kind]);
        card_who(out, m, f, c);
        char range[FINDING_RANGE_LEN];
        if (f->callsite[0] && f->callsite[0] != '(') { /* a call site, not "(whole process)" */
            fputs(" at <code>", out);
            html_text(out, f->callsite);
            fputs("</code>", out);
        } else if (*finding_range(m, f, range, sizeof range)) { /* else where in the program it lay */
            fputs(" in <code>", out);
            html_text(out, range);
            fputs("</code>", out);
        }
        fprintf(out, ": <b>%.2f ms</b> %s", ms(c->cost), finding_cost_words(f));
        if (c->over > 1)
            fprintf(out, " (summed over %zu ranks)", c->over);
        char text[FINDING_TEXT_LEN];
        fputs(" &middot; <b>fix:</b> ", out);
        html_text(out, finding_suggestion(m, c->worst, text, sizeof text));
        fputs("</li>", out);
    }
    fputs("</ol>", out);
    if (cs->n > FIX_FIRST)
        fprintf(out, "<p class=\"sub\">%zu more below, under <a href=\"#findings\">Findings</a>.</p>", cs->n - FIX_FIRST);
    fputs("</div>", out);
}

static void finding_list(FILE *out, const struct model *m, const struct findings *fs, const struct cards *cs)
{
    if (fs->n == fs->below_min_cost) {
        fputs("<p class=\"none\">Nothing found that wastes GPU time.</p>", out);
        return;
    }
    fputs("<p class=\"sub\">The same problem on several ranks is one card. Each bar is the finding's cost as a share"
          " of the wall time it lay in: its rank's, or the ranks' summed when it cost several (a full bar: all of"
          " that time).</p>", out);
    for (size_t k = 0; k < cs->n; k++)
        finding_card(out, m, fs, &fs->v[cs->leader[k]], &cs->v[k], k + 1);
    if (fs->below_min_cost)
        fprintf(out, "<p class=\"sub\">%zu more finding(s), per rank, cost less than --min-cost %.2f ms: not shown"
                     " (--min-cost 0 shows them).</p>", fs->below_min_cost, ms(fs->min_cost_ns));
}

/* One note of an imported trace's (import_notes_each) as a table row: the
 * "Not checked" list the text and JSON reports end with, so that the page
 * does not look as if everything had been checked.  The notes quote the
 * input (a file's name, a version string): escaped. */
static void html_note(FILE *out, const char *kind, const char *note, int i)
{
    if (i == 0)
        fputs("<h2>Not checked on these imported traces</h2><p class=\"sub\">What the source does not record, by"
              " finding kind: these findings could not be looked for, or only in part.</p>"
              "<table id=\"not-checked\"><tr><th>kind</th><th>why</th></tr>", out);
    if (!kind) {
        fputs("</table>", out);
        return;
    }
    fputs("<tr><td><code>", out);
    html_text(out, kind);
    fputs("</code></td><td>", out);
    html_text(out, note);
    fputs("</td></tr>", out);
}

int html_report_write(const char *path, const struct model *m, const struct summary *s, const struct findings *fs,
                      struct coll_spill *spill, char *err, size_t errlen)
{
    FILE *out = out_file_open(path); /* complete or absent: renamed into place by the report */
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    int *group = malloc((fs->n + 1) * sizeof *group);
    if (!group)
        model_out_of_memory();
    findings_group(m, fs, group);
    struct cards cs;
    cards_make(&cs, m, s, fs, group);
    fputs("<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gputrace report: ", out);
    html_text(out, m->run_id);
    /* no script runs here, and nothing is fetched, whatever a name holds */
    fprintf(out, "</title><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src "
                 "'unsafe-inline'\"><style>%s</style></head><body>", style);
    fputs("<h1>gputrace report</h1><p class=\"sub\">run ", out);
    html_text(out, m->run_id);
    fprintf(out, " &middot; %zu process%s &middot; gputrace " GT_VERSION "</p>", m->nprocs, m->nprocs == 1 ? "" : "es");
    window_notes_html(out, m); /* monitor windows: what each covers, and the ranks none holds */
    slowdown_html(out, m, fs); /* ... a slowdown's slow steps against those before */
    monitor_notes_html(out, m); /* a monitored run's own files: aggregates, and the windows to read */
    fix_first(out, m, fs, &cs);

    fputs("<h2>Where each rank's time went</h2><p class=\"sub\">The GPU's span, from its first operation to its last:"
          " compute kernels, communication no compute hid, and idle time (copies and hidden communication are left"
          " out); below, the time the host sat blocked in syncs.</p><div id=\"rank-summary\">", out);
    html_rank_bars(out, m, s);
    fputs("</div>", out);
    rank_table(out, s);
    ledger_html(out, m, s, fs);
    whatif_html(out, m, fs);

    fputs("<h2>Step time per iteration</h2><p class=\"sub\">Each rank's iterations (NVTX ranges with a step number;"
          " where none has one, a top-level name repeated; never an operation's, such as nccl:all_reduce), on the"
          " thread with the most: from the first range's start to the last one's end.</p><div id=\"step-times\">",
          out);
    html_step_lines(out, m);
    fputs("</div>", out);

    fputs("<h2>Arrival at each collective</h2><p class=\"sub\">How long after the first rank each rank arrived at each"
          " collective (its NCCL kernel's start, else its call's; clocks aligned across hosts), as comm.straggler"
          " reckons it: a rank that is always late, a dark row, is the one the others wait for.</p>"
          "<div id=\"lateness\">", out);
    html_lateness_map(out, m, spill);
    fputs("</div>", out);
    html_tables(out, m, s); /* the text report's collectives, kernels, phases */

    fputs("<h2>Findings, what to fix first</h2><div id=\"findings\">", out);
    finding_list(out, m, fs, &cs);
    fputs("</div>", out);
    import_notes_each(m, html_note, out); /* imported traces only */
    fputs("<p class=\"sub\">Definitions of each kind: docs/report.md. The same findings as text: gputrace-report;"
          " as JSON: --format json.</p></body></html>\n", out);
    free(group);
    free(cs.v);
    free(cs.leader);
    int bad = ferror(out);
    bad |= fclose(out) != 0;
    if (bad) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
