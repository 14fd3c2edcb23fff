/* strtab.c: interned strings (see strtab.h).
 *
 * Open addressing on a 64-bit hash, slots claimed and published as
 * intern.h describes (`ready` is -1 for a slot whose string did not fit in
 * the arena).  The arena hands out space with one atomic add.
 */
#include "collector/strtab.h"
#include "collector/hash.h"
#include "collector/intern.h"

#include <stdatomic.h>
#include <string.h>

#define SLOTS 16384
#define ARENA_BYTES (2u << 20)
#define PROBES 64

struct slot {
    _Atomic uint64_t hash;
    _Atomic int ready;
    int reported;          /* writer thread only */
    uint32_t off, len;
};

static struct slot slots[SLOTS];
static char arena[ARENA_BYTES];
static _Atomic uint32_t arena_used;

uint32_t gt_strtab_intern(const char *s, long len)
{
    if (!s)
        return 0;
    size_t n = len < 0 ? strnlen(s, GT_STRTAB_MAXLEN + 1) : (size_t)len;
    /* a string too long keeps its head, up to a character's start, then
     * the mark: hashed, compared and stored as that text */
    size_t mark = 0;
    if (n > GT_STRTAB_MAXLEN) {
        mark = sizeof GT_STRTAB_CUT_MARK - 1;
        n = GT_STRTAB_MAXLEN - mark;
        while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
            n--;
    }
    uint64_t h = gt_fnv1a(GT_STRTAB_CUT_MARK, mark, gt_fnv1a(s, n, GT_FNV_OFFSET)) | 1; /* 0 means empty */
    for (uint32_t probe = 0; probe < PROBES; probe++) {
        uint32_t i = (uint32_t)((h + probe) & (SLOTS - 1));
        struct slot *e = &slots[i];
        switch (gt_intern_probe(&e->hash, &e->ready, h)) {
        case GT_INTERN_CLAIMED: {
            uint32_t off = atomic_fetch_add_explicit(&arena_used, (uint32_t)(n + mark) + 1, memory_order_relaxed);
            if (off + n + mark + 1 > ARENA_BYTES) { /* the slot stays, with no string: id 0 */
                e->off = e->len = 0;
                atomic_store_explicit(&e->ready, -1, memory_order_release);
                return 0;
            }
            memcpy(arena + off, s, n);
            memcpy(arena + off + n, GT_STRTAB_CUT_MARK, mark);
            arena[off + n + mark] = 0;
            e->off = off;
            e->len = (uint32_t)(n + mark);
            atomic_store_explicit(&e->ready, 1, memory_order_release);
            return i + 1;
        }
        case GT_INTERN_MATCH:
            if (atomic_load_explicit(&e->ready, memory_order_acquire) > 0 && e->len == n + mark &&
                memcmp(arena + e->off, s, n) == 0 && memcmp(arena + e->off + n, GT_STRTAB_CUT_MARK, mark) == 0)
                return i + 1;
            break;
        case GT_INTERN_OTHER:
            break;
        }
    }
    return 0;
}

const char *gt_strtab_get(uint32_t id)
{
    if (id == 0 || id > SLOTS)
        return NULL;
    struct slot *e = &slots[id - 1];
    return atomic_load_explicit(&e->ready, memory_order_acquire) > 0 ? arena + e->off : NULL;
}

void gt_strtab_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx)
{
    for (uint32_t i = 0; i < SLOTS; i++) {
        struct slot *e = &slots[i];
        if (!e->reported && atomic_load_explicit(&e->ready, memory_order_acquire) > 0) {
            fn(i + 1, arena + e->off, ctx);
            e->reported = 1;
        }
    }
}

void gt_strtab_reset_reported(void)
{
    for (uint32_t i = 0; i < SLOTS; i++)
        slots[i].reported = 0;
}
