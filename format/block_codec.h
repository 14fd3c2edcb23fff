/* block_codec.h: the bulk blocks' two layouts, and reading either.
 *
 * A block (row_block.h) holds n records of one fixed struct.  Packed
 * (format 1) it is the structs as they are; compact (format 2, what the
 * tracer writes) each record is a bit mask and varints: for each field,
 * whether it differs from its prediction (the same field of the record
 * before, that plus one, or another field of the same record) and by how
 * much, zigzag-coded.  A call block of a program calling in a loop takes
 * 3-5 bytes a record instead of 72: the writer's cost was mostly bytes
 * (SQLite's insert, its WAL and the checkpoint copying them a second
 * time), and a file fills a fifth as fast.  Every byte of the struct is
 * some field's, so decoding gives back the packed record exactly.
 *
 * Blocks are untrusted input: gt_block_open checks the whole block (its
 * layout, n records and nothing else, no varint running past the end)
 * before a record is read, so that a damaged block is skipped whole, as a
 * packed one of the wrong size is, never half read.  The layouts are
 * documented in docs/schema.md. */
#ifndef GPUTRACE_BLOCK_CODEC_H
#define GPUTRACE_BLOCK_CODEC_H

#include <stddef.h>
#include <stdint.h>

#define GT_BLOCK_PACKED 1  /* a block's format: the structs as they are */
#define GT_BLOCK_COMPACT 2 /* ... or a mask and varints a record */
#define GT_BLOCK_MAX_FIELDS 16

/* What a field is predicted to be. */
enum gt_block_pred {
    GT_PRED_PREV = 0, /* the field of the record before (0 for the first) */
    GT_PRED_NEXT = 1, /* that plus one (ids and sequence numbers) */
    GT_PRED_FIELD = 2 /* field `ref` (an earlier one) of this record: an end from its start */
};

struct gt_block_field {
    uint8_t off, size; /* bytes into the struct; 1 to 8 */
    uint8_t pred, ref; /* enum gt_block_pred; GT_PRED_FIELD: which field */
};

struct gt_block_cur;
struct gt_block_layout {
    const char *what;      /* "call", for messages */
    uint16_t size;         /* of the packed struct */
    uint8_t nfields;
    const struct gt_block_field *f; /* in order of offset, covering every byte once */
    /* the encoder and decoder made for these fields (block_codec.c) */
    size_t (*encode)(const void *rows, int n, void *out);
    void (*next)(struct gt_block_cur *c, void *out);
};

extern const struct gt_block_layout gt_call_layout; /* struct gt_call_packed (call_block.h) */
extern const struct gt_block_layout gt_gpu_layout;  /* struct gt_gpu_packed (gpu_block.h) */
extern const struct gt_block_layout gt_capi_layout; /* struct gt_capi_packed (capi_block.h) */
extern const struct gt_block_layout gt_nvtx_layout; /* struct gt_nvtx_packed (nvtx_block.h) */

/* The most bytes n records of l can take compact. */
size_t gt_block_bound(const struct gt_block_layout *l, int n);
/* Writes n packed records compact into out (gt_block_bound bytes at
 * least); returns the bytes written. */
size_t gt_block_encode(const struct gt_block_layout *l, const void *rows, int n, void *out);

/* Reads a block's records in order. */
struct gt_block_cur {
    const struct gt_block_layout *l;
    const uint8_t *p;
    void (*next)(struct gt_block_cur *c, void *out); /* the layout's own decoder */
    uint64_t prev[GT_BLOCK_MAX_FIELDS];
};

/* Opens a block as a row stores it (format, n, data, its bytes): returns
 * n when it holds exactly n records of l, packed or compact, and nothing
 * else, n at most GT_BLOCK_ROWS (row_block.h); -1 otherwise (another
 * format, a wrong size, a damaged varint). */
int gt_block_open(struct gt_block_cur *c, const struct gt_block_layout *l, int64_t format, int64_t n,
                  const void *data, int bytes);
/* The next record, into out (l->size bytes): as many times as open said. */
static inline void gt_block_next(struct gt_block_cur *c, void *out)
{
    c->next(c, out);
}

#endif
