/* ledger_out.c: each rank's time accounted for, written (ledger_out.h). */
#include "viewer/write/ledger_out.h"
#include "viewer/write/output.h"
#include "viewer/write/finding_out.h"
#include "viewer/write/html.h"
#include "viewer/write/json.h"
#include "common/term_text.h"
#include "viewer/write/text_wrap.h"

#include <stdlib.h>
#include <string.h>

/* The causes the text and the page list, over all ranks. */
#define CAUSES_SHOWN 8

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

const struct finding *ledger_row_finding(const struct findings *fs, const struct ledger_row *r)
{
    if (r->kind < 0)
        return NULL;
    for (size_t i = 0; i < fs->n; i++)
        if ((int)fs->v[i].kind == r->kind && fs->v[i].proc == r->proc && fs->v[i].callsite_id == r->site)
            return &fs->v[i];
    return NULL;
}

/* What a row's time was charged to, in words: "sync.scalar_read at
 * train.py:88", "comm.straggler of rank 1", "gpu.idle in forward". */
static const char *cause_text(const struct model *m, const struct findings *fs, const struct ledger_row *r, char *buf,
                              size_t len)
{
    const struct finding *f = ledger_row_finding(fs, r);
    if (!f) {
        snprintf(buf, len, "%s", r->bucket == LB_IDLE_LAUNCH    ? "gaps shorter than --idle-gap-us"
                                 : r->bucket == LB_IDLE_BLOCKED ? "the host blocked in a call no finding names"
                                                                : "no finding");
        return buf;
    }
    char range[FINDING_RANGE_LEN];
    finding_range(m, f, range, sizeof range);
    int across = f->kind == F_COMM_STRAGGLER || f->kind == F_COMM_HANG || f->kind == F_COMM_MISMATCH;
    size_t l = (size_t)snprintf(buf, len, "%s", finding_names[f->kind]);
    if (across && f->rank >= 0 && l < len)
        l += (size_t)snprintf(buf + l, len - l, " of rank %d", f->rank);
    else if (f->callsite_id > 0 && l < len)
        l += (size_t)snprintf(buf + l, len - l, " at %s", f->callsite);
    if (*range && l < len)
        snprintf(buf + l, len - l, " in %.1000s", range);
    else if (!across && f->callsite_id <= 0 && f->callsite[0] && l < len)
        snprintf(buf + l, len - l, " %s", f->callsite); /* (whole process), (GPU 1) */
    return buf;
}

/* A cause over all ranks: a bucket, what it was charged to, in words. */
struct cause { int bucket; char *text; int64_t ns; int ranks; };

static int cmp_cause(const void *x, const void *y)
{
    const struct cause *a = x, *b = y;
    if (a->ns != b->ns)
        return a->ns > b->ns ? -1 : 1;
    if (a->bucket != b->bucket)
        return a->bucket < b->bucket ? -1 : 1;
    return strcmp(a->text, b->text);
}

/* Every rank's rows summed by (bucket, cause in words), the largest first;
 * *n set.  The same finding at the same place on several ranks is one
 * cause, as it is one entry of the text's findings. */
/* Adds ns to the cause (bucket, text), made if new. */
static void add_cause(struct cause **v, size_t *nv, size_t *cap, int bucket, const char *text, int64_t ns)
{
    size_t k;
    for (k = 0; k < *nv && !((*v)[k].bucket == bucket && !strcmp((*v)[k].text, text)); k++)
        ;
    if (k == *nv) {
        if (*nv == *cap) {
            *cap = *cap ? *cap * 2 : 16;
            if (!(*v = realloc(*v, *cap * sizeof **v)))
                model_out_of_memory();
        }
        (*v)[(*nv)++] = (struct cause){ bucket, strdup(text), 0, 0 };
        if (!(*v)[k].text)
            model_out_of_memory();
    }
    model_add(&(*v)[k].ns, ns);
    (*v)[k].ranks++;
}

static struct cause *causes_of(const struct model *m, const struct findings *fs, size_t *n)
{
    struct cause *v = NULL;
    size_t nv = 0, cap = 0;
    char text[4096];
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        const struct ledger *l = ledger_of(fs, pi);
        for (size_t r = 0; l && r < l->nrows; r++)
            add_cause(&v, &nv, &cap, l->rows[r].bucket, cause_text(m, fs, &l->rows[r], text, sizeof text),
                      l->rows[r].ns);
        /* the short gaps no gpu.launch_bound was made of: a cause of their own */
        int64_t launch = l ? l->ns[LB_IDLE_LAUNCH] : 0;
        for (size_t r = 0; l && r < l->nrows; r++)
            if (l->rows[r].bucket == LB_IDLE_LAUNCH)
                launch -= l->rows[r].ns;
        if (launch > 0) {
            struct ledger_row row = { LB_IDLE_LAUNCH, -1, -1, 0, launch };
            add_cause(&v, &nv, &cap, LB_IDLE_LAUNCH, cause_text(m, fs, &row, text, sizeof text), row.ns);
        }
    }
    if (nv)
        qsort(v, nv, sizeof *v, cmp_cause);
    *n = nv;
    return v;
}

