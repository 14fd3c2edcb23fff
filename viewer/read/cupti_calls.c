/* cupti_calls.c: calls that CUPTI saw and no wrapper did.
 *
 * The wrappers see only calls that bind to the tracer's symbols; a program
 * with nvcc's default static cudart, the driver calls the runtime makes
 * through cuGetProcAddress, and anything called through a pointer bypass
 * them.  CUPTI's runtime and driver API records list every call with its
 * thread, times, callback id, result and correlation id.  A record that no
 * wrapped call claimed (load_proc.c's correlate) becomes a call of the API
 * its callback id names, where that API is one the analyses read and the
 * tracer recorded no call of in the process (else it is one of those,
 * unmatched); what the record lacks is taken from the records it
 * correlates with:
 *   - the stream: the call's own kernel, copy or memset, or for a sync the
 *     SYNCHRONIZATION record CUPTI made of it (the stream it waited for;
 *     for a cudaStreamWaitEvent the waiting one), or for a cudaEventRecord
 *     its CUDA_EVENT record (the stream the event was recorded on);
 *   - the event of an event record, a stream wait or an event sync: CUPTI's
 *     id of it, from the same records;
 *   - a copy's bytes, direction and host memory kind: its memcpy record;
 * and stays unknown otherwise (no call site).  A stream known only by
 * CUPTI's id is written into the call's handle as CUPTI_STREAM_HANDLE(id),
 * which pass_stream reads back (timeline.c), an event as
 * CUPTI_EVENT_HANDLE(id); where a wrapped call (or one a CUPTI callback
 * recorded, with its parameters) named the same stream or event by its
 * handle, that handle instead: the dependency clocks (stream_deps.h) key
 * streams and events by handle, and one stream under two keys would lose
 * what a wait on it added.
 *
 * Wrapped calls gain from these records too: a stream handle that no call
 * with GPU work mapped (a stream that only ran kernels the wrappers did not
 * see launched) is mapped through the sync or event record of a call on it.
 */
#define _GNU_SOURCE
#include "viewer/read/cupti_calls.h"
#include "format/cupti_cbids.h"
#include "viewer/model/idmap.h"
#include "viewer/model/sort_by_time.h"
#include "viewer/read/load_internal.h"
#include "viewer/model/stream_map.h"
#include "viewer/model/timeline.h"

#include <cupti_activity.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define CBID_SLOTS 2048u /* callback ids of both domains are below this */

/* The model's api id for each (domain, cbid), built once the api tables
 * are read: -1 where the API is none of those above, or the run's api
 * table lacks it. */
static int16_t *api_table(struct model *m)
{
    if (m->cbid_api)
        return m->cbid_api;
    int16_t *t = malloc(2 * CBID_SLOTS * sizeof *t);
    uint8_t *known = calloc((size_t)m->napis + 1, 1);
    if (!t || !known)
        model_out_of_memory();
    for (size_t i = 0; i < 2 * CBID_SLOTS; i++)
        t[i] = -1;
    for (size_t i = 0; i < gt_ncbid_names; i++) {
        if (gt_cbid_names[i].cbid >= CBID_SLOTS)
            continue;
        for (int a = 1; a < m->napis && a < INT16_MAX; a++)
            if (m->api_names[a] && !strcmp(m->api_names[a], gt_cbid_names[i].name)) {
                t[(size_t)(gt_cbid_names[i].domain - 1) * CBID_SLOTS + gt_cbid_names[i].cbid] = (int16_t)a;
                known[a] = 1;
                break;
            }
    }
    m->cbid_api = t;
    m->api_has_records = known;
    return t;
}

int cupti_api_has_records(struct model *m, int api)
{
    api_table(m);
    return api > 0 && api < m->napis && m->api_has_records[api];
}

int cupti_call_api(struct model *m, int domain, uint32_t cbid)
{
    if ((domain != 1 && domain != 2) || cbid >= CBID_SLOTS)
        return -1;
    return api_table(m)[(size_t)(domain - 1) * CBID_SLOTS + cbid];
}

