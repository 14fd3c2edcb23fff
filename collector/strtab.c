/* strtab.c: interned strings (see strtab.h).
 *
 * Open addressing on a 64-bit hash, slots claimed and published as
 * intern.h describes (`ready` is -1 for a slot whose string did not fit in
 * the arena).  The arena hands out space with one atomic add.
 *
 * The table grows by levels: level 0 (16,384 slots, a 2 MiB arena) is
 * static; level k holds twice the slots and arena of level k-1, and is
 * mapped (its pages touched as they are used) by the first thread that
 * finds no room below it.  A string lives in the first level with room for
 * it at the time it was first interned, and is found there again: within a
 * level, a string is always before the first empty slot of its probe
 * sequence, so a level that cannot take it (its window full, or its arena)
 * is passed over only once that is known.  Ids are global: level k's start
 * after those of the levels below.  Past the last level new strings get id
 * 0, and are counted (gt_strtab_lost).
 */
#define _GNU_SOURCE
#include "collector/strtab.h"
#include "collector/hash.h"
#include "collector/intern.h"

#include <errno.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>

#define SLOTS0 16384u
#define ARENA0 (2u << 20)
#define LEVELS 8
#define PROBES 64

struct slot {
    _Atomic uint64_t hash;
    _Atomic int ready;
    int reported;          /* writer thread only */
    uint32_t off, len;
};

struct level {
    _Atomic(struct slot *) slots; /* then the arena, in one mapping (level 0: static) */
    _Atomic uint32_t arena_used;
};

static struct slot slots0[SLOTS0];
static char arena0[ARENA0];
static struct level levels[LEVELS] = { [0] = { .slots = slots0 } };
static _Atomic uint64_t lost;
static _Atomic uint32_t published, flushed; /* strings made ready; as of the last flush */

static uint32_t nslots(int k) { return SLOTS0 << k; }
static uint32_t arena_bytes(int k) { return ARENA0 << k; }
static uint32_t first_id(int k) { return SLOTS0 * ((1u << k) - 1) + 1; }
static size_t map_bytes(int k) { return (size_t)nslots(k) * sizeof(struct slot) + arena_bytes(k); }

static char *arena_of(int k, struct slot *slots)
{
    return k == 0 ? arena0 : (char *)(slots + nslots(k));
}

