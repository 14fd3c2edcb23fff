/* load_proc.c: reading one process's calls and GPU operations (load_window):
 * its rows, read in two threads where a table is big (rowruns.h); the
 * wrapped calls matched to the CUPTI API records made inside them; each GPU
 * operation's enqueue time and whether NCCL ran it; all sorted by start. */
#define _GNU_SOURCE
#include "viewer/read/load_internal.h"
#include "viewer/read/gap_inflight.h"
#include "viewer/read/legacy_streams.h"
#include "viewer/read/plugin_join.h"
#include "viewer/read/correlate.h"
#include "viewer/read/load_colls.h"
#include "viewer/read/cupti_calls.h"
#include "viewer/read/cupti_order.h"
#include "viewer/model/comm_kernels.h"
#include "viewer/read/nccl_ce_calls.h"
#include "viewer/model/idmap.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/stream_keys.h"
#include "viewer/read/rowruns.h"
#include "viewer/model/sort_by_time.h"
#include "viewer/model/tmpstore.h"
#include "viewer/model/timeline.h"
#include "format/call_block.h"
#include "format/capi_block.h"
#include "format/gpu_block.h"
#include "format/record.h"

#include <malloc.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* CUPTI's API records of the window, matched to the calls in correlate.c */
struct capi_list { struct cupti_rec *v; size_t n, cap; };
struct sync_list { struct cupti_sync *v; size_t n, cap; };

/* malloc_trim, where glibc's allocator is the one in use: under
 * AddressSanitizer (whose allocator replaces it) glibc's trim of its
 * never-used arenas, called from a worker thread of the report (-j), read
 * a null arena and crashed. */
static void give_back_pages(void)
{
#if defined(__SANITIZE_ADDRESS__)
    return;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    return;
#endif
#endif
    malloc_trim(0);
}

