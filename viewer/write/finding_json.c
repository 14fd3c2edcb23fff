/* finding_json.c: a finding's facts (findings.h, struct finding_facts) as
 * JSON members, in the order and number formats docs/report-json.md
 * gives; the one place they are rendered. */
#include "viewer/write/finding_out.h"
#include "viewer/write/json.h"

#include <stdarg.h>
#include <string.h>

/* The members so far; at most 1023 bytes, as they always were. */
struct members { char s[1024]; size_t n; };

#if defined(__GNUC__)
__attribute__((format(printf, 2, 3)))
#endif
static void member(struct members *b, const char *fmt, ...)
{
    if (b->n + 1 >= sizeof b->s)
        return;
    if (b->n)
        b->n += (size_t)snprintf(b->s + b->n, sizeof b->s - b->n, ", ");
    if (b->n >= sizeof b->s) {
        b->n = sizeof b->s - 1;
        return;
    }
    va_list ap;
    va_start(ap, fmt);
    b->n += (size_t)vsnprintf(b->s + b->n, sizeof b->s - b->n, fmt, ap);
    va_end(ap);
    if (b->n >= sizeof b->s)
        b->n = sizeof b->s - 1;
}

const char *finding_rank_list(const struct finding_facts *x, char *buf, size_t len)
{
    size_t l = 0;
    buf[0] = 0;
    int n = x->nranks < FACT_RANKS_MAX ? x->nranks : FACT_RANKS_MAX;
    for (int i = 0; i < n && l + 1 < len; i++) {
        l += (size_t)snprintf(buf + l, len - l, "%s%d", l ? ", " : "", x->ranks[i]);
        l = l < len ? l : len - 1;
    }
    return buf;
}

const char *finding_stop_text(int at)
{
    static const char *const text[] = {
        [PD_NONE] = "done", [PD_ENQUEUED] = "enqueued", [PD_KERNEL] = "kernel running",
        [PD_PEER] = "waiting for a peer", [PD_NETWORK] = "network", [PD_DONE] = "done",
    };
    if (at < 0)
        return "not started";
    return at < (int)(sizeof text / sizeof *text) ? text[at] : "?";
}

/* "stopped": [{"rank": R, "at": "..."}, ...], only whole: left out when
 * it would pass 639 bytes, or the members 1023. */
static void stops(struct members *b, const struct finding_facts *x)
{
    char json[640] = "";
    size_t lj = 0;
    for (int i = 0; i < x->nstops && lj < sizeof json; i++)
        lj += (size_t)snprintf(json + lj, sizeof json - lj, "%s{\"rank\": %d, \"at\": \"%s\"}", lj ? ", " : "",
                               x->stops[i].rank, finding_stop_text(x->stops[i].at));
    if (lj < sizeof json && b->n + lj + 16 < sizeof b->s)
        member(b, "\"stopped\": [%s]", json);
}

/* "places": [{"rank": R, "in": "call", "api": ..., "tid": T, "since_ns": N,
 * "callsite": ...}, {"rank": R, "in": "range", "range": ..., ...},
 * {"rank": R, "in": "host", "since_ns": N}]: names from the trace,
 * escaped. */
static void places(FILE *out, const struct model *m, const struct finding_facts *x)
{
    static const char *const in[] = { [PLACE_CALL] = "call", [PLACE_RANGE] = "range", [PLACE_HOST] = "host" };
    fputs(", \"places\": [", out);
    for (int i = 0; i < x->nplaces; i++) {
        const struct finding_place *w = &x->places[i];
        const struct proc *p = w->proc >= 0 && (size_t)w->proc < m->nprocs ? &m->procs[w->proc] : NULL;
        fprintf(out, "%s{\"rank\": %d, \"in\": \"%s\"", i ? ", " : "", w->rank,
                w->kind >= PLACE_CALL && w->kind <= PLACE_HOST ? in[w->kind] : "?");
        if (w->kind == PLACE_CALL) {
            fputs(", \"api\": ", out);
            json_string(out, model_api_name(m, w->api));
        } else if (w->kind == PLACE_RANGE) {
            fputs(", \"range\": ", out);
            json_string(out, p ? model_label(p, w->label) : "");
        }
        if (w->kind != PLACE_HOST)
            fprintf(out, ", \"tid\": %d", w->tid);
        fprintf(out, ", \"since_ns\": %lld", (long long)w->since_ns);
        if (w->kind == PLACE_CALL && p && w->site > 0) {
            char site[MODEL_CALLSITE_LEN];
            fputs(", \"callsite\": ", out);
            json_string(out, model_callsite(m, p, w->site, site, sizeof site));
        }
        fputc('}', out);
    }
    fputc(']', out);
}

