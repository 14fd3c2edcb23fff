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
/* Read and written through format/block_codec.h, as gt_nvtx_layout. */

#endif
