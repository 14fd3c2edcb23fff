/* chrome_trace.c: the run as a Chrome trace-event JSON (object form) that
 * Perfetto and chrome://tracing open, streamed event by event.
 *
 * One process per rank ("rank R · host · pid · GPU"), host threads first,
 * then one track per GPU stream that ran something (tid = the stream's
 * id, "GPU g stream s (compute)": named by what ran on it too);
 * API calls, kernels, copies and memsets as slices with their details in
 * args; a flow from each launch to the GPU work it caused; collectives as
 * slices on their stream, linked across ranks by one flow per
 * (communicator, sequence); each finding as a marker at each of its first
 * occurrences (findings.h: FINDING_MARKS), at its time (a collective's
 * finding: at its kernel's start), on its process's own track, the thread
 * or stream where it happened in its args.  Not on that thread's or
 * stream's track: a flow binds to the slice enclosing its time on its
 * track, and a marker there at a call's or a collective's start was that
 * slice (Perfetto's stack, chrome://tracing's deepest slice), so the
 * launch and cross-rank arrows ended on markers.  Times are µs with ns
 * decimals from the run's start, hosts aligned by their realtime
 * offsets.
 *
 * What Perfetto's JSON importer keeps (docs/chrome-trace.md): flows by
 * their "id" (it reads no "id2"), a flow's steps in time order, slices on
 * one track that nest.  The ranks' order is their process_sort_index
 * (the rank), which Perfetto reads since v53 and chrome://tracing always
 * has; older Perfetto UIs order processes by their number of slices, then
 * by name (zero-padded ranks: in rank order when the counts tie).  Markers
 * once evened the counts out, a column of arrows on empty tracks. */
#include "viewer/model/comm_kernels.h"
#include "viewer/model/handles.h"
#include "viewer/model/idmap.h"
#include "viewer/model/stream_keys.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/write/finding_out.h"
#include "viewer/write/json.h"
#include "viewer/write/output.h"
#include "viewer/model/timeline.h"
#include "viewer/write/chrome_writer.h"
#include "viewer/write/whatif_out.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A track's tid when its own id is taken in its process (a host thread
 * whose tid is a stream's id, or the other way round): rare, as CUDA's
 * stream ids are small and thread ids rarely are. */
#define THREAD_TID_MOVED 1000000000
#define STREAM_TID_MOVED 1500000000

#define ts json_ts

void chrome_begin_event(struct writer *w)
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

/* The sort indexes: Perfetto (v53 on) and chrome://tracing order
 * processes and their tracks by them, lowest first. */
static void meta(struct writer *w, const char *what, int pid, long long tid, const char *name, int sort)
{
    chrome_begin_event(w);
    fprintf(w->out, "{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%lld,\"args\":{\"name\":", what, pid, tid);
    json_string(w->out, name);
    fputs("}}", w->out);
    chrome_begin_event(w);
    fprintf(w->out, "{\"ph\":\"M\",\"name\":\"%s_sort_index\",\"pid\":%d,\"tid\":%lld,\"args\":{\"sort_index\":%d}}",
            strcmp(what, "process_name") ? "thread" : "process", pid, tid, sort);
}

/* The tid of process pi's host thread tid, or of its stream. */
static int moved(const struct writer *w, size_t pi, int stream, int id)
{
    for (int k = 0; k < w->nmoves; k++)
        if (w->moves[k].proc == (int)pi && w->moves[k].stream == stream && w->moves[k].id == id)
            return w->moves[k].tid;
    return id;
}
static int thread_tid(const struct writer *w, size_t pi, int tid) { return moved(w, pi, 0, tid); }
/* The what-if critical paths' process: a pid no process's takes (pid_of:
 * ranks, else 100000 + the process's index) */
#define CP_PID(m) (100000 + (int)(m)->nprocs)
static int stream_tid(const struct writer *w, size_t pi, int stream) { return moved(w, pi, 1, stream); }

