/* commreg.c: communicator registry (see commreg.h).  Open addressing by
 * handle; a slot is claimed by CAS on `handle` and freed by storing NULL
 * (a later insert may reuse it; a lookup probes the whole cluster). */
#include "libtrace/commreg.h"
#include "collector/hash.h"

#include <stdatomic.h>
#include <stddef.h>

#define SLOTS 1024

static struct gt_comm table[SLOTS];

uint64_t gt_comm_id_hash(const void *bytes, unsigned long n, uint64_t seed)
{
    return gt_fnv1a(bytes, n, GT_FNV_OFFSET ^ seed) & 0x7fffffffffffffffull; /* positive as an SQLite integer */
}

static size_t slot_of(void *h)
{
    return ((uintptr_t)h >> 4) % SLOTS;
}

struct gt_comm *gt_comm_add(void *handle, uint64_t id, int rank, int nranks)
{
    size_t s = slot_of(handle);
    for (size_t i = 0; i < SLOTS; i++) {
        struct gt_comm *c = &table[(s + i) % SLOTS];
        void *expect = NULL;
        if (atomic_compare_exchange_strong(&c->handle, &expect, handle) || expect == handle) {
            c->id = id;
            c->rank = rank;
            c->nranks = nranks;
            atomic_store(&c->seq, 0);
            atomic_store(&c->p2p, 0);
            atomic_store(&c->splits, 0);
            c->parent = 0;
            c->t_made = 0;
            return c;
        }
    }
    return NULL;
}

struct gt_comm *gt_comm_find(void *handle)
{
    size_t s = slot_of(handle);
    for (size_t i = 0; i < SLOTS; i++) {
        struct gt_comm *c = &table[(s + i) % SLOTS];
        if (atomic_load_explicit(&c->handle, memory_order_acquire) == handle)
            return c;
    }
    return NULL;
}

void gt_comm_remove(void *handle)
{
    struct gt_comm *c = gt_comm_find(handle);
    if (c)
        atomic_store(&c->handle, NULL);
}
