/* window_notes.c: what the report says of a monitor's windows (files
 * holding only the last seconds of each process, written for a hang, a
 * slowdown or a request: docs/schema.md, "window").  A window read as if
 * it were a run would look like a run that began late and lasted seconds:
 * the report says at its top that these are windows, why each was written
 * (its reason, and the trigger's own words), what span of the run each
 * covers, and, where the processes' world size says the run had more
 * ranks than the files hold, which ranks are missing (a window set read
 * from a run directory that not every host shares).  The reason, request
 * and detail are the file's words: escaped for each output. */
#include "viewer/write/window_notes.h"
#include "viewer/model/model.h"
#include "viewer/write/html.h"
#include "viewer/write/json.h"
#include "common/term_text.h"
#include "viewer/write/text_wrap.h"

#include <stdlib.h>
#include <string.h>

/* The ranks the run has, by the processes' world size, that no process
 * read is: the first `max` into v; how many there are in all. */
static int missing_ranks(const struct model *m, int *v, int max)
{
    int world = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        world = m->procs[i].world > world ? m->procs[i].world : world;
    if (world > 1 << 20)
        world = 1 << 20; /* a damaged world size: no list of a million ranks */
    unsigned char *seen = calloc((size_t)world + 1, 1);
    if (!seen)
        model_out_of_memory();
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].rank >= 0 && m->procs[i].rank < world)
            seen[m->procs[i].rank] = 1;
    int n = 0;
    for (int r = 0; r < world; r++)
        if (!seen[r]) {
            if (n < max)
                v[n] = r;
            n++;
        }
    free(seen);
    return n;
}

#define LIST_MAX 64

static int64_t since_start(const struct model *m, const struct monitor_window *w, int64_t t)
{
    return model_aligned(m, &m->procs[w->proc], t);
}

void window_notes_text(FILE *out, const struct model *m)
{
    if (!m->nwindows)
        return;
    char t[1024], line[1400];
    fprintf(out, "note: these are monitor windows, not whole runs: each file holds only the last records of its\n"
                 "      process before the window was written; what they cover:\n");
    for (size_t i = 0; i < m->nwindows; i++) {
        const struct monitor_window *w = &m->windows[i];
        const struct proc *p = &m->procs[w->proc];
        int64_t a = since_start(m, w, w->from_ns), b = since_start(m, w, w->at_ns);
        snprintf(line, sizeof line, "rank %d (pid %d): %.2f to %.2f ms into the run (%.2f ms), for %s", p->rank, p->pid,
                 (double)a / 1e6, (double)b / 1e6, (double)(b - a) / 1e6,
                 term_cell(w->reason[0] ? w->reason : "?", 32, TERM_CUT, t, sizeof t));
        /* the request's id on the line when it fits, else on one of its
         * own: whole, within 100 columns */
        const char *req = w->request[0] ? term_cell(w->request, 64, TERM_CUT | TERM_ELLIPSIS, t, sizeof t) : NULL;
        size_t n = strlen(line);
        int along = req && n + strlen(", request ") + strlen(req) <= TEXT_COLUMNS - 6; /* the first line's room */
        if (along)
            snprintf(line + n, sizeof line - n, ", request %s", req);
        text_para(out, "      ", 8, "%s", line);
        if (req && !along)
            fprintf(out, "        request %s\n", req);
        if (w->cut_rows > 0)
            fprintf(out, "        %lld record(s) let go early (the window's memory bound)\n", (long long)w->cut_rows);
        if (w->detail[0])
            text_para(out, "        ", 8, "%s", term_cell(w->detail, 200, TERM_CUT | TERM_ELLIPSIS, t, sizeof t));
    }
    int v[LIST_MAX], n = missing_ranks(m, v, LIST_MAX);
    if (n) {
        fprintf(out, "note: the processes say the run has more ranks than the files hold; no window of rank(s) ");
        for (int k = 0; k < n && k < LIST_MAX; k++)
            fprintf(out, "%s%d", k ? ", " : "", v[k]);
        fprintf(out, "%s\n      (their hosts' windows are in another run directory?)\n", n > LIST_MAX ? ", ..." : "");
    }
}

void window_notes_json(FILE *out, const struct model *m)
{
    if (!m->nwindows)
        return;
    fputs(", \"monitor_windows\": [", out);
    for (size_t i = 0; i < m->nwindows; i++) {
        const struct monitor_window *w = &m->windows[i];
        const struct proc *p = &m->procs[w->proc];
        fprintf(out, "%s{\"rank\": %d, \"pid\": %d, \"reason\": ", i ? ", " : "", p->rank, p->pid);
        json_string(out, w->reason);
        fputs(", \"request\": ", out);
        json_string(out, w->request);
        fputs(", \"detail\": ", out);
        json_string(out, w->detail);
        fprintf(out, ", \"from_ns\": %lld, \"at_ns\": %lld, \"cut_rows\": %lld}", (long long)since_start(m, w, w->from_ns),
                (long long)since_start(m, w, w->at_ns), (long long)w->cut_rows);
    }
    int v[LIST_MAX], n = missing_ranks(m, v, LIST_MAX);
    fputs("], \"missing_ranks\": [", out);
    for (int k = 0; k < n && k < LIST_MAX; k++)
        fprintf(out, "%s%d", k ? ", " : "", v[k]);
    fputc(']', out);
}

void window_notes_html(FILE *out, const struct model *m)
{
    if (!m->nwindows)
        return;
    fputs("<div id=\"windows\"><p><b>Monitor windows, not whole runs:</b> each file holds only the last records of its"
          " process before the window was written.</p><table><tr><th>rank</th><th>covers (ms into the run)</th>"
          "<th>written for</th><th>request</th><th>detail</th></tr>", out);
    for (size_t i = 0; i < m->nwindows; i++) {
        const struct monitor_window *w = &m->windows[i];
        int64_t a = since_start(m, w, w->from_ns), b = since_start(m, w, w->at_ns);
        fprintf(out, "<tr><td>%d</td><td class=n>%.2f &ndash; %.2f</td><td>", m->procs[w->proc].rank, (double)a / 1e6,
                (double)b / 1e6);
        html_text(out, w->reason);
        fputs("</td><td>", out);
        html_text(out, w->request);
        fputs("</td><td>", out);
        html_text(out, w->detail);
        fputs("</td></tr>", out);
    }
    fputs("</table>", out);
    int v[LIST_MAX], n = missing_ranks(m, v, LIST_MAX);
    if (n) {
        fputs("<p>The processes say the run has more ranks than the files hold: no window of rank(s) ", out);
        for (int k = 0; k < n && k < LIST_MAX; k++)
            fprintf(out, "%s%d", k ? ", " : "", v[k]);
        fprintf(out, "%s (their hosts' windows are in another run directory?).</p>", n > LIST_MAX ? ", ..." : "");
    }
    fputs("</div>", out);
}
