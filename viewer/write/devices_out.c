/* devices_out.c: a process that drives several GPUs gets a row per GPU
 * (summary.h, device_summary), under its rank's row in the text and as
 * the rank's "devices" in the JSON. */
#include "viewer/write/devices_out.h"

static double ms(int64_t ns) { return (double)ns / 1e6; }
static double pct(int64_t a, int64_t b) { return b > 0 ? 100.0 * (double)a / (double)b : 0.0; }

void devices_text(FILE *out, const struct summary *s, const struct rank_summary *r)
{
    for (size_t i = 0; i < s->ndevices; i++) {
        const struct device_summary *d = &s->devices[i];
        if (d->proc != r->proc)
            continue;
        char gpu[32];
        snprintf(gpu, sizeof gpu, "  GPU %d", d->device);
        fprintf(out, "%-5s %-8s %-18s %9s %6.1f %10.1f %10.1f %9.1f %15s\n", "", "", gpu, "",
                pct(d->gpu_busy_ns, r->wall_ns), ms(d->compute_ns), ms(d->comm_ns), pct(d->exposed_comm_ns, d->comm_ns),
                "");
    }
}

void devices_json(FILE *out, const struct summary *s, const struct rank_summary *r)
{
    int first = 1;
    for (size_t i = 0; i < s->ndevices; i++) {
        const struct device_summary *d = &s->devices[i];
        if (d->proc != r->proc)
            continue;
        fprintf(out, "%s{\"device\": %d, \"gpu_busy_ns\": %lld, \"compute_ns\": %lld, \"comm_ns\": %lld,"
                     " \"exposed_comm_ns\": %lld}", first ? ", \"devices\": [" : ", ", d->device,
                (long long)d->gpu_busy_ns, (long long)d->compute_ns, (long long)d->comm_ns,
                (long long)d->exposed_comm_ns);
        first = 0;
    }
    if (!first)
        fputc(']', out);
}
