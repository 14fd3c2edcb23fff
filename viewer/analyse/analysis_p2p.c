/* analysis_p2p.c: sends matched to receives across ranks, pipeline
 * bubbles, and the cost of NCCL's lazy connections (analysis_p2p.h). */
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/proc_pass.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* comm.lazy_connect: a first call this long (2 ms: less is a loaded host's noise) and this many times as
 * long as the typical later call to the same peer */
#define LAZY_MIN_NS 2000000
#define LAZY_FACTOR 10

static struct p2p_run *run_of(struct model *m)
{
    if (m->p2p)
        return m->p2p;
    struct p2p_run *r = calloc(1, sizeof *r);
    if (!r || !(r->stages = calloc(m->nprocs + 1, sizeof *r->stages)) ||
        !(r->is_p2p = calloc((size_t)m->napis + 1, 1)))
        model_out_of_memory();
    for (int a = 0; a < m->napis; a++) {
        const char *n = model_api_name(m, a);
        r->is_p2p[a] = !strcmp(n, "ncclSend") ? 1 : !strcmp(n, "ncclRecv") ? 2 : !strcmp(n, "ncclGroupEnd") ? 3 : 0;
    }
    m->p2p = r;
    return r;
}

void p2p_begin(struct model *m)
{
    run_of(m);
}

int p2p_kind(const struct model *m, int api)
{
    if (m->p2p)
        return api >= 0 && api < m->napis && m->p2p->is_p2p[api] < 3 ? m->p2p->is_p2p[api] : 0;
    const char *n = model_api_name(m, api);
    return !strcmp(n, "ncclSend") ? 1 : !strcmp(n, "ncclRecv") ? 2 : 0;
}

/* ---- one rank: bubbles and first contacts -------------------------------- */

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

static void note_contact(struct p2p_stage *st, const struct coll *c)
{
    struct p2p_conn *k = NULL;
    for (size_t i = 0; i < st->nconns && !k; i++) /* a rank has few peers */
        if (st->conns[i].comm == c->comm && st->conns[i].peer == c->peer)
            k = &st->conns[i];
    int64_t host = c->end > c->start ? c->end - c->start : 0;
    if (!k) {
        if (st->nconns == st->conns_cap) {
            st->conns_cap = st->conns_cap ? 2 * st->conns_cap : 8;
            if (!(st->conns = realloc(st->conns, st->conns_cap * sizeof *st->conns)))
                model_out_of_memory();
        }
        k = &st->conns[st->nconns++];
        memset(k, 0, sizeof *k);
        *k = (struct p2p_conn){ .comm = c->comm, .first_ns = host, .first_start = c->start, .peer = c->peer,
                                .api = c->api, .site = c->site, .nlater = 0, .grouped = c->group != 0 };
        return;
    }
    /* a grouped call only queues: its group's ncclGroupEnd, found later,
     * is what waited; its start stands in */
    if (k->nlater < P2P_LATER_SAMPLES)
        k->later[k->nlater++] = k->grouped ? c->start : host;
}

void p2p_window(struct model *m, size_t pi)
{
    struct p2p_run *r = run_of(m);
    const struct proc *p = &m->procs[pi];
    struct p2p_stage *st = &r->stages[pi];
    for (size_t i = 0; i < p->ncalls && st->nends < P2P_GROUP_ENDS; i++) {
        const struct call *c = &p->calls[i];
        if (c->api >= m->napis || r->is_p2p[c->api] != 3 || c->start < p->win_lo || c->start >= p->win_hi)
            continue;
        if (st->nends == st->ends_cap) {
            st->ends_cap = st->ends_cap ? 2 * st->ends_cap : 64;
            if (!(st->ends = realloc(st->ends, st->ends_cap * sizeof *st->ends)))
                model_out_of_memory();
        }
        st->ends[st->nends++] = (struct p2p_group_end){ c->start, c->end > c->start ? c->end - c->start : 0 };
    }
}

/* The first ncclGroupEnd that began at or after t (the one that launched
 * a grouped call made at t): its index, or -1. */
static int64_t group_end_after(const struct p2p_stage *st, int64_t t)
{
    size_t lo = 0, hi = st->nends;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (st->ends[mid].start < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < st->nends ? (int64_t)lo : -1;
}

void p2p_colls_done(struct model *m, size_t pi, size_t n)
{
    struct p2p_run *r = run_of(m);
    const struct proc *p = &m->procs[pi];
    struct p2p_stage *st = &r->stages[pi];
    __atomic_store_n(&r->counted, 1, __ATOMIC_RELAXED); /* workers on other processes store it too */
    for (size_t i = 0; i < n; i++) {
        const struct coll *c = &p->colls[i];
        if (!p2p_kind(m, c->api))
            continue;
        st->ops++;
        note_contact(st, c);
        if (c->gend <= c->gstart || c->gstream < 0)
            continue;
        /* the send and receive of one group run in one kernel */
        if (c->gstart == st->last_gstart && c->gend == st->last_gend && c->gstream == st->last_gstream)
            continue;
        st->last_gstart = c->gstart;
        st->last_gend = c->gend;
        st->last_gstream = c->gstream;
        int64_t dur = c->gend - c->gstart, ov = proc_pass_coll_overlap(p->pass, p, i);
        model_add(&st->gpu_ns, dur);
        model_add(&st->bubble_ns, ov >= 0 && ov < dur ? dur - ov : ov < 0 ? dur : 0);
    }
}

static void lazy_findings(const struct model *m, struct findings *fs, const struct p2p_run *r)
{
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        const struct p2p_stage *st = &r->stages[pi];
        for (size_t i = 0; i < st->nconns; i++) {
            struct p2p_conn k = st->conns[i];
            int64_t end = -1; /* the GroupEnd that connected it */
            if (k.grouped) { /* the GroupEnds' host times, for the calls' */
                end = group_end_after(st, k.first_start);
                k.first_ns = end >= 0 ? st->ends[end].ns : -1;
                for (int j = 0; j < k.nlater; j++) {
                    int64_t e = group_end_after(st, k.later[j]);
                    k.later[j] = e >= 0 ? st->ends[e].ns : 0;
                }
                k.api = -1;
            }
            if (k.first_ns < 0 || !k.nlater)
                continue;
            qsort(k.later, (size_t)k.nlater, sizeof *k.later, cmp_i64);
            int64_t typical = k.later[k.nlater / 2];
            if (k.first_ns < LAZY_MIN_NS || k.first_ns / LAZY_FACTOR < typical) /* no product: 2^61 a connect in a damaged file */
                continue;
            struct finding *f = findings_new(fs, m, F_COMM_LAZY_CONNECT, (int)pi, k.site);
            f->count = 1;
            f->confidence = "medium"; /* inferred from host times */
            f->host_blocked_ns = k.first_ns - typical;
            /* one ncclGroupEnd that connected several peers is charged once:
             * to the first of them */
            int shared = 0;
            for (size_t j = 0; end >= 0 && j < i; j++)
                shared |= st->conns[j].grouped && group_end_after(st, st->conns[j].first_start) == end;
            if (shared)
                f->host_blocked_ns = 0;
            else { /* the time beyond a typical call, the rank's own: claimed (attribution.h) */
                int64_t at = end >= 0 ? st->ends[end].start : k.first_start;
                charge_add(fs, f, (int)pi, at + typical, at + k.first_ns);
            }
            /* the peer's rank in the run, where the trace has it */
            int peer_rank = k.peer;
            for (size_t j = 0; j < r->npairs; j++) {
                const struct p2p_pair *pp = &r->pairs[j];
                if (pp->comm == k.comm && pp->src == k.peer && pp->src_proc >= 0)
                    peer_rank = m->procs[pp->src_proc].rank;
                else if (pp->comm == k.comm && pp->dst == k.peer && pp->dst_proc >= 0)
                    peer_rank = m->procs[pp->dst_proc].rank;
            }
            f->facts.has |= FACT_COMM | FACT_PEER;
            f->facts.comm_id = k.comm;
            f->facts.peer_rank = peer_rank;
            f->facts.first_call_ns = k.first_ns;
            f->facts.typical_call_ns = typical;
            f->api = k.api;
            f->facts.grouped = k.api < 0;
            f->facts.shared = shared;
        }
    }
}

/* ---- across ranks: pairs ------------------------------------------------- */

struct matching { struct model *m; struct p2p_run *r; struct findings *fs; int ended_badly; };

static uint64_t pair_key(int64_t comm, int src, int dst)
{
    uint64_t k = (uint64_t)comm * 0x9e3779b97f4a7c15ull ^ ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst);
    return k ? k : 1;
}

