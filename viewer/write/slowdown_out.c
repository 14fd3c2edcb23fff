/* slowdown_out.c: a slowdown window split at its onset, written
 * (slowdown_out.h).  "Others waited": at the collectives a rank arrived
 * at last, the others' waits for it, per collective of the part (before
 * the onset, or from it on), so that parts of different lengths compare.
 * The steps' medians are of their NVTX spans, the host's pace: a rank
 * whose host runs ahead of its GPU keeps it while its GPU waits for the
 * slow rank, so it is said with the table. */
#include "viewer/write/slowdown_out.h"
#include "viewer/analyse/slowdown.h"
#include "viewer/write/html.h"
#include "viewer/write/json.h"
#include "viewer/write/text_wrap.h"
#include "common/term_text.h"

static double per_coll_ms(const struct slowdown_split *s, const struct slowdown_rank *r, int part)
{
    return s->colls[part] ? r->caused_ns[part] / (double)s->colls[part] / 1e6 : 0.0;
}

static int rank_of(const struct model *m, const struct slowdown_rank *r) { return m->procs[r->proc].rank; }

/* "<lead> steps' time grew most in range X, a -> b ms a step (in traced
 * calls c -> d: what it was)", of the rank s->grew is of; wrapped (a range's
 * name of 24 characters passed 100 columns). */
static void grown_text(FILE *out, const struct model *m, const struct slowdown_split *s, const char *lead)
{
    char t[256];
    text_para(out, lead, 3, "steps' time grew most in range %s, %.2f -> %.2f ms a step",
              term_cell(model_label(&m->procs[s->ranks[s->grew_rank].proc], s->grew.label), 60,
                        TERM_CUT | TERM_ELLIPSIS, t, sizeof t),
              s->grew.before_ns / 1e6, s->grew.after_ns / 1e6);
    fprintf(out, "   (in traced calls %.2f -> %.2f: %s)\n", s->grew.calls_before_ns / 1e6, s->grew.calls_after_ns / 1e6,
            s->grew.after_ns - s->grew.calls_after_ns > s->grew.before_ns - s->grew.calls_before_ns
                ? "host work the trace does not see" : "the calls");
}

void slowdown_text(FILE *out, const struct model *m, const struct findings *fs)
{
    const struct slowdown_split *s = fs->slowdown;
    if (!s)
        return;
    fprintf(out, "\nthe slow steps against those before (from %.2f ms into the run", (double)s->onset / 1e6);
    for (size_t i = 0; i < s->nranks; i++)
        if (s->ranks[i].proc == s->requester && s->ranks[i].first_slow_iter >= 0)
            fprintf(out, ", rank %d's step %lld", rank_of(m, &s->ranks[i]), (long long)s->ranks[i].first_slow_iter);
    fprintf(out, ";\n%lld collectives of every rank before, %lld from then on):\n", (long long)s->colls[0],
            (long long)s->colls[1]);
    fprintf(out, "rank  steps before  median ms  slow steps  median ms  last at: before   slow  others waited ms\n");
    for (size_t i = 0; i < s->nranks; i++) {
        const struct slowdown_rank *r = &s->ranks[i];
        fprintf(out, "%-4d  %12lld  %9.2f  %10lld  %9.2f  %15lld  %5lld  %6.2f -> %.2f\n", rank_of(m, r),
                (long long)r->steps[0], (double)r->step_ns[0] / 1e6, (long long)r->steps[1], (double)r->step_ns[1] / 1e6,
                (long long)r->last[0], (long long)r->last[1], per_coll_ms(s, r, 0), per_coll_ms(s, r, 1));
    }
    fprintf(out, "(median ms: of the steps' NVTX spans, the host's pace; others waited: at the collectives the\n"
                 " rank arrived at last, the others' waits for it, per collective; the findings below are of\n"
                 " the whole window, the steps before included)\n");
    if (s->changed >= 0) {
        const struct slowdown_rank *r = &s->ranks[s->changed];
        fprintf(out, "=> rank %d: the others came to wait for it (%.2f -> %.2f ms a collective): where the\n",
                rank_of(m, r), per_coll_ms(s, r, 0), per_coll_ms(s, r, 1));
        if (s->grew.label >= 0)
            grown_text(out, m, s, "   slowdown is; its ");
        else
            fputs("   slowdown is; its host time between collectives is the first place to look\n", out);
    } else if (!s->colls[1]) {
        fprintf(out, "=> no collective of every rank's window is from then on: nothing to compare\n");
    } else {
        fprintf(out, "=> no rank made the others wait longer in the slow steps: every rank slowed down alike\n"
                     "   (its own GPU work or host time, or a shared resource)");
        if (s->grew.label >= 0) {
            char who[32];
            snprintf(who, sizeof who, ";\n   rank %d's ", rank_of(m, &s->ranks[s->grew_rank]));
            grown_text(out, m, s, who);
        } else {
            fputc('\n', out);
        }
    }
}

