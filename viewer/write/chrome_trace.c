/* chrome_trace.c: the run as a Chrome trace-event JSON (object form) that
 * Perfetto and chrome://tracing open, streamed event by event.
 *
 * One process per rank ("rank R · host · pid · GPU"), host threads first,
 * then one track per GPU stream; API calls, kernels, copies and memsets as
 * slices with their details in args; a flow from each launch to the GPU
 * work it caused; collectives as slices on their stream, linked across
 * ranks by one flow per (communicator, sequence); findings as instant
 * events.  Times are µs with ns decimals from the run's start, hosts
 * aligned by their realtime offsets. */
#include "viewer/analyse/coll_spill.h"
#include "viewer/write/json.h"
#include "viewer/write/output.h"
#include "viewer/model/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define STREAM_TID_BASE 1000000000LL

/* Host threads in order of first appearance and GPU streams: a process's
 * tracks, named once all its windows are written. */
#define TRACKS_NAMED 256
struct writer {
    FILE *out; long events; int progress;
    int threads[TRACKS_NAMED], nthreads, streams[TRACKS_NAMED], nstreams;
    char buf[1 << 16];
};

#define ts json_us

static void begin(struct writer *w)
{
    fputs(w->events++ ? ",\n" : "\n", w->out);
    if (w->progress && w->events % 200000 == 0)
        fprintf(stderr, "\rgputrace-report: %ld trace events", w->events);
}

/* A process's track group: its rank, or past every rank for one with no
 * rank or with the rank of the process before it (processes come sorted
 * by rank, then pid): two processes of one rank stay two. */
static int pid_of(const struct model *m, size_t pi)
{
    int rank = m->procs[pi].rank;
    if (rank < 0 || (pi > 0 && m->procs[pi - 1].rank == rank))
        return 100000 + (int)pi;
    return rank;
}

static void meta(struct writer *w, const char *what, int pid, long long tid, const char *name, int sort)
{
    begin(w);
    fprintf(w->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%lld,\"args\":{\"name\":", what, pid, tid);
    json_string(w->out, name);
    fputs("}}", w->out);
    begin(w);
    fprintf(w->out, "{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%d,\"tid\":%lld,\"args\":{\"sort_index\":%d}}",
            strcmp(what, "process_name") ? "thread" : "process", pid, tid, sort);
}

static void slice(struct writer *w, const struct model *m, const struct proc *p, int pid, long long tid,
                  const char *name, const char *cat, int64_t start, int64_t end)
{
    begin(w);
    fputs("{\"ph\":\"X\",\"name\":", w->out);
    json_string(w->out, name);
    fprintf(w->out, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%lld,\"ts\":", cat, pid, tid);
    ts(w->out, model_aligned(m, p, start));
    fputs(",\"dur\":", w->out);
    ts(w->out, end > start ? end - start : 0);
}

/* Appends v to the n values at seen unless it is there; returns whether it
 * was new. */
static int add_new(int *seen, int *n, int v)
{
    for (int k = 0; k < *n; k++)
        if (seen[k] == v)
            return 0;
    seen[(*n)++] = v;
    return 1;
}

/* The tracks of the window loaded: its threads and streams not seen yet. */
static void note_tracks(struct writer *w, const struct proc *p)
{
    for (size_t i = 0; i < p->ncalls && w->nthreads < TRACKS_NAMED; i++)
        add_new(w->threads, &w->nthreads, p->calls[i].tid);
    for (size_t i = 0; i < p->nops && w->nstreams < TRACKS_NAMED; i++)
        add_new(w->streams, &w->nstreams, p->ops[i].stream);
}

static void metadata(struct writer *w, const struct model *m, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    char name[512];
    snprintf(name, sizeof name, "rank %d \xc2\xb7 %s \xc2\xb7 pid %d \xc2\xb7 %s", p->rank, p->host, p->pid,
             p->gpu[0] ? p->gpu : "no GPU name");
    meta(w, "process_name", pid, 0, name, pid);
    /* host threads, in order of first appearance */
    for (int k = 0; k < w->nthreads; k++) {
        int tid = w->threads[k];
        snprintf(name, sizeof name, "host thread %d%s", tid, tid == p->pid ? " (main)" : "");
        meta(w, "thread_name", pid, tid, name, k + 1);
    }
    int *streams = w->streams, ns = w->nstreams;
    for (int a = 0; a < ns; a++) /* streams in id order */
        for (int b = a + 1; b < ns; b++)
            if (streams[b] < streams[a]) {
                int t = streams[a];
                streams[a] = streams[b];
                streams[b] = t;
            }
    for (int k = 0; k < ns; k++) {
        snprintf(name, sizeof name, "GPU %d stream %d", p->device, streams[k]);
        meta(w, "thread_name", pid, STREAM_TID_BASE + streams[k], name, 1000 + k);
    }
}