static void slice(struct writer *w, const struct model *m, const struct proc *p, int pid, long long tid,
                  const char *name, const char *cat, int64_t start, int64_t end)
{
    chrome_begin_event(w);
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

static int has(const int *v, int n, int x)
{
    for (int k = 0; k < n; k++)
        if (v[k] == x)
            return 1;
    return 0;
}

/* At most MOVES_KEPT of a process (each process's own: the same whether
 * its part was written here or on a worker, chrome_part.c). */
static void move(struct writer *w, size_t pi, int stream, int id, int tid)
{
    if (w->proc_moves >= MOVES_KEPT)
        return;
    if (w->nmoves == w->moves_cap) {
        w->moves_cap = w->moves_cap ? 2 * w->moves_cap : 16;
        if (!(w->moves = realloc(w->moves, (size_t)w->moves_cap * sizeof *w->moves)))
            model_out_of_memory();
    }
    w->moves[w->nmoves++] = (struct move){ (int)pi, stream, id, tid };
    w->proc_moves++;
}

/* What ran on a stream, for its track's name: a user sees which stream
 * computes, which communicates and which copies without opening one. */
enum { STREAM_COMPUTE = 1, STREAM_NCCL = 2, STREAM_COMM = 4, STREAM_COPY = 8 };

static int op_role(const struct proc *p, const struct gop *g)
{
    if (g->nccl) /* NCCL's kernels and copy-engine copies; other libraries' communication kernels */
        return g->kind != GOP_KERNEL || !strncmp(model_kernel_name(p, g->name), "nccl", 4) ? STREAM_NCCL : STREAM_COMM;
    return g->kind == GOP_KERNEL ? STREAM_COMPUTE : STREAM_COPY;
}

/* " (compute)", " (NCCL + copy)": the roles of a stream, in that order. */
static void role_words(int roles, char *buf, size_t len)
{
    static const char *const word[] = { "compute", "NCCL", "communication", "copy" };
    size_t at = 0;
    buf[0] = 0;
    for (int b = 0; b < 4 && at < len; b++)
        if (roles & (1 << b))
            at += (size_t)snprintf(buf + at, len - at, "%s%s", at ? " + " : " (", word[b]);
    if (at && at < len)
        snprintf(buf + at, len - at, ")");
}

/* The tracks of the window loaded: its threads and streams not seen yet,
 * each on the tid of its own id unless a track of the process has it;
 * and what ran on each stream. */
static void note_tracks(struct writer *w, size_t pi, const struct proc *p)
{
    for (size_t i = 0; i < p->ncalls && w->nthreads < TRACKS_NAMED; i++) {
        int tid = p->calls[i].tid;
        if (add_new(w->threads, &w->nthreads, tid) && has(w->stream_tids, w->nstreams, tid))
            move(w, pi, 0, tid, THREAD_TID_MOVED + tid);
    }
    for (size_t i = 0; i < p->nops; i++) {
        int s = p->ops[i].stream, seen = 0;
        while (seen < w->nstreams && w->streams[seen] != s)
            seen++;
        if (seen < w->nstreams) {
            w->stream_roles[seen] |= op_role(p, &p->ops[i]);
            continue;
        }
        if (w->nstreams == TRACKS_NAMED)
            continue;
        int tid = s;
        for (int k = 0; k < w->nthreads; k++)
            if (thread_tid(w, pi, w->threads[k]) == s)
                tid = STREAM_TID_MOVED + s;
        if (tid != s)
            move(w, pi, 1, s, tid);
        w->streams[w->nstreams] = s;
        w->stream_devs[w->nstreams] = p->ops[i].device;
        w->stream_roles[w->nstreams] = op_role(p, &p->ops[i]);
        w->stream_tids[w->nstreams++] = tid;
    }
}

static void metadata(struct writer *w, const struct model *m, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    char name[512];
    /* ranks zero-padded, so that names sort as ranks do (a Perfetto UI
     * before v53 orders processes of as many slices by name) */
    if (p->rank >= 0)
        snprintf(name, sizeof name, "rank %0*d \xc2\xb7 %s \xc2\xb7 pid %d \xc2\xb7 %s", w->rank_width, p->rank, p->host,
                 p->pid, p->gpu[0] ? p->gpu : "no GPU name");
    else
        snprintf(name, sizeof name, "~ no rank \xc2\xb7 %s \xc2\xb7 pid %d \xc2\xb7 %s", p->host, p->pid,
                 p->gpu[0] ? p->gpu : "no GPU name");
    meta(w, "process_name", pid, 0, name, pid);
    /* host threads, in order of first appearance */
    for (int k = 0; k < w->nthreads; k++) {
        int tid = w->threads[k];
        snprintf(name, sizeof name, "host thread %d%s", tid, tid == p->pid ? " (main)" : "");
        meta(w, "thread_name", pid, thread_tid(w, pi, tid), name, k + 1);
    }
    int ns = w->nstreams;
    for (int a = 0; a < ns; a++) /* streams in id order */
        for (int b = a + 1; b < ns; b++)
            if (w->streams[b] < w->streams[a]) {
                int t = w->streams[a], u = w->stream_tids[a], d = w->stream_devs[a], r = w->stream_roles[a];
                w->streams[a] = w->streams[b];
                w->stream_tids[a] = w->stream_tids[b];
                w->stream_devs[a] = w->stream_devs[b];
                w->stream_roles[a] = w->stream_roles[b];
                w->streams[b] = t;
                w->stream_tids[b] = u;
                w->stream_devs[b] = d;
                w->stream_roles[b] = r;
            }
    /* named by the device its work ran on, as CUPTI's records say: the
     * process's device is the one its last cudaSetDevice chose, unknown (-1)
     * where no wrapper saw that call (a static runtime's program); and by
     * what ran on them: "GPU 0 stream 7 (compute + copy)" */
    for (int k = 0; k < ns; k++) {
        char roles[64];
        role_words(w->stream_roles[k], roles, sizeof roles);
        snprintf(name, sizeof name, "GPU %d stream %d%s", w->stream_devs[k] >= 0 ? w->stream_devs[k] : p->device,
                 model_stream_raw(p, w->streams[k]), roles);
        meta(w, "thread_name", pid, w->stream_tids[k], name, 1000 + k);
    }
}

/* Flows go from a call to the first GPU operation it caused: both ends are
 * known from the timeline, so every flow that starts also finishes. */
static void calls(struct writer *w, const struct model *m, size_t pi, const struct timeline *t, uint8_t *flow_op)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    int set_device = model_api_named(m, "cudaSetDevice");
    for (size_t i = 0; i < p->ncalls; i++) {
        const struct call *c = &p->calls[i];
        const char *name = model_api_name(m, c->api);
        int tid = thread_tid(w, pi, c->tid);
        slice(w, m, p, pid, tid, name, m->roles[c->api] >= ROLE_NCCL_OP ? "nccl" : "cuda_api", c->start, c->end);
        /* cudaSetDevice's bytes hold its device + 1 (docs/schema.md): shown as the device */
        int dev = c->api == set_device ? model_call_set_device(c) : -1;
        fprintf(w->out, ",\"args\":{\"call_id\":%lld,\"stream\":%lld,\"%s\":%lld,\"result\":%d,\"correlation\":%u}}",
                (long long)c->call_id, (long long)STREAM_HANDLE_SHOWN(c->stream), dev >= 0 ? "device" : "bytes",
                (long long)(dev >= 0 ? dev : c->bytes), c->result, c->corr);
        if (t->op_of_call[i] >= 0 && !flow_op[t->op_of_call[i]]) { /* flow start, bound to this slice */
            flow_op[t->op_of_call[i]] = 1;
            chrome_begin_event(w);
            fprintf(w->out, "{\"ph\":\"s\",\"name\":\"launch\",\"cat\":\"ac2g\",\"id\":%lld,\"pid\":%d,\"tid\":%d,\"ts\":",
                    ((long long)pi << 32) | c->corr, pid, tid);
            ts(w->out, model_aligned(m, p, c->start));
            fputc('}', w->out);
        }
    }
}

