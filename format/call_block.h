/* call_block.h: wrapped calls stored in bulk, as packed binary rows.
 *
 * SQLite takes a row in about 1.5 µs; a program can make calls faster than
 * that.  When the records waiting in the rings pile up past a threshold,
 * the writer stores calls as blocks of packed rows, one BLOB per block, in
 * table api_call_block, instead of one api_call row each: nothing is
 * dropped for want of writer time.  gputrace-report reads both tables;
 * `gputrace expand FILE` turns the blocks into api_call rows for SQL users.
 * The layout is shared by the writer, the report and `gputrace expand`,
 * and documented in docs/schema.md.
 */
#ifndef GPUTRACE_CALL_BLOCK_H
#define GPUTRACE_CALL_BLOCK_H

#include "format/row_block.h"

#include <stdint.h>

/* api_call.stream of a call the tracer saw in a CUPTI callback whose
 * stream it cannot tell (a copy's): the report takes it from CUPTI's record
 * of the call's work.  No handle a program holds has this value (its top
 * byte is 0x7e). */
#define GT_STREAM_UNKNOWN ((int64_t)0x7e00010000000000LL)
#define GT_CALL_BLOCK_ROWS GT_BLOCK_ROWS   /* rows per block at most */

/* One api_call row, little-endian as the host writes it, 72 bytes. */
struct gt_call_packed {
    int64_t start_ns, end_ns, stream, event, bytes, call_id;
    uint32_t tid, callsite, pystack;
    int32_t result;
    uint16_t api;
    uint8_t copy_kind, mem_kind;
    uint32_t reserved;
};

_Static_assert(sizeof(struct gt_call_packed) == 72, "the documented block layout");
/* Read and written through format/block_codec.h, as gt_call_layout. */

#endif
