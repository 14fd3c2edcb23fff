/* test_block_codec.c: the compact block layout (format/block_codec.h)
 * gives back every record exactly, whatever its bytes; it is small for the
 * records a tracer makes; and a damaged or foreign block is refused whole
 * before a record is read, never read past its end. */
#include "format/block_codec.h"
#include "format/call_block.h"
#include "format/capi_block.h"
#include "format/gpu_block.h"
#include "format/nvtx_block.h"
#include "format/row_block.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

static const struct gt_block_layout *const layouts[] = { &gt_call_layout, &gt_gpu_layout, &gt_capi_layout,
                                                         &gt_nvtx_layout };
#define NLAYOUTS (sizeof layouts / sizeof layouts[0])

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

/* Encodes n records, opens the result as a block row would hand it over
 * and decodes it; the records must come back byte for byte. */
static size_t round_trip(const struct gt_block_layout *l, const uint8_t *rows, int n)
{
    uint8_t *code = malloc(gt_block_bound(l, n) + 1), *back = malloc((size_t)n * l->size + 1);
    cr_assert(code && back);
    size_t bytes = gt_block_encode(l, rows, n, code);
    cr_assert_leq(bytes, gt_block_bound(l, n));
    struct gt_block_cur c;
    cr_assert_eq(gt_block_open(&c, l, GT_BLOCK_COMPACT, n, code, (int)bytes), n, "%s: %d records open", l->what, n);
    for (int i = 0; i < n; i++)
        gt_block_next(&c, back + (size_t)i * l->size);
    cr_assert_eq(c.p, code + bytes, "%s: the records end where the block does", l->what);
    cr_assert_eq(memcmp(back, rows, (size_t)n * l->size), 0, "%s: %d records come back as they were", l->what, n);
    free(code);
    free(back);
    return bytes;
}

Test(block_codec, every_byte_of_a_record_is_one_fields)
{
    for (size_t k = 0; k < NLAYOUTS; k++) {
        const struct gt_block_layout *l = layouts[k];
        cr_assert_leq(l->nfields, GT_BLOCK_MAX_FIELDS);
        unsigned at = 0;
        for (unsigned i = 0; i < l->nfields; i++) {
            cr_assert_eq(l->f[i].off, at, "%s: field %u starts where the one before ends", l->what, i);
            cr_assert(l->f[i].size >= 1 && l->f[i].size <= 8, "%s: field %u is 1 to 8 bytes", l->what, i);
            if (l->f[i].pred == GT_PRED_FIELD)
                cr_assert_lt(l->f[i].ref, i, "%s: field %u is predicted by an earlier one", l->what, i);
            at += l->f[i].size;
        }
        cr_assert_eq(at, l->size, "%s: the fields cover the record", l->what);
    }
}

/* The layout as docs/schema.md gives it, byte for byte, for a reader of
 * its own: two CUPTI API records (8 fields, a mask of one byte) coded by
 * hand.  The first: start 1000 (field 0, from 0: zigzag 2000, varint D0 0F),
 * end 1500 (from its start: 1000, E8 07), tid 7 (0E), cbid 211 (A6 03),
 * correlation 1 (the one before plus one: not coded), result 0, domain 1
 * (02); mask bits 0, 1, 2, 3, 6: 4F.  The second: start 990 (a step back of
 * 10: 13), its end its start, the next correlation, result 0xffffffff (-1
 * in its 4 bytes: 01), a reserved byte 0xff (the 7-byte field 255: FE 03);
 * mask bits 0, 5, 7: A1. */
Test(block_codec, the_documented_bytes)
{
    static const uint8_t code[] = { 0x4F, 0xD0, 0x0F, 0xE8, 0x07, 0x0E, 0xA6, 0x03, 0x02,
                                    0xA1, 0x13, 0x01, 0xFE, 0x03 };
    struct gt_capi_packed want[2] = {
        { .start_ns = 1000, .end_ns = 1500, .tid = 7, .cbid = 211, .correlation = 1, .domain = 1 },
        { .start_ns = 990, .end_ns = 990, .tid = 7, .cbid = 211, .correlation = 2, .result = 0xffffffffu, .domain = 1,
          .reserved = { 0xff } },
    }, got;
    struct gt_block_cur c;
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, 2, code, (int)sizeof code), 2);
    for (int i = 0; i < 2; i++) {
        gt_block_next(&c, &got);
        cr_assert_eq(memcmp(&got, &want[i], sizeof got), 0, "record %d as documented", i);
    }
    uint8_t out[64];
    cr_assert_eq(gt_block_encode(&gt_capi_layout, want, 2, out), sizeof code);
    cr_assert_eq(memcmp(out, code, sizeof code), 0, "and coded so");
}