/* A start/end range (it may cross others: Perfetto would drop a complete
 * slice that crosses another on its track) as an async slice of its
 * process, begun on its thread: its "b" and its "e" events, each left
 * open for the caller (the "b"'s args, the "e"'s closing brace).
 * Perfetto puts each async slice that overlaps another on a track of its
 * own, by (category, id): the id is the range's index in its process, so
 * it is given as id2.local, which Perfetto scopes to the process (a plain
 * "id" is global: two ranks' ranges of one name and index would share a
 * track). */
static void async_event(struct writer *w, const struct model *m, const struct proc *p, char ph, int pid,
                        long long tid, const char *name, size_t id, int64_t at)
{
    chrome_begin_event(w);
    fprintf(w->out, "{\"ph\":\"%c\",\"name\":", ph);
    json_string(w->out, name);
    fprintf(w->out, ",\"cat\":\"nvtx\",\"id2\":{\"local\":\"r%zu\"},\"pid\":%d,\"tid\":%lld,\"ts\":", id, pid, tid);
    ts(w->out, model_aligned(m, p, at));
}

/* NVTX ranges as slices on the thread that opened them (a range never
 * closed runs to the process's end); start/end ranges as async slices. */
static void ranges(struct writer *w, const struct model *m, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    int pid = pid_of(m, pi);
    for (size_t i = 0; i < p->nranges; i++) {
        const struct nvtx *r = &p->ranges[i];
        const char *name = *model_label(p, r->name) ? model_label(p, r->name) : "(unnamed range)";
        long long tid = thread_tid(w, pi, r->tid);
        if (r->crossable)
            async_event(w, m, p, 'b', pid, tid, name, i, r->start);
        else
            slice(w, m, p, pid, tid, name, "nvtx", r->start, r->end);
        fputs(",\"args\":{\"domain\":", w->out);
        json_string(w->out, model_label(p, r->domain));
        if (r->iter >= 0)
            fprintf(w->out, ",\"iteration\":%lld", (long long)r->iter);
        if (r->payload) {
            fputs(",\"payload\":", w->out);
            json_string(w->out, model_label(p, r->payload));
        }
        fputs("}}", w->out);
        if (r->crossable) {
            async_event(w, m, p, 'e', pid, tid, name, i, r->end > r->start ? r->end : r->start);
            fputs("}", w->out);
        }
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
        char ncclbuf[128];
        name = comm_op_name(m, p, g, name, ncclbuf, sizeof ncclbuf); /* NCCL's copy-engine copies: named NCCL's */
        int tid = stream_tid(w, pi, g->stream);
        slice(w, m, p, pid, tid, name, cat, g->start, g->end);
        fprintf(w->out, ",\"args\":{\"stream\":%d,\"correlation\":%u,\"bytes\":%lld,\"device\":%d}}",
                model_stream_raw(p, g->stream), g->corr,
                (long long)g->bytes, g->device);
        if (flow_op[i]) { /* flow end */
            chrome_begin_event(w);
            fprintf(w->out, "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"launch\",\"cat\":\"ac2g\",\"id\":%lld,\"pid\":%d,\"tid\":%d,\"ts\":",
                    ((long long)pi << 32) | g->corr, pid, tid);
            ts(w->out, model_aligned(m, p, g->start));
            fputc('}', w->out);
        }
    }
}

