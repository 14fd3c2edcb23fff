/* kineto_export.c: the run in the PyTorch profiler's (Kineto's) dialect of
 * trace-event JSON, one file per rank, so that Holistic Trace Analysis and
 * other Kineto readers work on traces of any CUDA/NCCL program.
 *
 * What Kineto's readers rely on (docs/kineto.md has the whole mapping):
 * top-level schemaVersion, deviceProperties, distributedInfo (backend,
 * rank, world_size) and baseTimeNanoseconds, with event times in µs (ns
 * decimals) after it; host events on pid = process id, tid = thread id,
 * categories cuda_runtime / cuda_driver / cpu_op (NCCL calls) /
 * user_annotation (NVTX ranges); GPU events on pid = device, tid = stream,
 * categories kernel / gpu_memcpy / gpu_memset, each with args.stream and
 * args.correlation (CUPTI's id, shared with the call that launched it,
 * and the id of the ac2g flow between them), each stream's row named
 * "stream N" as PyTorch's profiler names it; NCCL kernels carry their
 * collective's args under the names PyTorch uses.  CUPTI's cuda_sync
 * records are host waits: each goes inside the call that waited, on its
 * thread (on the stream's row it would cross the kernels it waited for,
 * and Perfetto drops slices that cross).  Streamed event by event, like
 * the Chrome trace.
 */
#define _GNU_SOURCE
#include "viewer/model/comm_kernels.h"
#include "viewer/model/stream_keys.h"
#include "viewer/write/json.h"
#include "viewer/write/output.h"
#include "viewer/read/sync_records.h"
#include "viewer/model/timeline.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The calls that can wait for the GPU, by correlation id, for their
 * cuda_sync records (written at the end); the rows written to, named at
 * the end. */
struct waiter { int64_t start, end; int tid; };
#define ROWS_NAMED 256
struct kw {
    FILE *out; long n; const struct model *m; const struct proc *p;
    struct idmap wait_of_corr; struct waiter *waits; size_t nwaits, waits_cap;
    int threads[ROWS_NAMED], nthreads, streams[ROWS_NAMED], stream_dev[ROWS_NAMED], nstreams;
};

static void add_row(int *v, int *n, int x)
{
    for (int k = 0; k < *n; k++)
        if (v[k] == x)
            return;
    if (*n < ROWS_NAMED)
        v[(*n)++] = x;
}

/* A GPU row (device, stream), once: named under its device's pid */
static void add_stream(struct kw *w, int device, int stream)
{
    for (int k = 0; k < w->nstreams; k++)
        if (w->streams[k] == stream && w->stream_dev[k] == device)
            return;
    if (w->nstreams < ROWS_NAMED) {
        w->stream_dev[w->nstreams] = device;
        w->streams[w->nstreams++] = stream;
    }
}

static void next(struct kw *w)
{
    fputs(w->n++ ? ",\n" : "\n", w->out);
}

/* Opens an "X" event; the caller writes ",\"args\":{...}}" or "}". */
static void x_event(struct kw *w, const char *cat, const char *name, long long pid, long long tid, int64_t start,
                    int64_t end)
{
    next(w);
    fputs("{\"ph\":\"X\",\"cat\":", w->out);
    json_string(w->out, cat);
    fputs(",\"name\":", w->out);
    json_string(w->out, name);
    fprintf(w->out, ",\"pid\":%lld,\"tid\":%lld,\"ts\":", pid, tid);
    json_ts(w->out, model_aligned(w->m, w->p, start));
    fputs(",\"dur\":", w->out);
    json_us(w->out, end > start ? end - start : 0);
}

static const char *const dtype_names[] = { "Char", "Byte", "Int", "UInt32", "Long", "UInt64", "Half", "Float",
                                           "Double", "BFloat16", "Float8_e4m3fn", "Float8_e5m2" };

/* The args PyTorch's profiler gives a collective (record_param_comms and
 * its NCCL kernel), from our record of it. */
