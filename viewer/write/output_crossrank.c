/* output_crossrank.c: the clock alignment and point-to-point sections of
 * the text and JSON reports (output_crossrank.h). */
#include "viewer/write/output_crossrank.h"
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/clock_align.h"
#include "viewer/write/json.h"
#include "viewer/write/text_wrap.h"
#include "common/term_text.h"

#include <string.h>

static void emit(char *buf, size_t len, int first, int last)
{
    size_t l = strlen(buf);
    if (last > first)
        snprintf(buf + l, len - l, "%s%d-%d", l ? "," : "", first, last);
    else
        snprintf(buf + l, len - l, "%s%d", l ? "," : "", first);
}

/* Host h's name, with the start of its boot id where another host has the
 * same name (two machines of one name: model_same_host). */
static const char *host_label(const struct clock_fit *fit, size_t h, char *buf, size_t len)
{
    const struct host_clock *hc = &fit->hosts[h];
    for (size_t k = 0; k < fit->nhosts; k++)
        if (k != h && !strcmp(fit->hosts[k].host, hc->host) && hc->boot_id && hc->boot_id[0]) {
            snprintf(buf, len, "%s (boot %.8s)", hc->host, hc->boot_id);
            return buf;
        }
    return hc->host;
}

/* The ranks of host h, "0,2-3" style (processes come sorted by rank). */
static void host_ranks(const struct model *m, const struct clock_fit *fit, size_t h, char *buf, size_t len)
{
    buf[0] = 0;
    int first = -1, prev = -1, have = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        int r = m->procs[i].rank;
        if (r < 0 || !model_same_host(&m->procs[i], fit->hosts[h].proc))
            continue;
        if (have && (r == prev || r == prev + 1)) {
            prev = r;
            continue;
        }
        if (have)
            emit(buf, len, first, prev);
        first = prev = r;
        have = 1;
    }
    if (have)
        emit(buf, len, first, prev);
    else
        snprintf(buf, len, "-");
}

void output_clock_text(FILE *out, const struct model *m)
{
    const struct clock_fit *fit = m->clock;
    if (!fit || fit->nhosts < 2)
        return;
    char t[512], ranks[64], label[200];
    if (!fit->across) {
        text_para(out, "\nnote: ", 6, "the processes are on %zu hosts, but no collective ran on two of them: the hosts"
                  " are aligned only by their realtime clocks at start (error unknown: NTP keeps it to a"
                  " millisecond or so)", fit->nhosts);
        return;
    }
    fprintf(out, "\nclock alignment (hosts fitted to the ends of %lld collectives across hosts; residual up to %.3f ms):\n",
            (long long)fit->across, (double)fit->residual_ns / 1e6);
    fprintf(out, "%-24s %-12s %11s %10s %12s %9s\n", "host", "ranks", "offset ms", "drift ppm", "residual ms", "samples");
    int outliers = 0;
    for (size_t h = 0; h < fit->nhosts; h++) {
        const struct host_clock *hc = &fit->hosts[h];
        host_ranks(m, fit, h, ranks, sizeof ranks);
        fprintf(out, "%s %-12s ", term_cell(host_label(fit, h, label, sizeof label), 24, TERM_CUT | TERM_PAD, t, sizeof t),
                ranks);
        if (hc->reference)
            fprintf(out, "%11s\n", "(reference)");
        else if (!hc->aligned && hc->shared) /* (each within 100 columns beside a host's 24) */
            fprintf(out, "%11s  13+ days off (a damaged offset?): realtime clock only\n", "-");
        else if (!hc->aligned)
            fprintf(out, "%11s  no collective shared: realtime clock only\n", "-");
        else {
            fprintf(out, "%11.3f %10.1f %12.3f %9lld%s\n", (double)hc->offset_ns / 1e6, hc->drift_ppm,
                    (double)hc->residual_ns / 1e6, (long long)hc->used, hc->outliers ? " *" : "");
            outliers |= hc->outliers != 0;
        }
    }
    if (outliers) /* under the table: beside the samples it took a row past 100 columns */
        fputs("(*: outliers left out of the fit)\n", out);
}

