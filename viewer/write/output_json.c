/* output_json.c: the report as one JSON object (docs/report-json.md). */
#include "viewer/write/charges_out.h"
#include "viewer/write/ledger_out.h"
#include "viewer/write/finding_out.h"
#include "viewer/write/devices_out.h"
#include "viewer/write/input_notes.h"
#include "viewer/write/monitor_notes.h"
#include "viewer/write/window_notes.h"
#include "viewer/write/slowdown_out.h"
#include "viewer/read/import_inputs.h"
#include "viewer/write/json.h"
#include "viewer/write/whatif_out.h"
#include "viewer/write/output.h"
#include "viewer/write/output_crossrank.h"
#include "viewer/write/unknown_comm.h"
#include "viewer/write/order_notes.h"
#include "viewer/write/plugin_notes.h"

static void cost(FILE *out, const char *name, int64_t v, int *first)
{
    fprintf(out, "%s\"%s\": %lld", *first ? "" : ", ", name, (long long)v);
    *first = 0;
}

void output_json(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs)
{
    fprintf(out, "{\"run\": {\"id\": ");
    json_string(out, m->run_id);
    int complete = 1;
    for (size_t i = 0; i < m->nprocs; i++)
        complete &= m->procs[i].has_end;
    fprintf(out, ", \"processes\": %zu, \"complete\": %s", m->nprocs, complete ? "true" : "false");
    if (m->damaged[0]) {
        fputs(", \"damaged\": ", out);
        json_string(out, m->damaged);
    }
    input_notes_json(out, m); /* files and runs of the inputs left out */
    window_notes_json(out, m); /* monitor windows: what each covers, and the ranks none holds */
    slowdown_json(out, m, fs); /* ... a slowdown's slow steps against those before */
    monitor_notes_json(out, m); /* a monitored run's own files: aggregates, and the windows to read */
    fputc('}', out);
    int64_t latest = model_latest_end(m);
    fprintf(out, ",\n\"ranks\": [");
    for (size_t i = 0; i < s->nranks; i++) {
        const struct rank_summary *r = &s->ranks[i];
        const struct proc *p = &m->procs[r->proc];
        fprintf(out, "%s\n  {\"rank\": %d, \"pid\": %d, \"host\": ", i ? "," : "", r->rank, r->pid);
        json_string(out, p->host);
        fprintf(out, ", \"gpu\": ");
        json_string(out, p->gpu);
        fprintf(out, ", \"cupti\": ");
        json_string(out, p->cupti);
        fprintf(out, ", \"ended\": ");
        json_string(out, p->has_end                                                          ? p->end_reason
                         : model_proc_cut_running(m, r->proc) || model_proc_running(m, r->proc, latest) ? "running"
                                                                                                        : "killed");
        fprintf(out, ", \"wall_ns\": %lld, \"gpu_span_ns\": %lld, \"gpu_busy_ns\": %lld, \"compute_ns\": %lld, \"comm_ns\": %lld,"
                     " \"exposed_comm_ns\": %lld, \"sync_blocked_ns\": %lld, \"api_calls\": %lld, \"gpu_ops\": %lld,"
                     " \"collectives\": %lld, \"refused_collectives\": %lld, \"cupti_only_calls\": %lld, \"unscoped_syncs\": %lld,"
                     " \"dropped_host\": %lld, \"dropped_cupti\": %lld",
                (long long)r->wall_ns, (long long)r->gpu_span_ns, (long long)r->gpu_busy_ns, (long long)r->compute_ns, (long long)r->comm_ns,
                (long long)r->exposed_comm_ns, (long long)r->sync_blocked_ns, (long long)r->api_calls,
                (long long)r->gpu_ops, (long long)r->collectives, (long long)p->refused_colls,
                (long long)r->cupti_only_calls, (long long)p->unscoped_syncs, (long long)p->dropped_host,
                (long long)p->dropped_cupti);
        if (p->gpu_until) /* the program's own profiler took CUPTI (model.h): only there */
            fprintf(out, ", \"gpu_records_until_ns\": %lld", (long long)model_aligned(m, p, p->gpu_until));
        if (p->ngpu_gaps) { /* and each stretch it held it, to null: never given back */
            fputs(", \"gpu_gaps_ns\": [", out);
            for (size_t k = 0; k < p->ngpu_gaps; k++) {
                fprintf(out, "%s[%lld, ", k ? ", " : "", (long long)model_aligned(m, p, p->gpu_gaps[k].held));
                if (p->gpu_gaps[k].to == INT64_MAX)
                    fputs("null]", out);
                else
                    fprintf(out, "%lld]", (long long)model_aligned(m, p, p->gpu_gaps[k].to));
            }
            fputc(']', out);
            int lost = 0; /* work in flight at a hand-over (gap_inflight.c): only where some was */
            for (size_t k = 0; k < p->ngpu_gaps && !lost; k++)
                lost = p->gpu_gaps[k].from < p->gpu_gaps[k].held;
            if (lost) {
                fputs(", \"gpu_gaps_inflight_ns\": [", out);
                for (size_t k = 0; k < p->ngpu_gaps; k++)
                    fprintf(out, "%s%lld", k ? ", " : "", (long long)(p->gpu_gaps[k].held - p->gpu_gaps[k].from));
                fputc(']', out);
            }
        }
        if (p->unfinished_ops) /* only where some are (docs/report-json.md) */
            fprintf(out, ", \"unfinished_gpu_ops\": %lld", (long long)p->unfinished_ops);
        charges_json_rank(out, fs, r->proc);
        devices_json(out, s, r);
        fputc('}', out);
    }
    fprintf(out, "\n],\n\"collectives\": [");
    for (size_t i = 0; i < s->ncolls; i++) {
        const struct coll_summary *c = &s->colls[i];
        fprintf(out, "%s\n  {\"op\": ", i ? "," : "");
        json_string(out, c->op);
        fprintf(out, ", \"bytes\": %lld, \"nranks\": %d, \"count\": %lld, \"total_ns\": %lld, \"algbw_gbs\": %.3f,"
                     " \"busbw_gbs\": %.3f, \"algorithm\": ",
                (long long)c->bytes, c->nranks, (long long)c->count, (long long)c->total_ns, c->algbw_gbs, c->busbw_gbs);
        json_string(out, c->algorithm);
        fputc('}', out);
    }
    fprintf(out, "\n],\n\"phases\": [");
    for (size_t i = 0; i < s->nphases; i++) {
        const struct phase_summary *ph = &s->phases[i];
        fprintf(out, "%s\n  {\"rank\": %d, \"name\": ", i ? "," : "", ph->rank);
        json_string(out, ph->name);
        fprintf(out, ", \"count\": %lld, \"wall_ns\": %lld, \"gpu_busy_ns\": %lld, \"comm_ns\": %lld,"
                     " \"exposed_comm_ns\": %lld}",
                (long long)ph->count, (long long)ph->wall_ns, (long long)ph->gpu_busy_ns, (long long)ph->comm_ns,
                (long long)ph->exposed_comm_ns);
    }
    fprintf(out, "\n],\n\"kernels\": [");
    for (size_t i = 0; i < s->nkernels && i < KERNELS_JSON; i++) {
        const struct kernel_summary *k = &s->kernels[i];
        fprintf(out, "%s\n  {\"name\": ", i ? "," : "");
        json_string(out, k->name);
        fprintf(out, ", \"count\": %lld, \"total_ns\": %lld, \"mean_ns\": %lld, \"max_ns\": %lld, \"ranks\": %d,"
                     " \"nccl\": %s}",
                (long long)k->count, (long long)k->total_ns, (long long)(k->total_ns / k->count), (long long)k->max_ns,
                k->ranks, k->nccl ? "true" : "false");
    }
    fprintf(out, "\n],\n\"kernels_total\": %zu, \"kernel_ns\": %lld", s->nkernels, (long long)s->kernel_ns);
    plugin_note_json(out, m);
    fprintf(out, ",\n\"failed_calls\": [");
    for (size_t i = 0; i < s->nfailed; i++) {
        const struct failed_summary *f = &s->failed[i];
        fprintf(out, "%s\n  {\"api\": ", i ? "," : "");
        json_string(out, model_api_name(m, f->api));
        fprintf(out, ", \"result\": %d, \"count\": %lld, \"ranks\": %d}", (int)f->result, (long long)f->count, f->ranks);
    }
    fprintf(out, "\n],\n\"failed_calls_total\": %lld", (long long)s->failed_total);
    output_clock_json(out, m);
    output_p2p_json(out, m);
    unknown_comm_json(out, m);
    order_notes_json(out, m); /* collectives matched by kernel order */
    ledger_json(out, m, s, fs);
    whatif_json(out, m, fs);
    fprintf(out, ",\n\"findings\": [");
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        fprintf(out, "%s\n  {\"kind\": ", i ? "," : "");
        json_string(out, finding_names[f->kind]);
        fprintf(out, ", \"rank\": %d, \"count\": %lld, \"callsite\": ", f->rank, (long long)f->count);
        json_string(out, f->callsite);
        if (f->proc >= 0 && f->callsite_id > 0) {
            char stack[8192];
            fprintf(out, ", \"callstack\": ");
            json_string(out, model_callstack(m, &m->procs[f->proc], f->callsite_id, stack, sizeof stack));
            if (*model_pystack(m, &m->procs[f->proc], f->callsite_id, stack, sizeof stack)) {
                fprintf(out, ", \"python_stack\": ");
                json_string(out, stack);
            }
        }
        char code[240];
        if (*model_source_text(m, f->callsite, code, sizeof code)) {
            fprintf(out, ", \"source_line\": ");
            json_string(out, code);
        }
        char range[FINDING_RANGE_LEN];
        if (*finding_range(m, f, range, sizeof range)) {
            fprintf(out, ", \"range\": ");
            json_string(out, range);
            if (f->iter_first >= 0)
                fprintf(out, ", \"iteration_first\": %lld, \"iteration_last\": %lld", (long long)f->iter_first,
                        (long long)f->iter_last);
        }
        fprintf(out, ", ");
        int first = 1;
        if (f->host_blocked_ns || finding_cost_field[f->kind] == COST_host_blocked)
            cost(out, "host_blocked_ns", f->host_blocked_ns, &first);
        if (f->gpu_idle_ns || finding_cost_field[f->kind] == COST_gpu_idle)
            cost(out, "gpu_idle_ns", f->gpu_idle_ns, &first);
        if (f->exposed_ns || finding_cost_field[f->kind] == COST_exposed)
            cost(out, "exposed_ns", f->exposed_ns, &first);
        if (f->wait_ns || finding_cost_field[f->kind] == COST_wait)
            cost(out, "wait_ns", f->wait_ns, &first);
        fprintf(out, ", \"cost_ns\": %lld, \"waste_ns\": %lld, \"confidence\": ", (long long)finding_cost(f),
                (long long)f->waste_ns);
        json_string(out, f->confidence);
        if (f->below_min_cost) /* listed for programs; the text and the page leave it out */
            fprintf(out, ", \"below_min_cost\": true");
        if (f->it_costed) /* how steady its cost is (finding_steps.c) */
            fprintf(out, ", \"per_iteration\": {\"iterations\": %lld, \"of\": %lld, \"median_ns\": %lld,"
                         " \"p10_ns\": %lld, \"p90_ns\": %lld}",
                    (long long)f->it_costed, (long long)(f->it_of > f->it_costed ? f->it_of : f->it_costed),
                    (long long)f->it_median_ns, (long long)f->it_p10_ns, (long long)f->it_p90_ns);
        whatif_json_finding(out, fs, f);
        char text[FINDING_TEXT_LEN];
        fprintf(out, ", \"message\": ");
        json_string(out, finding_message(m, f, text, sizeof text));
        fprintf(out, ", \"suggestion\": ");
        json_string(out, finding_suggestion(m, f, text, sizeof text));
        if (f->waited_for[0]) { /* what a sync waited for (analysis_sync.c) */
            fprintf(out, ", \"waited_for\": ");
            json_string(out, f->waited_for);
            fprintf(out, ", \"waited_through_event\": %s", f->waited_other ? "true" : "false");
        }
        finding_facts_json(out, m, f);
        charges_json_finding(out, m, fs, f);
        fputc('}', out);
    }
    fprintf(out, "\n]");
    import_notes_json(out, m); /* imported traces only: what their source lacks */
    fprintf(out, "}\n");
}