static void causes_free(struct cause *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(v[i].text);
    free(v);
}

/* The columns of the text's table: the buckets within the GPU's span. */
static const struct { int bucket; const char *head; } columns[] = {
    { LB_COMPUTE, "compute" }, { LB_COMM_HIDDEN, "c.hid" }, { LB_COMM_WAIT, "c.wait" },
    { LB_COMM_TRANSFER, "c.xfer" }, { LB_COPY, "copy" }, { LB_IDLE_BLOCKED, "i.sync" },
    { LB_IDLE_HOST, "i.host" }, { LB_IDLE_PEER, "i.peer" }, { LB_IDLE_LAUNCH, "i.short" },
    { LB_IDLE_OTHER, "i.other" },
};
#define NCOLUMNS (sizeof columns / sizeof *columns)

/* A rank's (or one of its GPUs') buckets as the table's columns, to the
 * row's end: the text's and the page's. */
static void row_text(FILE *out, const int64_t *ns)
{
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(out, " %7.1f", ms(ns[columns[c].bucket]));
    fputc('\n', out);
}

static void row_html(FILE *out, const int64_t *ns, int unrecorded)
{
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(out, "<td class=n>%.2f</td>", ms(ns[columns[c].bucket]));
    if (unrecorded)
        fprintf(out, "<td class=n>%.2f</td>", ms(ns[LB_NOT_RECORDED]));
    fputs("</tr>", out);
}

/* How many buckets the outputs list: not_recorded, the last, only where a
 * rank has some (a run the tracer recorded whole lists what it always did). */
static int buckets_listed(const struct summary *s, const struct findings *fs)
{
    for (size_t i = 0; i < s->nranks; i++) {
        const struct ledger *l = ledger_of(fs, (size_t)s->ranks[i].proc);
        if (l && l->ns[LB_NOT_RECORDED] > 0)
            return LB_COUNT;
    }
    return LB_COUNT - 1;
}