void finding_facts_json(FILE *out, const struct model *m, const struct finding *f)
{
    const struct finding_facts *x = &f->facts;
    struct members b = { "", 0 };
    char ranks[256];
    if (x->has & FACT_COMM)
        member(&b, "\"comm_id\": %lld", (long long)x->comm_id);
    if (x->has & FACT_SEQ)
        member(&b, "\"seq\": %lld", (long long)x->seq);
    if (x->has & FACT_PEER)
        member(&b, "\"peer_rank\": %d, \"first_call_ns\": %lld, \"typical_call_ns\": %lld", x->peer_rank,
               (long long)x->first_call_ns, (long long)x->typical_call_ns);
    if (x->has & FACT_PAIR)
        member(&b, "\"sender_rank\": %d, \"receiver_rank\": %d", x->sender_rank, x->receiver_rank);
    if ((x->has & FACT_RANKS) && x->list_of == FACT_LIST_RANKS)
        member(&b, "\"ranks\": [%s]", finding_rank_list(x, ranks, sizeof ranks));
    if (x->has & FACT_UNMATCHED)
        member(&b, "\"unmatched_%s\": %lld", x->unmatched_sends ? "sends" : "receives", (long long)x->unmatched);
    if ((x->has & FACT_RANKS) && x->list_of == FACT_LIST_MISSING)
        member(&b, "\"missing_ranks\": [%s]", finding_rank_list(x, ranks, sizeof ranks));
    if ((x->has & FACT_RANKS) && x->list_of == FACT_LIST_STOPPED) /* every member entered it: none missing */
        member(&b, "\"missing_ranks\": [], \"stopped_ranks\": [%s]", finding_rank_list(x, ranks, sizeof ranks));
    if (x->has & FACT_STOPS)
        stops(&b, x);
    if (x->has & FACT_STRAGGLER)
        member(&b, "\"straggler_rank\": %d, \"collectives\": %lld, \"clearly_last\": %lld, \"wait_share\": %.3f",
               x->straggler_rank, (long long)x->collectives, (long long)x->clearly_last, x->wait_share);
    if (x->has & FACT_PAGEABLE)
        member(&b, "\"bytes\": %lld, \"gpu_wait_ns\": %lld", (long long)f->bytes, (long long)f->gpu_wait_ns);
    if (x->has & FACT_DEVICE)
        member(&b, "\"device\": %d", x->device);
    if (x->has & FACT_UNCLAIMED)
        member(&b, "\"unclaimed\": true");
    if (b.n)
        fprintf(out, ", %s", b.s);
    if (x->has & FACT_PLACES)
        places(out, m, x);
    if (x->has & FACT_SETUP) {
        fputs(", \"setup_calls\": [", out);
        for (int k = 0; k < x->nsetup; k++) {
            fputs(k ? ", {\"api\": " : "{\"api\": ", out);
            json_string(out, model_api_name(m, x->setup[k].api)); /* a name from the trace: escaped */
            fprintf(out, ", \"count\": %lld, \"host_ns\": %lld}", (long long)x->setup[k].count,
                    (long long)x->setup[k].host_ns);
        }
        fputc(']', out);
    }
    if (x->has & FACT_GPUS) {
        fputs(", \"gpus\": [", out);
        for (int k = 0; k < x->ngpus; k++)
            fprintf(out, "%s{\"device\": %d, \"idle_ns\": %lld}", k ? ", " : "", x->gpus[k].device,
                    (long long)x->gpus[k].idle_ns);
        fputc(']', out);
        if (x->step_ns)
            fprintf(out, ", \"step_ns\": %lld, \"busiest_step_ns\": %lld", (long long)x->step_ns,
                    (long long)x->busiest_step_ns);
    }
    if ((x->has & FACT_UNCLAIMED) && x->kernel[0]) { /* a name from the trace: escaped */
        fputs(", \"kernel\": ", out);
        json_string(out, x->kernel);
    }
}
