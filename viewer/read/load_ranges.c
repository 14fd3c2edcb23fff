/* load_ranges.c: a process's NVTX ranges and their labels read from its
 * database, from rows (nvtx_range) and from the blocks the writer stored
 * in bulk (format/nvtx_block.h); model/ranges.c then indexes them. */
#define _GNU_SOURCE
#include "viewer/read/load.h"
#include "viewer/model/idmap.h"
#include "format/nvtx_block.h"
#include "viewer/read/rowruns.h"

#include <stdlib.h>
#include <string.h>

/* The label whose text is `text` (the tracer interned a structured
 * payload's text, so it is among the process's labels), or 0.  by_hash maps
 * each label's hash to its id; built on first use. */
static int label_of_text(const struct proc *p, struct idmap *by_hash, const char *text)
{
    if (!text)
        return 0;
    if (!by_hash->n)
        for (int i = 1; i < p->nlabels; i++)
            if (p->labels[i])
                idmap_put(by_hash, idmap_text_key(p->labels[i]), i, 1);
    int64_t id;
    return idmap_get(by_hash, idmap_text_key(text), &id) && !strcmp(model_label(p, (int)id), text) ? (int)id : 0;
}

/* A range's name or domain as read: a label of the process, or 0 (none).
 * The id is the database's, any integer: one no label has names nothing
 * (model_label shows it as ""), and kept it would reach the analyses'
 * arithmetic on ids (1 + an id, as a finding's range) past its type. */
static int label_id(const struct proc *p, int64_t id)
{
    return id > 0 && id < p->nlabels ? (int)id : 0;
}

static struct nvtx *new_range(struct proc *p, size_t *cap)
{
    if (p->nranges == *cap) {
        *cap = *cap ? *cap * 2 : 256;
        p->ranges = realloc(p->ranges, *cap * sizeof *p->ranges);
        if (!p->ranges)
            model_out_of_memory();
    }
    struct nvtx *r = &p->ranges[p->nranges++];
    memset(r, 0, sizeof *r);
    r->parent = -1;
    r->iter = -1;
    return r;
}

/* A range's remaining fields, once tid, times, depth, name and domain are in. */
static void range_done(const struct proc *p, struct nvtx *r, int no_end)
{
    r->open = no_end; /* where a hung rank still was (hang_place.c) */
    if (no_end)
        r->end = p->end;
    model_span(&r->start, &r->end);
    r->user = strcmp(model_label(p, r->domain), "NCCL") != 0;
}

/* Push/pop ranges the writer stored in bulk (format/nvtx_block.h). */
static void load_range_blocks(const struct model *m, struct proc *p, size_t *cap)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(m->dbs[p->db], "SELECT format, n, data FROM nvtx_range_block WHERE process_id = ?", -1,
                           &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, p->id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct gt_block_cur c;
        int n = rowruns_block(s, 0, &gt_nvtx_layout, &c);
        for (int i = 0; i < n; i++) { /* none of another layout, or damaged: not guessed at */
            struct gt_nvtx_packed b;
            gt_block_next(&c, &b);
            if (b.kind != 1) /* marks are not kept */
                continue;
            struct nvtx *r = new_range(p, cap);
            r->tid = (int)b.tid;
            r->start = b.start_ns;
            r->end = b.end_ns;
            r->depth = b.depth;
            r->name = label_id(p, (int64_t)b.name);
            r->domain = label_id(p, (int64_t)b.domain);
            /* a structured payload's text is a label already */
            r->payload = b.payload_type == GT_NVTX_PAYLOAD_TEXT && b.payload < (uint64_t)p->nlabels ? (int)b.payload : 0;
            range_done(p, r, 0);
        }
    }
    sqlite3_finalize(s);
}

void load_ranges(const struct model *m, struct proc *p)
{
    load_strings(m->dbs[p->db], "label", p->id, &p->labels, &p->nlabels);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(m->dbs[p->db], "SELECT tid, start_ns, end_ns, depth, name, domain, payload, kind FROM nvtx_range"
                                          " WHERE process_id = ? AND kind IN (1, 2)", -1, &s, NULL) != SQLITE_OK) {
        model_ranges_index(p); /* none: no thread has ranges */
        return;
    }
    struct idmap by_hash = { 0 };
    sqlite3_bind_int64(s, 1, p->id);
    size_t cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct nvtx *r = new_range(p, &cap);
        r->tid = sqlite3_column_int(s, 0);
        r->start = sqlite3_column_int64(s, 1);
        r->end = sqlite3_column_int64(s, 2);
        r->depth = sqlite3_column_int(s, 3);
        r->name = label_id(p, sqlite3_column_int64(s, 4));
        r->domain = label_id(p, sqlite3_column_int64(s, 5));
        r->payload = sqlite3_column_type(s, 6) == SQLITE_TEXT
                         ? label_of_text(p, &by_hash, (const char *)sqlite3_column_text(s, 6)) : 0;
        r->crossable = sqlite3_column_int(s, 7) == 2;
        range_done(p, r, sqlite3_column_type(s, 2) == SQLITE_NULL);
    }
    sqlite3_finalize(s);
    idmap_free(&by_hash);
    load_range_blocks(m, p, &cap);
    model_ranges_index(p);
}