void slowdown_json(FILE *out, const struct model *m, const struct findings *fs)
{
    const struct slowdown_split *s = fs->slowdown;
    if (!s)
        return;
    fprintf(out, ", \"slowdown\": {\"onset_ns\": %lld, \"requester_rank\": ", (long long)s->onset);
    if (s->requester >= 0)
        fprintf(out, "%d", m->procs[s->requester].rank);
    else
        fputs("null", out);
    fprintf(out, ", \"collectives\": [%lld, %lld], \"changed_rank\": ", (long long)s->colls[0], (long long)s->colls[1]);
    if (s->changed >= 0)
        fprintf(out, "%d", rank_of(m, &s->ranks[s->changed]));
    else
        fputs("null", out);
    fputs(", \"grown_range\": ", out);
    if (s->grew.label >= 0) {
        const struct slowdown_rank *r = &s->ranks[s->grew_rank];
        fprintf(out, "{\"rank\": %d, \"name\": ", rank_of(m, r));
        json_string(out, model_label(&m->procs[r->proc], s->grew.label));
        fprintf(out, ", \"step_ns\": [%.0f, %.0f], \"calls_ns\": [%.0f, %.0f]}", s->grew.before_ns, s->grew.after_ns,
                s->grew.calls_before_ns, s->grew.calls_after_ns);
    } else {
        fputs("null", out);
    }
    fputs(", \"ranks\": [", out);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct slowdown_rank *r = &s->ranks[i];
        fprintf(out, "%s{\"rank\": %d, \"steps\": [%lld, %lld], \"step_ns\": [%lld, %lld], \"first_slow_step\": ",
                i ? ", " : "", rank_of(m, r), (long long)r->steps[0], (long long)r->steps[1], (long long)r->step_ns[0],
                (long long)r->step_ns[1]);
        if (r->first_slow_iter >= 0)
            fprintf(out, "%lld", (long long)r->first_slow_iter);
        else
            fputs("null", out);
        fprintf(out, ", \"last\": [%lld, %lld], \"others_waited_ns\": [%.0f, %.0f]}", (long long)r->last[0],
                (long long)r->last[1], r->caused_ns[0], r->caused_ns[1]);
    }
    fputs("]}", out);
}

/* " <Lead> steps' time grew most in range X, ..." for the HTML page, if
 * a range grew. */
static void grown_html(FILE *out, const struct model *m, const struct slowdown_split *s, const char *lead)
{
    if (s->grew.label < 0)
        return;
    fprintf(out, " %s steps' time grew most in range <code>", lead);
    html_text(out, model_label(&m->procs[s->ranks[s->grew_rank].proc], s->grew.label));
    fprintf(out, "</code>, %.2f &rarr; %.2f ms a step (in traced calls %.2f &rarr; %.2f).", s->grew.before_ns / 1e6,
            s->grew.after_ns / 1e6, s->grew.calls_before_ns / 1e6, s->grew.calls_after_ns / 1e6);
}

void slowdown_html(FILE *out, const struct model *m, const struct findings *fs)
{
    const struct slowdown_split *s = fs->slowdown;
    if (!s)
        return;
    fprintf(out, "<div id=\"slowdown\"><p><b>The slow steps against those before</b> (from %.2f ms into the run;"
                 " %lld collectives of every rank before, %lld from then on). Others waited: at the collectives the"
                 " rank arrived at last, the others' waits for it, per collective.</p><table><tr><th>rank</th>"
                 "<th>steps before</th><th>median ms (host)</th><th>slow steps</th><th>median ms (host)</th><th>last at, before"
                 "</th><th>last at, slow</th><th>others waited ms, before</th><th>others waited ms, slow</th></tr>",
            (double)s->onset / 1e6, (long long)s->colls[0], (long long)s->colls[1]);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct slowdown_rank *r = &s->ranks[i];
        fprintf(out, "<tr%s><td>%d</td><td class=n>%lld</td><td class=n>%.2f</td><td class=n>%lld</td><td class=n>%.2f"
                     "</td><td class=n>%lld</td><td class=n>%lld</td><td class=n>%.2f</td><td class=n>%.2f</td></tr>",
                (int)i == s->changed ? " class=hot" : "", rank_of(m, r), (long long)r->steps[0],
                (double)r->step_ns[0] / 1e6, (long long)r->steps[1], (double)r->step_ns[1] / 1e6, (long long)r->last[0],
                (long long)r->last[1], per_coll_ms(s, r, 0), per_coll_ms(s, r, 1));
    }
    fputs("</table>", out);
    if (s->changed >= 0) {
        fprintf(out, "<p>Rank %d: the others came to wait for it in the slow steps: where the slowdown is.",
                rank_of(m, &s->ranks[s->changed]));
        grown_html(out, m, s, "Its");
        fputs("</p>", out);
    } else if (s->colls[1]) {
        char who[32];
        snprintf(who, sizeof who, "Rank %d's", s->grew_rank >= 0 ? rank_of(m, &s->ranks[s->grew_rank]) : -1);
        fputs("<p>No rank made the others wait longer in the slow steps: every rank slowed down alike.", out);
        grown_html(out, m, s, who);
        fputs("</p>", out);
    }
    fputs("</div>", out);
}
