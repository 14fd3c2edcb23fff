/* html_charts.c: the HTML report's charts as inline SVG, drawn from the
 * summary, the ranges and the collectives: stacked bars per rank, step
 * times per iteration as lines, arrival lateness as a rank x collective
 * heatmap, and a finding's cost as a bar.  Sizes in user units of a
 * viewBox, so that a chart scales with the page and prints. */
#include "viewer/write/html.h"
#include "viewer/write/output.h"
#include "viewer/model/steps.h"
#include "viewer/analyse/coll_spill.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define W 900 /* a chart's width, in viewBox units */

static const char *const part_colour[] = { "#3b7dd8", "#e8743b", "#c9c9c9", "#8e5bd1" };
static const char *const part_name[] = { "compute", "exposed communication", "GPU idle", "host blocked" };

static void legend(FILE *out, int y, int n)
{
    for (int k = 0; k < n; k++) {
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"12\" height=\"12\" fill=\"%s\"/>", 130 + k * 190, y, part_colour[k]);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\">%s</text>", 148 + k * 190, y + 11, part_name[k]);
    }
}

/* Per rank: compute, exposed communication and GPU idle stacked (the GPU's
 * span, less copies and overlap), host blocked in syncs as a bar below. */
void html_rank_bars(FILE *out, const struct model *m, const struct summary *s)
{
    (void)m;
    double most = 1;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_summary *r = &s->ranks[i];
        double idle = r->gpu_span_ns > r->gpu_busy_ns ? (double)(r->gpu_span_ns - r->gpu_busy_ns) : 0;
        double gpu = (double)r->compute_ns + (double)r->exposed_comm_ns + idle;
        most = gpu > most ? gpu : most;
        most = (double)r->sync_blocked_ns > most ? (double)r->sync_blocked_ns : most;
    }
    int rows = (int)s->nranks, h = 40 + rows * 34 + 20;
    fprintf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"time per rank\">", W, h);
    legend(out, 8, 4);
    for (int i = 0; i < rows; i++) {
        const struct rank_summary *r = &s->ranks[i];
        double idle = r->gpu_span_ns > r->gpu_busy_ns ? (double)(r->gpu_span_ns - r->gpu_busy_ns) : 0;
        double part[4] = { (double)r->compute_ns, (double)r->exposed_comm_ns, idle, (double)r->sync_blocked_ns };
        int y = 36 + i * 34;
        char who[64];
        proc_label(r->rank, r->pid, who, sizeof who); /* "pid N" for a process with no rank */
        fprintf(out, "<text x=\"120\" y=\"%d\" font-size=\"13\" text-anchor=\"end\">%s</text>", y + 13, who);
        double x = 130, scale = (W - 270) / most;
        for (int k = 0; k < 3; k++) {
            double w = part[k] * scale;
            if (w > 0)
                fprintf(out, "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"16\" fill=\"%s\"><title>%s %s: %.2f ms</title></rect>",
                        x, y, w, part_colour[k], who, part_name[k], part[k] / 1e6);
            x += w;
        }
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\">%.1f ms</text>", x + 4, y + 12,
                (part[0] + part[1] + part[2]) / 1e6);
        double w = part[3] * scale;
        if (w > 0)
            fprintf(out, "<rect x=\"130\" y=\"%d\" width=\"%.1f\" height=\"8\" fill=\"%s\"><title>%s host blocked: %.2f ms</title></rect>",
                    y + 18, w, part_colour[3], who, part[3] / 1e6);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\">%.1f ms blocked</text>", 134 + w, y + 26, part[3] / 1e6);
    }
    fputs("</svg>", out);
}

/* 1, 2, 2.5 or 5 times a power of ten, the least at or above x: the
 * steps of an axis a reader can add up */
static double nice_step(double x)
{
    if (!(x > 0))
        return 1;
    double p = pow(10, floor(log10(x)));
    static const double mult[] = { 1, 2, 2.5, 5, 10 };
    for (size_t i = 0; i < sizeof mult / sizeof *mult; i++)
        if (mult[i] * p >= x * (1 - 1e-9))
            return mult[i] * p;
    return 10 * p;
}

