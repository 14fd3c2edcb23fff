/* mon_agg.h: monitor mode's aggregates of the whole job (docs/monitor.md),
 * kept by the writer thread as the records pass and stored in the
 * process's own file at each commit: the steps (mon_step), the host time
 * blocked per call site (mon_callsite), the collectives per communicator
 * and operation (mon_comm), and the heartbeat.  Bounded: past the
 * tables' room, new keys are counted in dropped_host, not kept.
 *
 * A step is a top-level push/pop NVTX range of the name the process has
 * repeated most (training loops mark their iterations so, and PyTorch's
 * profiler's ProfilerStep#N are not NVTX); the slowdown trigger compares
 * each step with the median of the ones before it. */
#ifndef GPUTRACE_MON_AGG_H
#define GPUTRACE_MON_AGG_H

#include "collector/db.h"

#include <stddef.h>
#include <stdint.h>

/* disk: the process's file; slowdown: GPUTRACE_SLOWDOWN (0: no slow
 * steps looked for). */
void gt_mon_agg_start(struct gt_db *disk, double slowdown);
void gt_mon_agg_blocking(int64_t callsite, int api, int64_t start_ns, int64_t end_ns);
/* A collective or point-to-point call entered: its slot in the
 * communicator table (for gt_mon_agg_comm_gpu), -1 if there was no room. */
int gt_mon_agg_collective(uint64_t comm_id, int api, int nranks, int64_t bytes, int64_t seq, int64_t start_ns);
/* The GPU time of one of a slot's kernels (mon_gpu.c), and the bytes of
 * the call it ran. */
void gt_mon_agg_comm_gpu(int slot, int64_t gpu_ns, int64_t bytes);
void gt_mon_agg_range(uint32_t name, int depth, int64_t start_ns, int64_t end_ns);
/* Stores what changed since the last call, and the heartbeat, in the
 * process's file (its own transaction). */
void gt_mon_agg_flush(void);
/* 1 when a step took more than GPUTRACE_SLOWDOWN times the median of up
 * to 31 steps before it (5 at least) since the last call, with the words
 * in out (the first such step) and, in *from_ns, when the first step of
 * the slow ones began (this process's clock). */
int gt_mon_agg_slow_step(char *out, size_t len, int64_t *from_ns);
/* What the metrics (mon_prom.c) read, on the writer thread. */
#define GT_STEP_BUCKETS 16
extern const double gt_step_bucket_le[GT_STEP_BUCKETS]; /* seconds; the last is +Inf */
struct gt_mon_steps {
    uint32_t name;                       /* the steps' NVTX name (a label id), 0 if none yet */
    int64_t count, sum_ns, last_ns;
    uint64_t bucket[GT_STEP_BUCKETS];    /* cumulative, as Prometheus has them */
};
void gt_mon_agg_steps(struct gt_mon_steps *out);
/* Each (call site, api) that blocked, and each (communicator, api). */
void gt_mon_agg_each_site(void (*fn)(int64_t callsite, int api, int64_t calls, int64_t total_ns, void *ctx), void *ctx);
#define GT_COMM_BUCKETS 14
extern const double gt_comm_bucket_le[GT_COMM_BUCKETS]; /* seconds; the last is +Inf */
struct gt_mon_comm {
    uint64_t comm_id;
    int api, nranks;
    int64_t calls, bytes;
    int64_t kernels, gpu_ns;            /* its kernels' GPU time, waits for peers included */
    double bus_bytes;                   /* bytes times the bus factor of the operation (nccl-tests') */
    uint64_t bucket[GT_COMM_BUCKETS];   /* each kernel's time, cumulative */
};
void gt_mon_agg_each_comm(void (*fn)(const struct gt_mon_comm *c, void *ctx), void *ctx);
/* nccl-tests' bus bandwidth factor of an operation (an api id) on n ranks. */
double gt_mon_bus_factor(int api, int nranks);
/* Lets go of its statements (before the file is closed). */
void gt_mon_agg_stop(void);
/* Keys the tables had no room for. */
uint64_t gt_mon_agg_lost(void);

#endif
