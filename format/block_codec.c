/* block_codec.c: the compact block layout (block_codec.h): the four
 * layouts' fields and predictions, the encoder the tracer stores blocks
 * with, and the checked reader every consumer of a block goes through. */
#include "format/block_codec.h"

#include "format/call_block.h"
#include "format/capi_block.h"
#include "format/gpu_block.h"
#include "format/nvtx_block.h"
#include "format/row_block.h"

#include <stddef.h>
#include <string.h>

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "the block layouts are little-endian, as the host's structs"
#endif

#define F(type, field, pred, ref) { offsetof(type, field), sizeof(((type *)0)->field), pred, ref }
#define PREV(type, field) F(type, field, GT_PRED_PREV, 0)
#define NEXT(type, field) F(type, field, GT_PRED_NEXT, 0)
/* an end predicted by its start, field 0 of every layout */
#define FROM_START(type, field) F(type, field, GT_PRED_FIELD, 0)

/* A call block comes from a thread's calls in order: the next call id,
 * the same stream, call site and API, an end that is its start (a call
 * that does not block). */
static const struct gt_block_field call_fields[] = {
    PREV(struct gt_call_packed, start_ns), FROM_START(struct gt_call_packed, end_ns),
    PREV(struct gt_call_packed, stream),   PREV(struct gt_call_packed, event),
    PREV(struct gt_call_packed, bytes),    NEXT(struct gt_call_packed, call_id),
    PREV(struct gt_call_packed, tid),      PREV(struct gt_call_packed, callsite),
    PREV(struct gt_call_packed, pystack),  PREV(struct gt_call_packed, result),
    PREV(struct gt_call_packed, api),      PREV(struct gt_call_packed, copy_kind),
    PREV(struct gt_call_packed, mem_kind), PREV(struct gt_call_packed, reserved),
};

static const struct gt_block_field gpu_fields[] = {
    PREV(struct gt_gpu_packed, start_ns),  FROM_START(struct gt_gpu_packed, end_ns),
    PREV(struct gt_gpu_packed, bytes),     PREV(struct gt_gpu_packed, stream_id),
    PREV(struct gt_gpu_packed, context),   PREV(struct gt_gpu_packed, name_id),
    NEXT(struct gt_gpu_packed, correlation), PREV(struct gt_gpu_packed, device),
    PREV(struct gt_gpu_packed, event_id),  PREV(struct gt_gpu_packed, kind),
    PREV(struct gt_gpu_packed, copy_kind), PREV(struct gt_gpu_packed, src_kind),
    PREV(struct gt_gpu_packed, dst_kind),  PREV(struct gt_gpu_packed, sync_type),
    PREV(struct gt_gpu_packed, reserved),
};

static const struct gt_block_field capi_fields[] = {
    PREV(struct gt_capi_packed, start_ns), FROM_START(struct gt_capi_packed, end_ns),
    PREV(struct gt_capi_packed, tid),      PREV(struct gt_capi_packed, cbid),
    NEXT(struct gt_capi_packed, correlation), PREV(struct gt_capi_packed, result),
    PREV(struct gt_capi_packed, domain),   PREV(struct gt_capi_packed, reserved),
};

static const struct gt_block_field nvtx_fields[] = {
    PREV(struct gt_nvtx_packed, start_ns), FROM_START(struct gt_nvtx_packed, end_ns),
    PREV(struct gt_nvtx_packed, payload),  PREV(struct gt_nvtx_packed, tid),
    PREV(struct gt_nvtx_packed, domain),   PREV(struct gt_nvtx_packed, name),
    PREV(struct gt_nvtx_packed, category), PREV(struct gt_nvtx_packed, depth),
    PREV(struct gt_nvtx_packed, payload_type), PREV(struct gt_nvtx_packed, kind),
    PREV(struct gt_nvtx_packed, reserved),
};

static unsigned mask_bytes(const struct gt_block_layout *l)
{
    return (l->nfields + 7u) / 8u;
}

static uint64_t width_mask(unsigned size)
{
    return size >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * size)) - 1;
}

/* A field's bytes as an unsigned number (little-endian, as the host). */
static inline uint64_t load(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;
    switch (size) {
    case 8: memcpy(&v, p, 8); break;
    case 4: { uint32_t x; memcpy(&x, p, 4); v = x; break; }
    case 2: { uint16_t x; memcpy(&x, p, 2); v = x; break; }
    case 1: v = *p; break;
    default: memcpy(&v, p, size); break;
    }
    return v;
}

static inline void store(uint8_t *p, uint64_t v, unsigned size)
{
    switch (size) {
    case 8: memcpy(p, &v, 8); break;
    case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
    case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
    case 1: *p = (uint8_t)v; break;
    default: memcpy(p, &v, size); break;
    }
}

static inline uint64_t predict(const struct gt_block_field *f, const uint64_t *prev, unsigned i)
{
    switch (f->pred) {
    case GT_PRED_NEXT: return prev[i] + 1;
    case GT_PRED_FIELD: return prev[f->ref];
    default: return prev[i];
    }
}

size_t gt_block_bound(const struct gt_block_layout *l, int n)
{
    return n <= 0 ? 0 : (size_t)n * (mask_bytes(l) + 10u * l->nfields);
}

/* The encoder and decoder are written once, for any layout, and made
 * for each of the four with its table a constant: the field loop unrolled,
 * each load and store of a known size, each prediction known (a loop over
 * the table at run time cost as much as the bytes it saved: bench/, docs/
 * tracer-guarantees.md). */
#define CODEC_INLINE static inline __attribute__((always_inline))