static int cmp_call(const void *a, const void *b)
{
    const struct call *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static int cmp_gop(const void *a, const void *b)
{
    const struct gop *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* ---- loading a process ------------------------------------------------------ */
/* What a process's rows are read into (load_window).  A shadow is the
 * second half of a table read on another thread (rowruns_each_split): it
 * has a process of its own to fill, counts its rows itself, and leaves
 * call sites unresolved, since they are interned into the real process's
 * table, in the order of the rows, when the halves are joined. */
struct loading {
    struct model *m;
    struct proc *p;
    struct capi_list capis;
    struct sync_list syncs;   /* SYNCHRONIZATION and CUDA_EVENT records: streams and events of calls */
    const struct enq_table *enq; /* the window's API records by correlation, once read (event records' window) */
    size_t enq_hint;             /* where its last search ended (enq_of) */
    struct ext_list exts;
    const struct proc_rows *from; /* where the rows are read from */
    int shadow;
    uint64_t rows;
    int64_t lo, hi;           /* the window: records that start in [lo, hi) are kept */
    struct proc_scan *scan;   /* a planning pass: each record goes there instead */
    int64_t unfinished;       /* GPU operations read that had not ended (add_op) */
    /* a shadow's GPU records: CUPTI's stream ids as read, keyed when the
     * halves are joined (join_shadow), since the keys follow the records'
     * order through the process's own map (stream_keys.c), which the
     * shadow's thread must not touch.  Each (context, id) in the order
     * first read; the context of each operation in its enq until then, of
     * each sync record beside it */
    struct idmap pair_seen;
    uint64_t *pairs; size_t npairs, pairs_cap;
    uint32_t *sync_ctx; size_t sync_ctx_cap;
};

/* Whether this reading keys streams later (a shadow's; a scan's second
 * connection reads the process's own GPU records, alone, and keys them). */
static int keys_later(const struct loading *l)
{
    return l->shadow && !l->scan;
}

/* The key of CUPTI's stream raw of context (model_stream_key), or, in a
 * shadow, raw itself, the pair noted for join_shadow. */
static int stream_key(struct loading *l, uint32_t context, int64_t raw)
{
    if (!keys_later(l))
        return model_stream_key(l->p, context, raw);
    if (context && raw >= 0 && raw < STREAM_KEY_OWN) { /* else taken as it is (model_stream_key) */
        uint64_t pair = (uint64_t)context << 32 | (uint32_t)raw; /* context >= 1: never 0 */
        int64_t one;
        if (!(l->npairs && l->pairs[l->npairs - 1] == pair) && !idmap_get(&l->pair_seen, pair, &one)) {
            idmap_put(&l->pair_seen, pair, 1, 0);
            GROW(l->pairs, l->npairs, l->pairs_cap);
            l->pairs[l->npairs++] = pair;
        }
    }
    return (int)raw;
}

/* Counts a row read; every million, the progress line. */
static void tick(struct loading *l)
{
    struct model *m = l->m;
    if (l->shadow)
        l->rows++;
    else if (m->progress && ++m->rows_read % 1000000 == 0)
        fprintf(stderr, "\rgputrace-report: %llu M rows read", (unsigned long long)(m->rows_read / 1000000));
}

/* A call read from an api_call row or a call block, with its C and Python
 * stacks (which make its site). */
static void add_call(struct loading *l, struct call c, int api, int callsite, int pystack)
{
    struct proc *p = l->p;
    c.api = (uint16_t)model_api_id(l->m, api);
    model_span(&c.start, &c.end);
    if (!l->scan && (c.start < l->lo || c.start >= l->hi))
        return; /* another window's */
    if (p->ngpu_gaps && model_proc_meets_gpu_gap(p, c.start, c.end))
        return; /* no GPU records to read it by (model.h): a sync across a hand-over waited for work of none */
    if (l->shadow) { /* raw, until the halves are joined (corr is set later) */
        c.site = callsite;
        c.corr = (uint32_t)pystack;
    } else if (callsite || pystack) {
        c.site = model_site(p, callsite, pystack);
    }
    if (l->scan) {
        l->scan->call(l->scan, &c);
        return;
    }
    GROW(p->calls, p->ncalls, p->calls_cap);
    p->calls[p->ncalls++] = c;
}

static void call_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    tick(l);
    add_call(l,
             (struct call){ .start = sqlite3_column_int64(s, 1), .end = sqlite3_column_int64(s, 2),
                            .stream = sqlite3_column_int64(s, 3), .event = sqlite3_column_int64(s, 4),
                            .bytes = sqlite3_column_int64(s, 5), .call_id = sqlite3_column_int64(s, 6),
                            .tid = sqlite3_column_int(s, 8), .copy_kind = (uint8_t)sqlite3_column_int(s, 9),
                            .mem_kind = (uint8_t)sqlite3_column_int(s, 10), .result = sqlite3_column_int(s, 11) },
             sqlite3_column_int(s, 7), sqlite3_column_int(s, 12), sqlite3_column_int(s, 13));
}

/* calls the writer stored in bulk (format/call_block.h) */
static void block_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    struct gt_block_cur c;
    int n = rowruns_block(s, 1, &gt_call_layout, &c);
    for (int i = 0; i < n; i++) {
        tick(l);
        struct gt_call_packed r;
        gt_block_next(&c, &r);
        add_call(l,
                 (struct call){ .start = r.start_ns, .end = r.end_ns, .stream = r.stream, .event = r.event,
                                .bytes = r.bytes, .call_id = r.call_id, .tid = (int)r.tid, .copy_kind = r.copy_kind,
                                .mem_kind = r.mem_kind, .result = r.result },
                 r.api, (int)r.callsite, (int)r.pystack);
    }
}

/* A GPU operation the report analyses (kernels, copies, memsets). */
static void add_op(struct loading *l, struct gop g)
{
    struct proc *p = l->p;
    /* a record CUPTI handed over before its work ended (a forced flush,
     * at the process's end, finds it queued or running) has start and end
     * 0: its time is not known, and it is left out, counted */
    if (g.start == 0 && g.end == 0) {
        l->unfinished++;
        return;
    }
    model_span(&g.start, &g.end);
    if (l->scan) {
        l->scan->op(l->scan, &g);
        return;
    }
    if (g.start < l->lo || g.start >= l->hi)
        return;
    GROW(p->ops, p->nops, p->ops_cap);
    p->ops[p->nops++] = g;
}

