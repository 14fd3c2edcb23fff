/* ranges.c: the NVTX ranges of a process, and which one a moment of a
 * thread falls in.
 *
 * User ranges (all domains but NCCL's own) are sorted by (thread, start,
 * longest first), so a range's enclosing range comes before it; one sweep
 * per thread with a stack gives each range its parent.  The innermost
 * range around a time is then the latest-starting range before it, or the
 * first of its ancestors that has not ended yet.
 *
 * Iterations: a range whose name ends in a number after "step", "iter",
 * "epoch" or "batch" (PyTorch's "ProfilerStep#412", "step 412") is that
 * iteration, and so is everything inside it; otherwise a top-level range
 * whose name repeats on its thread ("train_step" each step) is numbered by
 * its occurrence, from 1.
 */
#define _GNU_SOURCE
#include "viewer/model/model.h"
#include "viewer/model/idmap.h"
#include "collector/nvtx_block.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

const char *model_label(const struct proc *p, int id)
{
    return id > 0 && id < p->nlabels && p->labels[id] ? p->labels[id] : "";
}

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

static int cmp_range(const void *a, const void *b)
{
    const struct nvtx *x = a, *y = b;
    if (x->user != y->user)
        return x->user ? -1 : 1;
    if (x->tid != y->tid)
        return x->tid < y->tid ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    if (x->end != y->end)
        return x->end > y->end ? -1 : 1;
    return x->depth < y->depth ? -1 : x->depth > y->depth;
}

/* The number at the end of a step-like name, or -1. */
static int64_t step_number(const char *name)
{
    size_t n = strlen(name), i = n;
    while (i > 0 && isdigit((unsigned char)name[i - 1]))
        i--;
    if (i == n || n - i > 15)
        return -1;
    static const char *const words[] = { "step", "iter", "epoch", "batch" };
    for (size_t w = 0; w < sizeof words / sizeof *words; w++) {
        const char *hit = strcasestr(name, words[w]);
        if (hit && (size_t)(hit - name) < i)
            return strtoll(name + i, NULL, 10);
    }
    return -1;
}

/* Parents and iterations of the user ranges of one thread, [lo, hi). */
static void index_thread(struct proc *p, size_t lo, size_t hi)
{
    int stack[256], top = 0;
    struct idmap seen = { 0 }, order = { 0 };
    for (size_t i = lo; i < hi; i++) {
        struct nvtx *r = &p->ranges[i];
        while (top > 0 && p->ranges[stack[top - 1]].end <= r->start)
            top--;
        r->parent = top > 0 ? stack[top - 1] : -1;
        if (top < 256)
            stack[top++] = (int)i;
        if (r->parent < 0) {
            int64_t n = 0;
            idmap_get(&seen, (uint64_t)r->name + 1, &n);
            idmap_put(&seen, (uint64_t)r->name + 1, n + 1, 0);
        }
    }
    for (size_t i = lo; i < hi; i++) {
        struct nvtx *r = &p->ranges[i];
        int64_t own = step_number(model_label(p, r->name)), n = 0, k = 0;
        if (own >= 0) {
            r->iter = own;
        } else if (r->parent >= 0) {
            r->iter = p->ranges[r->parent].iter;
        } else {
            idmap_get(&seen, (uint64_t)r->name + 1, &n);
            idmap_get(&order, (uint64_t)r->name + 1, &k);
            idmap_put(&order, (uint64_t)r->name + 1, k + 1, 0);
            r->iter = n >= 2 ? k + 1 : -1;
        }
    }
    idmap_free(&seen);
    idmap_free(&order);
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
    if (no_end)
        r->end = p->end;
    model_span(&r->start, &r->end);
    r->user = strcmp(model_label(p, r->domain), "NCCL") != 0;
}