/* Flows go from a call to the first GPU operation it caused: both ends are
 * known from the timeline, so every flow that starts also finishes. */
static void calls(struct writer *w, const struct model *m, size_t pi, const struct timeline *t, uint8_t *flow_op)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        const char *name = model_api_name(m, c->api);
        slice(w, m, p, pid, c->tid, name, m->roles[c->api] >= ROLE_NCCL_OP ? "nccl" : "cuda_api", c->start, c->end);
        fprintf(w->out, ",\"args\":{\"call_id\":%lld,\"stream\":%lld,\"bytes\":%lld,\"result\":%d,\"correlation\":%u}}",
                (long long)c->call_id, (long long)c->stream, (long long)c->bytes, c->result, c->corr);
        if (t->op_of_call[i] >= 0 && !flow_op[t->op_of_call[i]]) { /* flow start, bound to this slice */
            flow_op[t->op_of_call[i]] = 1;
            begin(w);
            fprintf(w->out, "{\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"ac2g\",\"id\":%lld,\"pid\":%d,\"tid\":%d,\"ts\":",
                    ((long long)pi << 32) | c->corr, pid, c->tid);
            ts(w->out, model_aligned(m, p, c->start));
            fputc('}', w->out);
        }
    }
}

/* NVTX ranges as slices on the thread that opened them (a range never
 * closed runs to the process's end). */
static void ranges(struct writer *w, const struct model *m, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    for (size_t i = 0; i < p->nranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        slice(w, m, p, pid, r->tid, *model_label(p, r->name) ? model_label(p, r->name) : "(unnamed range)", "nvtx",
              r->start, r->end);
        fputs(",\"args\":{\"domain\":", w->out);
        json_string(w->out, model_label(p, r->domain));
        if (r->iter >= 0)
            fprintf(w->out, ",\"iteration\":%lld", (long long)r->iter);
        if (r->payload) {
            fputs(",\"payload\":", w->out);
            json_string(w->out, model_label(p, r->payload));
        }
        fputs("}}", w->out);
    }
}

static void gpu_ops(struct writer *w, const struct model *m, size_t pi, const uint8_t *flow_op)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    for (size_t i = 0; i < p->nops; i++) {
        const struct gop *g = &p->ops[i];
        char buf[64];
        const char *cat = g->kind == GOP_KERNEL ? "kernel" : g->kind == GOP_MEMCPY ? "gpu_memcpy" : "gpu_memset";
        const char *name = buf;
        if (g->kind == GOP_KERNEL)
            name = model_kernel_name(p, g->name); /* whole: C++ kernel names run past 1000 bytes */
        else
            snprintf(buf, sizeof buf, "%s %lld B", g->kind == GOP_MEMCPY ? "Memcpy" : "Memset", (long long)g->bytes);
        slice(w, m, p, pid, STREAM_TID_BASE + g->stream, name, cat, g->start, g->end);
        fprintf(w->out, ",\"args\":{\"stream\":%d,\"correlation\":%u,\"bytes\":%lld,\"device\":%d}}", g->stream, g->corr,
                (long long)g->bytes, g->device);
        if (flow_op[i]) { /* flow end */
            begin(w);
            fprintf(w->out, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"ac2g\",\"id\":%lld,\"pid\":%d,\"tid\":%lld,\"ts\":",
                    ((long long)pi << 32) | g->corr, pid, STREAM_TID_BASE + g->stream);
            ts(w->out, model_aligned(m, p, g->start));
            fputc('}', w->out);
        }
    }
}

struct coll_pass { struct writer *w; const struct model *m; };

/* One (comm, seq) group of collectives (coll_spill.h): each on its stream,
 * and one flow across the ranks that have a GPU time for it, in rank
 * order: s on the first, t in between, f on the last. */