CODEC_INLINE size_t encode_with(const struct gt_block_field *fs, unsigned nf, unsigned size, const uint8_t *r, int n,
                                uint8_t *o)
{
    uint8_t *start = o;
    const unsigned nm = (nf + 7u) / 8u; /* mask_bytes, of a constant table */
    uint64_t prev[GT_BLOCK_MAX_FIELDS] = { 0 };
    for (int k = 0; k < n; k++, r += size) {
        uint32_t m = 0;
        uint8_t *mp = o;
        o += nm;
#pragma GCC unroll 16
        for (unsigned i = 0; i < nf; i++) {
            const struct gt_block_field *f = &fs[i];
            uint64_t v = load(r + f->off, f->size);
            uint64_t d = (v - predict(f, prev, i)) & width_mask(f->size);
            prev[i] = v;
            if (!d)
                continue;
            m |= 1u << i;
            /* the difference as a signed number of the field's width,
             * zigzagged so that a small step back is small too */
            unsigned shift = 64 - 8u * f->size;
            int64_t sd = (int64_t)(d << shift) >> shift;
            uint64_t z = ((uint64_t)sd << 1) ^ (uint64_t)(sd >> 63);
            while (z >= 0x80) {
                *o++ = (uint8_t)(z | 0x80);
                z >>= 7;
            }
            *o++ = (uint8_t)z;
        }
        mp[0] = (uint8_t)m;
        if (nm > 1)
            mp[1] = (uint8_t)(m >> 8);
    }
    return (size_t)(o - start);
}

CODEC_INLINE void decode_with(const struct gt_block_field *fs, unsigned nf, struct gt_block_cur *c, uint8_t *o)
{
    /* open checked every varint's end: no bound is tested here */
    const uint8_t *p = c->p;
    const unsigned nm = (nf + 7u) / 8u;
    uint32_t m = p[0] | (nm > 1 ? (uint32_t)p[1] << 8 : 0);
    p += nm;
#pragma GCC unroll 16
    for (unsigned i = 0; i < nf; i++) {
        const struct gt_block_field *f = &fs[i];
        uint64_t v = predict(f, c->prev, i);
        if (m >> i & 1) {
            uint64_t z = *p++;
            if (z >= 0x80) {
                z &= 0x7f;
                unsigned shift = 7;
                uint8_t b;
                do {
                    b = *p++;
                    z |= (uint64_t)(b & 0x7f) << shift;
                    shift += 7;
                } while (b & 0x80);
            }
            v += (z >> 1) ^ (0 - (z & 1));
        }
        v &= width_mask(f->size);
        c->prev[i] = v;
        store(o + f->off, v, f->size);
    }
    c->p = p;
}

#define NF(fields) (unsigned)(sizeof fields / sizeof fields[0])
/* a layout's own encoder and decoder */
#define CODEC(name, type, what)                                                                                     \
    static size_t encode_##name(const void *rows, int n, void *out)                                                 \
    {                                                                                                               \
        return encode_with(name##_fields, NF(name##_fields), sizeof(type), rows, n, out);                           \
    }                                                                                                               \
    static void next_##name(struct gt_block_cur *c, void *out)                                                      \
    {                                                                                                               \
        decode_with(name##_fields, NF(name##_fields), c, out);                                                      \
    }                                                                                                               \
    _Static_assert(NF(name##_fields) <= GT_BLOCK_MAX_FIELDS, "a mask of two bytes at most");                      \
    const struct gt_block_layout gt_##name##_layout = { what, sizeof(type), NF(name##_fields), name##_fields,      \
                                                        encode_##name, next_##name }
CODEC(call, struct gt_call_packed, "call");
CODEC(gpu, struct gt_gpu_packed, "GPU operation");
CODEC(capi, struct gt_capi_packed, "CUPTI API record");
CODEC(nvtx, struct gt_nvtx_packed, "NVTX range");

size_t gt_block_encode(const struct gt_block_layout *l, const void *rows, int n, void *out)
{
    return l->encode(rows, n, out);
}

static void next_packed(struct gt_block_cur *c, void *out)
{
    memcpy(out, c->p, c->l->size);
    c->p += c->l->size;
}

/* Whether `bytes` at p are exactly n compact records of l: every mask
 * names fields only, every varint ends within 10 bytes, nothing is left. */
static int compact_whole(const struct gt_block_layout *l, const uint8_t *p, size_t bytes, int64_t n)
{
    const uint8_t *end = p + bytes;
    unsigned nm = mask_bytes(l);
    uint32_t names = (uint32_t)((1ull << l->nfields) - 1);
    for (int64_t k = 0; k < n; k++) {
        if ((size_t)(end - p) < nm)
            return 0;
        uint32_t m = p[0] | (nm > 1 ? (uint32_t)p[1] << 8 : 0);
        p += nm;
        if (m & ~names)
            return 0;
        for (int v = __builtin_popcount(m); v > 0; v--)
            for (int len = 0;; len++) {
                if (p == end || len == 10)
                    return 0;
                if (!(*p++ & 0x80))
                    break;
            }
    }
    return p == end;
}

int gt_block_open(struct gt_block_cur *c, const struct gt_block_layout *l, int64_t format, int64_t n,
                  const void *data, int bytes)
{
    c->l = l;
    c->p = data;
    c->next = next_packed;
    memset(c->prev, 0, sizeof c->prev);
    /* n taken whole, and no more than a writer puts in a block: a compact
     * record equal to its prediction is a byte or two, so a small blob
     * could claim millions of records otherwise (and n times a size could
     * wrap) */
    if (!data || bytes < 0 || n < 0 || n > GT_BLOCK_ROWS)
        return -1;
    if (format == GT_BLOCK_PACKED)
        return (int64_t)bytes == n * (int64_t)l->size ? (int)n : -1;
    if (format != GT_BLOCK_COMPACT || !compact_whole(l, data, (size_t)bytes, n))
        return -1;
    c->next = l->next;
    return (int)n;
}