static struct p2p_pair *pair_of(struct p2p_run *r, int64_t comm, int src, int dst)
{
    uint64_t key = pair_key(comm, src, dst);
    int64_t at;
    while (idmap_get(&r->pair_index, key, &at)) {
        struct p2p_pair *p = &r->pairs[at];
        if (p->comm == comm && p->src == src && p->dst == dst)
            return p;
        key = key * 31 + 7; /* another pair's key: probe on */
        key = key ? key : 1;
    }
    if (r->npairs == r->pairs_cap) {
        r->pairs_cap = r->pairs_cap ? 2 * r->pairs_cap : 16;
        if (!(r->pairs = realloc(r->pairs, r->pairs_cap * sizeof *r->pairs)))
            model_out_of_memory();
    }
    struct p2p_pair *p = &r->pairs[r->npairs];
    memset(p, 0, sizeof *p);
    p->comm = comm;
    p->src = src;
    p->dst = dst;
    p->src_proc = p->dst_proc = -1;
    idmap_put(&r->pair_index, key, (int64_t)r->npairs++, 0);
    return p;
}

static void push(struct p2p_op **v, size_t *head, size_t *n, size_t *cap, int64_t *over, struct p2p_op *over_first,
                 struct p2p_op op)
{
    if (*head && *head == *n) /* empty: start over at the front */
        *head = *n = 0;
    if (*over || *n - *head >= P2P_QUEUE_MAX) { /* kept in order: after those counted already */
        if (!(*over)++)
            *over_first = op;
        return;
    }
    if (*n == *cap) {
        if (*head) { /* room at the front */
            memmove(*v, *v + *head, (*n - *head) * sizeof **v);
            *n -= *head;
            *head = 0;
        } else {
            *cap = *cap ? 2 * *cap : 8;
            if (!(*v = realloc(*v, *cap * sizeof **v)))
                model_out_of_memory();
        }
    }
    (*v)[(*n)++] = op;
}