void output_clock_json(FILE *out, const struct model *m)
{
    const struct clock_fit *fit = m->clock;
    size_t nh = fit ? fit->nhosts : 0;
    fprintf(out, ",\n\"clock_alignment\": {\"hosts_total\": %zu, \"collectives_across_hosts\": %lld, \"residual_ns\": %lld,"
                 " \"hosts\": [", nh, fit ? (long long)fit->across : 0LL, fit ? (long long)fit->residual_ns : 0LL);
    for (size_t h = 0; h < nh; h++) {
        const struct host_clock *hc = &fit->hosts[h];
        char ranks[256];
        host_ranks(m, fit, h, ranks, sizeof ranks);
        fprintf(out, "%s\n  {\"host\": ", h ? "," : "");
        json_string(out, hc->host);
        fputs(", \"boot_id\": ", out);
        json_string(out, hc->boot_id ? hc->boot_id : "");
        fputs(", \"ranks\": ", out);
        json_string(out, ranks);
        fprintf(out, ", \"reference\": %s, \"aligned\": %s, \"shared_collectives\": %lld, \"samples\": %lld,"
                     " \"outliers\": %lld, \"offset_ns\": %lld, \"drift_ppm\": %.3f, \"residual_ns\": %lld,"
                     " \"max_residual_ns\": %lld}",
                hc->reference ? "true" : "false", hc->aligned || hc->reference ? "true" : "false",
                (long long)hc->shared, (long long)hc->used, (long long)hc->outliers, (long long)hc->offset_ns,
                hc->drift_ppm, (long long)hc->residual_ns, (long long)hc->max_residual_ns);
    }
    fputs(nh ? "\n]}" : "]}", out);
}

static double ms(int64_t ns) { return (double)ns / 1e6; }

static int rank_of(const struct model *m, int proc, int comm_rank)
{
    return proc >= 0 ? m->procs[proc].rank : comm_rank;
}

void output_p2p_text(FILE *out, const struct model *m)
{
    const struct p2p_run *r = m->p2p;
    if (!r || !r->npairs)
        return;
    fprintf(out, "\n%-14s %8s %14s %10s %9s %10s %10s\n", "p2p from->to", "matched", "bytes", "time ms", "GB/s",
            "mismatch", "unmatched");
    for (size_t i = 0; i < r->npairs; i++) {
        const struct p2p_pair *p = &r->pairs[i];
        char pair[64];
        snprintf(pair, sizeof pair, "%d->%d", rank_of(m, p->src_proc, p->src), rank_of(m, p->dst_proc, p->dst));
        fprintf(out, "%-14s %8lld %14lld %10.2f %9.2f %10lld %10lld\n", pair, (long long)p->matched,
                (long long)p->bytes, ms(p->time_ns), p->time_ns > 0 ? (double)p->bytes / (double)p->time_ns : 0.0,
                (long long)p->mismatched,
                (long long)(p->nsends - p->sends_head + p->nrecvs - p->recvs_head) + p->sends_over + p->recvs_over);
    }
    fprintf(out, "\n%-5s %8s %12s %10s %8s\n", "stage", "p2p ops", "p2p GPU ms", "bubble ms", "bubble%");
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        const struct p2p_stage *st = &r->stages[pi];
        if (!st->ops)
            continue;
        int64_t wall = m->procs[pi].end - m->procs[pi].start;
        fprintf(out, "%-5d %8lld %12.2f %10.2f %8.1f\n", m->procs[pi].rank, (long long)st->ops, ms(st->gpu_ns),
                ms(st->bubble_ns), wall > 0 ? 100.0 * (double)st->bubble_ns / (double)wall : 0.0);
    }
    fputs("(bubble: p2p GPU time no compute on the device hid)\n", out);
}

void output_p2p_json(FILE *out, const struct model *m)
{
    const struct p2p_run *r = m->p2p;
    size_t np = r ? r->npairs : 0;
    fputs(",\n\"p2p\": {\"pairs\": [", out);
    for (size_t i = 0; i < np; i++) {
        const struct p2p_pair *p = &r->pairs[i];
        fprintf(out, "%s\n  {\"comm_id\": %lld, \"from_rank\": %d, \"to_rank\": %d, \"matched\": %lld, \"bytes\": %lld,"
                     " \"time_ns\": %lld, \"gbs\": %.3f, \"mismatched\": %lld, \"unmatched_sends\": %lld,"
                     " \"unmatched_receives\": %lld}",
                i ? "," : "", (long long)p->comm, rank_of(m, p->src_proc, p->src), rank_of(m, p->dst_proc, p->dst),
                (long long)p->matched, (long long)p->bytes, (long long)p->time_ns,
                p->time_ns > 0 ? (double)p->bytes / (double)p->time_ns : 0.0, (long long)p->mismatched,
                (long long)(p->nsends - p->sends_head) + p->sends_over,
                (long long)(p->nrecvs - p->recvs_head) + p->recvs_over);
    }
    fputs(np ? "\n], \"stages\": [" : "], \"stages\": [", out);
    int first = 1;
    for (size_t pi = 0; r && pi < m->nprocs; pi++) {
        const struct p2p_stage *st = &r->stages[pi];
        if (!st->ops)
            continue;
        int64_t wall = m->procs[pi].end - m->procs[pi].start;
        fprintf(out, "%s\n  {\"rank\": %d, \"ops\": %lld, \"gpu_ns\": %lld, \"bubble_ns\": %lld, \"wall_ns\": %lld}",
                first ? "" : ",", m->procs[pi].rank, (long long)st->ops, (long long)st->gpu_ns,
                (long long)st->bubble_ns, (long long)wall);
        first = 0;
    }
    fputs(first ? "]}" : "\n]}", out);
}
