/* html_tables.c: the HTML page's tables of what the GPUs ran, the ones the
 * text report prints (output_text.c): the collectives by type and size,
 * the kernels that took the most GPU time, and each rank's phases (its
 * top-level NVTX ranges), so that the page does not leave out what the
 * terminal shows.  Names come from the traced program: escaped. */
#include "viewer/write/html.h"
#include "viewer/write/output.h"

static double ms(int64_t ns) { return (double)ns / 1e6; }
static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0.0; }

static void coll_table(FILE *out, const struct summary *s)
{
    fputs("<h2>Collectives</h2><p class=\"sub\">By operation and size, over all ranks. Bandwidths include the time a"
          " rank waited inside the collective for a late peer: low figures with a straggler say more about it than"
          " about the link.</p><table id=\"collectives\"><tr><th>collective</th><th>bytes</th><th>count</th>"
          "<th>total ms</th><th>mean us</th><th>algbw GB/s</th><th>busbw GB/s</th><th>algorithm</th></tr>", out);
    for (size_t i = 0; i < s->ncolls; i++) {
        const struct coll_summary *c = &s->colls[i];
        fputs("<tr><td>", out);
        html_text(out, c->op);
        fprintf(out, "</td><td class=n>%lld</td><td class=n>%lld</td><td class=n>%.2f</td><td class=n>%.1f</td>"
                     "<td class=n>%.2f</td><td class=n>%.2f</td><td>",
                (long long)c->bytes, (long long)c->count, ms(c->total_ns),
                c->count ? (double)c->total_ns / (double)c->count / 1e3 : 0.0, c->algbw_gbs, c->busbw_gbs);
        html_text(out, c->algorithm[0] ? c->algorithm : "-");
        fputs("</td></tr>", out);
    }
    fputs("</table>", out);
}

static void kernel_table(FILE *out, const struct model *m, const struct summary *s)
{
    size_t top = s->nkernels < KERNELS_SHOWN ? s->nkernels : KERNELS_SHOWN;
    fprintf(out, "<h2>Kernels</h2><p class=\"sub\">The %zu that took the most GPU time%s; the share is of all"
                 " kernels' time.</p><table id=\"kernels\"><tr><th>kernel</th><th>count</th><th>total ms</th>"
                 "<th>mean us</th><th>share %%</th></tr>",
            top, m->nprocs > 1 ? ", summed over all ranks" : "");
    for (size_t i = 0; i < top; i++) {
        const struct kernel_summary *k = &s->kernels[i];
        fputs("<tr><td><code>", out);
        html_text(out, k->name);
        fprintf(out, "</code></td><td class=n>%lld</td><td class=n>%.2f</td><td class=n>%.1f</td>"
                     "<td class=n>%.1f</td></tr>",
                (long long)k->count, ms(k->total_ns), k->count ? (double)k->total_ns / (double)k->count / 1e3 : 0.0,
                pct(k->total_ns, s->kernel_ns));
    }
    fputs("</table>", out);
    if (s->nkernels > top)
        fprintf(out, "<p class=\"sub\">%zu more kernels: --format json lists up to %d.</p>", s->nkernels - top,
                KERNELS_JSON);
}

/* A rank's six longest phases, as the text report shows them. */
static void phase_table(FILE *out, const struct summary *s)
{
    fprintf(out, "<h2>Phases</h2><p class=\"sub\">Each rank's %s, the six longest: how busy its GPU was inside"
                 " them and the communication no compute hid.</p><table id=\"phases\"><tr><th>rank</th>"
                 "<th>phase</th><th>count</th><th>wall ms</th><th>GPU busy %%</th><th>comm ms</th>"
                 "<th>exposed comm ms</th></tr>",
            s->range_filter ? "ranges of --range" : "top-level NVTX ranges");
    int shown_of_rank = 0;
    for (size_t i = 0; i < s->nphases; i++) {
        const struct phase_summary *ph = &s->phases[i];
        shown_of_rank = i && s->phases[i - 1].proc == ph->proc ? shown_of_rank + 1 : 0;
        if (shown_of_rank >= 6)
            continue;
        char rc[16];
        fprintf(out, "<tr><td>%s</td><td>", rank_cell(ph->rank, rc, sizeof rc));
        html_text(out, ph->name);
        fprintf(out, "</td><td class=n>%lld</td><td class=n>%.1f</td><td class=n>%.1f</td><td class=n>%.1f</td>"
                     "<td class=n>%.1f</td></tr>",
                (long long)ph->count, ms(ph->wall_ns), pct(ph->gpu_busy_ns, ph->wall_ns), ms(ph->comm_ns),
                ms(ph->exposed_comm_ns));
    }
    fputs("</table>", out);
}

void html_tables(FILE *out, const struct model *m, const struct summary *s)
{
    if (s->ncolls)
        coll_table(out, s);
    if (s->nkernels)
        kernel_table(out, m, s);
    if (s->nphases)
        phase_table(out, s);
}