/* Marks of a collective's findings (comm.exposed, comm.same_stream: the
 * analysis names the collective's call time, no thread) waiting for their
 * collective, to be placed at its kernel's start, its stream named: by
 * (process, call start), chained. */
struct pending { int fi, k; int64_t next; };
struct coll_pass {
    struct writer *w; const struct model *m; const struct findings *fs;
    struct idmap at; struct pending *v; size_t n; uint8_t *placed; /* by finding * FINDING_MARKS + mark */
};

static uint64_t pending_key(int proc, int64_t t)
{
    return ((uint64_t)(uint32_t)proc << 44) ^ (uint64_t)t ^ 0x5bd1e995ULL; /* a hint: entries are compared whole */
}

/* Whether a finding's marks go on its collectives' streams: those of the
 * collectives' own findings, not the whole process's (ledger.c). */
static int on_stream(const struct finding *f)
{
    return (f->kind == F_COMM_EXPOSED || f->kind == F_COMM_SAME_STREAM) && !(f->facts.has & FACT_UNCLAIMED);
}

static void pending_marks(struct coll_pass *cp)
{
    const struct findings *fs = cp->fs;
    if (!(cp->placed = calloc(fs->n * FINDING_MARKS + 1, 1)) || !(cp->v = calloc(fs->n * FINDING_MARKS + 1, sizeof *cp->v)))
        model_out_of_memory();
    for (size_t i = 0; i < fs->n; i++)
        for (int k = 0; k < fs->v[i].nmarks; k++) {
            const struct finding_mark *mk = &fs->v[i].marks[k];
            if (!on_stream(&fs->v[i]) || mk->tid >= 0)
                continue;
            uint64_t key = pending_key(mk->proc, mk->t);
            int64_t head = 0;
            idmap_get(&cp->at, key, &head);
            cp->v[cp->n] = (struct pending){ (int)i, k, head };
            idmap_put(&cp->at, key, (int64_t)++cp->n, 0);
        }
}