static void collective_args(struct kw *w, const struct coll *c)
{
    const char *op = model_api_name(w->m, c->api);
    if (!strncmp(op, "nccl", 4))
        op += 4;
    char lower[64];
    size_t i;
    for (i = 0; op[i] && i < sizeof lower - 1; i++)
        lower[i] = (char)(op[i] >= 'A' && op[i] <= 'Z' ? op[i] - 'A' + 'a' : op[i]);
    lower[i] = 0;
    int gather = strstr(lower, "allgather") || !strcmp(lower, "gather");
    int scatter = strstr(lower, "reducescatter") || !strcmp(lower, "scatter");
    long long in = c->count, out = c->count;
    if (gather)
        out = c->count * (c->nranks > 0 ? c->nranks : 1);
    if (scatter)
        in = c->count * (c->nranks > 0 ? c->nranks : 1);
    fputs(",\"Collective name\":", w->out);
    json_string(w->out, lower);
    fprintf(w->out, ",\"In msg nelems\":%lld,\"Out msg nelems\":%lld,\"Group size\":%d,\"dtype\":\"%s\","
                    "\"Process Group Name\":\"%llx\",\"Process Group Ranks\":\"[",
            in, out, c->nranks, c->dtype >= 0 && c->dtype < 12 ? dtype_names[c->dtype] : "Unknown",
            (unsigned long long)c->comm);
    for (int r = 0; r < c->nranks && r < 4096; r++) /* ranks of the communicator: 0..n-1 in its own numbering */
        fprintf(w->out, "%s%d", r ? ", " : "", r);
    /* a send or recv as PyTorch's record_param_comms gives it: "Rank" the
     * peer's place in the group, no sequence number of its own (PyTorch's
     * is the next collective's); the sender's and the receiver's ranks as
     * Kineto adds them (Src Rank, Dst Rank), in the group's numbering as
     * the ranks above: import/kineto.c reads the rank's own place back
     * from them */
    int send = !strcmp(lower, "send"), recv = !strcmp(lower, "recv");
    if (send || recv)
        fprintf(w->out, "]\",\"Rank\":%d,\"Src Rank\":%d,\"Dst Rank\":%d", c->peer, send ? c->rank : c->peer,
                send ? c->peer : c->rank);
    else
        fprintf(w->out, "]\",\"Seq\":%lld,\"Rank\":%d", (long long)model_seq_shown(c->seq), c->rank);
}

static const char *memcpy_name(const struct gop *g)
{
    /* CUPTI memory kinds: 1 pageable, 2 pinned, 3 device, 5 managed */
    static const char *const kinds[] = { "Unknown", "Pageable", "Pinned", "Device", "Array", "Managed" };
    static _Thread_local char buf[96]; /* each worker its own (viewer/proc_jobs.h) */
    const char *dir = g->copy_kind == 1 ? "HtoD" : g->copy_kind == 2 ? "DtoH" : g->copy_kind == 8 ? "DtoD"
                    : g->copy_kind == 10 ? "PtoP" : "Unknown";
    snprintf(buf, sizeof buf, "Memcpy %s (%s -> %s)", dir, kinds[g->src_kind < 6 ? g->src_kind : 0],
             kinds[g->dst_kind < 6 ? g->dst_kind : 0]);
    return buf;
}

/* The moment an NCCL call launched its kernel: NCCL launches near the
 * call's end (after any connection set-up; its enqueue's bookkeeping
 * follows); the model keeps the launch's own time apart from the call's
 * nowhere (the CUPTI record is the call's).  A nanosecond before the end: a slice that
 * starts where its parent ends is no child of it in Perfetto (a slice
 * is closed at its start, open at its end), nor would the flow from it
 * start inside the call. */
static int64_t launch_at(const struct call *c) { return c->end > c->start ? c->end - 1 : c->end; }