/* The y axis of a chart of ms from 0 to top: a labelled tick and a grid
 * line every `tick` ms. */
static void y_axis(FILE *out, int x0, int y0, int pw, double tick, double top)
{
    for (int k = 0; k * tick <= top * (1 + 1e-9); k++) {
        double v = k * tick, y = y0 - 240 * v / top;
        if (k)
            fprintf(out, "<line class=\"grid\" x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#e4e4e4\"/>", x0,
                    y, x0 + pw, y);
        fprintf(out, "<text class=\"yt\" x=\"%d\" y=\"%.1f\" font-size=\"11\" text-anchor=\"end\">%g</text>", x0 - 4,
                y + 4, v);
    }
}

/* The x axis of iterations lo..hi: the axis line, and a labelled tick at
 * lo, hi and each round number between them, about ten in all. */
static void x_axis(FILE *out, int x0, int y0, int pw, int64_t lo, int64_t hi)
{
    double span = hi > lo ? (double)(hi - lo) : 1;
    fprintf(out, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>", x0, y0, x0 + pw, y0);
    int64_t every = (int64_t)nice_step(span / 10);
    every = every < 1 ? 1 : every;
    for (int64_t it = lo; it <= hi; ) {
        double x = x0 + pw * (double)(it - lo) / span;
        fprintf(out, "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#555\"/><text class=\"xt\" x=\"%.1f\""
                     " y=\"%d\" font-size=\"11\" text-anchor=\"middle\">%lld</text>", x, y0, x, y0 + 4, x, y0 + 16,
                (long long)it);
        if (it == hi)
            break;
        int64_t next = (it / every + 1) * every; /* the next round number */
        if (next > hi || hi - next < (every + 1) / 2)
            next = hi; /* too near the last one's label: the last one */
        it = next;
    }
}

static const char *const line_colour[] = { "#3b7dd8", "#e8743b", "#2ca02c", "#d62728", "#8e5bd1", "#8c564b",
                                           "#e377c2", "#7f7f7f", "#bcbd22", "#17becf" };

void html_step_lines(FILE *out, const struct model *m)
{
    struct model_step **steps = calloc(m->nprocs + 1, sizeof *steps);
    size_t *ns = calloc(m->nprocs + 1, sizeof *ns);
    if (!steps || !ns)
        model_out_of_memory();
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    double most = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        ns[pi] = model_steps(&m->procs[pi], &steps[pi]);
        if (ns[pi] > 4096)
            ns[pi] = 4096; /* a chart of 4096 iterations says enough */
        for (size_t k = 0; k < ns[pi]; k++) {
            lo = steps[pi][k].iter < lo ? steps[pi][k].iter : lo;
            hi = steps[pi][k].iter > hi ? steps[pi][k].iter : hi;
            double d = (double)(steps[pi][k].end - steps[pi][k].start);
            most = d > most ? d : most;
        }
    }
    if (lo > hi || most <= 0) {
        fputs("<p class=\"none\">No iterations: name the program's steps with NVTX ranges (\"step 3\", or one name"
              " repeated at the top level) to see their times here.</p>", out);
    } else {
        int h = 320, x0 = 70, y0 = 260, pw = W - 200;
        double span = hi > lo ? (double)(hi - lo) : 1;
        double tick = nice_step(most / 1e6 / 5), top = ceil(most / 1e6 / tick) * tick * 1e6; /* ms */
        most = top; /* the scale's top: a round value at or above the longest step */
        fprintf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"step time per iteration\" data-x0=\"%d\""
                     " data-y0=\"%d\" data-width=\"%d\" data-height=\"240\" data-top-ms=\"%g\">", W, h, x0, y0, pw,
                top / 1e6);
        y_axis(out, x0, y0, pw, tick, top / 1e6);
        x_axis(out, x0, y0, pw, lo, hi);
        fprintf(out, "<line x1=\"%d\" y1=\"20\" x2=\"%d\" y2=\"%d\" stroke=\"#555\"/>", x0, x0, y0);
        fprintf(out, "<text x=\"%d\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\">iteration</text>", x0 + pw / 2,
                y0 + 40);
        fprintf(out, "<text x=\"16\" y=\"%d\" font-size=\"12\" text-anchor=\"middle\" transform=\"rotate(-90 16 %d)\">"
                     "step time (ms)</text>", y0 - 120, y0 - 120);
        for (size_t pi = 0; pi < m->nprocs; pi++) {
            if (!ns[pi])
                continue;
            const char *c = line_colour[pi % 10];
            fprintf(out, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
            for (size_t k = 0; k < ns[pi]; k++)
                fprintf(out, "%.1f,%.1f ", x0 + pw * (double)(steps[pi][k].iter - lo) / span,
                        y0 - 240 * (double)(steps[pi][k].end - steps[pi][k].start) / most);
            char who[64];
            proc_label(m->procs[pi].rank, m->procs[pi].pid, who, sizeof who);
            fprintf(out, "\"><title>%s</title></polyline>", who);
            if (ns[pi] == 1) /* one point: a line of one point draws nothing */
                fprintf(out, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>", (double)x0,
                        y0 - 240 * (double)(steps[pi][0].end - steps[pi][0].start) / most, c);
            if (pi < 24)
                fprintf(out, "<rect x=\"%d\" y=\"%zu\" width=\"12\" height=\"3\" fill=\"%s\"/><text x=\"%d\" y=\"%zu\""
                             " font-size=\"11\">%s</text>", x0 + pw + 20, 24 + pi * 16, c, x0 + pw + 36, 29 + pi * 16,
                        who);
        }
        fputs("</svg>", out);
    }
    for (size_t pi = 0; pi < m->nprocs; pi++)
        free(steps[pi]);
    free(steps);
    free(ns);
}

