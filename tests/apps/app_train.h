/* app_train.h: the data-parallel training step that the workloads share.
 *
 * Every workload in tests/apps is this step with one or more problems
 * planted (see struct plant).  With nothing planted it is the
 * well-overlapped pattern:
 *   - the batch is uploaded from pinned memory on a copy stream, ordered
 *     before forward by an event;
 *   - backward runs in buckets; after each bucket its gradients are
 *     all-reduced on a communication stream while the next bucket computes;
 *     the last all-reduce overlaps an independent kernel;
 *   - the loss is copied to pinned memory asynchronously and read a step
 *     later, once cudaEventQuery says it is there;
 *   - one event wait at the end.
 * Its phases are NVTX ranges, as a framework would mark them: "setup"
 * (pushed before the first CUDA call), then per step "train_step" around
 * "forward", "backward", "optimizer.step", "log_loss" and "log_metrics".
 * Workloads run as ranks under tests/sim/gpusim-run (RANK, WORLD_SIZE, ...).
 * APP_STEPS sets the number of steps (12), APP_BATCH_MB the batch's size
 * (1 MiB), APP_WARMUP_MS a first step that takes that much longer in
 * forward (a compile) on rank APP_WARMUP_RANK (every rank unset), and
 * APP_FIX=1 runs the twin: each planted problem fixed as its finding
 * suggests (tests/e2e/report_twins.py).
 */
#ifndef GPUTRACE_APP_TRAIN_H
#define GPUTRACE_APP_TRAIN_H

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK_CUDA(x) do {                                                          \
        cudaError_t e_ = (x);                                                       \
        if (e_ != cudaSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

#define CHECK_NCCL(x) do {                                                          \
        ncclResult_t r_ = (x);                                                      \
        if (r_ != ncclSuccess) {                                                    \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, ncclGetErrorString(r_)); \
            exit(1);                                                                \
        }                                                                           \
    } while (0)

struct plant {
    int scalar_read;        /* .item(): async D2H of the loss + cudaStreamSynchronize each step */
    int device_sync;        /* cudaDeviceSynchronize each step to read a 64 KiB metrics buffer */
    int pageable_upload;    /* batch uploaded from malloc'd memory */
    int upload_on_compute;  /* batch uploaded on the compute stream instead of the copy stream */
    int allreduce_on_compute; /* gradient all-reduces on the compute stream */
    int straggler_rank;     /* this rank does 15 ms of extra host work per step (-1: none) */
    int desync_step;        /* at this step, rank 1 all-reduces half the count (-1: none) */
    int hang_step;          /* at this step, the last rank stops before the all-reduce (-1: none) */
    int hang_inside_step;   /* at this step, the last rank's GPU hangs in a kernel before its first all-reduce,
                             * which every rank has entered (-1: none) */
    int step_host_us;       /* every rank does this much host work in each step's forward (0: none) */
    int slow_rank;          /* from step slow_from_step on (until slow_until_step, 0: to the end), this rank
                             * does slow_us more (-1: none; SLOW_EVERY_RANK: every rank alike) */
    int slow_from_step, slow_until_step, slow_us;
    int data_stall_us;      /* every rank waits this long on the host for its batch (a data loader too slow,
                             * range "load_batch") before each step's forward (0: none) */
    int backward_thread;    /* not a problem: backward's launches and all-reduces made by a thread of their
                             * own, the main thread handing over and waiting, as PyTorch's autograd engine
                             * does (its own cudaSetDevice first) */
};

#define SLOW_EVERY_RANK (-2)
#define PLANT_NONE { 0, 0, 0, 0, 0, -1, -1, -1, -1, 0, -1, 0, 0, 0, 0, 0 }

/* Runs the training loop with the given problems planted; returns the exit
 * status for main. */
int app_train(const struct plant *p);

#endif