Test(block_codec, random_bytes_come_back_exactly)
{
    /* every bit pattern of every field: random bytes, runs of equal
     * records, fields at their extremes, a full block */
    enum { N = GT_BLOCK_ROWS };
    uint8_t *rows = malloc((size_t)N * 72);
    cr_assert(rows);
    for (size_t k = 0; k < NLAYOUTS; k++) {
        const struct gt_block_layout *l = layouts[k];
        for (size_t i = 0; i < (size_t)N * l->size; i++)
            rows[i] = (uint8_t)next();
        round_trip(l, rows, N);
        for (int i = 0; i < N; i++) /* equal runs and extremes */
            if (i % 3)
                memcpy(rows + (size_t)i * l->size, rows + (size_t)(i - 1) * l->size, l->size);
            else if (i % 5 == 0)
                memset(rows + (size_t)i * l->size, i % 2 ? 0xff : 0x00, l->size);
        round_trip(l, rows, N);
        round_trip(l, rows, 1);
        for (int i = 0; i < N; i++) /* one byte off its neighbour, here and there */
            rows[(size_t)i * l->size + next() % l->size] ^= (uint8_t)(1u << (next() % 8));
        round_trip(l, rows, N);
    }
    free(rows);
}

Test(block_codec, a_loop_of_calls_takes_a_few_bytes_a_record)
{
    /* a thread calling cudaStreamQuery in a loop: a call every ~25 ns,
     * the next call id, the same stream and call site, its end its start */
    enum { N = 4096 };
    static struct gt_call_packed calls[N];
    static struct gt_gpu_packed ops[N];
    for (int i = 0; i < N; i++) {
        int64_t t = 1700000000000000000ll + i * 25 + (int64_t)(next() % 7);
        calls[i] = (struct gt_call_packed){ .start_ns = t, .end_ns = t, .stream = 0x5555deadbe00, .call_id = (7ll << 32) + i,
                                            .tid = 7, .callsite = 3, .api = 12 };
        /* kernels back to back on a stream, every third a new name */
        int64_t k = 1700000000000000000ll + i * 4000ll;
        ops[i] = (struct gt_gpu_packed){ .start_ns = k, .end_ns = k + 3000 + (int64_t)(next() % 500), .stream_id = 7,
                                         .context = 1, .name_id = (uint32_t)(40 + i % 3), .correlation = (uint32_t)(900 + 3 * i),
                                         .kind = 1 };
    }
    size_t call_bytes = round_trip(&gt_call_layout, (const uint8_t *)calls, N);
    size_t op_bytes = round_trip(&gt_gpu_layout, (const uint8_t *)ops, N);
    cr_assert_leq(call_bytes, (size_t)N * 4, "a call in 4 bytes at most (%zu for %d, 72 packed)", call_bytes, N);
    cr_assert_leq(op_bytes, (size_t)N * 9, "a kernel in 9 bytes at most (%zu for %d, 64 packed)", op_bytes, N);
}

Test(block_codec, packed_blocks_read_as_before)
{
    struct gt_capi_packed in[3] = { { .start_ns = 5, .end_ns = 9, .tid = 1, .cbid = 2, .correlation = 3 },
                                    { .start_ns = -1, .end_ns = 1 << 30, .result = 7, .domain = 2 },
                                    { .reserved = { 1, 2, 3 } } }, out;
    struct gt_block_cur c;
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, 3, in, (int)sizeof in), 3);
    for (int i = 0; i < 3; i++) {
        gt_block_next(&c, &out);
        cr_assert_eq(memcmp(&out, &in[i], sizeof out), 0, "record %d", i);
    }
    /* a wrong size, another format, n past an int, negative n, no data */
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, 2, in, (int)sizeof in), -1);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, 3, in, (int)sizeof in - 1), -1);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, 3, 3, in, (int)sizeof in), -1);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, 3 + (1ll << 32), in, (int)sizeof in), -1);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, 3 + (1ll << 61), in, (int)sizeof in), -1,
                 "n times the size wrapping to the blob's bytes");
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, -1, in, (int)sizeof in), -1);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_PACKED, 0, NULL, 0), -1);
}

