/* plugin_notes.c: the report's note on what NCCL's profiler plugin
 * recorded (read/plugin_join.c joins its records), in text and JSON. */
#include "viewer/write/plugin_notes.h"

static void totals(const struct model *m, int64_t *ops, int64_t *matched, int64_t *alone)
{
    *ops = *matched = *alone = 0;
    for (size_t i = 0; i < m->nprocs; i++) {
        *ops += m->procs[i].plugin_ops;
        *matched += m->procs[i].plugin_matched;
        *alone += m->procs[i].plugin_alone;
    }
}

void plugin_note_text(FILE *out, const struct model *m, int at_end)
{
    int64_t ops, matched, alone;
    totals(m, &ops, &matched, &alone);
    if (!ops || at_end != (matched == ops))
        return;
    if (at_end)
        fputc('\n', out);
    fprintf(out, "note: NCCL's profiler plugin recorded %lld operation(s): %lld joined to wrapped calls,\n"
                 "      %lld seen by NCCL only (no wrapper saw their communicator), analysed as collectives\n",
            (long long)ops, (long long)matched, (long long)alone);
}

void plugin_note_json(FILE *out, const struct model *m)
{
    int64_t ops, matched, alone;
    totals(m, &ops, &matched, &alone);
    fprintf(out, ",\n\"nccl_plugin\": {\"ops\": %lld, \"joined\": %lld, \"alone\": %lld}", (long long)ops,
            (long long)matched, (long long)alone);
}