/* Push/pop ranges the writer stored in bulk (collector/nvtx_block.h). */
static void load_range_blocks(const struct model *m, struct proc *p, size_t *cap)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(m->dbs[p->db], "SELECT format, n, data FROM nvtx_range_block WHERE process_id = ?", -1,
                           &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, p->id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        const void *data = sqlite3_column_blob(s, 2);
        int n = sqlite3_column_int(s, 1);
        if (!gt_nvtx_block_valid(sqlite3_column_int(s, 0), n, data, sqlite3_column_bytes(s, 2)))
            continue; /* another layout, or damaged: not guessed at */
        for (int i = 0; i < n; i++) {
            struct gt_nvtx_packed b = gt_nvtx_block_row(data, i);
            if (b.kind != 1) /* marks are not kept */
                continue;
            struct nvtx *r = new_range(p, cap);
            r->tid = (int)b.tid;
            r->start = b.start_ns;
            r->end = b.end_ns;
            r->depth = b.depth;
            r->name = (int)b.name;
            r->domain = (int)b.domain;
            /* a structured payload's text is a label already */
            r->payload = b.payload_type == GT_NVTX_PAYLOAD_TEXT && b.payload < (uint64_t)p->nlabels ? (int)b.payload : 0;
            range_done(p, r, 0);
        }
    }
    sqlite3_finalize(s);
}

void model_load_ranges(const struct model *m, struct proc *p)
{
    model_load_strings(m->dbs[p->db], "label", p->id, &p->labels, &p->nlabels);
    p->range_tid = -1;
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(m->dbs[p->db], "SELECT tid, start_ns, end_ns, depth, name, domain, payload FROM nvtx_range"
                                          " WHERE process_id = ? AND kind IN (1, 2)", -1, &s, NULL) != SQLITE_OK)
        return;
    struct idmap by_hash = { 0 };
    sqlite3_bind_int64(s, 1, p->id);
    size_t cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct nvtx *r = new_range(p, &cap);
        r->tid = sqlite3_column_int(s, 0);
        r->start = sqlite3_column_int64(s, 1);
        r->end = sqlite3_column_int64(s, 2);
        r->depth = sqlite3_column_int(s, 3);
        r->name = sqlite3_column_int(s, 4);
        r->domain = sqlite3_column_int(s, 5);
        r->payload = sqlite3_column_type(s, 6) == SQLITE_TEXT
                         ? label_of_text(p, &by_hash, (const char *)sqlite3_column_text(s, 6)) : 0;
        range_done(p, r, sqlite3_column_type(s, 2) == SQLITE_NULL);
    }
    sqlite3_finalize(s);
    idmap_free(&by_hash);
    load_range_blocks(m, p, &cap);
    if (p->nranges)
        qsort(p->ranges, p->nranges, sizeof *p->ranges, cmp_range);
    size_t best = 0;
    for (size_t lo = 0; lo < p->nranges && p->ranges[lo].user;) {
        size_t hi = lo;
        while (hi < p->nranges && p->ranges[hi].user && p->ranges[hi].tid == p->ranges[lo].tid)
            hi++;
        index_thread(p, lo, hi);
        if (hi - lo > best) {
            best = hi - lo;
            p->range_tid = p->ranges[lo].tid;
        }
        p->nuser_ranges = hi;
        lo = hi;
    }
}

int model_range_at(const struct proc *p, int tid, int64_t t)
{
    if (tid < 0)
        tid = p->range_tid;
    /* last user range of tid with start <= t */
    size_t lo = 0, hi = p->nuser_ranges;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        const struct nvtx *r = &p->ranges[mid];
        if (r->tid < tid || (r->tid == tid && r->start <= t))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || p->ranges[lo - 1].tid != tid)
        return -1;
    int r = (int)lo - 1;
    while (r >= 0 && p->ranges[r].end <= t)
        r = p->ranges[r].parent;
    return r;
}

int model_range_within(const struct proc *p, int r, const char *name)
{
    for (; r >= 0; r = p->ranges[r].parent)
        if (!strcmp(model_label(p, p->ranges[r].name), name))
            return 1;
    return 0;
}