/* Where a marker's occurrence happened: its host thread, or its
 * collective's stream (-1: not that). */
struct where { int thread, stream; };
static void finding_args(struct writer *w, const struct model *m, const struct finding *f, int k, int elsewhere,
                         struct where at);

/* The marks waiting for collective c, at its kernel's start. */
static void place_marks(struct coll_pass *cp, const struct coll_rec *c)
{
    int64_t at = 0;
    if (!cp->n || !idmap_get(&cp->at, pending_key(c->proc, c->start), &at))
        return;
    struct writer *w = cp->w;
    for (; at > 0; at = cp->v[at - 1].next) {
        const struct pending *pd = &cp->v[at - 1];
        const struct finding *f = &cp->fs->v[pd->fi];
        const struct finding_mark *mk = &f->marks[pd->k];
        uint8_t *done = &cp->placed[(size_t)pd->fi * FINDING_MARKS + (size_t)pd->k];
        if (mk->proc != c->proc || mk->t != c->start || *done)
            continue;
        *done = 1;
        chrome_begin_event(w);
        fputs("{\"ph\":\"i\",\"name\":", w->out);
        json_string(w->out, finding_names[f->kind]);
        fprintf(w->out, ",\"cat\":\"finding\",\"s\":\"p\",\"pid\":%d,\"ts\":", pid_of(cp->m, (size_t)c->proc));
        ts(w->out, model_aligned(cp->m, &cp->m->procs[c->proc], c->gstart));
        finding_args(w, cp->m, f, pd->k, -1, (struct where){ -1, model_stream_raw(&cp->m->procs[c->proc], c->gstream) });
    }
}

/* A flow id of its own for each (communicator, sequence): a hash, as a
 * hex string (Perfetto reads a string id as hex; a number this big would
 * lose digits in JavaScript viewers). */