/* The heatmap's cells: each collective's arrival after the earliest
 * rank's, per rank; an arrival as comm.straggler takes it (coll_arrival:
 * every member's kernel start, else every member's call, aligned), so that
 * the map and the finding agree. */
#define MAP_COLS 240
struct map { const struct model *m; size_t ncols, seen; double *late; int64_t *most; };

static void map_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct map *mp = ctx;
    if (n < 2 || coll_group_unrecorded(mp->m, v, n)) /* as the finding leaves it out */
        return;
    mp->seen++;
    if (mp->ncols == MAP_COLS)
        return; /* the first MAP_COLS collectives of two ranks or more */
    int64_t first = INT64_MAX;
    int gpu = coll_group_on_gpu(v, n);
    for (size_t k = 0; k < n; k++) {
        int64_t a = coll_arrival(mp->m, &v[k], gpu);
        first = a < first ? a : first;
    }
    for (size_t k = 0; k < n; k++) {
        int64_t a = coll_arrival(mp->m, &v[k], gpu) - first;
        mp->late[(size_t)v[k].proc * MAP_COLS + mp->ncols] = (double)a;
        *mp->most = a > *mp->most ? a : *mp->most;
    }
    mp->ncols++;
}

/* The heatmap's colour scale: the cells' colours from on time (white) to
 * the latest arrival (dark red), what each end stands for, and a blank
 * cell's meaning. */
static void lateness_scale(FILE *out, int y, double most_ms)
{
    fprintf(out, "<g class=\"scale\"><text x=\"120\" y=\"%d\" font-size=\"11\">arrived after the first rank:</text>"
                 "<text x=\"330\" y=\"%d\" font-size=\"11\" text-anchor=\"end\">0 ms</text><g class=\"ramp\">",
            y + 10, y + 10);
    for (int k = 0; k < 20; k++) { /* the cells' own colours, in 20 steps (no gradient: nothing a page refers to) */
        double f = k / 19.0;
        fprintf(out, "<rect x=\"%d\" y=\"%d\" width=\"10.05\" height=\"12\" fill=\"rgb(%d,%d,%d)\"/>", 335 + k * 10, y,
                255 - (int)(f * 75), 245 - (int)(f * 215), 240 - (int)(f * 210));
    }
    fprintf(out, "</g><text x=\"540\" y=\"%d\" font-size=\"11\">%.2f ms</text>"
                 "<rect x=\"640\" y=\"%d\" width=\"12\" height=\"12\" fill=\"#fff\" stroke=\"#ccc\"/>"
                 "<text x=\"656\" y=\"%d\" font-size=\"11\">not in that collective</text></g>",
            y + 10, most_ms, y, y + 10);
}