/* The launch of an NCCL call's kernel, inside the call, as PyTorch's
 * traces have it (a cudaLaunchKernelExC with the kernel's correlation
 * under the collective's cpu_op): a reader that ties a kernel to the call
 * that queued it (HTA's launch delays, our import's gpu.stalled) finds a
 * launch.  A point (as long as the call, a 20 ms lazy connection read
 * back as a 20 ms launch, host.setup's). */
static void nccl_launch(struct kw *w, const struct call *c)
{
    x_event(w, "cuda_runtime", "cudaLaunchKernelExC", w->p->pid, c->tid, launch_at(c), launch_at(c));
    fprintf(w->out, ",\"args\":{\"External id\":%lld,\"correlation\":%u}}", (long long)c->call_id, c->corr);
}

static void host_events(struct kw *w, const struct timeline *t, const struct idmap *coll_of_call, uint8_t *flow_op)
{
    const struct model *m = w->m;
    const struct proc *p = w->p;
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        const char *name = model_api_name(m, c->api);
        const char *cat = !strncmp(name, "nccl", 4) ? "cpu_op" : !strncmp(name, "cu", 2) && strncmp(name, "cuda", 4)
                          ? "cuda_driver" : "cuda_runtime";
        x_event(w, cat, name, p->pid, c->tid, c->start, c->end);
        add_row(w->threads, &w->nthreads, c->tid);
        enum api_role role = m->roles[c->api];
        if (c->corr && (role == ROLE_SYNC_DEVICE || role == ROLE_SYNC_STREAM || role == ROLE_SYNC_EVENT ||
                        strstr(name, "WaitEvent"))) {
            if (w->nwaits == w->waits_cap) {
                w->waits_cap = w->waits_cap ? 2 * w->waits_cap : 256;
                if (!(w->waits = realloc(w->waits, w->waits_cap * sizeof *w->waits)))
                    model_out_of_memory();
            }
            w->waits[w->nwaits] = (struct waiter){ c->start, c->end, c->tid };
            idmap_put(&w->wait_of_corr, c->corr, (int64_t)w->nwaits++, 0);
        }
        fprintf(w->out, ",\"args\":{\"External id\":%lld", (long long)c->call_id);
        if (c->corr)
            fprintf(w->out, ",\"correlation\":%u", c->corr);
        int64_t k;
        if (idmap_get(coll_of_call, (uint64_t)c->call_id, &k))
            collective_args(w, &p->colls[k]);
        fputs("}}", w->out);
        if (!strcmp(cat, "cpu_op") && c->corr && t->op_of_call[i] >= 0)
            nccl_launch(w, c);
        if (c->corr && t->op_of_call[i] >= 0 && !flow_op[t->op_of_call[i]]) {
            flow_op[t->op_of_call[i]] = 1;
            next(w);
            fprintf(w->out, "{\"ph\":\"s\",\"id\":%u,\"pid\":%d,\"tid\":%d,\"ts\":", c->corr, p->pid, c->tid);
            json_ts(w->out, model_aligned(m, p, !strcmp(cat, "cpu_op") ? launch_at(c) : c->start)); /* an NCCL call's: at its launch */
            fputs(",\"cat\":\"ac2g\",\"name\":\"ac2g\"}", w->out);
        }
    }
}

static void range_events(struct kw *w)
{
    const struct proc *p = w->p;
    for (size_t i = 0; i < p->nranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        const char *name = model_label(p, r->name);
        x_event(w, "user_annotation", *name ? name : "(unnamed range)", p->pid, r->tid, r->start, r->end);
        add_row(w->threads, &w->nthreads, r->tid);
        fputs(",\"args\":{\"domain\":", w->out);
        json_string(w->out, model_label(p, r->domain));
        fputs("}}", w->out);
    }
}

