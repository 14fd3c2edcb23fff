/* nvtx_block.h: NVTX ranges and marks stored in bulk (row_block.h), in
 * table nvtx_range_block, when the writer falls behind: a row of
 * nvtx_range takes SQLite about 1.5 us, and a framework that marks every
 * operation can push ranges faster than that.  Start/end ranges stay rows
 * (their end updates the row).  gputrace-report reads both tables;
 * `gputrace expand FILE` turns the blocks into nvtx_range rows. */
#ifndef GPUTRACE_NVTX_BLOCK_H
#define GPUTRACE_NVTX_BLOCK_H

#include "format/row_block.h"

#include <stdint.h>

#define GT_NVTX_BLOCK_FORMAT 1 /* nvtx_range_block.format of this layout */
/* The payload type of a structured payload read into text: outside
 * nvtxPayloadType_t's scalar types (1..6) */
#define GT_NVTX_PAYLOAD_TEXT 100

/* One nvtx_range row, 56 bytes.  payload: the bits of a scalar payload of
 * type payload_type (nvtxPayloadType_t, 0 = none), or, for a structured
 * payload read into text (GT_NVTX_PAYLOAD_TEXT), the label id of the text. */
struct gt_nvtx_packed {
    int64_t start_ns, end_ns;
    uint64_t payload;
    uint32_t tid, domain, name, category;
    int32_t depth, payload_type;
    uint8_t kind; /* 1 push/pop range, 4 mark */
    uint8_t reserved[7];
};

_Static_assert(sizeof(struct gt_nvtx_packed) == 56, "the documented block layout");

static inline int gt_nvtx_block_valid(int64_t format, int64_t n, const void *data, int bytes)
{
    return gt_block_valid(format, GT_NVTX_BLOCK_FORMAT, n, data, bytes, sizeof(struct gt_nvtx_packed));
}

static inline struct gt_nvtx_packed gt_nvtx_block_row(const void *data, int i)
{
    struct gt_nvtx_packed r;
    gt_block_row(data, i, &r, sizeof r);
    return r;
}

#endif