struct enq_table;
static int64_t enq_of(const struct enq_table *e, uint32_t c, size_t *hint);

/* A SYNCHRONIZATION record (gpu_op kind 4) or a CUDA_EVENT record (kind
 * 5): kept only for the stream and event it names, by correlation
 * (cupti_calls.c).  An event record has no time: it is the window's when
 * its call's API record is. */
static void add_sync(struct loading *l, int kind, int64_t start, uint32_t corr, uint32_t context, int64_t raw_stream,
                     int event, int type)
{
    model_span(&start, &start);
    /* its context named in every pass, the scan's too: the contexts' places
     * follow the records' order whatever is loaded */
    int stream = stream_key(l, context, raw_stream);
    if (l->scan || !corr)
        return;
    if (kind == 5 ? !l->enq || enq_of(l->enq, corr, &l->enq_hint) < 0 : start < l->lo || start >= l->hi)
        return;
    GROW(l->syncs.v, l->syncs.n, l->syncs.cap);
    if (keys_later(l)) {
        if (l->sync_ctx_cap < l->syncs.cap) {
            if (!(l->sync_ctx = realloc(l->sync_ctx, l->syncs.cap * sizeof *l->sync_ctx)))
                model_out_of_memory();
            l->sync_ctx_cap = l->syncs.cap;
        }
        l->sync_ctx[l->syncs.n] = context;
    }
    l->syncs.v[l->syncs.n++] = (struct cupti_sync){ corr, stream, event, (uint8_t)(kind == 5 ? 0 : type) };
}

static void op_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    tick(l);
    int kind = sqlite3_column_int(s, 1);
    /* each value as sqlite3_column_int takes the row's column */
    uint32_t context = (uint32_t)sqlite3_column_int(s, 14);
    int64_t raw = sqlite3_column_int(s, 3);
    if (kind == 4 || kind == 5) {
        add_sync(l, kind, sqlite3_column_int64(s, 5), (uint32_t)sqlite3_column_int64(s, 11), context, raw,
                 sqlite3_column_int(s, 13), sqlite3_column_int(s, 12));
        return;
    }
    add_op(l, (struct gop){ .kind = (uint8_t)sqlite3_column_int(s, 1), .device = (int16_t)sqlite3_column_int(s, 2),
                            .stream = stream_key(l, context, raw), .name = sqlite3_column_int(s, 4),
                            .enq = keys_later(l) ? context : 0, /* (its own, once joined) */
                            .start = sqlite3_column_int64(s, 5), .end = sqlite3_column_int64(s, 6),
                            .bytes = sqlite3_column_int64(s, 7), .copy_kind = (uint8_t)sqlite3_column_int(s, 8),
                            .src_kind = (uint8_t)sqlite3_column_int(s, 9),
                            .dst_kind = (uint8_t)sqlite3_column_int(s, 10),
                            .corr = (uint32_t)sqlite3_column_int64(s, 11) });
}

/* GPU operations the writer stored in bulk (format/gpu_block.h) */
static void gpu_block_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    struct gt_block_cur c;
    int n = rowruns_block(s, 1, &gt_gpu_layout, &c);
    for (int i = 0; i < n; i++) {
        tick(l);
        struct gt_gpu_packed r;
        gt_block_next(&c, &r);
        /* each value as sqlite3_column_int takes the row's column */
        if (r.kind == 4 || r.kind == 5)
            add_sync(l, r.kind, r.start_ns, r.correlation, r.context, (int)r.stream_id, r.event_id, r.sync_type);
        if (r.kind < 1 || r.kind > 3)
            continue; /* as the rows are read: kernels, copies and memsets */
        add_op(l, (struct gop){ .kind = r.kind, .device = (int16_t)r.device,
                                .stream = stream_key(l, r.context, (int)r.stream_id),
                                .enq = keys_later(l) ? r.context : 0, /* (its own, once joined) */
                                .name = (int)r.name_id, .start = r.start_ns, .end = r.end_ns, .bytes = r.bytes,
                                .copy_kind = r.copy_kind, .src_kind = r.src_kind, .dst_kind = r.dst_kind,
                                .corr = r.correlation });
    }
}