static void gpu_events(struct kw *w, const struct idmap *coll_of_kernel, const uint8_t *flow_op)
{
    const struct proc *p = w->p;
    for (size_t i = 0; i < p->nops; i++) {
        const struct gop *g = &p->ops[i];
        const char *cat = g->kind == GOP_KERNEL ? "kernel" : g->kind == GOP_MEMCPY ? "gpu_memcpy" : "gpu_memset";
        const char *n = g->kind == GOP_KERNEL ? model_kernel_name(p, g->name)
                        : g->kind == GOP_MEMCPY ? memcpy_name(g) : "Memset (Device)";
        char ncclbuf[160];
        n = comm_op_name(w->m, p, g, n, ncclbuf, sizeof ncclbuf); /* NCCL's copy-engine copies: HTA's ^nccl */
        int stream = model_stream_raw(p, g->stream); /* a row per device and CUPTI's id, as Kineto's */
        x_event(w, cat, n, g->device, stream, g->start, g->end);
        add_stream(w, g->device, stream);
        fprintf(w->out, ",\"args\":{\"device\":%d,\"stream\":%d,\"correlation\":%u", g->device, stream, g->corr);
        if (g->kind != GOP_KERNEL) {
            double us = (double)(g->end - g->start) / 1e3;
            fprintf(w->out, ",\"bytes\":%lld,\"memory bandwidth (GB/s)\":%.3f", (long long)g->bytes,
                    us > 0 ? (double)g->bytes / us / 1e3 : 0.0);
        }
        int64_t k;
        if (g->kind == GOP_KERNEL && idmap_get(coll_of_kernel, ((uint64_t)(uint32_t)g->stream << 40) ^ (uint64_t)g->start, &k))
            collective_args(w, &p->colls[k]);
        fputs("}}", w->out);
        if (flow_op[i] && g->corr) {
            next(w);
            fprintf(w->out, "{\"ph\":\"f\",\"id\":%u,\"pid\":%d,\"tid\":%d,\"ts\":", g->corr, g->device, stream);
            json_ts(w->out, model_aligned(w->m, p, g->start));
            fputs(",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}", w->out);
        }
    }
}

static void sync_event(struct kw *w, int64_t start, int64_t end, int stream, int type, int64_t corr)
{
    static const char *const names[] = { "Unknown Sync", "Event Sync", "Stream Wait Event", "Stream Sync",
                                         "Context Sync" };
    int device = w->p->device < 0 ? 0 : w->p->device; /* CUPTI's sync records name no device */
    model_span(&start, &end);
    const char *name = names[type >= 1 && type <= 4 ? type : 0];
    int64_t k;
    if (corr > 0 && idmap_get(&w->wait_of_corr, (uint64_t)corr, &k)) {
        /* within the call, so that it nests there (CUPTI times the wait
         * inside the call; a clock's rounding could put it a ns outside) */
        const struct waiter *c = &w->waits[k];
        int64_t s = start < c->start ? c->start : start > c->end ? c->end : start;
        int64_t e = end > c->end ? c->end : end < s ? s : end;
        x_event(w, "cuda_sync", name, w->p->pid, c->tid, s, e);
    } else {
        /* its call unknown (lost by the tracer): on the GPU, as Kineto
         * places them */
        x_event(w, "cuda_sync", name, device, stream > 0 ? stream : 0, start, end);
        add_stream(w, device, stream > 0 ? stream : 0); /* a row with a name, even one without kernels */
    }
    fprintf(w->out, ",\"args\":{\"device\":%d,\"stream\":%d,\"correlation\":%lld}}", device, stream > 0 ? stream : 0,
            (long long)corr);
}

/* Names for the rows written: host threads, and the GPU's streams as
 * PyTorch's profiler names them. */