static int64_t aligned(const struct model *m, int proc, int64_t t)
{
    return model_aligned(m, &m->procs[proc], t);
}

/* Whether one side has an operation waiting, kept or counted. */
static int waiting(size_t head, size_t n, int64_t over)
{
    return head < n || over > 0;
}

static void match(struct matching *mt, struct p2p_pair *p)
{
    while (waiting(p->sends_head, p->nsends, p->sends_over) && waiting(p->recvs_head, p->nrecvs, p->recvs_over)) {
        p->matched++;
        if (p->sends_head == p->nsends || p->recvs_head == p->nrecvs) {
            /* one side only counted: matched blind, with what is known of the other */
            if (p->sends_head < p->nsends)
                model_add(&p->bytes, p->sends[p->sends_head++].bytes);
            else
                p->sends_over--;
            if (p->recvs_head < p->nrecvs)
                model_add(&p->bytes, p->recvs[p->recvs_head++].bytes);
            else
                p->recvs_over--;
            continue;
        }
        const struct p2p_op *s = &p->sends[p->sends_head++], *v = &p->recvs[p->recvs_head++];
        model_add(&p->bytes, s->bytes);
        if (s->count != v->count || s->dtype != v->dtype) {
            if (!p->mismatched) {
                p->first_bad_send = *s;
                p->first_bad_recv = *v;
            }
            p->mismatched++;
        }
        /* the transfer: while both sides' kernels ran, on aligned clocks */
        if (s->gend > s->gstart && v->gend > v->gstart) {
            int64_t a = aligned(mt->m, s->proc, s->gstart), b = aligned(mt->m, v->proc, v->gstart);
            int64_t e = aligned(mt->m, s->proc, s->gend), f = aligned(mt->m, v->proc, v->gend);
            int64_t lo = a > b ? a : b, hi = e < f ? e : f;
            model_add(&p->time_ns, hi > lo ? hi - lo : v->gend - v->gstart);
        }
    }
}

static void group(const struct coll_rec *v, size_t n, void *ctx)
{
    struct matching *mt = ctx;
    for (size_t k = 0; k < n; k++) {
        const struct coll_rec *c = &v[k];
        int kind = p2p_kind(mt->m, c->api);
        if (!kind || c->rank < 0 || c->peer < 0)
            continue;
        int send = kind == 1;
        struct p2p_pair *p = pair_of(mt->r, c->comm, send ? c->rank : c->peer, send ? c->peer : c->rank);
        struct p2p_op op = { c->start, c->gstart, c->gend, c->count, c->bytes, c->seq, c->dtype, c->proc, c->site };
        if (send) {
            p->src_proc = c->proc;
            push(&p->sends, &p->sends_head, &p->nsends, &p->sends_cap, &p->sends_over, &p->sends_over_first, op);
        } else {
            p->dst_proc = c->proc;
            push(&p->recvs, &p->recvs_head, &p->nrecvs, &p->recvs_cap, &p->recvs_over, &p->recvs_over_first, op);
        }
        match(mt, p);
    }
}