/* A CUPTI API record, its times kept within bounds and its end not before
 * its start (model_span, as a call's and a GPU operation's): the join's
 * scan of the records nested in a call's own record bounds its window by
 * a record's start lying before its end (correlate.c, claim_nested). */
static void add_capi(struct loading *l, struct cupti_rec a)
{
    if (a.start == 0 && a.end == 0) /* CUPTI could not time it (cupti_activity.h): no place in time */
        return;
    model_span(&a.start, &a.end);
    if (l->scan) {
        l->scan->capi(l->scan, a.start, a.end, a.corr);
        return;
    }
    if (a.start < l->lo || a.start >= l->hi)
        return;
    GROW(l->capis.v, l->capis.n, l->capis.cap);
    l->capis.v[l->capis.n++] = a;
}

static void capi_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    tick(l);
    add_capi(l, (struct cupti_rec){ .start = sqlite3_column_int64(s, 2), .end = sqlite3_column_int64(s, 3),
                                    .tid = sqlite3_column_int(s, 1), .corr = (uint32_t)sqlite3_column_int64(s, 4),
                                    .domain = (uint8_t)sqlite3_column_int(s, 5),
                                    .cbid = (uint32_t)sqlite3_column_int64(s, 6),
                                    .result = (uint32_t)sqlite3_column_int64(s, 7) });
}

/* CUPTI API records the writer stored in bulk (format/capi_block.h) */
static void capi_block_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    struct gt_block_cur c;
    int n = rowruns_block(s, 1, &gt_capi_layout, &c);
    for (int i = 0; i < n; i++) {
        tick(l);
        struct gt_capi_packed r;
        gt_block_next(&c, &r);
        add_capi(l, (struct cupti_rec){ .start = r.start_ns, .end = r.end_ns, .tid = (int)r.tid,
                                        .corr = r.correlation, .domain = r.domain, .cbid = r.cbid,
                                        .result = r.result });
    }
}

static void ext_row(sqlite3_stmt *s, void *ctx)
{
    struct loading *l = ctx;
    tick(l);
    GROW(l->exts.v, l->exts.n, l->exts.cap);
    l->exts.v[l->exts.n++] = (struct ext){ sqlite3_column_int64(s, 2), (uint32_t)sqlite3_column_int64(s, 1) };
}

/* Each table's rows of one process, read run by run (rowruns.h); GPU
 * operations last, once the CUPTI API records are matched and freed. */
static const struct { enum row_table t; const char *sql; void (*fn)(sqlite3_stmt *, void *); } readers[] = {
    /* (each table's name is the word after FROM) */
    { RT_API_CALL, "SELECT process_id, start_ns, end_ns, stream, event, bytes, call_id, api, tid, copy_kind,"
                   " mem_kind, result, callsite, pystack FROM api_call WHERE rowid BETWEEN ?1 AND ?2", call_row },
    { RT_CALL_BLOCK, "SELECT process_id, format, n, data FROM api_call_block WHERE rowid BETWEEN ?1 AND ?2", block_row },
    { RT_CUPTI_API, "SELECT process_id, tid, start_ns, end_ns, correlation, domain, cbid, result FROM cupti_api"
                    " WHERE rowid BETWEEN ?1 AND ?2", capi_row },
    { RT_CAPI_BLOCK, "SELECT process_id, format, n, data FROM cupti_api_block WHERE rowid BETWEEN ?1 AND ?2",
      capi_block_row },
    { RT_EXT_CORR, "SELECT process_id, correlation, external_id FROM ext_corr WHERE rowid BETWEEN ?1 AND ?2", ext_row },
    /* GPU operations last: read once the CUPTI API records are matched and freed */
    { RT_GPU_OP, "SELECT process_id, kind, device, stream_id, name_id, start_ns, end_ns, bytes, copy_kind, src_kind,"
                 " dst_kind, correlation, sync_type, event_id, context FROM gpu_op WHERE rowid BETWEEN ?1 AND ?2"
                 " AND kind IN (1, 2, 3, 4, 5)",
      op_row },
    { RT_GPU_BLOCK, "SELECT process_id, format, n, data FROM gpu_op_block WHERE rowid BETWEEN ?1 AND ?2",
      gpu_block_row },
};
#define GPU_READERS 2 /* the last two */

