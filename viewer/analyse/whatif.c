/* whatif.c: what each finding's fix would make of the step time
 * (docs/report.md, "What if it were fixed"): a window of a process's
 * records made into its dependency graph (replay.h), replayed as measured
 * and with each of the process's findings fixed, and each iteration's
 * time (model/steps.h) taken from the replays.
 *
 * The graph: the process's calls by start, with a pseudo-call for each
 * GPU operation no call is known for (enqueued at its CUPTI enqueue
 * time); each operation after its call; an event recorded takes the last
 * operation enqueued on its stream, a stream wait makes the stream's next
 * operation wait for it; a stream sync waits for its stream's last
 * operation and the events its stream waits on, a device sync (or a free)
 * for every stream's last operation, an event sync for the event's, a
 * blocking copy or memset for its own operations.
 *
 * The fixes, by finding kind, applied to the calls at the finding's site:
 * sync.redundant and sync.no_consumer remove the sync; sync.scalar_read
 * and sync.implicit make it not wait (the copy stays, asynchronous);
 * sync.device_wide waits for the streams whose copies to the host it
 * consumed only; copy.pageable makes the copy asynchronous (the host's
 * wait goes; its duration at the pinned bandwidth the run measured, when
 * it has pinned copies of that direction); copy.serialized moves the
 * upload to a copy stream the next operation of its stream waits for;
 * comm.same_stream and comm.exposed move the collective to a stream of
 * its own (the syncs that waited for it still do); host.setup takes its
 * calls' host time away (set up once, before the steps), leaving what
 * they launched.
 *
 * A rank read a window at a time is replayed a window's graph at a time,
 * each replay's state carried from one window to the next (struct
 * whatif_carry: the threads' and streams' ends, the operations the next
 * window refers to, made its graph's ghosts, and the steps' time so far),
 * so that it gives what the whole rank's graph would; its steps' times
 * are taken at the process's end (whatif_proc_end), from the first step's
 * end to the last's (carry_of: the first starts the clock).  Its windows
 * are read again for the replay once its findings are all made (passes.h:
 * final_window), so that the fixes replayed are those of the findings the
 * process has from its first window on, as read whole: a site's first
 * calls can be one finding (sync.no_consumer) and its later ones another
 * (sync.device_wide), which the site's one verdict then fixes at all.
 *
 * Each rank's replays (as measured, all fixed) also leave a summary of the
 * rank for the replay of every rank together (whatif_joint.h, whatif_job.c:
 * comm.straggler's prediction, the job's all fixed): its collectives'
 * arrivals and its steps' ends, each with its longest paths from the
 * collectives before it and from the host (whatif_paths.c: the region of
 * the graph back to them, a step or two, across cuts for a rank read a
 * window at a time). */
#include "viewer/analyse/analysis_setup.h"
#include "viewer/analyse/findings.h"
#include "viewer/analyse/replay.h"
#include "viewer/analyse/whatif_int.h"
#include "viewer/analyse/whatif_joint.h"
#include "viewer/model/sort_by_time.h"
#include "viewer/model/steps.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *whatif_alloc(size_t n, size_t size)
{
    void *p = calloc(n + 1, size);
    if (!p)
        model_out_of_memory();
    return p;
}

/* A pageable copy made pinned, when the run has no pinned copy of its
 * direction to measure: a quarter of its time.  An assumption (pinned
 * copies run at the link's rate, pageable ones through the driver's
 * staging buffer, typically a few times slower); docs/report.md. */
#define PINNED_SCALE 0.25f

/* The steps a rank needs (after its warm-up) for them to be timed from the
 * first one's end (carry_of).  Fewer, and that end can leave the clock
 * little to time: on 3 steps of a job with a straggler, a first step's
 * all-reduce that waited for the late rank ended in the third step, and
 * the steps came out 13.6 ms against 37 (sim-straggler) */
#define WHATIF_LEAD_MIN 6

static void add_wait(struct build *b, int32_t op)
{
    if (op < 0)
        return;
    struct rp_call *c = &b->g.calls[b->g.ncalls - 1];
    for (uint32_t w = 0; w < c->nwait; w++)
        if (b->g.waits[c->wait_first + w] == op)
            return;
    if (b->g.nwaits == b->waits_cap) {
        size_t cap = b->waits_cap ? b->waits_cap * 2 : 1024;
        int32_t *v = realloc(b->g.waits, cap * sizeof *v);
        if (!v)
            model_out_of_memory();
        b->g.waits = v;
        b->waits_cap = cap;
    }
    b->g.waits[b->g.nwaits++] = op;
    c->nwait++;
}

/* Per stream (CUPTI id + 1): its last operation, and the events it waits
 * on since then; per event handle: the operation recorded.  Carried from
 * one window to the next (the operations it names made the next graph's
 * ghosts: carry_state). */
struct state { struct idmap last, pend, ev; int32_t *pend_v; size_t npend, pend_cap; };

/* A wait a fix adds that falls past the window's end: the operation
 * after a on its stream (comm: the first not moved) waits for b, whose
 * replayed times are kept (the next graph's ghosts, both). */
struct join { int32_t a, b; int comm; int64_t b_start, b_end; };
struct joins { struct join *v; size_t n, cap; };

/* A stream sync a fix frees of its wait, past the window's end: thread
 * tid's next call, if it is a sync of stream (read_then_sync). */
struct free_sync { int tid; int64_t stream; };
struct free_syncs { struct free_sync *v; size_t n, cap; };

static void free_sync_add(struct free_syncs *f, struct free_sync x)
{
    if (!f)
        return;
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 4;
        if (!(f->v = realloc(f->v, f->cap * sizeof *f->v)))
            model_out_of_memory();
    }
    f->v[f->n++] = x;
}

static void join_add(struct joins *j, struct join x)
{
    if (!j)
        return;
    if (j->n == j->cap) {
        j->cap = j->cap ? j->cap * 2 : 8;
        if (!(j->v = realloc(j->v, j->cap * sizeof *j->v)))
            model_out_of_memory();
    }
    j->v[j->n++] = x;
}

static void note_pending(struct state *s, int64_t stream, int32_t op)
{
    if (s->npend == s->pend_cap) {
        size_t cap = s->pend_cap ? s->pend_cap * 2 : 256;
        int32_t *v = realloc(s->pend_v, cap * 2 * sizeof *v);
        if (!v)
            model_out_of_memory();
        s->pend_v = v;
        s->pend_cap = cap;
    }
    int64_t prev = -1;
    idmap_get(&s->pend, (uint64_t)stream + 2, &prev);
    s->pend_v[2 * s->npend] = op;
    s->pend_v[2 * s->npend + 1] = (int32_t)prev; /* a list per stream, newest first */
    idmap_put(&s->pend, (uint64_t)stream + 2, (int64_t)s->npend, 0);
    s->npend++;
}

static int64_t last_of(const struct state *s, int64_t stream)
{
    int64_t v = -1;
    idmap_get(&s->last, (uint64_t)stream + 2, &v);
    return v;
}

/* The stream's waits on events since its last operation, into the
 * current call's waits (and cleared, with take). */
static void pending_into(struct build *b, struct state *s, int64_t stream, struct rp_op *op, int take)
{
    int64_t at = -1;
    idmap_get(&s->pend, (uint64_t)stream + 2, &at);
    for (; at >= 0; at = s->pend_v[2 * at + 1]) {
        int32_t dep = s->pend_v[2 * at];
        if (op && op->ndep < RP_DEPS)
            op->dep[op->ndep++] = dep;
        else if (!op)
            add_wait(b, dep);
    }
    if (take)
        idmap_put(&s->pend, (uint64_t)stream + 2, -1, 0);
}

static void all_streams_into(struct build *b, const struct state *s)
{
    for (size_t k = 0; k < s->last.cap; k++)
        if (s->last.key[k] && s->last.val[k] >= 0)
            add_wait(b, (int32_t)s->last.val[k]);
}

/* The scope of model call ci, the rp call just added (its operations
 * already added and noted). */
static void scope(struct build *b, struct state *s, size_t ci, int32_t first_op, int32_t nops)
{
    const struct call *c = &b->p->calls[ci];
    int role = b->m->roles[c->api];
    int64_t st = timeline_stream(b->t, c->stream);
    switch (role) {
    case ROLE_EVENT_RECORD:
        idmap_put(&s->ev, (uint64_t)c->event + 1, st >= 0 ? last_of(s, st) : -1, 0);
        return;
    case ROLE_STREAM_WAIT: {
        int64_t op = -1;
        if (st >= 0 && idmap_get(&s->ev, (uint64_t)c->event + 1, &op) && op >= 0)
            note_pending(s, st, (int32_t)op);
        return;
    }
    case ROLE_SYNC_STREAM:
        if (st < 0)
            break; /* a stream never seen with work: taken as the device */
        add_wait(b, (int32_t)last_of(s, st));
        pending_into(b, s, st, NULL, 0);
        return;
    case ROLE_SYNC_EVENT: {
        int64_t op = -1;
        if (idmap_get(&s->ev, (uint64_t)c->event + 1, &op))
            add_wait(b, (int32_t)op);
        return;
    }
    case ROLE_SYNC_DEVICE:
    case ROLE_FREE:
        break;
    default:
        if (model_is_implicit_sync(b->m, c))
            for (int32_t k = 0; k < nops; k++)
                add_wait(b, first_op + k);
        return;
    }
    all_streams_into(b, s);
}

static int by_i64(const void *x, const void *y)
{
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return (a > b) - (a < b);
}

/* The median latency from a launch to its operation's start, of those
 * the launch decided: what an operation that waited for its stream is
 * given once it need not. */
static int64_t typical_latency(const struct build *b)
{
    int64_t *v = malloc((b->g.nops + 1) * sizeof *v), med = 0;
    size_t n = 0;
    if (!v)
        model_out_of_memory();
    for (size_t i = b->g.nghost; i < b->g.nops; i++) {
        const struct rp_op *o = &b->g.ops[i];
        const struct rp_call *c = &b->g.calls[o->call];
        if (c->tid >= 0 && o->start >= c->start && o->start - c->start < WHATIF_LAT_CAP_NS)
            v[n++] = o->start - c->start;
    }
    if (n) {
        qsort(v, n, sizeof *v, by_i64);
        med = v[n / 2];
    }
    free(v);
    return med;
}

struct item { int64_t t; int32_t op; int32_t call; };

static int by_item(const void *x, const void *y)
{
    const struct item *a = x, *b = y;
    if (a->t != b->t)
        return a->t < b->t ? -1 : 1;
    if ((a->call < 0) != (b->call < 0)) /* a call before an enqueueing at the same time */
        return a->call < 0 ? 1 : -1;
    return a->call != b->call ? (a->call > b->call) - (a->call < b->call) : (a->op > b->op) - (a->op < b->op);
}

struct opkey { int32_t rp_call; int32_t op; int64_t start; };

static int by_opkey(const void *x, const void *y)
{
    const struct opkey *a = x, *b = y;
    if (a->rp_call != b->rp_call)
        return a->rp_call < b->rp_call ? -1 : 1;
    if (a->start != b->start)
        return a->start < b->start ? -1 : 1;
    return (a->op > b->op) - (a->op < b->op);
}



/* An NCCL kernel's correlation id is its launch's, not the NCCL call's:
 * the collective's kernel, as loading matched it (its GPU start on its
 * stream), gives it its call. */
static void link_nccl_kernels(const struct proc *p, int32_t *call_of_op)
{
    struct idmap by_id = { 0 }, by_start = { 0 };
    for (size_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].call_id)
            idmap_put(&by_id, (uint64_t)p->calls[i].call_id, (int64_t)i, 1);
    for (size_t i = 0; i < p->nops; i++)
        if (p->ops[i].nccl && call_of_op[i] < 0)
            idmap_put(&by_start, (uint64_t)p->ops[i].start * 31 + (uint64_t)p->ops[i].stream, (int64_t)i, 1);
    for (size_t k = 0; k < p->ncolls; k++) {
        const struct coll *c = &p->colls[k];
        int64_t op, call;
        if (c->gstart > 0 && idmap_get(&by_start, (uint64_t)c->gstart * 31 + (uint64_t)c->gstream, &op) &&
            p->ops[op].start == c->gstart && idmap_get(&by_id, (uint64_t)c->call_id, &call))
            call_of_op[op] = (int32_t)call;
    }
    idmap_free(&by_id);
    idmap_free(&by_start);
}

