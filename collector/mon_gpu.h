/* mon_gpu.h: monitor mode's live GPU ledger (docs/monitor.md, "Metrics"):
 * the process's GPU time since its first GPU work, split as the report's
 * ledger splits it, kept by the writer thread from CUPTI's records as
 * they arrive (monitor mode flushes CUPTI's completed buffers once a
 * second), and the same shares for the last step; and each NCCL kernel's
 * GPU time given to its collective's communicator and operation
 * (mon_agg.h), through CUPTI's external correlation of the NCCL call.
 *
 * What a process alone can tell, without the other ranks' records: GPU
 * work of its devices together (a process driving several GPUs: their
 * union); communication exposed, not split into waiting for a late peer
 * and transfer (the rank waiting longest in an NCCL kernel is the earliest
 * to arrive: across ranks, in PromQL, docs/prometheus-recording.yml);
 * GPU idle while the host was blocked in a call that waits for the GPU,
 * while it was elsewhere, or in gaps shorter than 100 us (launch
 * latency).  Time is accounted up to GT_MON_GPU_LAG_NS ago, so that the
 * records of work before it have arrived; a GPU hung inside a kernel
 * sends no record and its time reads as idle (the hang gauge says more). */
#ifndef GPUTRACE_MON_GPU_H
#define GPUTRACE_MON_GPU_H

#include <stdint.h>

#define GT_MON_GPU_LAG_NS 2000000000LL

enum gt_mon_state {
    GT_MS_COMPUTE,      /* kernels, no communication among them */
    GT_MS_COMM_HIDDEN,  /* communication with compute beside it */
    GT_MS_COMM_EXPOSED, /* communication alone */
    GT_MS_COPY,         /* copies or memsets alone */
    GT_MS_IDLE_BLOCKED, /* idle, the host blocked in a call that waits for the GPU */
    GT_MS_IDLE_HOST,    /* idle, the host elsewhere (data loading, Python, ...) */
    GT_MS_IDLE_LAUNCH,  /* idle gaps under 100 us between GPU work */
    GT_MS_NOT_RECORDED, /* no records: the program's own profiler held CUPTI (gt_mon_gpu_unrecorded) */
    GT_MS_COUNT
};
/* The ledger's names of those states (the report's bucket names where
 * one is the same). */
extern const char *const gt_mon_state_names[GT_MS_COUNT];

struct gt_mon_gpu {
    int64_t ns[GT_MS_COUNT];      /* since the first GPU work, up to the accounted time */
    int64_t step_ns[GT_MS_COUNT]; /* the last step accounted */
    int64_t step_len;             /* its length; 0: none yet */
};

void gt_mon_gpu_start(void);
void gt_mon_gpu_stop(void);
/* A GPU operation from CUPTI: kind as format/schema.h's gt_gpu_kind; name:
 * a kernel's, else NULL. */
void gt_mon_gpu_op(int kind, const char *name, int64_t start_ns, int64_t end_ns, uint32_t correlation);
/* CUPTI's external correlation: the NCCL call (or group) external was
 * pushed around launched the work of this correlation id. */
void gt_mon_gpu_xcorr(uint64_t external, uint32_t correlation);
/* An NCCL call stored by the writer: its id (and its group's, 0 if
 * none), the communicator table's slot (mon_agg.h) and its bytes. */
void gt_mon_gpu_call(uint64_t call_id, uint64_t group_id, int slot, int64_t bytes);
/* A call that may block returned, and a step ended. */
void gt_mon_gpu_blocked(int64_t start_ns, int64_t end_ns);
void gt_mon_gpu_step(int64_t start_ns, int64_t end_ns);
/* A call that enqueues GPU work of its own (a kernel launch, an
 * asynchronous copy or memset: cupti_work.h), from CUPTI's record of the
 * call: when it began, and its correlation id.  One whose work has no
 * record, made at most GT_MON_GPU_INFLIGHT_NS before the program's
 * profiler took CUPTI, is taken as in flight then (below; a call that
 * enqueued nothing after all, such as a copy of 0 bytes, is taken so
 * too, as the report takes it). */
void gt_mon_gpu_launch(int64_t start_ns, uint32_t correlation);
#define GT_MON_GPU_INFLIGHT_NS 100000000LL
/* The records CUPTI said it dropped so far: where any were, nothing is
 * read back (a missing record says nothing then). */
void gt_mon_gpu_cupti_dropped(uint64_t n);
/* The stretches the program's own profiler held CUPTI (cupti_sub.h,
 * gt_cupti_gaps: from, to; to 0 while it holds it), n of them, oldest
 * first: no GPU records then, neither work nor idle.  The last 64 are
 * kept, until the next call.  The tracer hands CUPTI over with a forced
 * flush, which loses the records of work queued or running then: a
 * stretch begins where that work did (the earliest such launch, or the
 * end of the last work recorded before the hand-over, whichever is
 * later), as the report's does (viewer/read/gap_inflight.c), and not
 * where records were lost. */
void gt_mon_gpu_unrecorded(const int64_t (*v)[2], int n);
/* Accounts the time up to upto_ns; blocked_from: the starts of the
 * blocking calls still in flight (n of them). */
void gt_mon_gpu_account(int64_t upto_ns, const int64_t *blocked_from, int n);
void gt_mon_gpu_read(struct gt_mon_gpu *out);
/* Records it had no room for. */
uint64_t gt_mon_gpu_lost(void);

#endif
