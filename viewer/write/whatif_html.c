/* whatif_html.c: the what-if predictions on the HTML page (whatif_out.h):
 * each rank's steps as measured, replayed and with every finding fixed,
 * and the critical path of a typical step as one bar of its parts.  Every
 * name (a kernel's, a call site's) is the trace's: escaped. */
#include "viewer/write/html.h"
#include "viewer/write/whatif_out.h"
#include "viewer/model/steps.h"

static double ms_of(int64_t ns, int64_t steps)
{
    return steps ? (double)ns / (double)steps / 1e6 : 0;
}

/* The parts of the path, a colour each by kind. */
static const char *const part_colour[] = { "#8c6bb1", "#b3b3b3", "#4c78a8", "#e45756", "#f58518", "#bab0ab",
                                           "#72b7b2", "#dddddd" };

static void path_bar(FILE *out, const struct whatif_proc *w, int rank)
{
    fprintf(out, "<p class=\"sub\">What sets the step: the critical path of a typical step (rank %d, step %lld,"
                 " %.2f ms), its parts longest first.</p><svg class=\"critical-path\" viewBox=\"0 0 1000 40\""
                 " width=\"100%%\" height=\"40\" role=\"img\">",
            rank, (long long)w->cp_iter, (double)w->cp_ns / 1e6);
    double x = 0;
    for (int k = 0; k < w->nparts; k++) {
        double wd = w->cp_ns ? 1000.0 * (double)w->parts[k].ns / (double)w->cp_ns : 0;
        fprintf(out, "<rect x=\"%.1f\" y=\"0\" width=\"%.1f\" height=\"40\" fill=\"%s\"><title>", x, wd,
                part_colour[w->parts[k].kind & 7]);
        html_text(out, w->parts[k].name);
        fprintf(out, ": %.2f ms</title></rect>", (double)w->parts[k].ns / 1e6);
        x += wd;
    }
    fputs("</svg><table class=\"critical-path\"><tr><th>ms</th><th>share</th><th>kind</th><th>what</th></tr>", out);
    for (int k = 0; k < w->nparts; k++) {
        fprintf(out, "<tr><td>%.2f</td><td>%.1f%%</td><td><span style=\"color:%s\">&#9632;</span> %s</td><td><code>",
                (double)w->parts[k].ns / 1e6, w->cp_ns ? 100.0 * (double)w->parts[k].ns / (double)w->cp_ns : 0,
                part_colour[w->parts[k].kind & 7], cp_kind_names[w->parts[k].kind]);
        html_text(out, w->parts[k].name);
        fputs("</code></td></tr>", out);
    }
    fputs("</table>", out);
}

void whatif_html(FILE *out, const struct model *m, const struct findings *fs)
{
    int any = 0, windowed = 0;
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++) {
        const struct whatif_proc *w = &fs->whatif[i];
        windowed += w->windowed;
        if (!w->steps)
            continue;
        if (!any++)
            fputs("<h2>What if it were fixed</h2><p class=\"sub\">Each rank's steps replayed on its dependency graph"
                  " (docs/report.md): as measured, to check the replay, and with every finding the replay predicts"
                  " fixed. A step runs from its start to the end of its GPU work.</p><table id=\"whatif\"><tr>"
                  "<th>rank</th><th>steps</th><th>measured ms</th><th>replayed ms</th><th>error</th>"
                  "<th>all fixed ms</th></tr>", out);
        fprintf(out, "<tr><td>%d</td><td>%lld</td><td>%.2f</td><td>%.2f</td><td>%.1f%%%s</td><td>%.2f</td></tr>",
                m->procs[i].rank, (long long)w->steps, ms_of(w->measured_ns, w->steps), ms_of(w->replayed_ns, w->steps),
                w->measured_ns ? 100.0 * (double)w->abs_err_ns / (double)w->measured_ns : 0,
                whatif_reliable(w) ? "" : " (rough)", ms_of(w->all_fixed_ns, w->steps));
    }
    if (any)
        fputs("</table>", out);
    for (size_t i = 0; any && i < fs->nwhatif && i < m->nprocs; i++) {
        char why[400];
        if (!fs->whatif[i].steps || !*whatif_rough_text(&fs->whatif[i], why, sizeof why))
            continue;
        fprintf(out, "<p class=\"sub\">Rank %d's replay is rough: ", m->procs[i].rank);
        html_text(out, why);
        fputs(".</p>", out);
    }
    char wu[400];
    if (any && *whatif_warmup_text(m, fs, wu, sizeof wu)) {
        fprintf(out, "<p class=\"sub\">Left out as warm-up (a step's start to the next's over %dx the median): ",
                STEP_WARMUP_FACTOR);
        html_text(out, wu);
        fputs(".</p>", out);
    }
    if (windowed)
        fprintf(out, "<p class=\"sub\">%d rank(s) read a window at a time (more than the report holds at once):"
                     " replayed on their own; replaying every rank together, their measured arrivals stand.</p>",
                windowed);
    if (fs->wjob.made)
        fprintf(out, "<p class=\"sub\">Every rank's steps replayed together (a collective ends when its last member"
                     " arrived): a step %.2f ms now, %.2f ms with every finding above fixed.</p>",
                fs->wjob.now_ns / 1e6, fs->wjob.all_fixed_ns / 1e6);
    int ref = whatif_reference(m, fs);
    if (ref >= 0 && fs->whatif[ref].cp_ns)
        path_bar(out, &fs->whatif[ref], m->procs[ref].rank);
}

void whatif_html_finding(FILE *out, const struct findings *fs, const struct finding *f)
{
    char text[400];
    if (!*whatif_text_finding(fs, f, text, sizeof text))
        return;
    fputs("<div class=\"gain\"><b>if fixed:</b> ", out);
    html_text(out, text);
    fputs("</div>", out);
}