/* Each operation's neighbours on its stream, and each call's segment
 * (the calls between two that wait). */
static void index_graph(struct build *b)
{
    const struct rp_graph *g = &b->g;
    b->next = whatif_alloc(g->nops, sizeof *b->next);
    b->prev = whatif_alloc(g->nops, sizeof *b->prev);
    b->seg = whatif_alloc(g->ncalls, sizeof *b->seg);
    struct idmap last = { 0 };
    for (size_t k = 0; k < g->nops; k++) {
        int64_t j;
        b->next[k] = -1;
        b->prev[k] = idmap_get(&last, (uint64_t)g->ops[k].stream + 2, &j) ? (int32_t)j : -1;
        if (b->prev[k] >= 0)
            b->next[b->prev[k]] = (int32_t)k;
        idmap_put(&last, (uint64_t)g->ops[k].stream + 2, (int64_t)k, 0);
    }
    idmap_free(&last);
    int32_t n = 0;
    for (size_t c = 0; c < g->ncalls; c++) {
        b->seg[c] = n;
        n += g->calls[c].nwait > 0;
    }
    b->op_first = whatif_alloc(g->ncalls + 1, sizeof *b->op_first);
    size_t k = g->nghost;
    for (size_t c = 0; c <= g->ncalls; c++) {
        while (k < g->nops && g->ops[k].call < (int32_t)c)
            k++;
        b->op_first[c] = (int32_t)k;
    }
}


static void build_graph(struct build *b)
{
    const struct proc *p = b->p;
    size_t nc = p->ncalls, no = p->nops;
    /* each operation's call, by correlation id */
    struct sort_key *ck = whatif_alloc(nc, sizeof *ck);
    size_t nck = 0;
    for (size_t i = 0; i < nc; i++)
        if (p->calls[i].corr)
            ck[nck++] = (struct sort_key){ p->calls[i].corr, i };
    if (sort_keys(ck, nck) != 0)
        model_out_of_memory();
    int32_t *call_of_op = whatif_alloc(no, sizeof *call_of_op);
    size_t norphan = 0;
    for (size_t i = 0; i < no; i++) {
        call_of_op[i] = p->ops[i].corr ? (int32_t)sort_keys_first(ck, nck, p->ops[i].corr) : -1;
        norphan += call_of_op[i] < 0;
    }
    free(ck);
    link_nccl_kernels(p, call_of_op);
    norphan = 0;
    for (size_t i = 0; i < no; i++)
        norphan += call_of_op[i] < 0;
    /* calls and orphan operations' enqueueings, in time order */
    struct item *it = whatif_alloc(nc + norphan, sizeof *it);
    size_t ni = 0;
    for (size_t i = 0; i < nc; i++)
        it[ni++] = (struct item){ p->calls[i].start, -1, (int32_t)i };
    for (size_t i = 0; i < no; i++)
        if (call_of_op[i] < 0)
            it[ni++] = (struct item){ p->ops[i].enq, (int32_t)i, -1 };
    qsort(it, ni, sizeof *it, by_item);
    b->g.calls = whatif_alloc(ni, sizeof *b->g.calls);
    b->call_of_rp = whatif_alloc(ni, sizeof *b->call_of_rp);
    b->rp_of_call = whatif_alloc(nc, sizeof *b->rp_of_call);
    int32_t *rp_of_orphan = whatif_alloc(no, sizeof *rp_of_orphan);
    for (size_t r = 0; r < ni; r++) {
        b->call_of_rp[r] = it[r].call;
        if (it[r].call >= 0)
            b->rp_of_call[it[r].call] = (int32_t)r;
        else
            rp_of_orphan[it[r].op] = (int32_t)r;
    }
    /* the operations by their rp call, then start */
    struct opkey *ok = whatif_alloc(no, sizeof *ok);
    for (size_t i = 0; i < no; i++)
        ok[i] = (struct opkey){ call_of_op[i] >= 0 ? b->rp_of_call[call_of_op[i]] : rp_of_orphan[i], (int32_t)i,
                                p->ops[i].start };
    qsort(ok, no, sizeof *ok, by_opkey);
    free(call_of_op);
    free(rp_of_orphan);
    /* an earlier window's operations this one's refer to first: its ghosts */
    size_t ng = b->g.nghost;
    b->g.ops = whatif_alloc(no + ng, sizeof *b->g.ops);
    b->op_of_rp = whatif_alloc(no + ng, sizeof *b->op_of_rp);
    for (size_t k = 0; k < ng; k++) {
        b->g.ops[k] = b->ghosts[k];
        b->op_of_rp[k] = -1;
    }
    b->g.nops = ng;
    /* walk them in order: the operations, then the call's scope */
    struct state *sp = b->s, s = *sp;
    size_t oi = 0;
    for (size_t r = 0; r < ni; r++) {
        int32_t ci = it[r].call;
        const struct call *c = ci >= 0 ? &p->calls[ci] : NULL;
        const struct gop *orphan = ci < 0 ? &p->ops[it[r].op] : NULL;
        b->g.calls[b->g.ncalls++] = (struct rp_call){ c ? c->start : orphan->enq, c ? c->end : orphan->enq,
                                                      c ? c->tid : -1, (uint32_t)b->g.nwaits, 0 };
        int32_t first = (int32_t)b->g.nops, n = 0;
        for (; oi < no && ok[oi].rp_call == (int32_t)r; oi++, n++) {
            const struct gop *o = &p->ops[ok[oi].op];
            struct rp_op *q = &b->g.ops[b->g.nops];
            *q = (struct rp_op){ o->start, o->end, o->stream, (int32_t)r, { 0 }, 0,
                                 o->kind == GOP_MEMCPY && o->copy_kind == 2 };
            pending_into(b, &s, o->stream, q, 1);
            idmap_put(&s.last, (uint64_t)o->stream + 2, (int64_t)b->g.nops, 0);
            b->op_of_rp[b->g.nops++] = ok[oi].op;
        }
        if (c)
            scope(b, &s, (size_t)ci, first, n);
    }
    free(ok);
    free(it);
    *sp = s;
    b->g.lat_cap = WHATIF_LAT_CAP_NS;
    b->g.lat_typical = typical_latency(b);
    if (rp_wakes(&b->g, b->wake_in) != 0) /* a thread another one woke moves with it, across a cut too */
        model_out_of_memory();
    index_graph(b);
    b->moved = whatif_alloc(b->g.nops, sizeof *b->moved);
}

static int by_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* A pinned copy this large moves at the link's rate: its fixed cost (a
 * few us) is a small part of its time.  Smaller ones measure latency, not
 * bandwidth (4 bytes in 2 us: 0.002 bytes a ns, which made a pageable
 * megabyte three hundred times slower "fixed"). */
#define PINNED_BW_MIN_BYTES (256 << 10)

/* The run's pinned copies of a direction: their bandwidth (bytes per ns,
 * the median of those of PINNED_BW_MIN_BYTES or more; 0 if none) and the
 * shortest one's time (*lat: what any copy costs at least; 0 if none). */
static double pinned_bw(const struct proc *p, int copy_kind, double *lat)
{
    double *v = malloc((p->nops + 1) * sizeof *v), med = 0;
    size_t n = 0;
    if (!v)
        model_out_of_memory();
    *lat = 0;
    for (size_t i = 0; i < p->nops; i++) {
        const struct gop *o = &p->ops[i];
        if (o->kind != GOP_MEMCPY || o->copy_kind != copy_kind || o->end <= o->start || o->bytes <= 0 ||
            (o->src_kind != 2 && o->dst_kind != 2) || o->src_kind == 1 || o->dst_kind == 1)
            continue;
        double d = (double)((uint64_t)o->end - (uint64_t)o->start);
        if (*lat == 0 || d < *lat)
            *lat = d;
        if (o->bytes >= PINNED_BW_MIN_BYTES)
            v[n++] = (double)o->bytes / d;
    }
    qsort(v, n, sizeof *v, by_double); /* a pinned copy a step: many */
    if (n)
        med = v[n / 2];
    free(v);
    return med;
}

static int predicted(int kind)
{
    switch (kind) {
    case F_SYNC_REDUNDANT: case F_SYNC_NO_CONSUMER: case F_SYNC_SCALAR_READ: case F_SYNC_IMPLICIT:
    case F_SYNC_DEVICE_WIDE: case F_COPY_PAGEABLE: case F_COPY_SERIALIZED: case F_HOST_SETUP:
        return 1;
    default:
        return 0;
    }
}

/* The collectives moved[0..n) (in order) off their compute stream, as a
 * DDP-style job does it: each to a stream of its own, after the work
 * before it on its stream (it reduces what that made: an event); and the
 * stream's first operation after the last of them before the host's next
 * sync waits for that one (the optimizer reads what they reduced). */
static void move_collectives(struct build *b, struct rp_fix *fx, const int32_t *moved, size_t n)
{
    const struct rp_graph *g = &b->g;
    struct idmap later = { 0 }; /* stream + 2 -> the segment of the next one moved from it, + 1 */
    for (size_t i = n; i-- > 0;) {
        int32_t k = moved[i];
        int64_t home = g->ops[k].stream, seg_next = 0;
        int32_t seg = b->seg[g->ops[k].call];
        int last = !idmap_get(&later, (uint64_t)home + 2, &seg_next) || seg_next - 1 != seg;
        idmap_put(&later, (uint64_t)home + 2, (int64_t)seg + 1, 0);
        fx->op_stream[k] = home | ((int64_t)2 << 40);
        if (b->prev[k] >= 0 && fx->op_extra_dep[k] < 0)
            fx->op_extra_dep[k] = b->prev[k];
        int32_t join = b->next[k], end = k;
        while (join >= 0 && fx->op_stream[join] != INT64_MIN) /* the next one not moved */
            end = join, join = b->next[join];
        if (last && join >= 0)
            fx->op_extra_dep[join] = k;
        else if (last) /* in the next window: after the stream's last here */
            join_add(b->jn, (struct join){ end, k, 1, 0, 0 });
    }
    idmap_free(&later);
}

/* Whether rp call r waited for GPU work: an operation of its scope still
 * running when it was made (a free with work pending is a sync, not
 * set-up: its wait is the sync findings' to fix). */
static int waited(const struct rp_graph *g, size_t r)
{
    const struct rp_call *k = &g->calls[r];
    for (uint32_t w = 0; w < k->nwait; w++)
        if (g->ops[g->waits[k->wait_first + w]].end > k->start)
            return 1;
    return 0;
}

/* Thread tid's first call from rp call r on: if it syncs stream, its
 * wait goes (a mode another fix gave it stays: a redundant sync's removal
 * is more); 1 if the thread has a call there. */
static int free_next_sync(const struct build *b, struct rp_fix *fx, size_t r, int tid, int64_t stream)
{
    const struct proc *p = b->p;
    for (size_t n = r; n < b->g.ncalls; n++) {
        int32_t ci = b->call_of_rp[n];
        if (ci < 0 || p->calls[ci].tid != tid)
            continue;
        const struct call *s = &p->calls[ci];
        if (b->m->roles[s->api] == ROLE_SYNC_STREAM && s->stream == stream && fx->call_mode[n] == RP_KEEP)
            fx->call_mode[n] = RP_NO_WAIT;
        return 1;
    }
    return 0;
}

/* A scalar read that is a blocking copy (rp call r) and the stream sync
 * its thread makes next on the same stream: one read, as ATen's
 * memcpy_and_sync makes it (`.item()` into a pageable scalar: the copy
 * waits for the GPU, the sync then for nothing).  Read a step later, both
 * go; with the copy's wait alone gone, the sync took it over and the
 * prediction saved nothing (0.5 ms of a 19.7 ms step, where the twin
 * saves 4.7).  The copy the last call of its thread in the window (a cut
 * falls there: the stream just drained), the sync is the next window's
 * (b->sn, apply_free_syncs): left as measured, it made the step 2%
 * slower read a window at a time than whole. */
