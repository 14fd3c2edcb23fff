/* stream_keys.c: GPU streams told apart by their context (stream_keys.h). */
#include "viewer/model/stream_keys.h"
#include "viewer/model/model.h"

#include <stdlib.h>

static int own_key(struct stream_keys *k, uint32_t context, int raw)
{
    uint64_t pair = ((uint64_t)context << 32) | (uint32_t)raw; /* context >= 1: never 0 */
    int64_t key;
    if (idmap_get(&k->own, pair, &key))
        return (int)key;
    int n = __atomic_load_n(&k->nown, __ATOMIC_RELAXED);
    if (n == STREAM_KEYS_OWN_MAX)
        return raw;
    if (!k->own_raw && !(k->own_raw = malloc(STREAM_KEYS_OWN_MAX * sizeof *k->own_raw)))
        model_out_of_memory();
    k->own_raw[n] = raw;
    /* written before it is counted: a writer of an earlier window may read
     * the keys (model_stream_raw) while this one is loaded */
    __atomic_store_n(&k->nown, n + 1, __ATOMIC_RELEASE);
    idmap_put(&k->own, pair, STREAM_KEY_OWN + n, 0);
    return STREAM_KEY_OWN + n;
}

int model_stream_key(struct proc *p, uint32_t context, int64_t raw)
{
    struct stream_keys *k = &p->skeys;
    if (raw < 0 || raw >= STREAM_KEY_OWN || !context)
        return (int)raw; /* unknown (-1), past any counter, or no context named */
    if (k->has_last && k->last_context == context && k->last_raw == raw)
        return k->last_key; /* a stream's records come in runs */
    int64_t holder;
    int key;
    if (!idmap_get(&k->holder, (uint64_t)raw + 1, &holder)) {
        idmap_put(&k->holder, (uint64_t)raw + 1, context, 0);
        key = (int)raw;
    } else {
        key = (uint32_t)holder == context ? (int)raw : own_key(k, context, (int)raw);
    }
    k->last_context = context;
    k->last_raw = raw;
    k->last_key = key;
    k->has_last = 1;
    return key;
}

int model_stream_raw(const struct proc *p, int key)
{
    int n = __atomic_load_n(&p->skeys.nown, __ATOMIC_ACQUIRE);
    return key >= STREAM_KEY_OWN && key - STREAM_KEY_OWN < n ? p->skeys.own_raw[key - STREAM_KEY_OWN] : key;
}

void model_stream_keys_free(struct stream_keys *k)
{
    idmap_free(&k->holder);
    idmap_free(&k->own);
    free(k->own_raw);
    *k = (struct stream_keys){ 0 };
}
