/* capi_block.h: CUPTI's runtime and driver API records (cupti_api rows)
 * stored in bulk (row_block.h), in table cupti_api_block.  CUPTI makes one
 * for every runtime call the program makes, beside the tracer's own record
 * of it, so a program calling fast doubles the rows the writer must store;
 * as rows (about 1.5 us each, and an index) they held the writer up until
 * the rings overflowed.  gputrace-report reads both tables; `gputrace
 * expand FILE` turns the blocks into cupti_api rows. */
#ifndef GPUTRACE_CAPI_BLOCK_H
#define GPUTRACE_CAPI_BLOCK_H

#include "format/row_block.h"

#include <stdint.h>

/* One cupti_api row, 40 bytes.  domain: 1 runtime, 2 driver; result: the
 * API's return value as CUPTI gives it (unsigned). */
struct gt_capi_packed {
    int64_t start_ns, end_ns;
    uint32_t tid, cbid, correlation, result;
    uint8_t domain;
    uint8_t reserved[7];
};

_Static_assert(sizeof(struct gt_capi_packed) == 40, "the documented block layout");
/* Read and written through format/block_codec.h, as gt_capi_layout. */

#endif