static void read_then_sync(const struct build *b, struct rp_fix *fx, size_t r)
{
    const struct call *c = &b->p->calls[b->call_of_rp[r]];
    if (!free_next_sync(b, fx, r + 1, c->tid, c->stream))
        free_sync_add(b->sn, (struct free_sync){ c->tid, c->stream });
}

/* A fix to predict: a finding's kind at a site shown (model_site_shown). */
struct cand { int kind, site; };

/* Candidate f's fix, added into fx; whether any call of the window has it. */
static int add_fix(struct build *b, const struct cand *f, struct rp_fix *fx)
{
    const struct model *m = b->m;
    struct proc *p = (struct proc *)b->p;
    int any = 0;
    b->nmoved = 0;
    for (size_t r = 0; r < b->g.ncalls; r++) {
        int32_t ci = b->call_of_rp[r];
        if (ci < 0)
            continue;
        const struct call *c = &p->calls[ci];
        if (model_site_shown(m, p, c->site) != f->site)
            continue;
        int role = m->roles[c->api];
        int sync = model_is_explicit_sync(m, c), implicit = model_is_implicit_sync(m, c);
        switch (f->kind) {
        case F_SYNC_REDUNDANT:
        case F_SYNC_NO_CONSUMER:
            if (sync)
                fx->call_mode[r] = RP_REMOVE, any = 1;
            break;
        case F_SYNC_SCALAR_READ:
            if (implicit && !sync)
                read_then_sync(b, fx, r);
            /* fall through */
        case F_SYNC_IMPLICIT:
            if (sync || implicit)
                fx->call_mode[r] = RP_NO_WAIT, any = 1;
            break;
        case F_SYNC_DEVICE_WIDE:
            if (sync)
                fx->call_mode[r] = RP_NARROW, any = 1;
            break;
        case F_COPY_PAGEABLE:
            if (role != ROLE_COPY_SYNC && role != ROLE_COPY_ASYNC)
                break;
            fx->call_mode[r] = RP_NO_WAIT, any = 1;
            for (int32_t k = b->op_first[r]; k < b->op_first[r + 1]; k++) {
                const struct gop *o = &p->ops[b->op_of_rp[k]];
                int ck = o->copy_kind & 7;
                if (b->bw[ck] < 0)
                    b->bw[ck] = pinned_bw(p, o->copy_kind, &b->lat[ck]);
                double bw = b->bw[ck], scale = PINNED_SCALE;
                if (bw > 0 && o->end > o->start && o->bytes > 0)
                    scale = (b->lat[ck] + (double)o->bytes / bw) / (double)((uint64_t)o->end - (uint64_t)o->start);
                /* never slower than it ran pageable: pinned, the staging copy is saved */
                fx->op_scale[k] = (float)(scale < 1 ? scale : 1);
            }
            break;
        case F_COPY_SERIALIZED:
            /* the uploads alone: a kernel launched from the same line
             * (`model(x.cuda())`) stays on its stream, in its order */
            for (int32_t k = b->op_first[r]; k < b->op_first[r + 1]; k++) {
                const struct gop *o = &p->ops[b->op_of_rp[k]];
                if (o->kind != GOP_MEMCPY || o->copy_kind != GOP_HTOD)
                    continue;
                fx->op_stream[k] = b->g.ops[k].stream | ((int64_t)1 << 40);
                int32_t next = b->next[k];
                if (next >= 0)
                    fx->op_extra_dep[next] = (int32_t)k; /* ordered by an event: its consumer waits */
                else /* its consumer is in the next window */
                    join_add(b->jn, (struct join){ k, k, 0, 0, 0 });
                any = 1;
            }
            break;
        case F_HOST_SETUP:
            /* done once before the steps (buffers reused, modules loaded
             * eagerly): its host time gone, what it launched still runs */
            if (setup_call(role, b->op_first[r] < b->op_first[r + 1]) && setup_held(m, c) &&
                (role != ROLE_FREE || !waited(&b->g, r)))
                fx->call_mode[r] = RP_REMOVE, any = 1;
            break;
        case F_COMM_SAME_STREAM:
            for (int32_t k = b->op_first[r]; k < b->op_first[r + 1]; k++)
                if (p->ops[b->op_of_rp[k]].nccl) {
                    b->moved[b->nmoved++] = (int32_t)k;
                    any = 1;
                }
            break;
        default:
            break;
        }
    }
    if (b->nmoved)
        move_collectives(b, fx, b->moved, b->nmoved);
    b->nmoved = 0;
    return any;
}

static void fix_reset(struct rp_fix *fx, const struct rp_graph *g)
{
    memset(fx->call_mode, RP_KEEP, g->ncalls);
    for (size_t k = 0; k < g->nops; k++) {
        fx->op_stream[k] = INT64_MIN;
        fx->op_scale[k] = 0;
        fx->op_extra_dep[k] = -1;
    }
}

static void fix_free(struct rp_fix *fx)
{
    free(fx->call_mode);
    free(fx->op_stream);
    free(fx->op_scale);
    free(fx->op_extra_dep);
}

static void fix_alloc(struct rp_fix *fx, const struct rp_graph *g)
{
    fx->call_mode = whatif_alloc(g->ncalls, 1);
    fx->op_stream = whatif_alloc(g->nops, sizeof *fx->op_stream);
    fx->op_scale = whatif_alloc(g->nops, sizeof *fx->op_scale);
    fx->op_extra_dep = whatif_alloc(g->nops, sizeof *fx->op_extra_dep);
    fix_reset(fx, g);
}

/* The iterations inside the window, and the range thread's calls. */
struct steps_in { struct model_step *v; size_t n; uint32_t *idx; size_t nidx; };

static void steps_of_window(const struct build *b, struct steps_in *st)
{
    const struct proc *p = b->p;
    memset(st, 0, sizeof *st);
    struct model_step *all = NULL;
    size_t n = model_steps(p, &all);
    if (!n || !b->g.ncalls) {
        free(all);
        return;
    }
    int64_t lo = b->g.calls[0].start, hi = INT64_MIN;
    for (size_t i = 0; i < b->g.ncalls; i++)
        hi = b->g.calls[i].end > hi ? b->g.calls[i].end : hi;
    for (size_t i = 0; i < n; i++)
        if (all[i].start >= lo && all[i].end <= hi && all[i].end > all[i].start)
            all[st->n++] = all[i];
    st->v = all;
    int tid = p->range_tid;
    st->idx = whatif_alloc(b->g.ncalls, sizeof *st->idx);
    for (size_t i = 0; i < b->g.ncalls; i++)
        if (b->g.calls[i].tid == tid)
            st->idx[st->nidx++] = (uint32_t)i;
}

static void times_alloc(struct rp_times *t, const struct rp_graph *g)
{
    memset(t, 0, sizeof *t);
    t->call_start = whatif_alloc(g->ncalls, 8);
    t->call_end = whatif_alloc(g->ncalls, 8);
    t->op_start = whatif_alloc(g->nops, 8);
    t->op_end = whatif_alloc(g->nops, 8);
}

static void times_free(struct rp_times *t)
{
    free(t->call_start);
    free(t->call_end);
    free(t->op_start);
    free(t->op_end);
}

static void build_free(struct build *b)
{
    free(b->g.calls);
    free(b->g.ops);
    free(b->g.waits);
    free(b->g.wake);
    free(b->rp_of_call);
    free(b->call_of_rp);
    free(b->op_of_rp);
    free(b->next);
    free(b->prev);
    free(b->seg);
    free(b->op_first);
    free(b->moved);
}

static struct whatif_proc *proc_slot(struct findings *fs, const struct model *m, size_t pi)
{
    if (!fs->whatif) {
        fs->whatif = whatif_alloc(m->nprocs, sizeof *fs->whatif);
        fs->nwhatif = m->nprocs;
    }
    return pi < fs->nwhatif ? &fs->whatif[pi] : NULL;
}

/* The prediction of finding key k, made or found. */
static struct whatif_site *site_slot(struct findings *fs, uint64_t k, int proc)
{
    for (size_t i = fs->nwsites; i-- > 0;)
        if (fs->wsites[i].key == k)
            return &fs->wsites[i];
    if (fs->nwsites == fs->wsites_cap) {
        size_t cap = fs->wsites_cap ? fs->wsites_cap * 2 : 16;
        struct whatif_site *v = realloc(fs->wsites, cap * sizeof *v);
        if (!v)
            model_out_of_memory();
        fs->wsites = v;
        fs->wsites_cap = cap;
    }
    fs->wsites[fs->nwsites] = (struct whatif_site){ .key = k, .proc = proc };
    return &fs->wsites[fs->nwsites++];
}

/* What to predict: the findings of the process made so far (the syncs'
 * and copies' are made window by window) and, as comm.same_stream is
 * made only once its collectives are done with, each site whose NCCL
 * kernels ran on a stream that computes. */
static size_t candidates(const struct build *b, const struct findings *fs, size_t pi, struct cand **out)
{
    size_t n = 0, cap = 16;
    struct cand *v = whatif_alloc(cap, sizeof *v);
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        if (f->proc != (int)pi || f->callsite_id <= 0 || !predicted(f->kind))
            continue;
        if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof *v)))
            model_out_of_memory();
        v[n++] = (struct cand){ f->kind, f->callsite_id };
    }
    struct idmap seen = { 0 };
    for (size_t k = b->g.nghost; k < b->g.nops; k++) {
        int32_t ci = b->call_of_rp[b->g.ops[k].call];
        if (ci < 0 || !b->p->ops[b->op_of_rp[k]].nccl || !stream_map_computes(b->p->smap, b->g.ops[k].stream))
            continue;
        int site = model_site_shown(b->m, (struct proc *)b->p, b->p->calls[ci].site);
        int64_t x;
        if (site <= 0 || idmap_get(&seen, (uint64_t)site, &x))
            continue;
        idmap_put(&seen, (uint64_t)site, 1, 0);
        if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof *v)))
            model_out_of_memory();
        v[n++] = (struct cand){ F_COMM_SAME_STREAM, site };
    }
    idmap_free(&seen);
    *out = v;
    return n;
}

/* The critical path being summed: parts by what they are. */
struct cp_sum {
    const struct build *b;
    const struct rp_times *t;
    struct idmap at;
    struct cp_part *v; size_t n, cap;
    struct { int64_t a, b; size_t part; } *spans; size_t nspans, spans_cap; /* by part as added */
};

static void cp_name(const struct build *b, int kind, int32_t index, int *cls, char *name, size_t len)
{
    const struct model *m = b->m;
    struct proc *p = (struct proc *)b->p;
    char site[MODEL_CALLSITE_LEN];
    if (kind == RP_PATH_CALL || kind == RP_PATH_HOST) {
        int32_t ci = b->call_of_rp[index];
        if (ci < 0) {
            *cls = CP_HOST;
            snprintf(name, len, "host code");
            return;
        }
        const struct call *c = &p->calls[ci];
        model_callsite(m, p, model_site_shown(m, p, c->site), site, sizeof site);
        *cls = kind == RP_PATH_CALL ? CP_CALL : CP_HOST;
        snprintf(name, len, kind == RP_PATH_CALL ? "%s at %s" : "host code before %s at %s", model_api_name(m, c->api),
                 site[0] ? site : "(unknown call site)");
        return;
    }
    if (kind == RP_PATH_GAP || kind == RP_PATH_LAUNCH) {
        *cls = kind == RP_PATH_GAP ? CP_GPU_GAP : CP_LAUNCH;
        snprintf(name, len, kind == RP_PATH_GAP ? "GPU gaps between operations" : "launch latency");
        return;
    }
    if (b->op_of_rp[index] < 0) { /* an earlier window's (a ghost) */
        *cls = CP_OTHER;
        snprintf(name, len, "GPU work read with an earlier window");
        return;
    }
    const struct gop *o = &p->ops[b->op_of_rp[index]];
    if (o->kind == GOP_KERNEL) {
        *cls = o->nccl ? CP_COLLECTIVE : CP_KERNEL;
        snprintf(name, len, "%s", model_kernel_name(p, o->name));
    } else {
        static const char *const dir[] = { "", "to the device", "to the host", "", "" , "", "", "", "device to device" };
        *cls = CP_COPY;
        snprintf(name, len, o->kind == GOP_MEMSET ? "memset" : "copy %s",
                 o->copy_kind < 9 && dir[o->copy_kind][0] ? dir[o->copy_kind] : "");
    }
}

