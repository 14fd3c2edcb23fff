/* row_block.h: what the bulk-stored tables share (call_block.h,
 * nvtx_block.h, capi_block.h, gpu_block.h): a row of (process_id, format,
 * n, data) holds n records of one fixed struct, packed or compact
 * (block_codec.h), so that a writer falling behind stores a BLOB where it
 * would have stored thousands of rows.  The layouts are documented in
 * docs/schema.md. */
#ifndef GPUTRACE_ROW_BLOCK_H
#define GPUTRACE_ROW_BLOCK_H

#include "format/block_codec.h" /* how a block's records are laid out, and read */

#define GT_BLOCK_ROWS 4096 /* records per block at most */

#endif
