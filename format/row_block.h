/* row_block.h: what the bulk-stored tables share (call_block.h,
 * nvtx_block.h): a row of (process_id, format, n, data) holds n packed
 * records of one fixed layout, so that a writer falling behind stores a
 * BLOB where it would have stored thousands of rows.  The layouts are the
 * host's (little-endian) and documented in docs/schema.md. */
#ifndef GPUTRACE_ROW_BLOCK_H
#define GPUTRACE_ROW_BLOCK_H

#include <stddef.h>
#include <string.h>

#define GT_BLOCK_ROWS 4096 /* records per block at most */

/* Whether a block (format, n, blob size) holds n records of `size` bytes
 * in the layout `want`: another layout, or a damaged row, is not guessed at. */
static inline int gt_block_valid(int format, int want, int n, const void *data, int bytes, size_t size)
{
    return format == want && n >= 0 && data && (size_t)bytes >= (size_t)n * size;
}

/* Record i of a block (a blob has no alignment promise: copied out). */
static inline void gt_block_row(const void *data, int i, void *out, size_t size)
{
    memcpy(out, (const char *)data + (size_t)i * size, size);
}

#endif