static void add_span(struct cp_sum *cs, int64_t a, int64_t b, size_t part)
{
    if (cs->nspans && cs->spans[cs->nspans - 1].part == part && cs->spans[cs->nspans - 1].a == b) {
        cs->spans[cs->nspans - 1].a = a; /* the same part just after (the path goes back in time) */
        return;
    }
    if (cs->nspans == cs->spans_cap) {
        cs->spans_cap = cs->spans_cap ? cs->spans_cap * 2 : 64;
        if (!(cs->spans = realloc(cs->spans, cs->spans_cap * sizeof *cs->spans)))
            model_out_of_memory();
    }
    cs->spans[cs->nspans].a = a;
    cs->spans[cs->nspans].b = b;
    cs->spans[cs->nspans++].part = part;
}

static void add_part(struct cp_sum *cs, int cls, const char *name, int64_t a, int64_t b)
{
    int64_t ns = b - a;
    uint64_t key = idmap_text_key(name) ^ (uint64_t)cls;
    int64_t at;
    if (idmap_get(&cs->at, key, &at)) {
        cs->v[at].ns += ns;
        add_span(cs, a, b, (size_t)at);
        return;
    }
    if (cs->n == cs->cap) {
        cs->cap = cs->cap ? cs->cap * 2 : 32;
        if (!(cs->v = realloc(cs->v, cs->cap * sizeof *cs->v)))
            model_out_of_memory();
    }
    cs->v[cs->n] = (struct cp_part){ .kind = cls, .ns = ns };
    snprintf(cs->v[cs->n].name, sizeof cs->v[cs->n].name, "%s", name);
    add_span(cs, a, b, cs->n);
    idmap_put(&cs->at, key, (int64_t)cs->n++, 0);
}

static void on_path(void *ctx, int kind, int32_t index, int64_t a, int64_t b)
{
    struct cp_sum *cs = ctx;
    if (b <= a)
        return;
    int cls;
    char name[160];
    cp_name(cs->b, kind, index, &cls, name, sizeof name);
    add_part(cs, cls, name, a, b);
}

static int by_ns_desc(const void *x, const void *y)
{
    const struct cp_part *a = x, *b = y;
    return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : strcmp(a->name, b->name);
}

/* Where step k's period ends in a replay: the later of its host end and
 * the end of the GPU work enqueued during it; the element that ends it
 * (a call of the range thread, or an operation) in *kind, *index. */
static int64_t period_end(const struct build *b, const struct steps_in *st, const struct rp_times *t, size_t k,
                          const int32_t *last_op, int *kind, int32_t *index)
{
    int64_t t1 = rp_map_time(&b->g, t, st->idx, st->nidx, st->v[k].end);
    size_t lo = 0, hi = st->nidx; /* the range thread's last call that ended by then */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (t->call_end[st->idx[mid]] <= t1)
            lo = mid + 1;
        else
            hi = mid;
    }
    *kind = RP_PATH_CALL;
    *index = lo ? (int32_t)st->idx[lo - 1] : -1;
    if (last_op[k] >= 0 && t->op_end[last_op[k]] > t1) {
        *kind = RP_PATH_OP;
        *index = last_op[k];
        return t->op_end[last_op[k]];
    }
    return t1;
}

/* The critical path of a typical step, replayed as measured (t with its
 * "decided by" arrays), into w, once a process: the step whose period
 * (from the end of the one before, as period_end has it, to its own) is
 * the median, walked back from its end to the end of the step before. */
static void critical_path(const struct build *b, const struct steps_in *st, const struct rp_times *t,
                          struct whatif_proc *w)
{
    if (w->cp_ns || st->n < 2 || !st->nidx)
        return;
    /* each step's last operation to end, of those its calls enqueued */
    int32_t *last_op = whatif_alloc(st->n, sizeof *last_op);
    for (size_t k = 0; k < st->n; k++)
        last_op[k] = -1;
    for (size_t o = b->g.nghost; o < b->g.nops; o++) {
        int64_t at = b->g.calls[b->g.ops[o].call].start;
        size_t lo = 0, hi = st->n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (st->v[mid].start <= at)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo && at <= st->v[lo - 1].end && (last_op[lo - 1] < 0 || t->op_end[o] > t->op_end[last_op[lo - 1]]))
            last_op[lo - 1] = (int32_t)o;
    }
    int64_t *end = whatif_alloc(st->n, sizeof *end), *per = whatif_alloc(st->n, sizeof *per);
    int *kind = whatif_alloc(st->n, sizeof *kind);
    int32_t *index = whatif_alloc(st->n, sizeof *index);
    for (size_t k = 0; k < st->n; k++)
        end[k] = period_end(b, st, t, k, last_op, &kind[k], &index[k]);
    for (size_t k = 1; k < st->n; k++)
        per[k - 1] = end[k] - end[k - 1];
    qsort(per, st->n - 1, sizeof *per, by_i64);
    int64_t med = per[(st->n - 1) / 2];
    size_t k = 1;
    while (k < st->n && end[k] - end[k - 1] != med)
        k++;
    if (k < st->n && index[k] >= 0 && med > 0) {
        struct cp_sum cs = { .b = b, .t = t };
        int64_t t0 = end[k - 1], t1 = end[k];
        if (kind[k] == RP_PATH_CALL) { /* the host's own time after its last call of the step */
            int64_t ce = t->call_end[index[k]];
            int cls;
            char name[160], after[180];
            cp_name(b, RP_PATH_CALL, index[k], &cls, name, sizeof name);
            snprintf(after, sizeof after, "host code after %s", name);
            if (t1 > ce)
                add_part(&cs, CP_HOST, after, ce > t0 ? ce : t0, t1);
        }
        if ((kind[k] == RP_PATH_CALL ? t->call_end[index[k]] : t->op_end[index[k]]) > t0)
            rp_critical(&b->g, t, kind[k], index[k], t0, on_path, &cs);
        idmap_free(&cs.at);
        /* the parts, longest first (rank[i]: where part i went), the rest as one */
        size_t *order = whatif_alloc(cs.n, sizeof *order), *rank = whatif_alloc(cs.n, sizeof *rank);
        for (size_t i = 0; i < cs.n; i++)
            order[i] = i;
        for (size_t i = 1; i < cs.n; i++) /* few: insertion, stable */
            for (size_t j = i; j > 0 && by_ns_desc(&cs.v[order[j]], &cs.v[order[j - 1]]) < 0; j--) {
                size_t x = order[j];
                order[j] = order[j - 1];
                order[j - 1] = x;
            }
        w->cp_iter = st->v[k].iter;
        w->cp_ns = t1 - t0;
        w->nparts = 0;
        int64_t rest = 0;
        for (size_t i = 0; i < cs.n; i++) {
            rank[order[i]] = i < WHATIF_PARTS ? i : WHATIF_PARTS;
            if (i < WHATIF_PARTS)
                w->parts[w->nparts++] = cs.v[order[i]];
            else
                rest += cs.v[order[i]].ns;
        }
        if (rest) {
            w->parts[w->nparts] = (struct cp_part){ .kind = CP_OTHER, .ns = rest };
            snprintf(w->parts[w->nparts].name, sizeof w->parts[w->nparts].name, "the rest");
            w->nparts++;
        }
        w->nspans = 0;
        for (size_t i = 0; i < cs.nspans && w->nspans < CP_SPANS; i++)
            w->spans[w->nspans++] = (struct cp_span){ cs.spans[i].a, cs.spans[i].b, (int)rank[cs.spans[i].part] };
        free(order);
        free(rank);
        free(cs.v);
        free(cs.spans);
    }
    free(last_op);
    free(end);
    free(per);
    free(kind);
    free(index);
}

/* ---- a process's replays carried from one window to the next ---- */

/* The steps' time in one replay, kept as the windows go by: from the
 * later of the first step's start (t0, as replayed) and the end of the
 * GPU work enqueued before it on a stream the first step enqueues on too
 * (pre: the latest of pre_end over the streams pre_s marks used),
 * to the later of the last step's end (tl) and the end of the GPU work
 * enqueued by then: a host that runs ahead of its GPU does not make the
 * loop faster, at either end.  Without pre, a loop whose host ran ahead
 * from its first step counted the warm-up step's GPU work in the steps
 * after it (8 kernels in 7 steps: 3.69 ms a step for 3.1 ms kernels back
 * to back); with all the work before the steps, a stream of its own the
 * steps never wait for cut the loop's start off (0.06 ms a step for 1 ms
 * ones).  Past PRE_STREAMS streams with work before the steps, the
 * others are not followed (their work is then as if not there).  in, the
 * latest end of the operations enqueued from the first step's start to
 * the last step's end so far; after, of those enqueued since.  A step
 * whose end no call has reached yet (tl_tent) counts once a later call
 * does, as a process read whole counts the steps that end by its last
 * call's end. */
struct acc {
    int64_t t0, tl, tl_tent, in, after, nccl_in, nccl_after;
    int64_t pre_end[PRE_STREAMS]; /* by whatif_carry's pre_s */
    int64_t unexpl_in, unexpl_after; /* the operations' op_unexpl (replay.h), as nccl_in and nccl_after */
};

/* A replay carried: the fix it predicts (base: 0 as measured, 1 all
 * fixed, 2 with the collectives moved too, -1 a candidate's), its state
 * after the windows so far, the next graph's ghosts' times in it, the
 * waits it adds in this window (j) and notes for the next (jn). */
struct variant {
    struct cand c;
    int base, seen, failed;
    struct rp_carry rc;
    int64_t *gs, *ge;
    struct joins j, jn;
    struct free_syncs sf, sfn; /* the syncs its fix frees in this window and the next (read_then_sync) */
    int64_t *ref_s, *ref_e;  /* this window's times of the operations the graph's state refers to */
    struct acc a;
};

struct whatif_carry {
    struct state s;             /* the graph's, its operations the ghosts' indices */
    struct rp_op *ghosts; size_t nghost;
    double bw[8];               /* the pinned bandwidth measured so far, by copy kind (<= 0: none yet) */
    double lat[8];              /* and the shortest pinned copy's time (pinned_bw) */
    struct variant *v; size_t nv, cap;
    struct acc meas;            /* the same of the measured times */
    struct model_step *steps; size_t nsteps, next; int have_lo;
    /* the streams the GPU work enqueued before the first step went on
     * (acc.pre_end), each marked once the steps enqueue on it too */
    struct { int64_t stream; int used; } pre_s[PRE_STREAMS]; int npre_s, pre_unused, pre_hit;
    size_t nconf, ntent;        /* steps counted, and those waiting for a call to end after them */
    int64_t L, L_tent;          /* the last one's end of each */
    size_t range_calls;         /* the range thread's calls (no step time without them) */
    int broken;                 /* a replay ran out of memory: no prediction */
    /* the summary for every rank together (joint_summary) of replays 0-2,
     * and what it needs across cuts: each thread's host time so far (mt),
     * the ranges tracked; for a rank read a window at a time, chosen from
     * its host time by range as its first reading summed it (pre: its
     * gaps, pre_at their index by label + 1; pre_end the range thread's
     * last call's end, pre_lo its first call's start) */
    struct jcarry jc[3];
    struct mthr *mt; size_t nmt;
    int tracked[WJ_LABELS], have_tracked, joint_failed;
    int64_t call_end_max;       /* the latest call end so far */
    int windowed;               /* read a window at a time */
    struct hostside pre; size_t pre_cap; struct idmap pre_at; int64_t pre_end, pre_lo, pre_steps; int pre_seen;
};