static void collective_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct coll_pass *cp = ctx;
    struct writer *w = cp->w;
    const struct model *m = cp->m;
    size_t first = n, last = n; /* the first and last member with a GPU time */
    for (size_t k = 0; k < n; k++)
        if (v[k].gend > v[k].gstart && v[k].gstream >= 0) {
            first = first < n ? first : k;
            last = k;
        }
    for (size_t k = first; k < n && k <= last; k++) {
        const struct coll_rec *c = &v[k];
        if (!(c->gend > c->gstart && c->gstream >= 0))
            continue;
        const struct proc *p = &m->procs[c->proc];
        int pid = pid_of(m, (size_t)c->proc);
        char name[128];
        const char *api = model_api_name(m, c->api);
        if (!strncmp(api, "nccl", 4))
            api += 4; /* "AllReduce #3" */
        snprintf(name, sizeof name, "%s #%lld", api, (long long)c->seq);
        slice(w, m, p, pid, STREAM_TID_BASE + c->gstream, name, "collective", c->gstart, c->gend);
        fprintf(w->out, ",\"args\":{\"comm\":\"%llx\",\"seq\":%lld,\"count\":%lld,\"bytes\":%lld,\"datatype\":%d,"
                        "\"peer\":%d,\"rank\":%d,\"nranks\":%d,\"call_id\":%lld}}",
                (unsigned long long)c->comm, (long long)c->seq, (long long)c->count, (long long)c->bytes, c->dtype,
                c->peer, c->rank, c->nranks, (long long)c->call_id);
        if (first == last)
            continue; /* alone: nothing to link */
        begin(w);
        fprintf(w->out, "{\"ph\":\"%s\",%s\"name\":\"collective\",\"cat\":\"collective\",\"id2\":{\"global\":\"%llx:%lld\"},"
                        "\"pid\":%d,\"tid\":%lld,\"ts\":",
                k == first ? "s" : k == last ? "f" : "t", k == last ? "\"bp\":\"e\"," : "", (unsigned long long)c->comm,
                (long long)c->seq, pid, STREAM_TID_BASE + c->gstream);
        ts(w->out, model_aligned(m, p, c->gstart));
        fputc('}', w->out);
    }
}

static void findings(struct writer *w, const struct model *m, const struct findings *fs)
{
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        int proc = f->proc >= 0 ? f->proc : 0;
        const struct proc *p = &m->procs[proc];
        begin(w);
        fputs("{\"ph\":\"i\",\"name\":", w->out);
        json_string(w->out, finding_names[f->kind]);
        fprintf(w->out, ",\"cat\":\"finding\",\"s\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", f->proc >= 0 ? "p" : "g",
                pid_of(m, (size_t)proc), p->pid);
        ts(w->out, model_aligned(m, p, p->start));
        fprintf(w->out, ",\"args\":{\"cost_ns\":%lld,\"count\":%lld,\"callsite\":", (long long)finding_cost(f),
                (long long)f->count);
        json_string(w->out, f->callsite);
        if (f->range[0]) {
            fputs(",\"range\":", w->out);
            json_string(w->out, f->range);
        }
        if (f->proc >= 0 && f->callsite_id > 0) {
            char stack[8192];
            fputs(",\"callstack\":", w->out);
            json_string(w->out, model_callstack(m, p, f->callsite_id, stack, sizeof stack));
            if (*model_pystack(m, p, f->callsite_id, stack, sizeof stack)) {
                fputs(",\"python_stack\":", w->out);
                json_string(w->out, stack);
            }
        }
        fputs(",\"message\":", w->out);
        json_string(w->out, f->message);
        fputs(",\"suggestion\":", w->out);
        json_string(w->out, f->suggestion);
        fputs("}}", w->out);
    }
}

struct chrome_trace *chrome_trace_open(const char *path, const struct model *m, int progress)
{
    struct writer *w = calloc(1, sizeof *w);
    if (!w)
        return NULL;
    w->out = json_open_stream(path, w->buf, sizeof w->buf);
    if (!w->out) {
        int e = errno;
        free(w);
        errno = e;
        return NULL;
    }
    w->progress = progress;
    fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"gputrace " GT_VERSION "\",\"run\":", w->out);
    json_string(w->out, m->run_id);
    fputs("},\"traceEvents\":[", w->out);
    return (struct chrome_trace *)w;
}

void chrome_trace_window(struct chrome_trace *ct, const struct model *m, size_t pi)
{
    struct writer *w = (struct writer *)ct;
    struct timeline *t = model_timeline(m, pi);
    uint8_t *flow_op = calloc(m->procs[pi].nops + 1, 1);
    if (!flow_op)
        model_out_of_memory();
    note_tracks(w, &m->procs[pi]);
    calls(w, m, pi, t, flow_op);
    gpu_ops(w, m, pi, flow_op);
    free(flow_op);
}

void chrome_trace_proc_end(struct chrome_trace *ct, const struct model *m, size_t pi)
{
    struct writer *w = (struct writer *)ct;
    metadata(w, m, pi);
    ranges(w, m, pi);
    w->nthreads = w->nstreams = 0;
}

long chrome_trace_close(struct chrome_trace *ct, const struct model *m, const struct findings *fs,
                        struct coll_spill *spill)
{
    struct writer *w = (struct writer *)ct;
    struct coll_pass cp = { w, m };
    coll_spill_groups(spill, collective_group, &cp);
    findings(w, m, fs);
    fputs("\n]}\n", w->out);
    if (w->progress)
        fprintf(stderr, "\r%60s\r", "");
    int bad = ferror(w->out);
    bad |= fclose(w->out) != 0;
    long events = w->events;
    free(w);
    return bad ? -1 : events;
}
