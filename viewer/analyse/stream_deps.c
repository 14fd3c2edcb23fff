/* stream_deps.c: the vector clocks of streams and events that say what a
 * host sync transitively waited for (stream_deps.h). */
#include "viewer/analyse/stream_deps.h"
#include "viewer/model/handles.h"
#include "viewer/model/model.h"

#include <stdlib.h>
#include <string.h>

/* stream handles and event handles in maps of their own; 0 (the legacy
 * default stream) must be a key too */
static uint64_t key_of(int64_t handle)
{
    return (uint64_t)handle ^ 0x8000000000000000ull;
}

int deps_is_legacy(int64_t handle)
{
    return LEGACY_STREAM(handle); /* NULL, cudaStreamLegacy, another device's (handles.h) */
}

static struct dep_clock *slot(struct stream_deps *d, struct idmap *ix, int64_t handle)
{
    int64_t i;
    if (idmap_get(ix, key_of(handle), &i))
        return &d->v[i];
    if (d->n == d->cap) {
        d->cap = d->cap ? d->cap * 2 : 16;
        if (!(d->v = realloc(d->v, d->cap * sizeof *d->v)))
            model_out_of_memory();
    }
    memset(&d->v[d->n], 0, sizeof d->v[d->n]);
    d->v[d->n].all = INT64_MIN;
    idmap_put(ix, key_of(handle), (int64_t)d->n, 0);
    return &d->v[d->n++];
}

static const struct dep_clock *find(const struct stream_deps *d, const struct idmap *ix, int64_t handle)
{
    int64_t i;
    return idmap_get(ix, key_of(handle), &i) ? &d->v[i] : NULL;
}

/* c now also waits for stream h up to t. */
static void note(struct dep_clock *c, int64_t h, int64_t t)
{
    for (int i = 0; i < c->n; i++)
        if (c->e[i].handle == h) {
            if (t > c->e[i].t)
                c->e[i].t = t;
            return;
        }
    if (c->n == DEP_STREAMS) { /* full: the entry with the oldest time goes */
        int old = 0;
        for (int i = 1; i < c->n; i++)
            if (c->e[i].t < c->e[old].t)
                old = i;
        c->e[old] = c->e[--c->n];
    }
    c->e[c->n].handle = h;
    c->e[c->n++].t = t;
}

static void merge(struct dep_clock *into, const struct dep_clock *from)
{
    if (from->all > into->all)
        into->all = from->all;
    for (int i = 0; i < from->n; i++)
        note(into, from->e[i].handle, from->e[i].t);
}

void deps_record(struct stream_deps *d, int64_t event, int64_t stream, int64_t t)
{
    if (deps_is_legacy(stream)) /* 0 and cudaStreamLegacy: one stream, a device's one key (as launches) */
        stream = LEGACY_STREAM_KEY(stream);
    struct dep_clock c;
    const struct dep_clock *s = find(d, &d->stream_ix, stream);
    if (s)
        c = *s;
    else {
        memset(&c, 0, sizeof c);
        c.all = INT64_MIN;
    }
    note(&c, stream, t);
    *slot(d, &d->event_ix, event) = c; /* a record replaces the event's earlier one */
}

int deps_wait(struct stream_deps *d, int64_t stream, int64_t event)
{
    if (deps_is_legacy(stream))
        stream = LEGACY_STREAM_KEY(stream);
    const struct dep_clock *e = find(d, &d->event_ix, event);
    if (!e)
        return 0;
    struct dep_clock c = *e; /* slot() may move d->v */
    merge(slot(d, &d->stream_ix, stream), &c);
    return 1;
}

void deps_created(struct stream_deps *d, int64_t stream, int64_t flags)
{
    if (flags & 1) /* cudaStreamNonBlocking, CU_STREAM_NON_BLOCKING */
        return;
    for (size_t i = 0; i < d->nblocking; i++)
        if (d->blocking[i] == stream)
            return;
    if (d->nblocking == d->blocking_cap) {
        d->blocking_cap = d->blocking_cap ? d->blocking_cap * 2 : 8;
        if (!(d->blocking = realloc(d->blocking, d->blocking_cap * sizeof *d->blocking)))
            model_out_of_memory();
    }
    d->blocking[d->nblocking++] = stream;
}

static int is_blocking(const struct stream_deps *d, int64_t stream)
{
    for (size_t i = 0; i < d->nblocking; i++)
        if (d->blocking[i] == stream)
            return 1;
    return 0;
}

void deps_launch(struct stream_deps *d, int64_t stream, int64_t t)
{
    if (deps_is_legacy(stream)) {
        struct dep_clock *c = slot(d, &d->stream_ix, LEGACY_STREAM_KEY(stream));
        if (t > c->all)
            c->all = t;
    } else if (d->nblocking && is_blocking(d, stream)) {
        /* (the first device's legacy stream: a blocking stream's device is
         * not known here) */
        const struct dep_clock *l = find(d, &d->stream_ix, 0);
        if (!l)
            return;
        struct dep_clock c = *l; /* slot() may move d->v */
        note(&c, 0, t);
        merge(slot(d, &d->stream_ix, stream), &c);
    }
}

void deps_stream_scope(const struct stream_deps *d, int64_t stream, int64_t t, struct dep_clock *out)
{
    memset(out, 0, sizeof *out);
    out->all = INT64_MIN;
    if (deps_is_legacy(stream))
        stream = LEGACY_STREAM_KEY(stream);
    const struct dep_clock *s = find(d, &d->stream_ix, stream);
    if (s)
        *out = *s;
    note(out, stream, t);
}

const struct dep_clock *deps_event(const struct stream_deps *d, int64_t event)
{
    return find(d, &d->event_ix, event);
}

void deps_note_call(struct stream_deps *d, int tid, int64_t stream)
{
    idmap_put(&d->last_copy, (uint64_t)(uint32_t)tid + 1, stream, 0);
}

int deps_after_copy(const struct stream_deps *d, int tid, int64_t stream)
{
    int64_t h;
    if (!idmap_get(&d->last_copy, (uint64_t)(uint32_t)tid + 1, &h) || h == DEPS_NO_COPY)
        return 0;
    return h == stream || (deps_is_legacy(h) && deps_is_legacy(stream) && LEGACY_STREAM_KEY(h) == LEGACY_STREAM_KEY(stream));
}

void deps_free(struct stream_deps *d)
{
    free(d->blocking);
    idmap_free(&d->last_copy);
    idmap_free(&d->stream_ix);
    idmap_free(&d->event_ix);
    free(d->v);
    memset(d, 0, sizeof *d);
}