/* The enqueue time of GPU work: the start of the CUPTI API record with its
 * correlation id.  Sorted by correlation, looked up by bisection: a third
 * of a hash map's memory. */
struct enq_table { uint32_t *corr; int64_t *start; size_t n; };

static struct enq_table enq_table(const struct capi_list *l)
{
    struct enq_table e = { malloc((l->n + 1) * sizeof *e.corr), malloc((l->n + 1) * sizeof *e.start), 0 };
    struct sort_key *k = malloc((l->n + 1) * sizeof *k);
    if (!e.corr || !e.start || !k)
        model_out_of_memory();
    for (size_t i = 0; i < l->n; i++)
        k[i] = (struct sort_key){ l->v[i].corr, i };
    if (sort_keys(k, l->n) != 0)
        model_out_of_memory();
    for (size_t j = 0; j < l->n; j++) {
        e.corr[j] = (uint32_t)k[j].t;
        e.start[j] = l->v[k[j].i].start;
    }
    e.n = l->n;
    free(k);
    return e;
}

/* The start of the record with correlation c, or -1 (a damaged file's
 * duplicates: the last in (thread, start) order, as correlate left them).
 * Searched from *hint (where the last search ended) out, in steps that
 * double, then bisected: the operations come nearly in their ids' order,
 * and a bisection of the whole table is a cache miss a step (3% of a
 * report of a dense rank). */
static int64_t enq_of(const struct enq_table *e, uint32_t c, size_t *hint)
{
    size_t h = *hint < e->n ? *hint : e->n, lo, hi, step = 1; /* the first index with corr > c is in [lo, hi] */
    if (h < e->n && e->corr[h] <= c) { /* to the right */
        lo = h + 1;
        hi = lo;
        while (hi < e->n && e->corr[hi] <= c) {
            lo = hi + 1;
            hi = lo + step;
            step *= 2;
        }
        hi = hi < e->n ? hi : e->n;
    } else { /* to the left: corr[h] > c, or h = n */
        lo = hi = h;
        while (lo > 0 && e->corr[lo - 1] > c) {
            hi = lo - 1;
            lo = lo > step ? lo - step : 0;
            step *= 2;
        }
    }
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->corr[mid] <= c)
            lo = mid + 1;
        else
            hi = mid;
    }
    *hint = lo;
    return lo && e->corr[lo - 1] == c ? e->start[lo - 1] : -1;
}

/* Appends the ns elements at src to the array *dst, and frees src: from
 * its end, a megabyte at a time, each copied piece cut off src at once, so
 * that the two never hold the elements twice. */
static void append_released(void *dst_, size_t *n, size_t *cap, void *src, size_t ns, size_t size)
{
    void **dst = dst_;
    if (!ns) {
        free(src);
        return;
    }
    if (*n + ns > *cap) {
        void *grown = realloc(*dst, (*n + ns) * size);
        if (!grown)
            model_out_of_memory();
        *dst = grown;
        *cap = *n + ns;
    }
    char *d = (char *)*dst + *n * size, *s = src;
    size_t piece = ((size_t)1 << 20) / size + 1;
    for (size_t end = ns; end > 0;) {
        size_t start = end > piece ? end - piece : 0;
        memcpy(d + start * size, s + start * size, (end - start) * size);
        end = start;
        char *shrunk = start ? realloc(s, start * size) : NULL;
        if (shrunk)
            s = shrunk;
    }
    free(s);
    *n += ns;
}