/* What a window holds of the steps: the first one's start, steps counted
 * now that were waiting (commit), the last counted end moved (conf), a
 * step waiting for a call to end after it (tent). */
struct win_steps { int first_here, commit, conf, tent; };

static void acc_init(struct acc *a)
{
    *a = (struct acc){ 0, 0, 0, INT64_MIN, INT64_MIN, 0, 0, { 0 }, 0, 0 };
    for (int i = 0; i < PRE_STREAMS; i++)
        a->pre_end[i] = INT64_MIN;
}

static void steps_advance(struct whatif_carry *wc, const struct build *b, struct win_steps *e)
{
    const struct rp_graph *g = &b->g;
    int64_t whi = b->p->win_hi, callend = INT64_MIN;
    memset(e, 0, sizeof *e);
    for (size_t c = 0; c < g->ncalls; c++)
        callend = g->calls[c].end > callend ? g->calls[c].end : callend;
    if (!wc->have_lo && g->ncalls) { /* the steps from the process's first call on */
        size_t n = 0;
        for (size_t i = 0; i < wc->nsteps; i++)
            if (wc->steps[i].start >= g->calls[0].start && wc->steps[i].end > wc->steps[i].start)
                wc->steps[n++] = wc->steps[i];
        wc->nsteps = n;
        wc->have_lo = 1;
    }
    if (!wc->have_lo || !wc->nsteps)
        return;
    int64_t first = wc->steps[0].start;
    e->first_here = first >= b->p->win_lo && first < whi;
    if (wc->ntent && g->ncalls) { /* a call after them: counted */
        e->commit = 1;
        wc->nconf += wc->ntent;
        wc->ntent = 0;
        wc->L = wc->L_tent;
    }
    for (; wc->next < wc->nsteps && wc->steps[wc->next].end < whi; wc->next++) {
        int64_t end = wc->steps[wc->next].end;
        if (!wc->ntent && end <= callend) {
            wc->nconf++;
            wc->L = end;
            e->conf = 1;
        } else {
            wc->ntent++;
            wc->L_tent = end;
            e->tent = 1;
        }
    }
}

/* Stream s's place in wc->pre_s, or -1 (one not seen before the steps,
 * or past the first PRE_STREAMS).  pre_hit: the last found, as most
 * operations in a row are on one stream. */
static int pre_slot(const struct whatif_carry *wc, int64_t s)
{
    if (wc->pre_hit < wc->npre_s && wc->pre_s[wc->pre_hit].stream == s)
        return wc->pre_hit;
    for (int i = 0; i < wc->npre_s; i++)
        if (wc->pre_s[i].stream == s)
            return i;
    return -1;
}

/* The streams of the window's GPU work enqueued before the first step,
 * and those of them the first step enqueues on too (pre_s), before the
 * window's measured and replayed times are taken (acc_window).  Only the
 * first step's: a stream the loop uses later (an evaluation's after the
 * loop, a side stream's in step 5) would date the whole loop's start
 * from one operation's wait. */
static void pre_streams_note(struct whatif_carry *wc, const struct build *b)
{
    if (!wc->have_lo || !wc->nsteps)
        return;
    int64_t first = wc->steps[0].start, first_end = wc->steps[0].end;
    for (size_t k = b->g.nghost; k < b->g.nops; k++) {
        int64_t at = b->g.calls[b->g.ops[k].call].start, s = b->g.ops[k].stream;
        if (at > first_end || (at >= first && !wc->pre_unused))
            break; /* past the first step, or every stream of the work before is its too: nothing to learn */
        int i = pre_slot(wc, s);
        if (i < 0 && at < first && wc->npre_s < PRE_STREAMS) {
            i = wc->npre_s++;
            wc->pre_s[i].stream = s;
            wc->pre_s[i].used = 0;
            wc->pre_unused++;
        }
        if (i < 0)
            continue;
        wc->pre_hit = i;
        if (at >= first && !wc->pre_s[i].used) {
            wc->pre_s[i].used = 1;
            wc->pre_unused--;
        }
    }
}

/* Where time `at` falls in a replay: shifted as the latest call of the
 * range thread that ended by then (idx: its calls in the window), or as
 * its last one in the windows before (shift_in). */
int64_t whatif_map_at(const struct build *b, const struct rp_times *t, const uint32_t *idx, size_t n, int64_t shift_in,
                      int64_t at)
{
    if (!t)
        return at;
    if (n && b->g.calls[idx[0]].end <= at)
        return rp_map_time(&b->g, t, idx, n, at);
    return at + shift_in;
}

static void fold(struct acc *a)
{
    a->in = a->after > a->in ? a->after : a->in;
    a->after = INT64_MIN;
    model_add(&a->nccl_in, a->nccl_after);
    a->nccl_after = 0;
    model_add(&a->unexpl_in, a->unexpl_after);
    a->unexpl_after = 0;
}

/* A window's replay t (NULL: the measured times) into a. */
static void acc_window(struct acc *a, const struct whatif_carry *wc, const struct win_steps *e, const struct build *b,
                       const struct rp_times *t, const uint32_t *idx, size_t nidx, int64_t shift_in)
{
    if (!wc->have_lo || !wc->nsteps)
        return;
    int64_t first = wc->steps[0].start;
    if (e->first_here)
        a->t0 = whatif_map_at(b, t, idx, nidx, shift_in, first);
    if (e->commit) {
        a->tl = a->tl_tent;
        fold(a);
    }
    if (e->conf) {
        a->tl = whatif_map_at(b, t, idx, nidx, shift_in, wc->L);
        fold(a); /* the windows before: enqueued before this one, before its end */
    }
    if (e->tent)
        a->tl_tent = whatif_map_at(b, t, idx, nidx, shift_in, wc->L_tent);
    for (size_t k = b->g.nghost; k < b->g.nops; k++) {
        int64_t at = b->g.calls[b->g.ops[k].call].start, end = t ? t->op_end[k] : b->g.ops[k].end;
        if (at < first) {
            int i = pre_slot(wc, b->g.ops[k].stream);
            if (i >= 0)
                a->pre_end[i] = end > a->pre_end[i] ? end : a->pre_end[i];
            continue;
        }
        int64_t nccl = !t && b->p->ops[b->op_of_rp[k]].nccl ? b->g.ops[k].end - b->g.ops[k].start : 0;
        int64_t unexpl = t && t->op_unexpl ? t->op_unexpl[k] : 0;
        if (wc->nconf && at <= wc->L) {
            a->in = end > a->in ? end : a->in;
            model_add(&a->nccl_in, nccl); /* each up to 2^61 in a damaged file */
            model_add(&a->unexpl_in, unexpl);
        } else {
            a->after = end > a->after ? end : a->after;
            model_add(&a->nccl_after, nccl);
            model_add(&a->unexpl_after, unexpl);
        }
    }
}

static int64_t acc_time(const struct whatif_carry *wc, const struct acc *a)
{
    int64_t end = a->in > a->tl ? a->in : a->tl, pre = INT64_MIN;
    for (int i = 0; i < wc->npre_s; i++)
        if (wc->pre_s[i].used && a->pre_end[i] > pre)
            pre = a->pre_end[i];
    /* work that outlasts the steps all held none of them back */
    int64_t start = pre > a->t0 && pre < end ? pre : a->t0;
    return end - start;
}

static void variant_free(struct variant *v)
{
    rp_carry_free(&v->rc);
    free(v->gs);
    free(v->ge);
    free(v->j.v);
    free(v->jn.v);
    free(v->sf.v);
    free(v->sfn.v);
    free(v->ref_s);
    free(v->ref_e);
}

static int64_t *dup64(const int64_t *v, size_t n)
{
    int64_t *a = whatif_alloc(n, sizeof *a);
    if (n)
        memcpy(a, v, n * sizeof *a);
    return a;
}

/* A new variant, from the state of `from` (NULL: the process's start). */
static struct variant *variant_new(struct whatif_carry *wc, const struct variant *from, struct cand c, int base)
{
    if (wc->nv == wc->cap) {
        wc->cap = wc->cap ? wc->cap * 2 : 8;
        if (!(wc->v = realloc(wc->v, wc->cap * sizeof *wc->v)))
            model_out_of_memory();
    }
    struct variant *v = &wc->v[wc->nv++];
    memset(v, 0, sizeof *v);
    v->c = c;
    v->base = base;
    acc_init(&v->a);
    if (from) {
        if (rp_carry_copy(&v->rc, &from->rc) != 0)
            model_out_of_memory();
        v->gs = dup64(from->gs, wc->nghost);
        v->ge = dup64(from->ge, wc->nghost);
        v->a = from->a;
        v->failed = from->failed;
    }
    return v;
}

static void jcarry_free(struct jcarry *jc)
{
    free(jc->ghost);
    free(jc->thr);
    free(jc->at_op);
    free(jc->at_set);
    memset(jc, 0, sizeof *jc);
}

static void carry_free(struct whatif_carry *wc)
{
    for (int v = 0; v < 3; v++)
        jcarry_free(&wc->jc[v]);
    free(wc->mt);
    whatif_hostside_free(&wc->pre);
    idmap_free(&wc->pre_at);
    idmap_free(&wc->s.last);
    idmap_free(&wc->s.pend);
    idmap_free(&wc->s.ev);
    free(wc->s.pend_v);
    free(wc->ghosts);
    for (size_t i = 0; i < wc->nv; i++)
        variant_free(&wc->v[i]);
    free(wc->v);
    free(wc->steps);
    free(wc);
}

static void mark(int32_t *map, int32_t op)
{
    if (op >= 0)
        map[op] = 1;
}

/* The operations the graph's state refers to (streams' last, events',
 * the streams' pending waits), in order, into *out; how many. */
static size_t state_refs(const struct build *b, const struct state *s, int32_t **out)
{
    int32_t *on = whatif_alloc(b->g.nops, sizeof *on);
    for (size_t k = 0; k < s->last.cap; k++)
        if (s->last.key[k])
            mark(on, (int32_t)s->last.val[k]);
    for (size_t k = 0; k < s->ev.cap; k++)
        if (s->ev.key[k])
            mark(on, (int32_t)s->ev.val[k]);
    for (size_t k = 0; k < s->pend.cap; k++)
        if (s->pend.key[k])
            for (int64_t at = s->pend.val[k]; at >= 0; at = s->pend_v[2 * at + 1])
                mark(on, s->pend_v[2 * at]);
    size_t n = 0;
    for (size_t k = 0; k < b->g.nops; k++)
        if (on[k])
            on[n++] = (int32_t)k;
    *out = on;
    return n;
}

static void remap_vals(struct idmap *ix, const int32_t *map)
{
    for (size_t k = 0; k < ix->cap; k++)
        if (ix->key[k] && ix->val[k] >= 0)
            ix->val[k] = map[ix->val[k]];
}

/* The window done: the operations the next one refers to made its
 * ghosts (the state's, and the waits the variants carry), the state and
 * the variants' waits in ghost indices, each variant's ghosts' times. */