static int cmp_ns(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* Per rank with iterations: their median time, and the slowest with its
 * largest waste bucket (the JSON has every iteration's buckets). */
static void steps_text(FILE *out, const struct summary *s, const struct findings *fs)
{
    for (size_t i = 0; i < s->nranks; i++) {
        const struct ledger *l = ledger_of(fs, (size_t)s->ranks[i].proc);
        if (!l || !l->nsteps)
            continue;
        int64_t *len = malloc(l->nsteps * sizeof *len);
        if (!len)
            model_out_of_memory();
        size_t slow = 0;
        for (size_t k = 0; k < l->nsteps; k++) {
            len[k] = l->step_len[k]; /* its buckets' sum (tests/e2e/ledger_sum.py) */
            if (len[k] > len[slow])
                slow = k;
        }
        int64_t slow_ns = len[slow], gpus = (int64_t)ledger_ngpus(l);
        int top = -1;
        for (int b = 0; b < LB_COUNT; b++)
            if (ledger_waste(b) && (top < 0 || l->step_ns[slow][b] > l->step_ns[slow][top]))
                top = b;
        qsort(len, l->nsteps, sizeof *len, cmp_ns);
        char who[64], of[48] = "";
        if (gpus > 1) /* the buckets are its GPUs' time, summed; a step's length is the clock's */
            snprintf(of, sizeof of, " (%lld GPUs)", (long long)gpus);
        /* wrapped: a long bucket's name and wide figures passed 100 columns */
        text_para(out, "  ", 4, "%s: %zu iteration%s, median %.1f ms; slowest #%lld %.1f ms, most lost%s: %s %.1f ms",
                  proc_label(s->ranks[i].rank, s->ranks[i].pid, who, sizeof who), l->nsteps, l->nsteps == 1 ? "" : "s",
                  ms(len[l->nsteps / 2] / gpus), (long long)l->steps[slow].iter, ms(slow_ns / gpus), of,
                  ledger_bucket_names[top], ms(l->step_ns[slow][top]));
        free(len);
    }
}

void ledger_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs)
{
    int any = 0;
    for (size_t i = 0; i < s->nranks && !any; i++)
        any = ledger_of(fs, (size_t)s->ranks[i].proc) != NULL;
    if (!any)
        return;
    fprintf(out, "\nwhere each rank's GPU time went, ms (c. communication: hidden, waiting for a late peer, transfer;"
                 "\ni. GPU idle: host blocked in a sync or copy, host busy elsewhere, waiting for a peer, gaps shorter"
                 "\nthan --idle-gap-us, other; the columns add up to the span: docs/report.md, \"The ledger\")\n");
    fprintf(out, "%-5s %8s", "rank", "span");
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(out, " %7s", columns[c].head);
    fputc('\n', out);
    int multi = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct ledger *l = ledger_of(fs, (size_t)s->ranks[i].proc);
        if (!l)
            continue;
        char rc[16];
        fprintf(out, "%-5s %8.1f", rank_cell(s->ranks[i].rank, rc, sizeof rc), ms(l->span_ns));
        row_text(out, l->ns);
        const struct ledger *g;
        for (size_t k = 0; ledger_ngpus(l) > 1 && (g = ledger_gpu(l, k)); k++) {
            char gpu[16];
            int w = snprintf(gpu, sizeof gpu, "GPU %d", g->device); /* under the rank's 14 columns */
            fprintf(out, "  %s %*.1f", gpu, w < 10 ? 11 - w : 1, ms(g->span_ns));
            row_text(out, g->ns);
        }
        multi |= ledger_ngpus(l) > 1;
    }
    if (multi)
        fprintf(out, "(a rank that drives several GPUs: each GPU's time, the rank's row their sum; idle.peer holds a"
                     "\n GPU's idle while another of them worked)\n");
    if (buckets_listed(s, fs) == LB_COUNT) { /* beside the columns, within the span */
        fprintf(out, "not recorded, ms (the program's own profiler held CUPTI: what the GPU did then is its"
                     " profiler's;\n it and the columns add up to the span):");
        for (size_t i = 0; i < s->nranks; i++) {
            const struct ledger *l = ledger_of(fs, (size_t)s->ranks[i].proc);
            char rc[16];
            if (l && l->ns[LB_NOT_RECORDED] > 0)
                fprintf(out, " %s %.1f", rank_cell(s->ranks[i].rank, rc, sizeof rc), ms(l->ns[LB_NOT_RECORDED]));
        }
        fputc('\n', out);
    }
    steps_text(out, s, fs);
    size_t n;
    struct cause *v = causes_of(m, fs, &n);
    int64_t lost = 0;
    for (size_t i = 0; i < n; i++)
        if (ledger_waste(v[i].bucket))
            model_add(&lost, v[i].ns);
    if (m->nprocs > 1)
        fprintf(out, "\nGPU time lost, by cause (all ranks; %.1f ms in all):\n", ms(lost));
    else
        fprintf(out, "\nGPU time lost, by cause (%.1f ms in all):\n", ms(lost));
    char t[4096];
    for (size_t i = 0, shown = 0; i < n && shown < CAUSES_SHOWN; i++) {
        if (!ledger_waste(v[i].bucket) || v[i].ns <= 0)
            continue;
        shown++;
        /* cut to fit 100 columns: the findings below give each call site whole */
        fprintf(out, "  %-18s %9.2f ms %5.1f%%  %s\n", ledger_bucket_names[v[i].bucket], ms(v[i].ns),
                lost > 0 ? 100.0 * (double)v[i].ns / (double)lost : 0.0,
                term_cell(v[i].text, 56, TERM_CUT | TERM_ELLIPSIS, t, sizeof t));
    }
    causes_free(v, n);
}