/* Joins a shadow's rows to the ones read here, after them, as one thread
 * reading them all would have. */
static void join_shadow(struct loading *l, struct loading *sh)
{
    struct proc *p = l->p, *q = sh->p;
    for (size_t i = 0; i < q->ncalls; i++) {
        struct call *c = &q->calls[i];
        int callsite = c->site, pystack = (int)c->corr;
        c->site = callsite || pystack ? model_site(p, callsite, pystack) : 0;
        c->corr = 0;
    }
    append_released(&p->calls, &p->ncalls, &p->calls_cap, q->calls, q->ncalls, sizeof *q->calls);
    /* the streams of its GPU records keyed, as if read after the first
     * half's: its pairs in the order first read, then each record's */
    for (size_t i = 0; i < sh->npairs; i++)
        model_stream_key(p, (uint32_t)(sh->pairs[i] >> 32), (int64_t)(uint32_t)sh->pairs[i]);
    for (size_t i = 0; i < q->nops; i++) {
        q->ops[i].stream = model_stream_key(p, (uint32_t)q->ops[i].enq, q->ops[i].stream);
        q->ops[i].enq = 0;
    }
    for (size_t i = 0; i < sh->syncs.n; i++)
        sh->syncs.v[i].stream = model_stream_key(p, sh->sync_ctx[i], sh->syncs.v[i].stream);
    append_released(&p->ops, &p->nops, &p->ops_cap, q->ops, q->nops, sizeof *q->ops);
    l->unfinished += sh->unfinished;
    append_released(&l->capis.v, &l->capis.n, &l->capis.cap, sh->capis.v, sh->capis.n, sizeof *sh->capis.v);
    append_released(&l->syncs.v, &l->syncs.n, &l->syncs.cap, sh->syncs.v, sh->syncs.n, sizeof *sh->syncs.v);
    append_released(&l->exts.v, &l->exts.n, &l->exts.cap, sh->exts.v, sh->exts.n, sizeof *sh->exts.v);
    if (l->m->progress && sh->rows) {
        l->m->rows_read += sh->rows;
        if (l->m->rows_read >= 1000000)
            fprintf(stderr, "\rgputrace-report: %llu M rows read", (unsigned long long)(l->m->rows_read / 1000000));
    }
}

static void read_table(struct model *m, struct proc *p, size_t k, struct loading *l)
{
    struct proc shadow_proc = { .gpu_until = p->gpu_until, .gpu_gaps = p->gpu_gaps, .ngpu_gaps = p->ngpu_gaps }; /* add_call reads them */
    struct loading shadow = { .m = m, .p = &shadow_proc, .shadow = 1, .lo = l->lo, .hi = l->hi, .enq = l->enq };
    int rc, rc2;
    int split = rowruns_each_split(m->dbs[p->db], m->dbs2 ? m->dbs2[p->db] : NULL, readers[k].t, readers[k].sql,
                                   &l->from->t[readers[k].t], p->id, readers[k].fn, l, &shadow, &rc, &rc2);
    if (split)
        join_shadow(l, &shadow);
    idmap_free(&shadow.pair_seen);
    free(shadow.pairs);
    free(shadow.sync_ctx);
    for (int half = 0; half < 2; half++) {
        int r = half ? rc2 : rc;
        if (r == SQLITE_OK)
            continue;
        char what[96];
        const char *from = strstr(readers[k].sql, " FROM ") + 6;
        snprintf(what, sizeof what, "%.*s of pid %d", (int)strcspn(from, " "), from, p->pid);
        load_note_damage(m, p->db, r, what);
    }
}

/* Allocates an array for n elements at once when n is known: grown by
 * doubling instead, it would end up to twice that.  Left to grow if n is
 * unknown, absurd (a damaged file) or cannot be had in one piece. */
static void *presized(int64_t n, size_t size, size_t *cap)
{
    if (n <= 0 || (uint64_t)n > ((size_t)1 << 40) / size)
        return NULL;
    void *v = malloc((size_t)n * size);
    if (v)
        *cap = (size_t)n;
    return v;
}