static void carry_state(struct whatif_carry *wc, const struct build *b, const int32_t *refs, size_t nrefs)
{
    size_t no = b->g.nops;
    int32_t *map = whatif_alloc(no, sizeof *map), *ref_at = whatif_alloc(no, sizeof *ref_at);
    for (size_t k = 0; k < no; k++)
        ref_at[k] = -1;
    for (size_t i = 0; i < nrefs; i++) {
        map[refs[i]] = 1;
        ref_at[refs[i]] = (int32_t)i;
    }
    for (size_t i = 0; i < wc->nv; i++) {
        for (size_t k = 0; k < wc->v[i].jn.n; k++) {
            mark(map, wc->v[i].jn.v[k].a);
            mark(map, wc->v[i].jn.v[k].b);
        }
        for (size_t k = 0; k < wc->v[i].rc.nstr; k++) /* each replayed stream's last */
            if (wc->v[i].rc.str[k].last >= 0 && (size_t)wc->v[i].rc.str[k].last < no)
                mark(map, wc->v[i].rc.str[k].last);
    }
    size_t ng = 0;
    for (size_t k = 0; k < no; k++)
        map[k] = map[k] ? (int32_t)ng++ : -1;
    struct rp_op *gh = whatif_alloc(ng, sizeof *gh);
    for (size_t k = 0; k < no; k++)
        if (map[k] >= 0) {
            gh[map[k]] = b->g.ops[k];
            gh[map[k]].call = -1;
            gh[map[k]].ndep = 0;
        }
    free(wc->ghosts);
    wc->ghosts = gh;
    /* the state, in ghost indices; the pending waits' lists rebuilt */
    struct state *s = &wc->s, ns = { 0 };
    remap_vals(&s->last, map);
    remap_vals(&s->ev, map);
    int32_t *chain = whatif_alloc(s->npend, sizeof *chain);
    for (size_t k = 0; k < s->pend.cap; k++) {
        if (!s->pend.key[k] || s->pend.val[k] < 0)
            continue;
        size_t n = 0;
        for (int64_t at = s->pend.val[k]; at >= 0; at = s->pend_v[2 * at + 1])
            chain[n++] = s->pend_v[2 * at];
        while (n-- > 0) /* oldest first: the list stays newest first */
            note_pending(&ns, (int64_t)s->pend.key[k] - 2, map[chain[n]]);
    }
    free(chain);
    idmap_free(&s->pend);
    free(s->pend_v);
    s->pend = ns.pend;
    s->pend_v = ns.pend_v;
    s->npend = ns.npend;
    s->pend_cap = ns.pend_cap;
    for (size_t i = 0; i < wc->nv; i++) {
        struct variant *v = &wc->v[i];
        free(v->gs);
        free(v->ge);
        v->gs = whatif_alloc(ng, sizeof *v->gs);
        v->ge = whatif_alloc(ng, sizeof *v->ge);
        for (size_t k = 0; k < no; k++) {
            int32_t gi = map[k];
            if (gi < 0)
                continue;
            int64_t st = b->g.ops[k].start, en = b->g.ops[k].end; /* another variant's: not read */
            if (ref_at[k] >= 0 && v->ref_s) {
                st = v->ref_s[ref_at[k]];
                en = v->ref_e[ref_at[k]];
            }
            for (size_t q = 0; q < v->jn.n; q++)
                if (v->jn.v[q].b == (int32_t)k) {
                    st = v->jn.v[q].b_start;
                    en = v->jn.v[q].b_end;
                }
            v->gs[gi] = st;
            v->ge[gi] = en;
        }
        for (size_t k = 0; k < v->rc.nstr; k++) { /* its streams' last: as it replayed them */
            struct rp_lane *l = &v->rc.str[k];
            if (l->last < 0 || (size_t)l->last >= no) {
                l->last = -1;
                continue;
            }
            int32_t gi = map[l->last];
            v->ge[gi] = l->r_end;
            v->gs[gi] = l->r_end - (b->g.ops[l->last].end - b->g.ops[l->last].start);
            l->last = gi;
        }
        struct joins t = v->j;
        v->j = v->jn;
        v->jn = t;
        v->jn.n = 0;
        struct free_syncs f = v->sf;
        v->sf = v->sfn;
        v->sfn = f;
        v->sfn.n = 0;
        for (size_t q = 0; q < v->j.n; q++) {
            v->j.v[q].a = map[v->j.v[q].a];
            v->j.v[q].b = map[v->j.v[q].b];
        }
        free(v->ref_s);
        free(v->ref_e);
        v->ref_s = v->ref_e = NULL;
    }
    wc->nghost = ng;
    for (int v = 0; v < 3; v++) { /* the paths to them, each replay's */
        struct jcarry *jc = &wc->jc[v];
        struct jset *sets = whatif_alloc(ng + 1, sizeof *sets);
        for (size_t i = 0; i < jc->nat; i++)
            if (map[jc->at_op[i]] >= 0)
                sets[map[jc->at_op[i]]] = jc->at_set[i];
        free(jc->ghost);
        jc->ghost = sets;
        jc->nghost = ng;
        jc->nat = 0;
    }
    free(map);
    free(ref_at);
}

/* The waits a variant carried into this window, added to its fix: the
 * operation after a on its stream (comm: the first not moved) waits for
 * b; none in this window either: carried on. */
static void apply_joins(struct build *b, struct rp_fix *fx, struct variant *v)
{
    for (size_t q = 0; q < v->j.n; q++) {
        struct join x = v->j.v[q];
        int32_t a = x.a, n = b->next[a];
        while (x.comm && n >= 0 && fx->op_stream[n] != INT64_MIN)
            a = n, n = b->next[n];
        if (n >= 0)
            fx->op_extra_dep[n] = x.b;
        else
            join_add(&v->jn, (struct join){ a, x.b, x.comm, 0, 0 });
    }
    v->j.n = 0;
    for (size_t q = 0; q < v->sf.n; q++) /* the syncs it frees: a thread with no call here, on */
        if (!free_next_sync(b, fx, 0, v->sf.v[q].tid, v->sf.v[q].stream))
            free_sync_add(&v->sfn, v->sf.v[q]);
    v->sf.n = 0;
}

/* The range thread's shift (replayed less measured end) in a carry. */
static int64_t range_shift(const struct rp_carry *c, int tid)
{
    for (size_t i = 0; i < c->nthr; i++)
        if (c->thr[i].id == tid)
            return c->thr[i].r_end - c->thr[i].m_end;
    return 0;
}

/* What one window gives a variant: its replay (from its carried state,
 * with fix fx) into t, its steps' time, its state's operations' times. */
struct win {
    struct whatif_carry *wc;
    struct build *b;
    struct win_steps e;
    uint32_t *ridx; size_t nridx;
    int32_t *refs; size_t nrefs;
    struct rp_times t;
    int64_t shift_in;          /* the range thread's shift coming in, of the last variant run */
};

static int run_variant(struct win *wn, struct variant *v, const struct rp_fix *fx)
{
    const struct rp_graph *g = &wn->b->g;
    if (v->failed)
        return -1;
    for (size_t k = 0; k < g->nghost; k++) {
        wn->t.op_start[k] = v->gs ? v->gs[k] : g->ops[k].start;
        wn->t.op_end[k] = v->ge ? v->ge[k] : g->ops[k].end;
    }
    int64_t shift_in = range_shift(&v->rc, wn->b->p->range_tid);
    wn->shift_in = shift_in;
    if (rp_replay_carry(g, fx, &wn->t, &v->rc) != 0) {
        v->failed = 1;
        return -1;
    }
    acc_window(&v->a, wn->wc, &wn->e, wn->b, &wn->t, wn->ridx, wn->nridx, shift_in);
    free(v->ref_s);
    free(v->ref_e);
    v->ref_s = whatif_alloc(wn->nrefs, sizeof *v->ref_s);
    v->ref_e = whatif_alloc(wn->nrefs, sizeof *v->ref_e);
    for (size_t i = 0; i < wn->nrefs; i++) {
        v->ref_s[i] = wn->t.op_start[wn->refs[i]];
        v->ref_e[i] = wn->t.op_end[wn->refs[i]];
    }
    for (size_t q = 0; q < v->jn.n; q++) {
        v->jn.v[q].b_start = wn->t.op_start[v->jn.v[q].b];
        v->jn.v[q].b_end = wn->t.op_end[v->jn.v[q].b];
    }
    return 0;
}

static struct variant *find_variant(struct whatif_carry *wc, struct cand c)
{
    for (size_t i = 3; i < wc->nv; i++)
        if (wc->v[i].c.kind == c.kind && wc->v[i].c.site == c.site)
            return &wc->v[i];
    return NULL;
}

static struct whatif_carry *carry_of(struct whatif_proc *w, const struct proc *p)
{
    if (w->carry)
        return w->carry;
    struct whatif_carry *wc = whatif_alloc(1, sizeof *wc);
    wc->nsteps = model_steps(p, &wc->steps);
    /* the steady step is what a fix changes: a first step that compiles
     * (3.7 s against 1.9 ms on a real PyTorch loop) is no part of it */
    size_t wu = model_steps_warmup(wc->steps, wc->nsteps);
    if (wu) {
        w->warmup_steps = (int64_t)wu;
        /* from the first one's start to the steps replayed (model_steps_warmup: after it) */
        w->warmup_ns = (int64_t)((uint64_t)wc->steps[wu].start - (uint64_t)wc->steps[0].start);
        memmove(wc->steps, wc->steps + wu, (wc->nsteps - wu) * sizeof *wc->steps);
        wc->nsteps -= wu;
    }
    /* the steps timed from the first one's end: that one only starts the
     * clock (its GPU work's end, by the work before the steps: acc_time),
     * its own time holding the pipeline's fill and what start-up the rule
     * above did not catch.  From its start, an 8-step run of a model split
     * over two GPUs counted the fill (one more kernel over 8 steps) where
     * its twin, whose host runs ahead and whose first step is left out as
     * a warm-up, does not: predicted 0.83-0.88 of the twin */
    if (wc->nsteps >= WHATIF_LEAD_MIN) {
        w->lead_steps = 1;
        memmove(wc->steps, wc->steps + 1, (wc->nsteps - 1) * sizeof *wc->steps);
        wc->nsteps--;
    }
    acc_init(&wc->meas);
    for (int i = 0; i < 8; i++)
        wc->bw[i] = -1;
    for (int base = 0; base < 3; base++) {
        variant_new(wc, NULL, (struct cand){ -1, 0 }, base);
        wc->jc[base].gin_t = wc->jc[base].gaft_t = INT64_MIN;
        wc->call_end_max = INT64_MIN;
    }
    w->carry = wc;
    return wc;
}

/* The finding of process pi of kind k at site `site` (NULL: none). */
static const struct finding *finding_at(const struct findings *fs, size_t pi, int kind, int site)
{
    for (size_t i = 0; i < fs->n; i++)
        if (fs->v[i].proc == (int)pi && (int)fs->v[i].kind == kind && fs->v[i].callsite_id == site && fs->v[i].count)
            return &fs->v[i];
    return NULL;
}

static int64_t count_at(const struct findings *fs, size_t pi, int kind, int site)
{
    const struct finding *f = finding_at(fs, pi, kind, site);
    return f ? f->count : 0;
}

/* Whether candidate c's fix goes into "all fixed": whether its finding is
 * one the report lists, so that "all fixed" fixes the findings listed and
 * no other.  The process's findings are all made when it is replayed
 * (passes.h: final_window; one read a window at a time has its windows
 * read again for it), but the rules that drop and merge them are applied
 * across ranks, after: analysis_sync.c's filter_syncs and
 * findings_finish, mirrored here.  A site's sync.no_consumer, and the
 * smaller of its sync.device_wide and sync.scalar_read (the first kind on
 * a tie), are merged into the other (whose fix, applied by site, covers
 * their calls: the merged finding's calls take the survivor's fix); a
 * sync.redundant at a site with another sync finding is dropped; a
 * finding that needs repeats (finding_kept) is left out with fewer.  A
 * collective's move (not a finding yet) is decided in whatif_across. */
static int in_all_fixed(const struct findings *fs, const struct report_opts *o, size_t pi, struct cand c)
{
    const struct finding *f = finding_at(fs, pi, c.kind, c.site);
    if (!f)
        return c.kind == F_COMM_SAME_STREAM;
    int64_t dw = count_at(fs, pi, F_SYNC_DEVICE_WIDE, c.site), sr = count_at(fs, pi, F_SYNC_SCALAR_READ, c.site);
    int64_t nc = count_at(fs, pi, F_SYNC_NO_CONSUMER, c.site);
    /* the site's verdict: the larger, device_wide (the first kind) on a tie */
    int best = !dw && !sr ? -1 : dw >= sr ? F_SYNC_DEVICE_WIDE : F_SYNC_SCALAR_READ;
    struct finding merged = *f;
    if (c.kind == best)
        merged.count = dw + sr + nc; /* the site's, merged into it */
    int kept = finding_kept(&merged, o);
    switch (c.kind) {
    case F_SYNC_NO_CONSUMER:
        return best < 0 && kept;
    case F_SYNC_DEVICE_WIDE:
    case F_SYNC_SCALAR_READ:
        return c.kind == best && kept;
    case F_SYNC_REDUNDANT:
        return !dw && !sr && !nc && !count_at(fs, pi, F_SYNC_IMPLICIT, c.site) && kept;
    default:
        return kept;
    }
}