void ledger_json(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs)
{
    fprintf(out, ",\n\"ledger\": [");
    int first = 1, listed = buckets_listed(s, fs);
    char text[4096];
    for (size_t i = 0; i < s->nranks; i++) {
        const struct ledger *l = ledger_of(fs, (size_t)s->ranks[i].proc);
        if (!l)
            continue;
        fprintf(out, "%s\n  {\"rank\": %d, \"pid\": %d, \"life_ns\": %lld, \"gpu_span_ns\": %lld, \"waste_ns\": %lld,"
                     " \"found_ns\": %lld, \"buckets\": [",
                first ? "" : ",", s->ranks[i].rank, s->ranks[i].pid, (long long)l->life_ns, (long long)l->span_ns,
                (long long)ledger_waste_ns(l), (long long)ledger_found_ns(l));
        first = 0;
        for (int b = 0; b < listed; b++)
            fprintf(out, "%s{\"bucket\": \"%s\", \"ns\": %lld}", b ? ", " : "", ledger_bucket_names[b],
                    (long long)l->ns[b]);
        fprintf(out, "], \"causes\": [");
        for (size_t r = 0; r < l->nrows; r++) {
            const struct ledger_row *row = &l->rows[r];
            const struct finding *f = ledger_row_finding(fs, row);
            fprintf(out, "%s{\"bucket\": \"%s\", \"ns\": %lld, \"finding\": ", r ? ", " : "",
                    ledger_bucket_names[row->bucket], (long long)row->ns);
            if (f) {
                json_string(out, finding_names[f->kind]);
                fprintf(out, ", \"finding_rank\": %d, \"callsite\": ", f->rank);
                json_string(out, f->callsite);
                char range[FINDING_RANGE_LEN];
                if (*finding_range(m, f, range, sizeof range)) {
                    fprintf(out, ", \"range\": ");
                    json_string(out, range);
                }
            } else {
                fputs("null", out);
            }
            fputs(", \"cause\": ", out);
            json_string(out, cause_text(m, fs, row, text, sizeof text));
            fputc('}', out);
        }
        /* a rank that drives several GPUs: each one's ledger, the rank's their sum */
        const struct ledger *g;
        for (size_t k = 0; ledger_ngpus(l) > 1 && (g = ledger_gpu(l, k)); k++) {
            fprintf(out, "%s{\"device\": %d, \"life_ns\": %lld, \"gpu_span_ns\": %lld, \"buckets\": [",
                    k ? ", " : "], \"gpus\": [", g->device, (long long)g->life_ns, (long long)g->span_ns);
            for (int b = 0; b < listed; b++)
                fprintf(out, "%s{\"bucket\": \"%s\", \"ns\": %lld}", b ? ", " : "", ledger_bucket_names[b],
                        (long long)g->ns[b]);
            fputs("]}", out);
        }
        /* per iteration: its number, its time within the life, its buckets
         * in the order of "buckets" */
        fputs("], \"steps\": [", out);
        for (size_t k = 0; k < l->nsteps; k++) {
            fprintf(out, "%s{\"iteration\": %lld, \"ns\": %lld, \"buckets\": [", k ? ", " : "",
                    (long long)l->steps[k].iter, (long long)l->step_len[k]);
            for (int b = 0; b < listed; b++)
                fprintf(out, "%s%lld", b ? ", " : "", (long long)l->step_ns[k][b]);
            fputs("]}", out);
        }
        fputs("]}", out);
    }
    fprintf(out, "\n]");
}

void ledger_html(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs)
{
    int any = 0;
    for (size_t i = 0; i < s->nranks && !any; i++)
        any = ledger_of(fs, (size_t)s->ranks[i].proc) != NULL;
    if (!any)
        return;
    fputs("<h2>The ledger: every millisecond of each rank</h2><p class=\"sub\">Each rank's GPU span partitioned:"
          " what the GPU did, and why it idled; the columns add up to the span (docs/report.md, \"The"
          " ledger\").</p><table id=\"ledger\"><tr><th>rank</th><th>span ms</th>", out);
    int unrecorded = buckets_listed(s, fs) == LB_COUNT;
    for (size_t c = 0; c < NCOLUMNS; c++)
        fprintf(out, "<th>%s</th>", ledger_bucket_names[columns[c].bucket]);
    if (unrecorded)
        fprintf(out, "<th>%s</th>", ledger_bucket_names[LB_NOT_RECORDED]);
    fputs("</tr>", out);
    for (size_t i = 0; i < s->nranks; i++) {
        const struct ledger *l = ledger_of(fs, (size_t)s->ranks[i].proc);
        if (!l)
            continue;
        char rc[16];
        fprintf(out, "<tr><td>%s</td><td class=n>%.2f</td>", rank_cell(s->ranks[i].rank, rc, sizeof rc), ms(l->span_ns));
        row_html(out, l->ns, unrecorded);
        const struct ledger *g;
        for (size_t k = 0; ledger_ngpus(l) > 1 && (g = ledger_gpu(l, k)); k++) {
            fprintf(out, "<tr><td>%s GPU %d</td><td class=n>%.2f</td>", rc, g->device, ms(g->span_ns));
            row_html(out, g->ns, unrecorded);
        }
    }
    fputs("</table><h3>GPU time lost, by cause (all ranks)</h3><table id=\"causes\"><tr><th>bucket</th>"
          "<th>ms</th><th>charged to</th></tr>", out);
    size_t n;
    struct cause *v = causes_of(m, fs, &n);
    for (size_t i = 0, shown = 0; i < n && shown < CAUSES_SHOWN; i++) {
        if (!ledger_waste(v[i].bucket) || v[i].ns <= 0)
            continue;
        shown++;
        fprintf(out, "<tr><td>%s</td><td class=n>%.2f</td><td>", ledger_bucket_names[v[i].bucket], ms(v[i].ns));
        html_text(out, v[i].text);
        fputs("</td></tr>", out);
    }
    fputs("</table>", out);
    causes_free(v, n);
}