/* The readers' index of table t. */
static size_t reader_of(int t)
{
    size_t k = 0;
    while (k + 1 < sizeof readers / sizeof *readers && (int)readers[k].t != t)
        k++;
    return k;
}

void load_begin_proc(struct model *m, size_t pi)
{
    struct proc *p = &m->procs[pi];
    p->colls = NULL;
    p->ncolls = p->colls_first = p->colls_next = 0;
    if (!(p->smap = calloc(1, sizeof *p->smap)))
        model_out_of_memory();
    p->win_lo = INT64_MIN;
    p->win_hi = INT64_MAX;
    p->corr_seen = -1;
}

void load_exts(struct model *m, size_t pi)
{
    struct proc *p = &m->procs[pi];
    if (p->exts)
        return;
    if (!(p->exts = calloc(1, sizeof *p->exts)))
        model_out_of_memory();
    if (!p->rows)
        return;
    struct loading l = { .m = m, .p = p, .from = p->rows, .lo = INT64_MIN, .hi = INT64_MAX };
    read_table(m, p, reader_of(RT_EXT_CORR), &l);
    p->exts->list = l.exts;
    if (p->exts->list.n) /* qsort of NULL, even of nothing, is undefined */
        qsort(p->exts->list.v, p->exts->list.n, sizeof *p->exts->list.v, load_cmp_ext);
}

void load_window(struct model *m, size_t pi, const struct proc_rows *rows, int64_t lo, int64_t hi)
{
    struct proc *p = &m->procs[pi];
    p->win_lo = lo;
    p->win_hi = hi;
    load_colls_before(m, p, hi); /* matched to their kernels once these are read */
    if (!rows && !(rows = p->rows))
        return;
    struct loading l = { .m = m, .p = p, .from = rows, .lo = lo, .hi = hi };
    const struct rowruns *t = rows->t;
    if (t[RT_API_CALL].count >= 0 && t[RT_CALL_BLOCK].count >= 0)
        p->calls = presized(t[RT_API_CALL].count + t[RT_CALL_BLOCK].count, sizeof *p->calls, &p->calls_cap);
    if (t[RT_CUPTI_API].count >= 0 && t[RT_CAPI_BLOCK].count >= 0)
        l.capis.v = presized(t[RT_CUPTI_API].count + t[RT_CAPI_BLOCK].count, sizeof *l.capis.v, &l.capis.cap);
    size_t nreaders = sizeof readers / sizeof *readers;
    for (size_t k = 0; k + GPU_READERS < nreaders; k++)
        if (readers[k].t != RT_EXT_CORR) /* read once, by load_exts */
            read_table(m, p, k, &l);

    if (sort_by_time(p->calls, p->ncalls, sizeof *p->calls, offsetof(struct call, start)) != 0)
        qsort(p->calls, p->ncalls, sizeof *p->calls, cmp_call);
    legacy_streams_split(m, p, lo); /* before any handle is mapped to a stream */
    /* read once, when first needed: by the join of blocking calls to
     * their CUPTI records, by id */
    load_exts(m, pi);
    correlate_calls(m, p, l.capis.v, l.capis.n, p->exts->list.v, p->exts->list.n);
    size_t wrapped = p->ncalls;
    cupti_calls_add(m, p, l.capis.v, l.capis.n);
    cupti_calls_order(p, wrapped);
    if (p->ncalls > wrapped && sort_by_time(p->calls, p->ncalls, sizeof *p->calls, offsetof(struct call, start)) != 0)
        qsort(p->calls, p->ncalls, sizeof *p->calls, cmp_call);
    model_ranges_fit_calls(p); /* a range's boundary never inside a call of its thread */
    for (size_t i = 0; i < p->ncalls; i++) /* where a rank that stopped calling was since (hang_place.c) */
        if (p->calls[i].end > p->calls_end && p->calls[i].end <= p->end)
            p->calls_end = p->calls[i].end;
    struct enq_table enq = enq_table(&l.capis);
    struct idmap in_nccl = { 0 }; /* made inside NCCL's own NVTX ranges (nccl_ce_calls.h) */
    comm_nvtx_calls(p, l.capis.v, l.capis.n, &in_nccl);
    free(l.capis.v);
    if (enq.n && (int64_t)enq.corr[enq.n - 1] > p->corr_seen)
        p->corr_seen = enq.corr[enq.n - 1]; /* sorted: the highest */

    if (t[RT_GPU_OP].count >= 0 && t[RT_GPU_BLOCK].count >= 0)
        p->ops = presized(t[RT_GPU_OP].count + t[RT_GPU_BLOCK].count, sizeof *p->ops, &p->ops_cap);
    l.enq = &enq;
    for (size_t k = nreaders - GPU_READERS; k < nreaders; k++)
        read_table(m, p, k, &l);
    if (lo == INT64_MIN) /* every window reads them (their start, 0, is in none): counted once */
        p->unfinished_ops = l.unfinished;
    /* what each operation needs of the tables above, before they are freed
     * and the operations sorted (whose keys would add to them) */
    size_t hint = 0;
    for (size_t i = 0; i < p->nops; i++) {
        struct gop *g = &p->ops[i];
        int64_t e = enq_of(&enq, g->corr, &hint);
        g->enq = e >= 0 ? e : g->start;
        int64_t one;
        g->nccl = (uint8_t)(model_op_is_nccl(p, g) || idmap_get(&in_nccl, g->corr, &one));
    }
    idmap_free(&in_nccl);
    free(enq.corr);
    free(enq.start);
    cupti_calls_fix(p, l.syncs.v, l.syncs.n);
    free(l.syncs.v);
    if (sort_by_time(p->ops, p->nops, sizeof *p->ops, offsetof(struct gop, start)) != 0)
        qsort(p->ops, p->nops, sizeof *p->ops, cmp_gop);
    if (p->ngpu_gaps) /* before any analysis reads them */
        gap_inflight_pull_back(m, p, lo, hi);
    load_collective_kernels(p, &p->exts->list);
    plugin_kernels(p); /* those only NCCL's profiler plugin saw */
}