static void row_names(struct kw *w)
{
    const struct proc *p = w->p;
    int device = p->device < 0 ? 0 : p->device;
    for (int k = 0; k < w->nthreads; k++) {
        next(w);
        fprintf(w->out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"thread %d%s\"}}",
                p->pid, w->threads[k], w->threads[k], w->threads[k] == p->pid ? " (main)" : "");
    }
    for (int k = 0; k < w->nstreams; k++) {
        next(w);
        fprintf(w->out, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"stream %d\"}}",
                w->stream_dev[k], w->streams[k], w->streams[k]);
    }
    /* each other device the process ran work on, named as Kineto names a
     * device's rows (kineto_open_rank named its own) */
    for (int k = 0; k < w->nstreams; k++) {
        int seen = w->stream_dev[k] == device;
        for (int q = 0; q < k && !seen; q++)
            seen = w->stream_dev[q] == w->stream_dev[k];
        if (seen)
            continue;
        next(w);
        fprintf(w->out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"GPU %d\"}}",
                w->stream_dev[k], w->stream_dev[k]);
    }
}

/* One of CUPTI's synchronisation records (load_sync_records). */
static void sync_record(void *ctx, int64_t start, int64_t end, int stream, int type, int64_t corr)
{
    sync_event(ctx, start, end, stream, type, corr);
}

/* A rank's file while it is written. */
struct kineto_rank {
    struct kw w;
    char path[4096];
    char buf[1 << 16];
};

struct kineto_rank *kineto_open_rank(const char *path, const struct model *m, size_t pi, char *err, size_t errlen)
{
    const struct proc *p = &m->procs[pi];
    struct kineto_rank *k = calloc(1, sizeof *k);
    if (!k)
        model_out_of_memory();
    snprintf(k->path, sizeof k->path, "%s", path);
    FILE *out = json_open_stream(k->path, k->buf, sizeof k->buf);
    if (!out) {
        snprintf(err, errlen, "cannot write %s: %s", k->path, strerror(errno));
        free(k);
        return NULL;
    }
    k->w = (struct kw){ .out = out, .m = m, .p = p };
    fprintf(out, "{\"schemaVersion\":1,\"deviceProperties\":[{\"id\":%d,\"name\":", p->device < 0 ? 0 : p->device);
    json_string(out, p->gpu);
    /* A process without a rank (a launcher, a compile worker) still needs
     * one of its own: HTA keys a directory's files by their rank and keeps
     * the last file of each (two "rank": 0 files made it read a worker as
     * rank 0).  It gets the next number past every rank of the run, and a
     * mark of ours that our import reads back as no rank. */
    int rank = p->rank, unranked = rank < 0;
    if (unranked) {
        int top = -1, before = 0;
        for (size_t i = 0; i < m->nprocs; i++) {
            top = m->procs[i].rank > top ? m->procs[i].rank : top;
            before += i < pi && m->procs[i].rank < 0;
        }
        rank = top + 1 + before;
    }
    /* spaced as Kineto writes it: readers find the rank with a regular
     * expression over the text ("rank": N), not by parsing */
    fprintf(out, "}],\n\"distributedInfo\": {\"backend\": \"nccl\", \"rank\": %d, \"world_size\": %d%s},\n"
                 "\"baseTimeNanoseconds\":%lld,\"displayTimeUnit\":\"ms\",\"traceName\":",
            rank, p->world > 0 ? p->world : (int)m->nprocs, unranked ? ", \"gputrace_unranked\": true" : "",
            (long long)m->t0);
    json_string(out, m->run_id);
    fputs(",\"traceEvents\":[", out);
    next(&k->w);
    fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"rank %d pid %d\"}}",
            p->pid, p->rank, p->pid);
    next(&k->w);
    fprintf(out, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"args\":{\"name\":\"GPU %d\"}}",
            p->device < 0 ? 0 : p->device, p->device < 0 ? 0 : p->device);
    return k;
}

