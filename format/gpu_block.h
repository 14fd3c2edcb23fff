/* gpu_block.h: CUPTI's records of GPU work (gpu_op rows: kernels, copies,
 * memsets, synchronizations) stored in bulk (row_block.h), in table
 * gpu_op_block.  A program launching small kernels fast makes a kernel
 * record per launch; as rows (about 1.5 us each, and two indexes) they held
 * the writer up until CUPTI's buffers and the threads' rings overflowed.
 * gputrace-report reads both tables; `gputrace expand FILE` turns the
 * blocks into gpu_op rows (which the views and indexes need). */
#ifndef GPUTRACE_GPU_BLOCK_H
#define GPUTRACE_GPU_BLOCK_H

#include "format/row_block.h"

#include <stdint.h>

/* One gpu_op row, 64 bytes: the columns of gpu_op but process_id. */
struct gt_gpu_packed {
    int64_t start_ns, end_ns, bytes, stream_id;
    uint32_t context, name_id, correlation;
    int32_t device, event_id;
    uint8_t kind, copy_kind, src_kind, dst_kind, sync_type;
    uint8_t reserved[7];
};

_Static_assert(sizeof(struct gt_gpu_packed) == 64, "the documented block layout");
/* Read and written through format/block_codec.h, as gt_gpu_layout. */

#endif