int model_scan_table(struct model *m, size_t pi, int table, const struct rowruns *r, struct proc_scan *s, int second)
{
    struct proc *p = &m->procs[pi];
    if (!p->rows)
        return SQLITE_OK;
    /* on the second connection, from another thread: as a shadow, which
     * counts its rows itself and makes no sites */
    struct loading l = { .m = m, .p = p, .from = p->rows, .lo = INT64_MIN, .hi = INT64_MAX, .scan = s,
                         .shadow = second };
    size_t k = reader_of(table);
    return rowruns_each(model_db(m, p, second), readers[k].sql, r ? r : &p->rows->t[table], p->id, readers[k].fn, &l);
}

void load_drop_window(struct model *m, size_t pi)
{
    struct proc *p = &m->procs[pi];
    model_free_timeline(m, pi);
    free(p->calls);
    free(p->ops);
    p->calls = NULL;
    p->ops = NULL;
    p->ncalls = p->calls_cap = p->nops = p->ops_cap = 0;
    /* give the freed pages back: glibc keeps them in its heap otherwise,
     * and the next arrays would not all fit in the same holes */
    give_back_pages();
}

void load_drop_exts(struct model *m, size_t pi)
{
    struct proc *p = &m->procs[pi];
    if (p->exts) {
        free(p->exts->list.v);
        idmap_free(&p->exts->nccl);
        free(p->exts);
        p->exts = NULL;
    }
}

void load_end_proc(struct model *m, size_t pi)
{
    struct proc *p = &m->procs[pi];
    free(p->colls);
    p->colls = NULL;
    p->ncolls = 0;
    load_drop_exts(m, pi);
    free(p->api_wrapped);
    p->api_wrapped = NULL;
    if (p->smap) {
        stream_map_free(p->smap);
        free(p->smap);
        p->smap = NULL;
    }
    give_back_pages(); /* as load_drop_window does: the next process's arrays go in the holes */
}