void html_lateness_map(FILE *out, const struct model *m, struct coll_spill *spill)
{
    int64_t most = 0;
    struct map mp = { m, 0, 0, calloc((m->nprocs + 1) * MAP_COLS, sizeof(double)), &most };
    if (!mp.late)
        model_out_of_memory();
    for (size_t i = 0; i < (m->nprocs + 1) * MAP_COLS; i++)
        mp.late[i] = -1; /* not in that collective */
    coll_spill_groups(spill, map_group, &mp);
    if (!mp.ncols) {
        fputs("<p class=\"none\">No collective that two ranks or more took part in.</p>", out);
        free(mp.late);
        return;
    }
    double cw = (double)(W - 140) / (double)mp.ncols;
    int ch = m->nprocs > 32 ? 8 : 20, h = 30 + (int)m->nprocs * ch + 70;
    fprintf(out, "<svg viewBox=\"0 0 %d %d\" role=\"img\" aria-label=\"arrival lateness\">", W, h);
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        int y = 20 + (int)pi * ch;
        if (ch >= 12 || pi % 4 == 0)
            fprintf(out, "<text x=\"110\" y=\"%d\" font-size=\"%d\" text-anchor=\"end\">rank %d</text>", y + ch - 5,
                    ch >= 12 ? 12 : 8, m->procs[pi].rank);
        for (size_t c = 0; c < mp.ncols; c++) {
            double a = mp.late[pi * MAP_COLS + c];
            if (a < 0) {
                fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"#fff\" stroke=\"#eee\"/>",
                        120 + c * cw, y, cw, ch);
                continue;
            }
            double f = most > 0 ? a / (double)most : 0; /* white (on time) to dark red (latest) */
            fprintf(out, "<rect x=\"%.2f\" y=\"%d\" width=\"%.2f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\"><title>rank %d,"
                         " collective %zu: %.3f ms after the first rank</title></rect>",
                    120 + c * cw, y, cw + 0.05, ch, 255 - (int)(f * 75), 245 - (int)(f * 215), 240 - (int)(f * 210),
                    m->procs[pi].rank, c + 1, a / 1e6);
        }
    }
    int y = 30 + (int)m->nprocs * ch;
    fprintf(out, "<text x=\"120\" y=\"%d\" font-size=\"11\">collectives in order (%zu of %zu shown)</text>", y,
            mp.ncols, mp.seen);
    lateness_scale(out, y + 14, (double)most / 1e6);
    fputs("</svg>", out);
    free(mp.late);
}

void html_cost_bar(FILE *out, int64_t cost, int64_t whole, const char *what)
{
    double f = whole > 0 ? (double)cost / (double)whole : 0;
    f = f > 1 ? 1 : f; /* a sum over ranks is against their summed time: never over, but a bar cannot say more */
    fprintf(out, "<svg class=\"cost\" viewBox=\"0 0 200 14\" role=\"img\" aria-label=\"cost\"><title>%.1f%% of ",
            100 * f);
    html_text(out, what);
    fprintf(out, "</title><rect x=\"0\" y=\"1\" width=\"200\" height=\"12\" fill=\"#eee\"/><rect x=\"0\" y=\"1\""
                 " width=\"%.1f\" height=\"12\" fill=\"#d62728\"/></svg>", f > 0 ? (f * 200 < 1 ? 1 : f * 200) : 0);
}
