/* cupti_work.h: which of CUPTI's API records are calls that enqueue GPU
 * work of their own (a kernel launch, a graph launch, an asynchronous copy
 * or memset), whose operation records come under the same correlation id
 * (none where it enqueued nothing after all: a copy of 0 bytes, a launch
 * into a stream being captured, a graph of no kernel, copy or memset).
 * Monitor mode's live ledger reads a hand-over's work in flight from them
 * (mon_gpu.h, gt_mon_gpu_launch), as the report does from the calls
 * (viewer/read/gap_inflight.c). */
#ifndef GPUTRACE_CUPTI_WORK_H
#define GPUTRACE_CUPTI_WORK_H

#include <stdint.h>

/* runtime: 1 for the runtime API's callback ids, 0 for the driver's. */
int gt_cupti_enqueues_work(int runtime, uint32_t cbid);

#endif
