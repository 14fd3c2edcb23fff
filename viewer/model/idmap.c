/* idmap.c: see idmap.h.  Linear probing, kept at most half full. */
#include "viewer/model/idmap.h"

#include <stdio.h>
#include <stdlib.h>

static size_t slot(const struct idmap *m, uint64_t key)
{
    size_t h = (size_t)((key * 0x9e3779b97f4a7c15ull) >> 17) & (m->cap - 1);
    while (m->key[h] && m->key[h] != key)
        h = (h + 1) & (m->cap - 1);
    return h;
}

static void grow_to(struct idmap *m, size_t cap)
{
    struct idmap g = { NULL, NULL, cap, 0 };
    g.key = calloc(g.cap, sizeof *g.key);
    g.val = calloc(g.cap, sizeof *g.val);
    if (!g.key || !g.val) {
        fprintf(stderr, "gputrace-report: out of memory\n");
        exit(1);
    }
    for (size_t i = 0; i < m->cap; i++)
        if (m->key[i]) {
            size_t h = slot(&g, m->key[i]);
            g.key[h] = m->key[i];
            g.val[h] = m->val[i];
            g.n++;
        }
    free(m->key);
    free(m->val);
    *m = g;
}

static void grow(struct idmap *m)
{
    grow_to(m, m->cap ? m->cap * 2 : 64);
}

void idmap_reserve(struct idmap *m, size_t n)
{
    size_t cap = 64;
    while (cap < 2 * (n + 1))
        cap *= 2;
    if (!m->n && cap > m->cap)
        grow_to(m, cap);
}

void idmap_put(struct idmap *m, uint64_t key, int64_t val, int keep_first)
{
    if (!key)
        return;
    if (2 * (m->n + 1) > m->cap)
        grow(m);
    size_t h = slot(m, key);
    if (m->key[h]) {
        if (!keep_first)
            m->val[h] = val;
        return;
    }
    m->key[h] = key;
    m->val[h] = val;
    m->n++;
}

int idmap_get(const struct idmap *m, uint64_t key, int64_t *val)
{
    if (!key || !m->cap)
        return 0;
    size_t h = slot(m, key);
    if (!m->key[h])
        return 0;
    *val = m->val[h];
    return 1;
}

void idmap_free(struct idmap *m)
{
    free(m->key);
    free(m->val);
    m->key = NULL;
    m->val = NULL;
    m->cap = m->n = 0;
}

uint64_t idmap_text_key(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h ? h : 1;
}