static unsigned long long coll_flow_id(const struct coll_rec *c)
{
    unsigned long long h = (unsigned long long)c->comm * 0x9E3779B97F4A7C15ULL;
    h ^= ((unsigned long long)c->seq + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= h >> 31;
    return h ? h : 1;
}

/* A flow step of a collective's kernel: s, t or f (the last, bound to
 * the slice it ends in). */
static void flow_step(struct writer *w, const struct model *m, const struct coll_rec *c, const char *ph,
                      unsigned long long id)
{
    chrome_begin_event(w);
    fprintf(w->out, "{\"ph\":\"%s\",%s\"name\":\"collective\",\"cat\":\"collective\",\"id\":\"%016llx\","
                    "\"pid\":%d,\"tid\":%d,\"ts\":",
            ph, *ph == 'f' ? "\"bp\":\"e\"," : "", id, pid_of(m, (size_t)c->proc), stream_tid(w, (size_t)c->proc, c->gstream));
    ts(w->out, model_aligned(m, &m->procs[c->proc], c->gstart));
    fputc('}', w->out);
}

/* A group of sends and receives (their number counts per peer: the k-th
 * send of every rank to any peer shares it): a flow from each send to
 * the receive of its pair (the peer's from this rank), not one through
 * them all; 1 if the group is one of them. */
static int p2p_pairs(struct writer *w, const struct model *m, const struct coll_rec *v, size_t n)
{
    const char *a = model_api_name(m, v[0].api);
    if (strcmp(a, "ncclSend") && strcmp(a, "ncclRecv"))
        return 0;
    struct idmap recv = { 0 }; /* (rank, peer) + 1 -> its index */
    for (size_t k = 0; k < n; k++)
        if (!strcmp(model_api_name(m, v[k].api), "ncclRecv") && v[k].gend > v[k].gstart && v[k].gstream >= 0)
            idmap_put(&recv, ((uint64_t)(uint32_t)v[k].rank << 32 | (uint32_t)v[k].peer) + 1, (int64_t)k, 1);
    for (size_t k = 0; k < n; k++) {
        const struct coll_rec *c = &v[k], *r;
        int64_t q;
        if (strcmp(model_api_name(m, c->api), "ncclSend") || !(c->gend > c->gstart && c->gstream >= 0) ||
            !idmap_get(&recv, ((uint64_t)(uint32_t)c->peer << 32 | (uint32_t)c->rank) + 1, &q))
            continue;
        r = &v[q];
        unsigned long long id = coll_flow_id(c) ^ (((unsigned long long)(uint32_t)c->rank << 32 | (uint32_t)c->peer) *
                                                   0x94D049BB133111EBULL);
        id = id ? id : 1;
        /* in time order, as Perfetto takes a flow's steps */
        int send_first = model_aligned(m, &m->procs[c->proc], c->gstart) <= model_aligned(m, &m->procs[r->proc], r->gstart);
        flow_step(w, m, send_first ? c : r, "s", id);
        flow_step(w, m, send_first ? r : c, "f", id);
    }
    idmap_free(&recv);
    return 1;
}

/* One (comm, seq) group of collectives (coll_spill.h): each on its stream,
 * and one flow through the ranks that have a GPU time for it, in the order
 * their kernels started (Perfetto takes a flow's steps in time order: one
 * before its start would be an error): s on the first, t in between, f on
 * the last. */
static void collective_group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct coll_pass *cp = ctx;
    struct writer *w = cp->w;
    const struct model *m = cp->m;
    size_t order[64], nord = 0; /* members with a GPU time, by aligned start; the first 64 linked */
    for (size_t k = 0; k < n; k++) {
        const struct coll_rec *c = &v[k];
        if (!(c->gend > c->gstart && c->gstream >= 0))
            continue;
        const struct proc *p = &m->procs[c->proc];
        int pid = pid_of(m, (size_t)c->proc);
        char name[128];
        const char *api = model_api_name(m, c->api);
        if (!strncmp(api, "nccl", 4))
            api += 4; /* "AllReduce #3" */
        snprintf(name, sizeof name, "%s #%lld", api, (long long)model_seq_shown(c->seq));
        int tid = stream_tid(w, (size_t)c->proc, c->gstream);
        slice(w, m, p, pid, tid, name, "collective", c->gstart, c->gend);
        fprintf(w->out, ",\"args\":{\"comm\":\"%llx\",\"seq\":%lld,\"count\":%lld,\"bytes\":%lld,\"datatype\":%d,"
                        "\"peer\":%d,\"rank\":%d,\"nranks\":%d,\"call_id\":%lld}}",
                (unsigned long long)c->comm, (long long)c->seq, (long long)c->count, (long long)c->bytes, c->dtype,
                c->peer, c->rank, c->nranks, (long long)c->call_id);
        place_marks(cp, c);
        if (nord == sizeof order / sizeof *order)
            continue;
        int64_t at = model_aligned(m, p, c->gstart);
        size_t j = nord++;
        for (; j > 0 && model_aligned(m, &m->procs[v[order[j - 1]].proc], v[order[j - 1]].gstart) > at; j--)
            order[j] = order[j - 1];
        order[j] = k;
    }
    if (nord < 2)
        return; /* alone: nothing to link */
    if (p2p_pairs(w, m, v, n))
        return;
    for (size_t j = 0; j < nord; j++) {
        const struct coll_rec *c = &v[order[j]];
        const struct proc *p = &m->procs[c->proc];
        chrome_begin_event(w);
        fprintf(w->out, "{\"ph\":\"%s\",%s\"name\":\"collective\",\"cat\":\"collective\",\"id\":\"%016llx\","
                        "\"pid\":%d,\"tid\":%d,\"ts\":",
                j == 0 ? "s" : j == nord - 1 ? "f" : "t", j == nord - 1 ? "\"bp\":\"e\"," : "", coll_flow_id(c),
                pid_of(m, (size_t)c->proc), stream_tid(w, (size_t)c->proc, c->gstream));
        ts(w->out, model_aligned(m, p, c->gstart));
        fputc('}', w->out);
    }
}

/* A finding's details, in the args of each of its markers; `elsewhere`:
 * the process the marked time lay on when the marker is on the finding's
 * own (the rank that waited for a straggler), else -1. */