void kineto_rank_window(struct kineto_rank *k, const struct model *m, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    struct timeline *t = model_timeline(m, pi);
    /* the collectives loaded (those of this window's calls among them),
     * and those whose kernel ran in this window (matched as it loaded) */
    struct idmap coll_of_call = { 0 }, coll_of_kernel = { 0 };
    for (size_t c = 0; c < p->ncolls; c++) {
        const struct coll *cl = &p->colls[c];
        if (model_seq_by_order(cl->seq))
            continue; /* its source named no operation or group: nor does the export (it is matched again) */
        idmap_put(&coll_of_call, (uint64_t)cl->call_id, (int64_t)c, 1);
        if (cl->gend > cl->gstart && cl->gstream >= 0 && cl->gstart >= p->win_lo && cl->gstart < p->win_hi)
            idmap_put(&coll_of_kernel, ((uint64_t)(uint32_t)cl->gstream << 40) ^ (uint64_t)cl->gstart, (int64_t)c, 1);
    }
    uint8_t *flow_op = calloc(p->nops + 1, 1);
    if (!flow_op)
        model_out_of_memory();
    host_events(&k->w, t, &coll_of_call, flow_op);
    gpu_events(&k->w, &coll_of_kernel, flow_op);
    free(flow_op);
    idmap_free(&coll_of_call);
    idmap_free(&coll_of_kernel);
}

int kineto_close_rank(struct kineto_rank *k, const struct model *m, size_t pi, char *err, size_t errlen)
{
    (void)pi;
    FILE *out = k->w.out;
    range_events(&k->w);
    load_sync_records(m, k->w.p, sync_record, &k->w);
    row_names(&k->w);
    fputs("\n]}\n", out);
    idmap_free(&k->w.wait_of_corr);
    free(k->w.waits);
    int bad = ferror(out);
    bad |= fclose(out) != 0;
    if (bad)
        snprintf(err, errlen, "cannot write %s: %s", k->path, strerror(errno));
    free(k);
    return bad ? -1 : 0;
}

static int taken(char *const *v, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(v[i], path))
            return 1;
    return 0;
}

char **kineto_paths(const char *dir, const struct model *m, char *note, size_t notelen)
{
    char **v = calloc(m->nprocs + 1, sizeof *v);
    if (!v)
        model_out_of_memory();
    char shared[256] = "";
    size_t nshared = 0;
    int more = 0; /* names left out of the line */
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        char path[4096];
        if (p->rank >= 0)
            snprintf(path, sizeof path, "%s/rank-%d.json", dir, p->rank);
        else
            snprintf(path, sizeof path, "%s/pid-%d.json", dir, p->pid);
        /* processes come sorted by (rank, pid): the first of a rank keeps
         * the name readers look for, the others are told apart by pid
         * (and, two processes of one pid on two hosts, by their place) */
        if (taken(v, i, path)) {
            size_t l = strlen(path) - strlen(".json");
            snprintf(path + l, sizeof path - l, "-pid%d.json", p->pid);
            if (p->rank >= 0) {
                size_t used = strlen(shared);
                if (used + 40 < sizeof shared)
                    snprintf(shared + used, sizeof shared - used, "%s%s", used ? ", " : "",
                             strrchr(path, '/') + 1);
                else
                    more = 1;
                nshared++;
            }
        }
        if (taken(v, i, path)) {
            size_t l = strlen(path) - strlen(".json");
            snprintf(path + l, sizeof path - l, "-%zu.json", i);
        }
        if (!(v[i] = strdup(path)))
            model_out_of_memory();
    }
    note[0] = 0;
    if (nshared)
        snprintf(note, notelen, "%zu process(es) have the rank of another: each has a Kineto trace of its own,"
                        " named by rank and pid (%s%s)", nshared, shared, more ? ", ..." : "");
    return v;
}

void kineto_paths_free(char **v, size_t n)
{
    for (size_t i = 0; v && i < n; i++)
        free(v[i]);
    free(v);
}

int kineto_begin(const char *dir, char *err, size_t errlen)
{
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot make %s: %s", dir, strerror(errno));
        return -1;
    }
    return 0;
}

