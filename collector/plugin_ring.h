/* plugin_ring.h: the records of NCCL's profiler plugin (libtrace/nccl_profiler.c)
 * on their way to the writer.
 *
 * NCCL calls the plugin on its own threads (the proxy thread, CUDA's
 * host-callback thread) and on the program's, often inside a wrapped NCCL
 * call whose ring slot is reserved but not committed, so these records do
 * not go through the per-thread rings (tbuf.h): they share one bounded
 * multi-producer ring, which the writer alone drains.  A producer claims a
 * slot with one CAS on `head`, fills it, and publishes it by its `turn`;
 * a full ring counts the record as dropped.  No lock, no allocation, no
 * system call.
 *
 * Invariants:
 *   1. Slot i is empty for lap L when turn == 2L, and holds lap L's record
 *      when turn == 2L + 1 (zeroed memory: every slot empty for lap 0).
 *   2. Only the writer advances `tail`, and only past a published slot,
 *      which it then marks empty for the next lap.
 */
#ifndef GPUTRACE_PLUGIN_RING_H
#define GPUTRACE_PLUGIN_RING_H

#include <stdatomic.h>
#include <stdint.h>

enum gt_plug_kind {
    GT_PK_COMM = 1,        /* init: a communicator (comm, a = rank, b = nranks, c = nnodes, func = name) */
    GT_PK_OP_START = 2,    /* a Coll or P2p task event */
    GT_PK_OP_STOP = 3,
    GT_PK_KCH_START = 4,   /* a kernel channel began (ns[0]: its GPU timer) */
    GT_PK_KCH_STOP = 5,    /* ... and ended */
    GT_PK_PROXY_START = 6, /* a proxy operation (a = peer, b = steps, c = chunk size) */
    GT_PK_PROXY_STOP = 7,  /* ... its totals per step state (ns[]), bytes in count, a = steps done, b = last state */
    GT_PK_PROXY_STATE = 8, /* a step of a proxy op (id) entered a kind of state it had not before (b = the state) */
};

/* GT_PF_*: flags of an op record */
#define GT_PF_GRAPH 1u  /* captured in a CUDA graph */
#define GT_PF_P2P 2u    /* a send or receive (b: the peer), else a collective (b: the root) */
#define GT_PF_SEND 4u   /* a proxy op that sends */

/* step-state buckets of a proxy op (GT_PK_PROXY_STOP ns[]) */
enum { GT_PB_GPU_WAIT, GT_PB_PEER_WAIT, GT_PB_NET, GT_PB_RECV_WAIT, GT_PB_FLUSH, GT_PB_COUNT };

struct gt_plug_rec {
    _Alignas(64) _Atomic uint64_t turn; /* invariant 1 */
    uint8_t kind, flags, channel, nwarps;
    uint8_t nchannels, version, pad[2];
    int32_t a, b, c, rank;
    uint64_t id, parent;     /* the event's id, its parent's (0: none) */
    uint64_t t;              /* host clock ticks (collector/clock.h) */
    uint64_t count;
    uint32_t func, dtype, algo, proto; /* strtab ids (strtab.h) */
    union {
        struct { uint64_t comm, seq, nccl_seq, stream; }; /* communicators and operations */
        uint64_t ns[GT_PB_COUNT];                         /* kernel channels' GPU timer, proxy ops' totals */
    };
};

_Static_assert(sizeof(struct gt_plug_rec) == 128, "a record is two cache lines");

/* A free slot for one record, or NULL (counted as dropped) when full;
 * fill it, then gt_plug_publish it. */
struct gt_plug_rec *gt_plug_claim(void);
void gt_plug_publish(struct gt_plug_rec *r);
/* Writer side: fn on every published record in order; returns how many. */
typedef void gt_plug_fn(const struct gt_plug_rec *r, void *ctx);
unsigned long gt_plug_drain(gt_plug_fn *fn, void *ctx);
unsigned long gt_plug_drain_max(gt_plug_fn *fn, void *ctx, unsigned long max);
uint64_t gt_plug_dropped(void);
void gt_plug_count_dropped(uint64_t n); /* records lost past the ring (the writer's memory) */
/* After fork: the child starts with an empty ring. */
void gt_plug_forget_after_fork(void);

#endif
