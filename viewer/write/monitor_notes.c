/* monitor_notes.c: what the report says of a monitored run's own files
 * (docs/monitor.md): they hold no records, so instead of a report of
 * nothing, each rank's aggregates (its steps, the last collective it
 * entered, where its host blocked longest in all) and the windows written
 * beside them, each a run to read.  Names, paths and call sites are the
 * files' words: escaped for each output. */
#include "viewer/write/monitor_notes.h"
#include "viewer/write/text_wrap.h"
#include "viewer/model/model.h"
#include "viewer/write/html.h"
#include "viewer/write/json.h"
#include "common/term_text.h"

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

void monitor_notes_text(FILE *out, const struct model *m)
{
    if (!m->nmagg)
        return;
    char t[1024], u[1024];
    fprintf(out, "note: a monitored run (docs/monitor.md): its files hold each process's aggregates, not its\n"
                 "      records; the full records of its last seconds are in the windows it wrote:\n");
    if (!m->nmdirs)
        fprintf(out, "      none yet (gputrace dump RUN asks every process for one)\n");
    /* wrapped: a window's path, a step's name and a call site are any
     * length (a step name of 28 characters passed 100 columns) */
    for (size_t i = 0; i < m->nmdirs; i++)
        text_para(out, "      ", 8, "%s (%s, %d file%s)", term_cell(m->mdirs[i].path, 200, TERM_CUT | TERM_ELLIPSIS, t, sizeof t),
                  term_cell(m->mdirs[i].reason, 32, TERM_CUT, u, sizeof u), m->mdirs[i].files,
                  m->mdirs[i].files == 1 ? "" : "s");
    if (m->nmdirs)
        fprintf(out, "      (gputrace-report DIR reads one)\n");
    for (size_t i = 0; i < m->nmagg; i++) {
        const struct monitor_agg *a = &m->magg[i];
        const struct proc *p = &m->procs[a->proc];
        char lead[64];
        snprintf(lead, sizeof lead, "  rank %d (pid %d): ", p->rank, p->pid);
        if (a->steps)
            text_para(out, lead, 4, "%lld steps of %s, %.1f ms a step (median), longest %.1f ms", (long long)a->steps,
                      term_cell(a->step[0] ? a->step : "?", 40, TERM_CUT | TERM_ELLIPSIS, t, sizeof t), ms(a->step_ns),
                      ms(a->max_step_ns));
        else
            fprintf(out, "%sno steps (no top-level NVTX range repeated)\n", lead);
        if (a->colls)
            text_para(out, "    ", 6, "%lld collective%s; the last entered: %lld of communicator %llx, at %.2f ms",
                      (long long)a->colls, a->colls == 1 ? "" : "s", (long long)a->last_seq,
                      (unsigned long long)a->last_comm, ms(model_aligned(m, p, a->last_coll_ns)));
        if (a->blocked_calls)
            text_para(out, "    ", 6, "host blocked longest in %s: %.1f ms, %lld call%s",
                      term_cell(a->blocked_site, 44, TERM_CUT | TERM_ELLIPSIS, t, sizeof t), ms(a->blocked_ns),
                      (long long)a->blocked_calls, a->blocked_calls == 1 ? "" : "s");
    }
}

void monitor_notes_json(FILE *out, const struct model *m)
{
    if (!m->nmagg)
        return;
    fputs(", \"monitor\": {\"windows\": [", out);
    for (size_t i = 0; i < m->nmdirs; i++) {
        fputs(i ? ", {\"path\": " : "{\"path\": ", out);
        json_string(out, m->mdirs[i].path);
        fputs(", \"reason\": ", out);
        json_string(out, m->mdirs[i].reason);
        fprintf(out, ", \"files\": %d}", m->mdirs[i].files);
    }
    fputs("], \"ranks\": [", out);
    for (size_t i = 0; i < m->nmagg; i++) {
        const struct monitor_agg *a = &m->magg[i];
        const struct proc *p = &m->procs[a->proc];
        fprintf(out, "%s{\"rank\": %d, \"pid\": %d, \"steps\": %lld, \"step\": ", i ? ", " : "", p->rank, p->pid,
                (long long)a->steps);
        json_string(out, a->step);
        fprintf(out, ", \"step_ns\": %lld, \"max_step_ns\": %lld, \"collectives\": %lld, \"last_comm\": \"%llx\","
                     " \"last_seq\": %lld, \"last_collective_ns\": %lld, \"blocked_ns\": %lld, \"blocked_calls\": %lld,"
                     " \"blocked_site\": ",
                (long long)a->step_ns, (long long)a->max_step_ns, (long long)a->colls, (unsigned long long)a->last_comm,
                (long long)a->last_seq, (long long)(a->colls ? model_aligned(m, p, a->last_coll_ns) : 0),
                (long long)a->blocked_ns, (long long)a->blocked_calls);
        json_string(out, a->blocked_site);
        fputc('}', out);
    }
    fputs("]}", out);
}

void monitor_notes_html(FILE *out, const struct model *m)
{
    if (!m->nmagg)
        return;
    fputs("<div id=\"monitor\"><p><b>A monitored run:</b> its files hold each process's aggregates, not its records;"
          " the full records of its last seconds are in the windows it wrote", out);
    if (!m->nmdirs)
        fputs(" (none yet: <code>gputrace dump RUN</code> asks every process for one)", out);
    fputs(".</p><ul>", out);
    for (size_t i = 0; i < m->nmdirs; i++) {
        fputs("<li><code>", out);
        html_text(out, m->mdirs[i].path);
        fputs("</code> (", out);
        html_text(out, m->mdirs[i].reason);
        fprintf(out, ", %d files)</li>", m->mdirs[i].files);
    }
    fputs("</ul><table><tr><th>rank</th><th>steps</th><th>ms a step (median)</th><th>longest ms</th>"
          "<th>collectives</th><th>last collective</th><th>host blocked longest in</th><th>ms</th></tr>", out);
    for (size_t i = 0; i < m->nmagg; i++) {
        const struct monitor_agg *a = &m->magg[i];
        fprintf(out, "<tr><td>%d</td><td class=n>%lld</td><td class=n>%.1f</td><td class=n>%.1f</td><td class=n>%lld"
                     "</td><td>%lld of %llx</td><td>", m->procs[a->proc].rank, (long long)a->steps, ms(a->step_ns),
                ms(a->max_step_ns), (long long)a->colls, (long long)a->last_seq, (unsigned long long)a->last_comm);
        html_text(out, a->blocked_site);
        fprintf(out, "</td><td class=n>%.1f</td></tr>", ms(a->blocked_ns));
    }
    fputs("</table></div>", out);
}