Test(block_codec, a_damaged_compact_block_is_refused_whole)
{
    enum { N = 64 };
    struct gt_call_packed rows[N];
    for (size_t i = 0; i < sizeof rows; i++)
        ((uint8_t *)rows)[i] = (uint8_t)next();
    uint8_t code[N * 160];
    int bytes = (int)gt_block_encode(&gt_call_layout, rows, N, code);
    struct gt_block_cur c;
    cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_COMPACT, N, code, bytes), N);
    /* every shorter prefix, a byte more, a record more or fewer */
    for (int b = 0; b < bytes; b++) {
        uint8_t *cut = malloc(b > 0 ? (size_t)b : 1); /* b bytes: ASan sees a read past them */
        memcpy(cut, code, (size_t)b);
        cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_COMPACT, N, cut, b), -1, "cut to %d bytes", b);
        free(cut);
    }
    code[bytes] = 0;
    cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_COMPACT, N, code, bytes + 1), -1);
    cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_COMPACT, N + 1, code, bytes), -1);
    cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_COMPACT, N - 1, code, bytes), -1);
    /* the packed size read as compact, the compact one as packed */
    cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_PACKED, N, code, bytes), -1);
    /* a mask naming a field the layout lacks (capi: 8 fields, one byte) */
    uint8_t one[2] = { 0x00, 0x00 };
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, 1, one, 1), 1, "a record equal to its prediction");
    uint8_t call_mask[3] = { 0x00, 0x40, 0x05 }; /* bit 14: the call layout has 14 fields */
    cr_assert_eq(gt_block_open(&c, &gt_call_layout, GT_BLOCK_COMPACT, 1, call_mask, 3), -1);
    /* no more records than a writer puts in a block: a blob of zeros is
     * records equal to their predictions, a byte each here */
    static uint8_t zeros[GT_BLOCK_ROWS + 1];
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, GT_BLOCK_ROWS, zeros, GT_BLOCK_ROWS), GT_BLOCK_ROWS);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, GT_BLOCK_ROWS + 1, zeros, GT_BLOCK_ROWS + 1), -1);
    /* a varint of 11 bytes, and one of 10 (the longest there is) */
    uint8_t longv[12] = { 0x01 };
    memset(longv + 1, 0x80, 10);
    longv[11] = 0x01;
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, 1, longv, 12), -1);
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, 1, longv, 11), -1, "its last byte goes on");
    longv[10] = 0x01;
    cr_assert_eq(gt_block_open(&c, &gt_capi_layout, GT_BLOCK_COMPACT, 1, longv, 11), 1);
    struct gt_capi_packed r;
    gt_block_next(&c, &r); /* bits past 64 dropped, no undefined shift */
    cr_assert_eq(c.p, longv + 11);
}

Test(block_codec, random_bytes_never_read_past_the_block)
{
    /* what a damaged file can hold: refused, or read within its bytes */
    uint8_t out[72];
    int accepted = 0;
    for (int k = 0; k < 20000; k++) {
        int bytes = 1 + (int)(next() % 64);
        uint8_t *b = malloc((size_t)bytes);
        for (int i = 0; i < bytes; i++)
            b[i] = (uint8_t)(next() % 4 ? next() % 0x80 : next());
        const struct gt_block_layout *l = layouts[k % NLAYOUTS];
        int64_t n = (int64_t)(next() % 8);
        struct gt_block_cur c;
        int got = gt_block_open(&c, l, GT_BLOCK_COMPACT, n, b, bytes);
        if (got >= 0) {
            accepted++;
            cr_assert_eq(got, n);
            for (int i = 0; i < got; i++)
                gt_block_next(&c, out);
            cr_assert_eq(c.p, b + bytes, "an accepted block is read to its end exactly");
        }
        free(b);
    }
    cr_assert_gt(accepted, 50, "some of them are read (%d of 20000)", accepted);
}
