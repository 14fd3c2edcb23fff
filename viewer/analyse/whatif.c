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
 * its own (the syncs that waited for it still do).  Other kinds are not
 * predicted (comm.straggler needs every rank's graph at once). */
#include "viewer/analyse/findings.h"
#include "viewer/analyse/replay.h"
#include "viewer/model/sort_by_time.h"
#include "viewer/model/steps.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LAT_CAP_NS 200000
/* A pageable copy made pinned, when the run has no pinned copy of its
 * direction to measure: a quarter of its time.  An assumption (pinned
 * copies run at the link's rate, pageable ones through the driver's
 * staging buffer, typically a few times slower); docs/report.md. */
#define PINNED_SCALE 0.25f /* a launch delay longer than this is something the graph does not know */

struct build {
    const struct model *m;
    const struct proc *p;
    const struct timeline *t;
    struct rp_graph g;
    int32_t *rp_of_call;    /* model call -> rp call */
    int32_t *call_of_rp;    /* rp call -> model call, -1: an operation's enqueueing */
    int32_t *op_of_rp;      /* rp op -> model op */
    size_t waits_cap;
    int32_t *next, *prev;   /* each operation's next and previous on its stream, -1: none */
    int32_t *seg;           /* each rp call: how many calls that wait came before it */
    int32_t *moved; size_t nmoved; /* the collectives a fix moves, in order (move_collectives) */
    double bw[8];           /* pinned copy bandwidth by copy kind, bytes/ns (< 0: not measured yet) */
};

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
 * on since then; per event handle: the operation recorded. */
struct state { struct idmap last, pend, ev; int32_t *pend_v; size_t npend, pend_cap; };

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
    for (size_t i = 0; i < b->g.nops; i++) {
        const struct rp_op *o = &b->g.ops[i];
        const struct rp_call *c = &b->g.calls[o->call];
        if (c->tid >= 0 && o->start >= c->start && o->start - c->start < LAT_CAP_NS)
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

static void *alloc(size_t n, size_t size)
{
    void *p = calloc(n + 1, size);
    if (!p)
        model_out_of_memory();
    return p;
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
    b->next = alloc(g->nops, sizeof *b->next);
    b->prev = alloc(g->nops, sizeof *b->prev);
    b->seg = alloc(g->ncalls, sizeof *b->seg);
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
    for (int i = 0; i < 8; i++)
        b->bw[i] = -1;
}


static void build_graph(struct build *b)
{
    const struct proc *p = b->p;
    size_t nc = p->ncalls, no = p->nops;
    /* each operation's call, by correlation id */
    struct sort_key *ck = alloc(nc, sizeof *ck);
    size_t nck = 0;
    for (size_t i = 0; i < nc; i++)
        if (p->calls[i].corr)
            ck[nck++] = (struct sort_key){ p->calls[i].corr, i };
    if (sort_keys(ck, nck) != 0)
        model_out_of_memory();
    int32_t *call_of_op = alloc(no, sizeof *call_of_op);
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
    struct item *it = alloc(nc + norphan, sizeof *it);
    size_t ni = 0;
    for (size_t i = 0; i < nc; i++)
        it[ni++] = (struct item){ p->calls[i].start, -1, (int32_t)i };
    for (size_t i = 0; i < no; i++)
        if (call_of_op[i] < 0)
            it[ni++] = (struct item){ p->ops[i].enq, (int32_t)i, -1 };
    qsort(it, ni, sizeof *it, by_item);
    b->g.calls = alloc(ni, sizeof *b->g.calls);
    b->call_of_rp = alloc(ni, sizeof *b->call_of_rp);
    b->rp_of_call = alloc(nc, sizeof *b->rp_of_call);
    int32_t *rp_of_orphan = alloc(no, sizeof *rp_of_orphan);
    for (size_t r = 0; r < ni; r++) {
        b->call_of_rp[r] = it[r].call;
        if (it[r].call >= 0)
            b->rp_of_call[it[r].call] = (int32_t)r;
        else
            rp_of_orphan[it[r].op] = (int32_t)r;
    }
    /* the operations by their rp call, then start */
    struct opkey *ok = alloc(no, sizeof *ok);
    for (size_t i = 0; i < no; i++)
        ok[i] = (struct opkey){ call_of_op[i] >= 0 ? b->rp_of_call[call_of_op[i]] : rp_of_orphan[i], (int32_t)i,
                                p->ops[i].start };
    qsort(ok, no, sizeof *ok, by_opkey);
    free(call_of_op);
    free(rp_of_orphan);
    b->g.ops = alloc(no, sizeof *b->g.ops);
    b->op_of_rp = alloc(no, sizeof *b->op_of_rp);
    /* walk them in order: the operations, then the call's scope */
    struct state s = { 0 };
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
    idmap_free(&s.last);
    idmap_free(&s.pend);
    idmap_free(&s.ev);
    free(s.pend_v);
    b->g.lat_cap = LAT_CAP_NS;
    b->g.lat_typical = typical_latency(b);
    index_graph(b);
    b->moved = alloc(b->g.nops, sizeof *b->moved);
}

static int by_double(const void *x, const void *y)
{
    double a = *(const double *)x, b = *(const double *)y;
    return (a > b) - (a < b);
}

/* The run's pinned copies' bandwidth of a direction (bytes per ns, median),
 * 0 if none. */
static double pinned_bw(const struct proc *p, int copy_kind)
{
    double *v = malloc((p->nops + 1) * sizeof *v), med = 0;
    size_t n = 0;
    if (!v)
        model_out_of_memory();
    for (size_t i = 0; i < p->nops; i++) {
        const struct gop *o = &p->ops[i];
        if (o->kind == GOP_MEMCPY && o->copy_kind == copy_kind && o->end > o->start && o->bytes > 0 &&
            (o->src_kind == 2 || o->dst_kind == 2) && o->src_kind != 1 && o->dst_kind != 1)
            v[n++] = (double)o->bytes / (double)(o->end - o->start);
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
    case F_SYNC_DEVICE_WIDE: case F_COPY_PAGEABLE: case F_COPY_SERIALIZED:
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
        int32_t join = b->next[k];
        while (join >= 0 && fx->op_stream[join] != INT64_MIN) /* the next one not moved */
            join = b->next[join];
        if (last && join >= 0)
            fx->op_extra_dep[join] = k;
    }
    idmap_free(&later);
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
            for (size_t k = 0; k < b->g.nops; k++)
                if (b->g.ops[k].call == (int32_t)r) {
                    const struct gop *o = &p->ops[b->op_of_rp[k]];
                    int ck = o->copy_kind & 7;
                    if (b->bw[ck] < 0)
                        b->bw[ck] = pinned_bw(p, o->copy_kind);
                    double bw = b->bw[ck];
                    if (bw > 0 && o->end > o->start && o->bytes > 0)
                        fx->op_scale[k] = (float)((double)o->bytes / bw / (double)(o->end - o->start));
                    else
                        fx->op_scale[k] = PINNED_SCALE;
                }
            break;
        case F_COPY_SERIALIZED:
            for (size_t k = 0; k < b->g.nops; k++)
                if (b->g.ops[k].call == (int32_t)r) {
                    fx->op_stream[k] = b->g.ops[k].stream | ((int64_t)1 << 40);
                    int32_t next = b->next[k];
                    if (next >= 0)
                        fx->op_extra_dep[next] = (int32_t)k; /* ordered by an event: its consumer waits */
                    any = 1;
                }
            break;
        case F_COMM_SAME_STREAM:
            for (size_t k = 0; k < b->g.nops; k++)
                if (b->g.ops[k].call == (int32_t)r && p->ops[b->op_of_rp[k]].nccl) {
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
    fx->call_mode = alloc(g->ncalls, 1);
    fx->op_stream = alloc(g->nops, sizeof *fx->op_stream);
    fx->op_scale = alloc(g->nops, sizeof *fx->op_scale);
    fx->op_extra_dep = alloc(g->nops, sizeof *fx->op_extra_dep);
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
    st->idx = alloc(b->g.ncalls, sizeof *st->idx);
    for (size_t i = 0; i < b->g.ncalls; i++)
        if (b->g.calls[i].tid == tid)
            st->idx[st->nidx++] = (uint32_t)i;
}

/* The steps' time in a replay: from the first one's start to the later of
 * the last one's end and the end of the GPU work enqueued by then (a host
 * that runs ahead of its GPU does not make the loop faster). */
static int64_t steps_time(const struct build *b, const struct steps_in *st, const struct rp_times *t)
{
    int64_t first = st->v[0].start, last = st->v[st->n - 1].end;
    int64_t end = rp_map_time(&b->g, t, st->idx, st->nidx, last);
    for (size_t k = 0; k < b->g.nops; k++) {
        const struct rp_call *c = &b->g.calls[b->g.ops[k].call];
        if (c->start >= first && c->start <= last && t->op_end[k] > end)
            end = t->op_end[k];
    }
    return end - rp_map_time(&b->g, t, st->idx, st->nidx, first);
}

/* The same of the measured times. */
static int64_t steps_measured(const struct build *b, const struct steps_in *st)
{
    int64_t first = st->v[0].start, last = st->v[st->n - 1].end, end = last;
    for (size_t k = 0; k < b->g.nops; k++) {
        const struct rp_call *c = &b->g.calls[b->g.ops[k].call];
        if (c->start >= first && c->start <= last && b->g.ops[k].end > end)
            end = b->g.ops[k].end;
    }
    return end - first;
}

static void times_alloc(struct rp_times *t, const struct rp_graph *g)
{
    memset(t, 0, sizeof *t);
    t->call_start = alloc(g->ncalls, 8);
    t->call_end = alloc(g->ncalls, 8);
    t->op_start = alloc(g->nops, 8);
    t->op_end = alloc(g->nops, 8);
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
    free(b->rp_of_call);
    free(b->call_of_rp);
    free(b->op_of_rp);
    free(b->next);
    free(b->prev);
    free(b->seg);
    free(b->moved);
}

static struct whatif_proc *proc_slot(struct findings *fs, const struct model *m, size_t pi)
{
    if (!fs->whatif) {
        fs->whatif = alloc(m->nprocs, sizeof *fs->whatif);
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
    struct cand *v = alloc(cap, sizeof *v);
    for (size_t i = 0; i < fs->n; i++) {
        const struct finding *f = &fs->v[i];
        if (f->proc != (int)pi || f->callsite_id <= 0 || !predicted(f->kind))
            continue;
        if (n == cap && !(v = realloc(v, (cap *= 2) * sizeof *v)))
            model_out_of_memory();
        v[n++] = (struct cand){ f->kind, f->callsite_id };
    }
    struct idmap seen = { 0 };
    for (size_t k = 0; k < b->g.nops; k++) {
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
    int32_t *last_op = alloc(st->n, sizeof *last_op);
    for (size_t k = 0; k < st->n; k++)
        last_op[k] = -1;
    for (size_t o = 0; o < b->g.nops; o++) {
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
    int64_t *end = alloc(st->n, sizeof *end), *per = alloc(st->n, sizeof *per);
    int *kind = alloc(st->n, sizeof *kind);
    int32_t *index = alloc(st->n, sizeof *index);
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
        size_t *order = alloc(cs.n, sizeof *order), *rank = alloc(cs.n, sizeof *rank);
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

void whatif_window(const struct model *m, struct findings *fs, size_t pi)
{
    const struct proc *p = &m->procs[pi];
    if (!p->ncalls || !p->nops || !p->cupti_active)
        return;
    if (p->win_lo != INT64_MIN || p->win_hi != INT64_MAX) {
        /* a rank read a window at a time: its graph is not replayed (a
         * window's replay would start from the measured times at its cut,
         * and steps across cuts would be lost: the answers would depend on
         * where the windows fall) */
        struct whatif_proc *w = proc_slot(fs, m, pi);
        if (w)
            w->windowed = 1;
        return;
    }
    struct build b = { .m = m, .p = p, .t = model_timeline(m, pi) };
    build_graph(&b);
    struct steps_in st;
    steps_of_window(&b, &st);
    struct whatif_proc *w = proc_slot(fs, m, pi);
    if (st.n && st.nidx && w) {
        struct rp_times t;
        times_alloc(&t, &b.g);
        struct rp_fix fx, all, all_comm;
        fix_alloc(&fx, &b.g);
        fix_alloc(&all, &b.g);
        fix_alloc(&all_comm, &b.g);
        t.op_by = alloc(b.g.nops, sizeof *t.op_by);
        t.call_by = alloc(b.g.ncalls, sizeof *t.call_by);
        t.call_prev = alloc(b.g.ncalls, sizeof *t.call_prev);
        if (rp_replay(&b.g, NULL, &t) == 0) {
            critical_path(&b, &st, &t, w);
            free(t.op_by);
            free(t.call_by);
            free(t.call_prev);
            t.op_by = t.call_by = t.call_prev = NULL;
            int64_t now = steps_time(&b, &st, &t), measured = steps_measured(&b, &st);
            int64_t err = now > measured ? now - measured : measured - now;
            for (size_t k = 0; k < b.g.nops; k++) { /* enqueued during the steps */
                int64_t at = b.g.calls[b.g.ops[k].call].start;
                if (p->ops[b.op_of_rp[k]].nccl && at >= st.v[0].start && at <= st.v[st.n - 1].end)
                    w->nccl_ns += b.g.ops[k].end - b.g.ops[k].start;
            }
            w->steps += (int64_t)st.n;
            w->measured_ns += measured;
            w->replayed_ns += now;
            w->abs_err_ns += err;
            struct cand *cv;
            size_t nc = candidates(&b, fs, pi, &cv);
            for (size_t i = 0; i < nc; i++) {
                fix_reset(&fx, &b.g);
                if (!add_fix(&b, &cv[i], &fx) || rp_replay(&b.g, &fx, &t) != 0)
                    continue;
                add_fix(&b, &cv[i], &all_comm);
                if (cv[i].kind != F_COMM_SAME_STREAM)
                    add_fix(&b, &cv[i], &all);
                struct whatif_site *ws = site_slot(fs, finding_key(cv[i].kind, (int)pi, cv[i].site), (int)pi);
                ws->steps += (int64_t)st.n;
                ws->now_ns += now;
                ws->fixed_ns += steps_time(&b, &st, &t);
            }
            free(cv);
            w->all_fixed_ns += rp_replay(&b.g, &all, &t) == 0 ? steps_time(&b, &st, &t) : now;
            w->all_fixed_comm_ns += rp_replay(&b.g, &all_comm, &t) == 0 ? steps_time(&b, &st, &t) : now;
        }
        fix_free(&fx);
        fix_free(&all);
        fix_free(&all_comm);
        free(t.op_by);
        free(t.call_by);
        free(t.call_prev);
        times_free(&t);
    }
    free(st.v);
    free(st.idx);
    build_free(&b);
}

void whatif_across(struct findings *fs)
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
}