static void pair_findings(struct matching *mt, struct p2p_pair *p)
{
    const struct model *m = mt->m;
    if (p->mismatched) {
        const struct p2p_op *s = &p->first_bad_send, *v = &p->first_bad_recv;
        struct finding *f = findings_new(mt->fs, m, F_COMM_MISMATCH, -1, 0);
        f->count = p->mismatched;
        model_callsite(m, &m->procs[s->proc], s->site, f->callsite, sizeof f->callsite);
        int a = m->procs[s->proc].rank, b = m->procs[v->proc].rank;
        f->facts.has |= FACT_COMM | FACT_PAIR;
        f->facts.comm_id = p->comm;
        f->facts.sender_rank = a;
        f->facts.receiver_rank = b;
        finding_add_rank(&f->facts, a);
        finding_add_rank(&f->facts, b);
        f->facts.matched = p->matched;
        f->facts.call[0] = (struct finding_call){ 0, s->dtype, s->count };
        f->facts.call[1] = (struct finding_call){ 0, v->dtype, v->count };
    }
    int64_t left_s = (int64_t)(p->nsends - p->sends_head) + p->sends_over,
            left_r = (int64_t)(p->nrecvs - p->recvs_head) + p->recvs_over;
    if (!left_s && !left_r)
        return;
    int sender = left_s > 0;
    const struct p2p_op *o = sender ? (p->sends_head < p->nsends ? &p->sends[p->sends_head] : &p->sends_over_first)
                                    : (p->recvs_head < p->nrecvs ? &p->recvs[p->recvs_head] : &p->recvs_over_first);
    int other = sender ? p->dst_proc : p->src_proc;
    if (other < 0) { /* the peer is not in the trace: nothing to say about it */
        mt->r->unmatched_untraced += left_s + left_r;
        return;
    }
    int me = m->procs[o->proc].rank, them = m->procs[other].rank;
    struct finding *f = findings_new(mt->fs, m, mt->ended_badly ? F_COMM_HANG : F_COMM_MISMATCH, -1, 0);
    f->count = sender ? left_s : left_r;
    model_callsite(m, &m->procs[o->proc], o->site, f->callsite, sizeof f->callsite);
    if (mt->ended_badly) {
        const struct proc *pp = &m->procs[o->proc];
        f->wait_ns = pp->end > o->start ? pp->end - o->start : 0;
    }
    f->facts.has |= FACT_COMM | FACT_SEQ | FACT_PAIR | FACT_UNMATCHED;
    f->facts.comm_id = p->comm;
    f->facts.seq = o->seq;
    f->facts.sender_rank = sender ? me : them;
    f->facts.receiver_rank = sender ? them : me;
    finding_add_rank(&f->facts, me);
    finding_add_rank(&f->facts, them);
    f->facts.unmatched = f->count;
    f->facts.unmatched_sends = sender;
    f->facts.call[0] = (struct finding_call){ 0, o->dtype, o->count };
}

void analyse_p2p(struct model *m, struct findings *fs, struct coll_spill *spill)
{
    struct p2p_run *r = run_of(m);
    struct matching mt = { m, r, fs, 0 };
    int64_t ops = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        mt.ended_badly |= model_proc_unended(&m->procs[pi]);
        ops += r->stages[pi].ops;
    }
    /* a pass over every rank's collectives costs a merge of the spill:
     * none when no process made a point-to-point call (p2p_colls_done saw
     * them all; a run analysed without it counts none and is read anyway) */
    if (ops || !r->counted)
        coll_spill_groups(spill, group, &mt);
    for (size_t i = 0; i < r->npairs; i++)
        pair_findings(&mt, &r->pairs[i]);
    lazy_findings(m, fs, r);
}

void p2p_free(struct model *m)
{
    struct p2p_run *r = m->p2p;
    if (!r)
        return;
    for (size_t i = 0; i < r->npairs; i++) {
        free(r->pairs[i].sends);
        free(r->pairs[i].recvs);
    }
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        free(r->stages[pi].conns);
        free(r->stages[pi].ends);
    }
    free(r->pairs);
    free(r->stages);
    free(r->is_p2p);
    idmap_free(&r->pair_index);
    free(r);
    m->p2p = NULL;
}