void cupti_calls_add(struct model *m, struct proc *p, const struct cupti_rec *r, size_t n)
{
    /* An API the tracer recorded calls of here (wrappers or CUPTI's
     * callbacks see it): its unclaimed records are those calls' own, left
     * unmatched when the two clocks' conversions drifted apart on a loaded
     * machine, not calls of their own; making them calls counted them twice. */
    uint8_t *recorded = calloc((size_t)m->napis + 1, 1);
    if (!recorded)
        model_out_of_memory();
    for (size_t i = 0; i < p->ncalls; i++)
        if (p->calls[i].api < m->napis)
            recorded[p->calls[i].api] = 1;
    for (int a = 0; p->api_wrapped && a < m->napis; a++) /* a rank read a window at a time: its other windows' */
        recorded[a] |= p->api_wrapped[a];
    /* a monitor's window keeps CUPTI's records of the moments before it
     * (CUPTI hands them over late), whose wrapped calls it cut: calls the
     * wrappers saw, not calls CUPTI alone saw */
    const struct monitor_window *w = model_proc_window(m, (size_t)(p - m->procs));
    int64_t before = w ? w->from_ns : INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        if (r[i].claimed || r[i].end < before)
            continue;
        int api = cupti_call_api(m, r[i].domain, r[i].cbid);
        if (api < 0 || recorded[api])
            continue;
        if (p->ngpu_gaps && model_proc_meets_gpu_gap(p, r[i].start, r[i].end))
            continue; /* as a wrapped call (load_proc.c): no GPU records to read it by */
        GROW(p->calls, p->ncalls, p->calls_cap);
        p->calls[p->ncalls++] = (struct call){ .start = r[i].start, .end = r[i].end, .tid = r[i].tid,
                                               .corr = r[i].corr, .result = (int32_t)r[i].result,
                                               .api = (uint16_t)api, .stream = CUPTI_STREAM_UNKNOWN,
                                               .call_id = CUPTI_CALL_ID };
    }
    free(recorded);
}

/* CUPTI's memcpy kinds (cupti_activity.h: HtoD, DtoH, DtoD, HtoH, and PtoP,
 * device to device across GPUs) as api_call's copy_kind (1 HtoD, 2 DtoH,
 * 3 DtoD, 4 HtoH); memory kinds (1 pageable, 2 pinned, 3 device, 5
 * managed) as its mem_kind (4 managed).  (10 is PtoP, not HtoH, which is 9:
 * a host-to-host copy only CUPTI saw had no direction before.) */
static uint8_t copy_kind_of(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return 1;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return 2;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return 3;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return 4;
    default: return 0;
    }
}

static uint8_t mem_kind_of(uint8_t k)
{
    return k >= 1 && k <= 3 ? k : k == 5 ? 4 : 0;
}

/* A handle a program holds (or 0, the legacy stream): neither CUPTI's id
 * nor the tracer's "unknown". */
static int real_handle(int64_t h)
{
    return ((uint64_t)h >> 56) != 0x7e;
}

/* A CUPTI stream id -> the wrapped handle mapped to it (stream_map_put,
 * over the windows so far): one not of the legacy stream (0, 1) where
 * there are several, since a per-thread stream's calls name it 0 too. */
static void real_streams(const struct stream_map *sm, struct idmap *out)
{
    for (size_t i = 0; i < sm->nstreams; i++) {
        const struct handle_stream *h = &sm->streams[i];
        int64_t had;
        if (!real_handle(h->handle) || h->stream < 0)
            continue;
        int legacy = LEGACY_STREAM(h->handle);
        if (!idmap_get(out, (uint64_t)h->stream + 1, &had) || (!legacy && LEGACY_STREAM(had)))
            idmap_put(out, (uint64_t)h->stream + 1, h->handle, 0);
    }
}

/* The (correlation id, index) pairs of n records, sorted by id (stable:
 * the first of an id is its earliest record, as the joins take it). */
static struct sort_key *corr_keys(size_t n, const void *base, size_t size, size_t corr_offset)
{
    struct sort_key *k = malloc((n + 1) * sizeof *k);
    if (!k)
        model_out_of_memory();
    for (size_t i = 0; i < n; i++) {
        uint32_t corr;
        memcpy(&corr, (const char *)base + i * size + corr_offset, sizeof corr);
        k[i] = (struct sort_key){ corr, i };
    }
    if (sort_keys(k, n) != 0)
        model_out_of_memory();
    return k;
}

