/* p2p_seq.c: per-peer sequence numbers of send/recv (p2p_seq.h).  Open
 * addressing on a key mixed from (owner, peer, direction); a slot is
 * claimed by CAS on its key and never freed (a process has few
 * communicator and peer pairs; 16,384 slots a table, 256 KiB, touched only
 * as used). */
#define _GNU_SOURCE
#include "libtrace/p2p_seq.h"
#include "format/record.h"

#include <stdatomic.h>
#include <stddef.h>

#define SLOTS 16384u
#define PROBES 64u /* a lookup gives up after this many: the fallback counter */

struct slot { _Atomic uint64_t key; _Atomic uint64_t n; };
static struct slot tables[2][SLOTS];

static uint64_t key_of(uint64_t owner, int peer, int send)
{
    uint64_t h = owner * 0x9E3779B97F4A7C15ull ^ ((uint64_t)(uint32_t)peer << 1 | (send != 0));
    h ^= h >> 31;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 29;
    return h ? h : 1; /* 0 is a free slot */
}

/* The slot of key, claimed if claim; NULL if none (full). */
static struct slot *slot_of(enum gt_p2p_table t, uint64_t key, int claim)
{
    struct slot *v = tables[t & 1];
    for (unsigned i = 0; i < PROBES; i++) {
        struct slot *s = &v[(key + i) & (SLOTS - 1)];
        uint64_t k = atomic_load_explicit(&s->key, memory_order_acquire);
        if (k == key)
            return s;
        if (k == 0) {
            if (!claim)
                return NULL;
            uint64_t expect = 0;
            if (atomic_compare_exchange_strong(&s->key, &expect, key) || expect == key)
                return s;
        }
    }
    return NULL;
}

uint64_t gt_p2p_seq_take(enum gt_p2p_table t, uint64_t owner, int peer, int send, _Atomic uint64_t *fallback)
{
    struct slot *s = slot_of(t, key_of(owner, peer, send), 1);
    _Atomic uint64_t *n = s ? &s->n : fallback;
    return GT_SEQ_P2P | (atomic_fetch_add_explicit(n, 1, memory_order_relaxed) & GT_SEQ_P2P_MASK);
}

void gt_p2p_seq_give_back(enum gt_p2p_table t, uint64_t owner, int peer, int send, uint64_t seq,
                          _Atomic uint64_t *fallback)
{
    struct slot *s = slot_of(t, key_of(owner, peer, send), 0);
    _Atomic uint64_t *n = s ? &s->n : fallback;
    uint64_t mine = seq & GT_SEQ_P2P_MASK, next = mine + 1;
    atomic_compare_exchange_strong(n, &next, mine);
}