/* Candidate c's variant replayed on the window (made now, from the state
 * as measured before it, when first seen with a call of the window), its
 * fix added into all fixed when its finding is listed (in_all_fixed): fx
 * its fix's room. */
static void run_cand(struct win *wn, const struct variant *pre, struct cand c, int in_all, struct rp_fix *fx,
                     struct rp_fix *all, struct rp_fix *all_comm)
{
    struct whatif_carry *wc = wn->wc;
    struct build *b = wn->b;
    struct variant *v = find_variant(wc, c);
    struct joins jn = { 0 };
    struct free_syncs sn = { 0 };
    fix_reset(fx, &b->g);
    b->jn = &jn;
    b->sn = &sn;
    int any = add_fix(b, &c, fx);
    b->jn = NULL;
    b->sn = NULL;
    if (!v && !any) {
        free(jn.v);
        free(sn.v);
        return;
    }
    if (!v)
        v = variant_new(wc, pre, c, -1);
    for (size_t q = 0; q < jn.n; q++)
        join_add(&v->jn, jn.v[q]);
    free(jn.v);
    for (size_t q = 0; q < sn.n; q++)
        free_sync_add(&v->sfn, sn.v[q]);
    free(sn.v);
    v->seen = 1;
    apply_joins(b, fx, v);
    if (run_variant(wn, v, fx) != 0 || !in_all)
        return;
    b->jn = &wc->v[2].jn;
    b->sn = &wc->v[2].sfn;
    add_fix(b, &c, all_comm);
    if (c.kind != F_COMM_SAME_STREAM) {
        b->jn = &wc->v[1].jn;
        b->sn = &wc->v[1].sfn;
        add_fix(b, &c, all);
    }
    b->jn = NULL;
    b->sn = NULL;
}

/* ---- the summary for every rank together, window by window ---- */

/* What this window's summaries are of (struct jwin). */
static void joint_window(struct jwin *jw, struct whatif_carry *wc, const struct build *b, const struct win *wn,
                         const struct steps_in *st, int whole)
{
    memset(jw, 0, sizeof *jw);
    jw->last = INT64_MIN;
    if (whole) {
        /* the window's steps less the warm-up's (wc->steps' first is after it) */
        size_t k = 0;
        while (wc->nsteps && k + 1 < st->n && st->v[k].start < wc->steps[0].start)
            k++;
        jw->nsteps = (int64_t)(st->n - k);
        jw->first = st->v[k].start;
        jw->last = st->v[st->n - 1].end;
        jw->span = 2 * ((jw->last - jw->first) / jw->nsteps + 1);
        jw->start_here = 1;
        jw->idx = st->idx;
        jw->nidx = st->nidx;
        return;
    }
    /* from the first step's start on, the last step whose end is here
     * (tentative when no call here ends after it: it counts if a later
     * window's does, as a rank read whole counts the steps its calls
     * outlast) */
    const struct proc *p = b->p;
    const struct model_step *sv = wc->steps; /* (after the warm-up, as the rank's own steps' time) */
    size_t ns = wc->nsteps;
    jw->first = sv[0].start;
    jw->span = 2 * ((sv[ns - 1].end - jw->first) / (int64_t)ns + 1);
    /* its start probe in the window where the first of those steps
     * starts (the first after the warm-up, as the steps replayed): a
     * window after it would map that start with its own shift in */
    jw->start_here = jw->first >= p->win_lo && jw->first < p->win_hi;
    jw->idx = wn->ridx;
    jw->nidx = wn->nridx;
    int64_t callend = INT64_MIN;
    for (size_t c = 0; c < b->g.ncalls; c++)
        callend = b->g.calls[c].end > callend ? b->g.calls[c].end : callend;
    wc->call_end_max = callend > wc->call_end_max ? callend : wc->call_end_max;
    for (size_t j = 0; j < ns; j++) {
        int64_t e = sv[j].end;
        if (e >= p->win_lo && e < p->win_hi && e > sv[j].start && e > jw->last)
            jw->last = e;
    }
    jw->tent = jw->last != INT64_MIN && jw->last > callend;
    jw->keep_v = whatif_alloc(1, sizeof *jw->keep_v);
    jw->keep = jw->keep_v;
}

/* What variant v's summary carries on (a rank read a window at a time):
 * the operations the graph's state refers to, and its waits for the next
 * window; the shift its replay came in with. */
static void joint_keep(struct jwin *jw, const struct win *wn, const struct variant *v)
{
    jw->shift_in = wn->shift_in;
    if (!jw->keep)
        return;
    jw->keep_v = realloc(jw->keep_v, (wn->nrefs + 2 * v->jn.n + v->rc.nstr + 1) * sizeof *jw->keep_v);
    if (!jw->keep_v)
        model_out_of_memory();
    size_t n = 0;
    for (size_t i = 0; i < wn->nrefs; i++)
        jw->keep_v[n++] = wn->refs[i];
    for (size_t q = 0; q < v->jn.n; q++) {
        if (v->jn.v[q].a >= 0)
            jw->keep_v[n++] = v->jn.v[q].a;
        if (v->jn.v[q].b >= 0)
            jw->keep_v[n++] = v->jn.v[q].b;
    }
    for (size_t k = 0; k < v->rc.nstr; k++)
        if (v->rc.str[k].last >= 0)
            jw->keep_v[n++] = v->rc.str[k].last;
    jw->keep = jw->keep_v;
    jw->nkeep = n;
}

/* Each thread's last call here, as measured: its end and the host's time
 * in the tracked ranges up to it, for the next window's hostside. */
static void joint_threads(struct whatif_carry *wc, const struct build *b, const struct hostside *h)
{
    struct idmap last = { 0 };
    for (size_t c = 0; c < b->g.ncalls; c++)
        if (b->g.calls[c].tid >= 0)
            idmap_put(&last, (uint64_t)b->g.calls[c].tid + 2, (int64_t)c, 0);
    for (size_t k = 0; k < last.cap; k++) {
        if (!last.key[k])
            continue;
        size_t c = (size_t)last.val[k], at = 0;
        int tid = b->g.calls[c].tid;
        while (at < wc->nmt && wc->mt[at].tid != tid)
            at++;
        if (at == wc->nmt) {
            if (!(wc->mt = realloc(wc->mt, (wc->nmt + 1) * sizeof *wc->mt)))
                model_out_of_memory();
            wc->nmt++;
        }
        wc->mt[at].tid = tid;
        wc->mt[at].end = b->g.calls[c].end;
        memcpy(wc->mt[at].cum, h->cum[c], sizeof wc->mt[at].cum);
    }
    idmap_free(&last);
}

/* The probes made so far put aside in the report's scratch store (their
 * ends stay): a rank read a window at a time does it after each window,
 * every rank at its end, so that what the summaries hold in memory is a
 * window's and 8 bytes a collective. */
static void joint_aside(struct whatif_proc *w, struct findings *fs)
{
    if (!fs->aside)
        return;
    if (fs->aside_lock)
        pthread_mutex_lock(fs->aside_lock);
    for (int v = 0; v < 3; v++)
        wj_spill(&w->joint[v], fs->aside);
    if (fs->aside_lock)
        pthread_mutex_unlock(fs->aside_lock);
}

static void joint_drop(struct whatif_proc *w, struct whatif_carry *wc)
{
    w->windowed = wc->windowed; /* its measured arrivals stand (the report says so) */
    for (int v = 0; w->joint && v < 3; v++)
        wj_rank_free(&w->joint[v]);
    free(w->joint);
    w->joint = NULL;
    wc->joint_failed = 1;
}

/* The steps' start probe: the host's, or the end of the GPU work
 * enqueued before the first step on a stream it enqueues on too, where
 * that ends later (and before the steps' end), as acc_time has it. */
static void joint_start(const struct whatif_carry *wc, struct jcarry *jc)
{
    int at = -1;
    for (int i = 0; i < jc->npre; i++) { /* the latest, then whether it is within the steps (as acc_time) */
        int s = pre_slot(wc, jc->pre[i].stream);
        if (s >= 0 && wc->pre_s[s].used && (at < 0 || jc->pre[i].t > jc->pre[at].t))
            at = i;
    }
    if (at >= 0 && jc->pre[at].t > jc->start.at && jc->pre[at].t < jc->end.at) { /* (start: the host's so far) */
        jc->start = jc->pre[at].q;
        jc->start.coll = -1;
    }
}

/* The process's end: each summary's step probes after its collectives'
 * (whatif_joint.h), or none where a replay failed or a probe is missing. */
static void joint_finish(struct whatif_proc *w, struct whatif_carry *wc, struct findings *fs)
{
    if (!w->joint)
        return;
    for (int v = 0; v < 3; v++) { /* a step a later window's call outlasted */
        struct jcarry *jc = &wc->jc[v];
        if (jc->has_end_t && (!jc->has_end || jc->end_t_step > jc->end_step) && jc->end_t_step <= wc->call_end_max) {
            jc->end = jc->end_t;
            jc->end_step = jc->end_t_step;
            jc->has_end = 1;
        }
    }
    int ok = !wc->broken;
    for (int v = 0; v < 3; v++)
        ok &= wc->jc[v].has_start && wc->jc[v].has_end && !wc->v[v].failed;
    if (!ok) {
        joint_drop(w, wc);
        return;
    }
    for (int v = 0; v < 3; v++)
        joint_start(wc, &wc->jc[v]);
    /* a rank read whole too: its probes wait in the scratch store until
     * every rank is analysed, so that a job of many ranks holds 8 bytes a
     * collective of each, not its probes (the steps' stay) */
    joint_aside(w, fs);
    int64_t steps = 0;
    for (size_t j = 0; wc->windowed && j < wc->nsteps; j++)
        steps += wc->steps[j].end > wc->steps[j].start && wc->steps[j].end <= wc->jc[0].end_step;
    for (int v = 0; v < 3; v++) {
        struct wj_rank *r = &w->joint[v];
        size_t at = r->ncoll - r->nspilled;
        struct wj_probe *pv = realloc(r->v, (at + 2) * sizeof *pv);
        if (!pv)
            model_out_of_memory();
        r->v = pv;
        r->v[at] = wc->jc[v].start;
        r->v[at + 1] = wc->jc[v].end;
        if (wc->windowed)
            r->steps = steps;
    }
    if (wc->windowed) { /* the host's time by range, as the first reading summed it */
        w->joint[0].gaps = wc->pre.gaps;
        w->joint[0].ngaps = wc->pre.ngaps;
        /* summed over every step, the last one too, which the replay may
         * not count (one still open at the end): a share per step of
         * those, not of the replay's (a straggler's cut 0.84 of what it
         * was read whole, 1.00) */
        w->joint[0].gap_steps = wc->pre_steps;
        wc->pre.gaps = NULL;
    }
}

/* A rank read a window at a time, first reading: its range thread's host
 * time in the steps by range (as hostside_make sums it for a rank read
 * whole), so that the replay's summary, made once its findings are, knows
 * the ranges to track from its first window on. */