static void finding_args(struct writer *w, const struct model *m, const struct finding *f, int k, int elsewhere,
                         struct where at)
{
    fputs(",\"args\":{\"kind\":", w->out);
    json_string(w->out, finding_names[f->kind]);
    if (at.thread >= 0)
        fprintf(w->out, ",\"thread\":%d", at.thread);
    if (at.stream >= 0)
        fprintf(w->out, ",\"stream\":%d", at.stream);
    if (f->rank >= 0) /* the rank it names (comm.straggler: the late one) */
        fprintf(w->out, ",\"rank\":%d", f->rank);
    if (elsewhere >= 0)
        fprintf(w->out, ",\"%s\":%d", m->procs[elsewhere].rank >= 0 ? "time_on_rank" : "time_on_pid",
                m->procs[elsewhere].rank >= 0 ? m->procs[elsewhere].rank : m->procs[elsewhere].pid);
    if (k >= 0) /* an occurrence, or a piece of the time charged to it (finding_marks_from_charges) */
        fprintf(w->out, ",\"%s\":%d,\"cost_ns\":%lld", f->marks_charged ? "charged_piece" : "occurrence", k + 1,
                (long long)finding_mark_cost(f, k));
    fprintf(w->out, ",\"occurrences\":%lld,\"marked\":%d,\"finding_cost_ns\":%lld,\"callsite\":", (long long)f->count,
            f->marks_charged ? 0 : f->nmarks, (long long)finding_cost(f));
    json_string(w->out, f->callsite);
    char range[FINDING_RANGE_LEN];
    if (*finding_range(m, f, range, sizeof range)) {
        fputs(",\"range\":", w->out);
        json_string(w->out, range);
    }
    if (k <= 0 && f->proc >= 0 && f->callsite_id > 0) { /* stacks on the first marker only: they run long */
        const struct proc *p = &m->procs[f->proc];
        char stack[8192];
        fputs(",\"callstack\":", w->out);
        json_string(w->out, model_callstack(m, p, f->callsite_id, stack, sizeof stack));
        if (*model_pystack(m, p, f->callsite_id, stack, sizeof stack)) {
            fputs(",\"python_stack\":", w->out);
            json_string(w->out, stack);
        }
    }
    char text[FINDING_TEXT_LEN];
    fputs(",\"message\":", w->out);
    json_string(w->out, finding_message(m, f, text, sizeof text));
    fputs(",\"fix\":", w->out);
    json_string(w->out, finding_suggestion(m, f, text, sizeof text));
    fputs("}}", w->out);
}

/* Each finding as a marker at each of its first occurrences, on the
 * process track of the process that made it (the thread in its args);
 * one with no occurrence of its own (a whole-process or whole-run
 * figure) at its process's, or the run's, start.  A whole process's
 * finding (comm.straggler, gpu.idle) goes on that process's track even
 * where its marks lie on others' (the straggler's: the time the others
 * waited for it), so that searching its name lands on the rank it names;
 * the rank that waited is in its args. */
static void findings(struct writer *w, const struct model *m, const struct findings *fs, const uint8_t *placed)
{
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        for (int k = 0; k < f->nmarks || (k == 0 && !f->nmarks); k++) {
            if (f->nmarks && placed[i * FINDING_MARKS + (size_t)k])
                continue; /* on its collective's stream already */
            int proc = f->nmarks ? f->marks[k].proc : f->proc >= 0 ? f->proc : 0;
            if (proc < 0 || (size_t)proc >= m->nprocs)
                continue;
            const struct proc *p = &m->procs[proc]; /* the mark's clock */
            int tid = f->nmarks ? f->marks[k].tid : -1;
            int on = tid < 0 && f->proc >= 0 && (size_t)f->proc < m->nprocs ? f->proc : proc; /* the track's process */
            chrome_begin_event(w);
            fputs("{\"ph\":\"i\",\"name\":", w->out);
            json_string(w->out, finding_names[f->kind]);
            fprintf(w->out, ",\"cat\":\"finding\",\"s\":\"%s\",\"pid\":%d,\"ts\":", f->proc >= 0 || f->nmarks ? "p" : "g",
                    pid_of(m, (size_t)on));
            ts(w->out, model_aligned(m, p, f->nmarks ? f->marks[k].t : p->start));
            finding_args(w, m, f, f->nmarks ? k : -1, on != proc ? proc : -1, (struct where){ tid, -1 });
        }
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
    w->nprocs = m->nprocs;
    int top = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        top = m->procs[i].rank > top ? m->procs[i].rank : top;
    for (w->rank_width = 1; top >= 10; top /= 10)
        w->rank_width++;
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
    note_tracks(w, pi, &m->procs[pi]);
    calls(w, m, pi, t, flow_op);
    gpu_ops(w, m, pi, flow_op);
    free(flow_op);
}

