/* row_block.h: what the bulk-stored tables share (call_block.h,
 * nvtx_block.h): a row of (process_id, format, n, data) holds n packed
 * records of one fixed layout, so that a writer falling behind stores a
 * BLOB where it would have stored thousands of rows.  The layouts are the
 * host's (little-endian) and documented in docs/schema.md. */
#ifndef GPUTRACE_ROW_BLOCK_H
#define GPUTRACE_ROW_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GT_BLOCK_ROWS 4096 /* records per block at most */

/* Whether a block (format, n, blob size) holds n records of `size` bytes
 * in the layout `want`, and nothing else: another layout, or a damaged row,
 * is not guessed at.  format and n are the file's 64-bit integers, taken
 * whole (cut to 32 bits, 2^32 + 1 records would pass as one, and the
 * rest of the blob be dropped unread); the writer stores exactly n
 * records, so a blob longer than that is damaged too. */
static inline int gt_block_valid(int64_t format, int want, int64_t n, const void *data, int bytes, size_t size)
{
    return format == want && n >= 0 && data && bytes >= 0 && (uint64_t)bytes == (uint64_t)n * size;
}

/* Record i of a block (a blob has no alignment promise: copied out). */
static inline void gt_block_row(const void *data, int i, void *out, size_t size)
{
    memcpy(out, (const char *)data + (size_t)i * size, size);
}

#endif