void whatif_pre_window(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if ((p->win_lo == INT64_MIN && p->win_hi == INT64_MAX) || !p->cupti_active || m->nprocs < 2 || !p->ncalls)
        return;
    struct whatif_proc *w = proc_slot(fs, m, pi);
    if (!w)
        return;
    struct whatif_carry *wc = carry_of(w, p);
    uint32_t *ix = whatif_alloc(p->ncalls, sizeof *ix);
    size_t n = 0;
    for (size_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].tid == p->range_tid)
            ix[n++] = (uint32_t)i;
    if (!wc->pre_seen) { /* the steps from the process's first call on, as steps_advance takes them */
        wc->pre_seen = 1;
        wc->pre_lo = INT64_MAX;
        for (size_t i = 0; i < p->ncalls; i++)
            wc->pre_lo = p->calls[i].start < wc->pre_lo ? p->calls[i].start : wc->pre_lo;
        wc->pre_end = INT64_MIN;
        wc->pre.gaps = whatif_alloc(16, sizeof *wc->pre.gaps);
        wc->pre_cap = 16;
    }
    int64_t first = INT64_MAX, end = INT64_MIN;
    wc->pre_steps = 0;
    for (size_t j = 0; j < wc->nsteps; j++)
        if (wc->steps[j].start >= wc->pre_lo && wc->steps[j].end > wc->steps[j].start) {
            first = wc->steps[j].start < first ? wc->steps[j].start : first;
            end = wc->steps[j].end > end ? wc->steps[j].end : end;
            wc->pre_steps++;
        }
    /* in the graph's order: by start, then index */
    struct item *it = whatif_alloc(n + 1, sizeof *it);
    for (size_t i = 0; i < n; i++)
        it[i] = (struct item){ p->calls[ix[i]].start, -1, (int32_t)ix[i] };
    qsort(it, n, sizeof *it, by_item);
    for (size_t i = 0; i < n; i++) {
        const struct call *c = &p->calls[it[i].call];
        if (wc->pre_end != INT64_MIN && c->start > wc->pre_end && p->nuser_ranges && c->start >= first &&
            c->start <= end)
            whatif_gaps_add(p, &wc->pre, &wc->pre_cap, &wc->pre_at, c->tid, c->start,
                            whatif_gap_from(c->start - wc->pre_end, c->start, first));
        wc->pre_end = c->end;
    }
    free(it);
    free(ix);
}

void whatif_window(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    int whole = p->win_lo == INT64_MIN && p->win_hi == INT64_MAX;
    /* a window with no calls or no operations still carries the steps
     * and the replays' state on */
    if (!p->cupti_active || (whole && (!p->ncalls || !p->nops)))
        return;
    struct whatif_proc *w = proc_slot(fs, m, pi);
    if (!w)
        return;
    struct whatif_carry *wc = carry_of(w, p);
    if (!wc->nsteps || wc->broken)
        return;
    /* read a window at a time: replayed a window at a time, carried
     * across the cuts (its summary for every rank together too) */
    if (!whole)
        wc->windowed = 1;
    struct build b = { .m = m, .p = p, .t = model_timeline(m, pi), .s = &wc->s, .ghosts = wc->ghosts,
                       .wake_in = wc->nv ? &wc->v[0].rc : NULL };
    b.g.nghost = wc->nghost;
    build_graph(&b);
    memcpy(b.bw, wc->bw, sizeof b.bw);
    memcpy(b.lat, wc->lat, sizeof b.lat);
    struct win wn = { .wc = wc, .b = &b };
    steps_advance(wc, &b, &wn.e);
    wn.ridx = whatif_alloc(b.g.ncalls, sizeof *wn.ridx);
    for (size_t i = 0; i < b.g.ncalls; i++)
        if (b.g.calls[i].tid == p->range_tid)
            wn.ridx[wn.nridx++] = (uint32_t)i;
    wc->range_calls += wn.nridx;
    wn.nrefs = state_refs(&b, &wc->s, &wn.refs);
    pre_streams_note(wc, &b);
    acc_window(&wc->meas, wc, &wn.e, &b, NULL, NULL, 0, 0);
    struct steps_in st; /* the window's own steps: its critical path, its summary */
    steps_of_window(&b, &st);
    struct rp_times *t = &wn.t;
    times_alloc(t, &b.g);
    t->op_by = whatif_alloc(b.g.nops, sizeof *t->op_by);
    t->call_by = whatif_alloc(b.g.ncalls, sizeof *t->call_by);
    t->call_prev = whatif_alloc(b.g.ncalls, sizeof *t->call_prev);
    t->op_prev = whatif_alloc(b.g.nops, sizeof *t->op_prev);
    t->op_unexpl = whatif_alloc(b.g.nops, sizeof *t->op_unexpl);
    struct rp_fix fx, all, all_comm;
    fix_alloc(&fx, &b.g);
    fix_alloc(&all, &b.g);
    fix_alloc(&all_comm, &b.g);
    /* the state as measured before this window: where a candidate first
     * seen here starts from */
    struct variant pre = { 0 };
    pre.failed = wc->v[0].failed;
    if (rp_carry_copy(&pre.rc, &wc->v[0].rc) != 0)
        model_out_of_memory();
    pre.gs = dup64(wc->v[0].gs, wc->nghost);
    pre.ge = dup64(wc->v[0].ge, wc->nghost);
    pre.a = wc->v[0].a;
    struct hostside hs = { 0 };
    struct jwin jw = { 0 };
    int32_t *coll_of = NULL;
    if (run_variant(&wn, &wc->v[0], NULL) != 0) {
        wc->broken = 1;
    } else {
        if (st.n && st.nidx)
            critical_path(&b, &st, t, w);
        /* the summaries for the ranks replayed together: several ranks
         * with collectives */
        if (whole ? st.n && st.nidx && m->nprocs > 1 && p->ncolls && !w->joint
                  : wc->nsteps && m->nprocs > 1 && p->colls_parked && !wc->joint_failed) {
            if (!w->joint)
                w->joint = whatif_alloc(3, sizeof *w->joint);
            joint_window(&jw, wc, &b, &wn, &st, whole);
            if (whole) {
                whatif_hostside_make(&b, jw.first, jw.last, NULL, 0, NULL, &hs);
            } else {
                if (!wc->have_tracked)
                    whatif_choose_tracked(wc->pre.gaps, wc->pre.ngaps, wc->tracked);
                wc->have_tracked = 1;
                whatif_hostside_make(&b, jw.first, jw.last, wc->mt, wc->nmt, wc->tracked, &hs);
            }
            coll_of = whatif_colls_of_ops(&b);
            joint_keep(&jw, &wn, &wc->v[0]);
            whatif_joint_summary(&b, &jw, t, NULL, &hs, coll_of, &w->joint[0], &wc->jc[0], wc->mt, wc->nmt);
            if (whole) {
                w->joint[0].gaps = hs.gaps;
                w->joint[0].ngaps = hs.ngaps;
                hs.gaps = NULL;
            }
        }
        for (size_t i = 3; i < wc->nv; i++)
            wc->v[i].seen = 0;
        struct cand *cv;
        size_t nc = candidates(&b, fs, pi, &cv);
        for (size_t i = 0; i < nc; i++)
            if (!find_variant(wc, cv[i]) || !find_variant(wc, cv[i])->seen)
                run_cand(&wn, &pre, cv[i], in_all_fixed(fs, o, pi, cv[i]), &fx, &all, &all_comm);
        free(cv);
        for (size_t i = 3; i < wc->nv; i++) /* made in a window before: carried on */
            if (!wc->v[i].seen)
                run_cand(&wn, &pre, wc->v[i].c, in_all_fixed(fs, o, pi, wc->v[i].c), &fx, &all, &all_comm);
        apply_joins(&b, &all, &wc->v[1]);
        if (run_variant(&wn, &wc->v[1], &all) == 0 && coll_of) {
            joint_keep(&jw, &wn, &wc->v[1]);
            whatif_joint_summary(&b, &jw, t, &all, &hs, coll_of, &w->joint[1], &wc->jc[1], wc->mt, wc->nmt);
        }
        apply_joins(&b, &all_comm, &wc->v[2]);
        if (run_variant(&wn, &wc->v[2], &all_comm) == 0 && coll_of) {
            joint_keep(&jw, &wn, &wc->v[2]);
            whatif_joint_summary(&b, &jw, t, &all_comm, &hs, coll_of, &w->joint[2], &wc->jc[2], wc->mt, wc->nmt);
        }
        if (coll_of) {
            for (int v = 0; v < 3; v++)
                w->joint[v].steps = whole ? jw.nsteps : 0;
            if (wc->v[1].failed || wc->v[2].failed) {
                joint_drop(w, wc); /* a replay failed: none */
            } else if (!whole) {
                joint_threads(wc, &b, &hs);
                joint_aside(w, fs);
            }
        }
        carry_state(wc, &b, wn.refs, wn.nrefs);
    }
    for (int i = 0; i < 8; i++) /* measured: kept for the windows after */
        if (b.bw[i] > 0) {
            wc->bw[i] = b.bw[i];
            wc->lat[i] = b.lat[i];
        }
    variant_free(&pre);
    free(jw.keep_v);
    free(coll_of);
    whatif_hostside_free(&hs);
    fix_free(&fx);
    fix_free(&all);
    fix_free(&all_comm);
    free(t->op_by);
    free(t->call_by);
    free(t->call_prev);
    free(t->op_prev);
    free(t->op_unexpl);
    times_free(t);
    free(wn.ridx);
    free(wn.refs);
    free(st.v);
    free(st.idx);
    build_free(&b);
}

void whatif_proc_end(const struct model *m, struct findings *fs, size_t pi)
{
    struct whatif_proc *w = fs->whatif && pi < fs->nwhatif ? &fs->whatif[pi] : NULL;
    struct whatif_carry *wc = w ? w->carry : NULL;
    if (!wc)
        return;
    const struct proc *p = &m->procs[pi];
    for (size_t i = 0; i < p->ngpu_gaps; i++) { /* within its life (one never given back: to its end) */
        int64_t a = p->gpu_gaps[i].from > p->start ? p->gpu_gaps[i].from : p->start;
        int64_t b = p->gpu_gaps[i].to < p->end ? p->gpu_gaps[i].to : p->end;
        if (b > a)
            model_add(&w->unrecorded_ns, b - a);
    }
    w->carry = NULL;
    joint_finish(w, wc, fs);
    if (wc->nconf && wc->range_calls && !wc->broken) {
        int64_t n = (int64_t)wc->nconf, measured = acc_time(wc, &wc->meas), now = acc_time(wc, &wc->v[0].a);
        w->steps += n;
        w->measured_ns += measured;
        w->replayed_ns += now;
        model_add(&w->unexplained_ns, wc->v[0].a.unexpl_in);
        w->abs_err_ns += now > measured ? now - measured : measured - now;
        model_add(&w->nccl_ns, wc->meas.nccl_in);
        w->all_fixed_ns += wc->v[1].failed ? now : acc_time(wc, &wc->v[1].a);
        w->all_fixed_comm_ns += wc->v[2].failed ? now : acc_time(wc, &wc->v[2].a);
        for (size_t i = 3; i < wc->nv; i++) {
            const struct variant *v = &wc->v[i];
            if (v->failed)
                continue;
            struct whatif_site *ws = site_slot(fs, finding_key(v->c.kind, (int)pi, v->c.site), (int)pi);
            ws->steps += n;
            ws->now_ns += now;
            ws->fixed_ns += acc_time(wc, &v->a);
        }
    }
    carry_free(wc);
}

void whatif_across(const struct model *m, struct findings *fs, struct coll_spill *spill)
{
    struct idmap at = { 0 };
    for (size_t i = 0; i < fs->nwsites; i++)
        idmap_put(&at, fs->wsites[i].key, (int64_t)i, 0);
    for (size_t i = 0; i < fs->n; i++) {
        struct finding *f = &fs->v[i];
        int64_t k;
        if (f->proc < 0 || !idmap_get(&at, finding_key(f->kind, f->proc, f->callsite_id), &k))
            continue;
        f->wi_steps = fs->wsites[k].steps;
        f->wi_now_ns = fs->wsites[k].now_ns;
        f->wi_fixed_ns = fs->wsites[k].fixed_ns;
        /* the collectives moved count in "all fixed" once they are a finding */
        if (f->kind == F_COMM_SAME_STREAM && (size_t)f->proc < fs->nwhatif)
            fs->whatif[f->proc].comm_found = 1;
    }
    idmap_free(&at);
    for (size_t i = 0; i < fs->nwhatif; i++)
        if (fs->whatif[i].comm_found)
            fs->whatif[i].all_fixed_ns = fs->whatif[i].all_fixed_comm_ns;
    whatif_job(m, fs, spill); /* every rank together: the straggler's fix, the job's all fixed */
}