void chrome_trace_proc_end(struct chrome_trace *ct, const struct model *m, size_t pi)
{
    struct writer *w = (struct writer *)ct;
    const struct proc *p = &m->procs[pi];
    for (size_t i = 0; i < p->nranges && w->nthreads < TRACKS_NAMED; i++) /* threads with ranges and no calls */
        if (add_new(w->threads, &w->nthreads, p->ranges[i].tid) && has(w->stream_tids, w->nstreams, p->ranges[i].tid))
            move(w, pi, 0, p->ranges[i].tid, THREAD_TID_MOVED + p->ranges[i].tid);
    ranges(w, m, pi);
    metadata(w, m, pi);
    w->nthreads = w->nstreams = w->proc_moves = 0;
}

/* Each rank's critical path of a typical step (analyse/whatif.c), as a
 * process of its own ("what-if"), a track per rank: a slice per stretch of
 * one part (a kernel's name, a call site's host code), with its share of
 * the step.  Apart from the ranks' processes, so that their tracks stay
 * as their records make them. */
static void critical_paths(struct writer *w, const struct model *m, const struct findings *fs)
{
    int named = 0;
    for (size_t pi = 0; pi < fs->nwhatif && pi < m->nprocs; pi++) {
        const struct whatif_proc *wp = &fs->whatif[pi];
        if (!wp->nspans || !wp->cp_ns)
            continue;
        const struct proc *p = &m->procs[pi];
        char name[200];
        if (!named++)
            meta(w, "process_name", CP_PID(m), 0, "what-if: the critical path of a typical step", CP_PID(m));
        snprintf(name, sizeof name, "rank %d, step %lld", p->rank, (long long)wp->cp_iter);
        meta(w, "thread_name", CP_PID(m), (long long)pi, name, (int)pi);
        for (int k = wp->nspans; k-- > 0;) { /* in time order */
            const struct cp_span *sp = &wp->spans[k];
            const struct cp_part *part = &wp->parts[sp->part < wp->nparts ? sp->part : wp->nparts - 1];
            chrome_begin_event(w);
            fputs("{\"ph\":\"X\",\"name\":", w->out);
            json_string(w->out, part->name);
            fprintf(w->out, ",\"cat\":\"critical_path\",\"pid\":%d,\"tid\":%zu,\"ts\":", CP_PID(m), pi);
            ts(w->out, model_aligned(m, p, sp->a));
            fputs(",\"dur\":", w->out);
            ts(w->out, sp->b - sp->a);
            fprintf(w->out, ",\"args\":{\"kind\":\"%s\",\"part_ms\":%.3f,\"step_share\":%.3f}}",
                    cp_kind_names[part->kind], (double)part->ns / 1e6, (double)part->ns / (double)wp->cp_ns);
        }
    }
}

long chrome_trace_close(struct chrome_trace *ct, const struct model *m, const struct findings *fs,
                        struct coll_spill *spill)
{
    struct writer *w = (struct writer *)ct;
    struct coll_pass cp = { .w = w, .m = m, .fs = fs };
    pending_marks(&cp);
    coll_spill_groups(spill, collective_group, &cp);
    findings(w, m, fs, cp.placed);
    critical_paths(w, m, fs);
    idmap_free(&cp.at);
    free(cp.v);
    free(cp.placed);
    fputs("\n]}\n", w->out);
    if (w->progress)
        fprintf(stderr, "\r%60s\r", "");
    int bad = ferror(w->out);
    bad |= fclose(w->out) != 0;
    if (w->part_failed) { /* a process's part could not be written (chrome_part.c) */
        bad = 1;
        errno = w->part_failed;
    }
    long events = w->events;
    free(w->moves);
    free(w);
    return bad ? -1 : events;
}
