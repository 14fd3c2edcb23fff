/* charges_out.c: what the findings account for (attribution.h), in the
 * text report (per rank, the time its findings were charged) and in JSON
 * (--charges: the intervals given to each finding). */
#include "viewer/write/charges_out.h"
#include "viewer/write/output.h"
#include "viewer/write/json.h"

#include <limits.h>

void rank_list(const int *rv, size_t n, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = 0;
    for (size_t a = 0; a < n && l + 24 < len; ) {
        size_t b = a;
        while (b + 1 < n && rv[b] < INT_MAX && rv[b + 1] == rv[b] + 1) /* a rank is the file's: any int */
            b++;
        if (b > a)
            l += (size_t)snprintf(buf + l, len - l, "%s%d-%d", l ? "," : "", rv[a], rv[b]);
        else
            l += (size_t)snprintf(buf + l, len - l, "%s%d", l ? "," : "", rv[a]);
        a = b + 1;
        if (a < n && l + 24 >= len)
            snprintf(buf + l, len - l, ",...");
    }
}

void charges_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs)
{
    if (!fs->n || !fs->charges.by_proc)
        return;
    fprintf(out, "\nfindings account for, of each rank's GPU time lost (idle, or communication not overlapped:\n"
                 "the ledger; of its wall time where it has no GPU records):\n");
    int col = 0;
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_summary *r = &s->ranks[i];
        if ((size_t)r->proc >= fs->charges.nprocs)
            continue;
        const struct ledger *l = ledger_of(fs, (size_t)r->proc);
        int64_t got = l ? ledger_found_ns(l) : fs->charges.by_proc[r->proc], of = l ? ledger_waste_ns(l) : r->wall_ns;
        char cell[96], who[64];
        int n = snprintf(cell, sizeof cell, "%s: %.1f of %.1f ms (%.0f%%)", proc_label(r->rank, r->pid, who, sizeof who),
                         (double)got / 1e6,
                         (double)of / 1e6, of > 0 ? 100.0 * (double)got / (double)of : 0.0);
        if (col && col + n + 2 > 96) {
            fputc('\n', out);
            col = 0;
        }
        fprintf(out, "%s%s", col ? "; " : "  ", cell);
        col += n + 2;
    }
    fputc('\n', out);
    (void)m;
}

void charges_json_rank(FILE *out, const struct findings *fs, int proc)
{
    int64_t got = fs->charges.by_proc && proc >= 0 && (size_t)proc < fs->charges.nprocs ? fs->charges.by_proc[proc] : 0;
    fprintf(out, ", \"findings_ns\": %lld", (long long)got);
}

void charges_json_finding(FILE *out, const struct model *m, const struct findings *fs, const struct finding *f)
{
    if (!fs->show_charges)
        return;
    /* [rank, start, end] in ns since the run's start, aligned as the ranks
     * are; of a process that drives several GPUs, a piece of one GPU's
     * time [rank, start, end, device] */
    fprintf(out, ", \"charged\": [");
    int first = 1;
    for (size_t i = charges_next(fs, f, 0); i < fs->charges.ngiven; i = charges_next(fs, f, i + 1)) {
        const struct charge *c = &fs->charges.given[i];
        const struct proc *p = &m->procs[c->tl];
        const struct ledger *l = ledger_of(fs, (size_t)c->tl);
        int dev = l && ledger_ngpus(l) > 1 ? charge_device(c) : -1;
        fprintf(out, "%s[%d, %lld, %lld", first ? "" : ", ", p->rank, (long long)model_aligned(m, p, c->a),
                (long long)model_aligned(m, p, c->b));
        if (dev >= 0)
            fprintf(out, ", %d", dev);
        fputc(']', out);
        first = 0;
    }
    fputc(']', out);
}
