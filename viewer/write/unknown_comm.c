/* unknown_comm.c: see unknown_comm.h.  A collective on a communicator the
 * tracer never saw made (one made through an entry point it does not
 * wrap, or before it was loaded) has no communicator id, rank or sequence:
 * the analyses that match collectives across ranks skip it, and the
 * report must say so rather than be silent. */
#include "viewer/write/unknown_comm.h"
#include "viewer/write/text_wrap.h"

/* What cannot run on such collectives: every analysis that matches a
 * collective across ranks by (communicator, sequence). */
static const char *const skipped[] = { "comm.straggler", "comm.mismatch", "comm.hang" };
#define NSKIPPED (sizeof skipped / sizeof *skipped)

static int64_t total(const struct model *m, int *ranks)
{
    int64_t n = 0;
    *ranks = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        n += m->procs[i].unknown_comm_colls;
        *ranks += m->procs[i].unknown_comm_colls > 0;
    }
    return n;
}

void unknown_comm_text(FILE *out, const struct model *m)
{
    int ranks;
    int64_t n = total(m, &ranks);
    if (!n)
        return;
    char list[512] = "";
    size_t at = 0;
    int shown = 0;
    for (size_t i = 0; i < m->nprocs && at < sizeof list; i++) {
        const struct proc *p = &m->procs[i];
        if (!p->unknown_comm_colls)
            continue;
        if (shown == 8) { /* the JSON lists them all */
            at += (size_t)snprintf(list + at, sizeof list - at, ", ...");
            break;
        }
        at += (size_t)snprintf(list + at, sizeof list - at, "%s%d (%lld)", shown ? ", " : "", p->rank,
                               (long long)p->unknown_comm_colls);
        shown++;
    }
    fprintf(out, "note: %lld collective(s) on %d rank(s) used a communicator the tracer did not see made,\n",
            (long long)n, ranks);
    /* the list wrapped: 8 ranks of large numbers pass 100 columns */
    text_para(out, "      ", 6, "so have no communicator id or sequence: rank (count) %s;", list);
    fprintf(out, "      %s, %s and %s could not run on them\n", skipped[0], skipped[1], skipped[2]);
}

void unknown_comm_json(FILE *out, const struct model *m)
{
    int ranks;
    int64_t n = total(m, &ranks);
    fprintf(out, ",\n\"unknown_comm\": {\"collectives\": %lld, \"ranks\": [", (long long)n);
    int first = 1;
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        if (!p->unknown_comm_colls)
            continue;
        fprintf(out, "%s{\"rank\": %d, \"pid\": %d, \"collectives\": %lld}", first ? "" : ", ", p->rank, p->pid,
                (long long)p->unknown_comm_colls);
        first = 0;
    }
    fprintf(out, "], \"analyses_skipped\": [");
    for (size_t k = 0; n && k < NSKIPPED; k++)
        fprintf(out, "%s\"%s\"", k ? ", " : "", skipped[k]);
    fprintf(out, "]}");
}