/* Level k's slots, mapping them if need be; NULL if memory says no. */
static struct slot *level_slots(int k, int make)
{
    struct slot *s = atomic_load_explicit(&levels[k].slots, memory_order_acquire);
    if (s || !make)
        return s;
    int saved = errno;
    void *p = mmap(NULL, map_bytes(k), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    errno = saved;
    if (p == MAP_FAILED)
        return NULL;
    struct slot *expect = NULL;
    if (!atomic_compare_exchange_strong(&levels[k].slots, &expect, (struct slot *)p)) {
        munmap(p, map_bytes(k)); /* another thread made it first */
        return expect;
    }
    return p;
}

/* Looks for s in level k; 1 + its index there, 0 if it is not (and cannot
 * be) in this level. */
/* s's first n bytes, then mark's m (a cut string's "…[cut]"), as one string */
static uint32_t intern_in(int k, struct slot *slots, const char *s, size_t n, const char *mark, size_t m, uint64_t h)
{
    struct level *lv = &levels[k];
    char *arena = arena_of(k, slots);
    uint32_t mask = nslots(k) - 1;
    for (uint32_t probe = 0; probe < PROBES; probe++) {
        uint32_t i = (uint32_t)((h + probe) & mask);
        struct slot *e = &slots[i];
        /* a full arena takes nothing more: an empty slot then means "not
         * in this level" (it would be before it), so claim nothing */
        if (atomic_load_explicit(&e->hash, memory_order_acquire) == 0 &&
            atomic_load_explicit(&lv->arena_used, memory_order_relaxed) + n + m + 1 > arena_bytes(k))
            return 0;
        switch (gt_intern_probe(&e->hash, &e->ready, h)) {
        case GT_INTERN_CLAIMED: {
            uint32_t off = atomic_fetch_add_explicit(&lv->arena_used, (uint32_t)(n + m) + 1, memory_order_relaxed);
            if (off + n + m + 1 > arena_bytes(k)) { /* the slot stays, with no string; the next level takes it */
                e->off = e->len = 0;
                atomic_store_explicit(&e->ready, -1, memory_order_release);
                return 0;
            }
            memcpy(arena + off, s, n);
            memcpy(arena + off + n, mark, m);
            arena[off + n + m] = 0;
            e->off = off;
            e->len = (uint32_t)(n + m);
            atomic_store_explicit(&e->ready, 1, memory_order_release);
            atomic_fetch_add_explicit(&published, 1, memory_order_release);
            return i + 1;
        }
        case GT_INTERN_MATCH:
            if (atomic_load_explicit(&e->ready, memory_order_acquire) > 0 && e->len == n + m &&
                memcmp(arena + e->off, s, n) == 0 && memcmp(arena + e->off + n, mark, m) == 0)
                return i + 1;
            break;
        case GT_INTERN_OTHER:
            break;
        }
    }
    return 0; /* its window here is full: the next level */
}

uint32_t gt_strtab_intern(const char *s, long len)
{
    if (!s)
        return 0;
    size_t n = len < 0 ? strnlen(s, GT_STRTAB_MAXLEN + 1) : (size_t)len;
    /* a string too long keeps its head, up to a character's start, then
     * the mark: hashed, compared and stored as that text */
    size_t m = 0;
    if (n > GT_STRTAB_MAXLEN) {
        m = sizeof GT_STRTAB_CUT_MARK - 1;
        n = GT_STRTAB_MAXLEN - m;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    uint64_t h = gt_fnv1a(GT_STRTAB_CUT_MARK, m, gt_fnv1a(s, n, GT_FNV_OFFSET)) | 1; /* 0 means empty */
    for (int k = 0; k < LEVELS; k++) {
        struct slot *slots = level_slots(k, 1);
        if (!slots)
            break;
        uint32_t i = intern_in(k, slots, s, n, GT_STRTAB_CUT_MARK, m, h);
        if (i)
            return first_id(k) + i - 1;
    }
    atomic_fetch_add_explicit(&lost, 1, memory_order_relaxed);
    return 0;
}

const char *gt_strtab_get(uint32_t id)
{
    if (id == 0)
        return NULL;
    for (int k = 0; k < LEVELS; k++) {
        if (id >= first_id(k) + nslots(k))
            continue;
        struct slot *slots = level_slots(k, 0);
        if (!slots)
            return NULL;
        struct slot *e = &slots[id - first_id(k)];
        return atomic_load_explicit(&e->ready, memory_order_acquire) > 0 ? arena_of(k, slots) + e->off : NULL;
    }
    return NULL;
}

static void each_level(void (*fn)(int k, struct slot *slots, void *ctx), void *ctx)
{
    for (int k = 0; k < LEVELS; k++) {
        struct slot *slots = level_slots(k, 0);
        if (slots)
            fn(k, slots, ctx);
    }
}

struct flush_ctx { void (*fn)(uint32_t id, const char *text, void *ctx); void *ctx; };

static void flush_level(int k, struct slot *slots, void *arg)
{
    struct flush_ctx *f = arg;
    for (uint32_t i = 0; i < nslots(k); i++) {
        struct slot *e = &slots[i];
        if (!e->reported && atomic_load_explicit(&e->ready, memory_order_acquire) > 0) {
            f->fn(first_id(k) + i, arena_of(k, slots) + e->off, f->ctx);
            e->reported = 1;
        }
    }
}

void gt_strtab_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx)
{
    /* the scan only when something was published since the last one: the
     * levels can hold millions of slots, and the writer flushes every pass */
    uint32_t now = atomic_load_explicit(&published, memory_order_acquire);
    if (now == atomic_load_explicit(&flushed, memory_order_relaxed))
        return;
    struct flush_ctx f = { fn, ctx };
    each_level(flush_level, &f);
    atomic_store_explicit(&flushed, now, memory_order_relaxed);
}

static void reset_level(int k, struct slot *slots, void *ctx)
{
    (void)ctx;
    for (uint32_t i = 0; i < nslots(k); i++)
        slots[i].reported = 0;
}

void gt_strtab_reset_reported(void)
{
    each_level(reset_level, NULL);
    atomic_store(&flushed, atomic_load(&published) - 1); /* the next flush scans */
}

uint64_t gt_strtab_lost(void)
{
    return atomic_load_explicit(&lost, memory_order_relaxed);
}

uint32_t gt_strtab_nccl_domain(void)
{
    static _Atomic uint32_t id;
    uint32_t v = atomic_load_explicit(&id, memory_order_relaxed);
    if (!v)
        atomic_store_explicit(&id, v = gt_strtab_intern("NCCL", -1), memory_order_relaxed);
    return v;
}