/* The earliest record of correlation id corr in sorted keys k, searched
 * near where the last search ended (the calls come nearly in their ids'
 * order): 1 and its index in *v, or 0. */
static int corr_find(const struct sort_key *k, size_t n, uint32_t corr, size_t *hint, int64_t *v)
{
    *v = sort_keys_first_near(k, n, corr, hint);
    return *v >= 0;
}

void cupti_calls_fix(struct proc *p, const struct cupti_sync *recs, size_t nrecs)
{
    struct stream_map *sm = p->smap;
    struct idmap real = { 0 };
    /* each call's own operation and sync or event record, by correlation
     * id: sorted pairs searched near the last, not hash maps probed at
     * random (each probe a cache miss: 8% of a report of a dense rank) */
    struct sort_key *op_of = corr_keys(p->nops, p->ops, sizeof *p->ops, offsetof(struct gop, corr));
    struct sort_key *rec_of = corr_keys(nrecs, recs, sizeof *recs, offsetof(struct cupti_sync, corr));
    size_t op_hint = 0, rec_hint = 0;
    /* what the handles of the calls a wrapper or a callback recorded are in
     * CUPTI's ids: a stream by its call's GPU work (as the timeline maps
     * it) or its sync or event record, an event by its record */
    for (size_t i = 0; i < p->ncalls; i++) {
        struct call *c = &p->calls[i];
        int64_t v;
        if (!c->corr)
            continue;
        if (real_handle(c->stream) && stream_map_get(sm, c->stream) < 0) {
            if (corr_find(op_of, p->nops, c->corr, &op_hint, &v))
                stream_map_put(sm, c->stream, p->ops[v].stream);
            else if (c->stream && corr_find(rec_of, nrecs, c->corr, &rec_hint, &v) && recs[v].stream >= 0)
                stream_map_put(sm, c->stream, recs[v].stream);
        }
        if (c->event && real_handle(c->event) && corr_find(rec_of, nrecs, c->corr, &rec_hint, &v) &&
            recs[v].event >= 0)
            stream_map_learn_event(sm, recs[v].event, c->event);
    }
    real_streams(sm, &real);
    op_hint = rec_hint = 0;
    for (size_t i = 0; i < p->ncalls; i++) {
        struct call *c = &p->calls[i];
        int64_t v, op = -1;
        if (!c->corr)
            continue;
        if ((!c->copy_kind || c->stream == CUPTI_STREAM_UNKNOWN) && corr_find(op_of, p->nops, c->corr, &op_hint, &v))
            op = v;
        /* a copy whose direction the tracer could not tell (a call only
         * CUPTI saw, or one its callback recorded): from its memcpy record */
        if (!c->copy_kind && op >= 0 && p->ops[op].kind == GOP_MEMCPY) {
            const struct gop *g = &p->ops[op];
            c->bytes = g->bytes;
            c->copy_kind = copy_kind_of(g->copy_kind);
            c->mem_kind = mem_kind_of(c->copy_kind == 1 ? g->src_kind : c->copy_kind == 2 ? g->dst_kind : 0);
        }
        const struct cupti_sync *r = corr_find(rec_of, nrecs, c->corr, &rec_hint, &v) ? &recs[v] : NULL;
        if (c->stream == CUPTI_STREAM_UNKNOWN) {
            if (op >= 0)
                c->stream = CUPTI_STREAM_HANDLE(p->ops[op].stream);
            else if (r && r->stream >= 0) /* the stream a sync waited for, or an event was recorded on */
                c->stream = CUPTI_STREAM_HANDLE(r->stream);
            /* else unknown it stays (never the legacy stream's 0): a sync on it is counted, not analysed */
        }
        /* the event an event record, a stream wait or an event sync only
         * CUPTI (or its callback) saw names: the wrapped calls' handle of
         * it where one named it, else CUPTI's id */
        if (!c->event && r && r->event >= 0) {
            int64_t h = stream_map_event_handle(sm, r->event);
            c->event = h ? h : CUPTI_EVENT_HANDLE(r->event);
        }
        int id = CUPTI_STREAM_ID(c->stream);
        if (id >= 0 && idmap_get(&real, (uint64_t)id + 1, &v))
            c->stream = v; /* one stream, one key in the dependency clocks */
    }
    free(op_of);
    free(rec_of);
    idmap_free(&real);
}
