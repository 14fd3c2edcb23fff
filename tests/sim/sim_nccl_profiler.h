/* sim_nccl_profiler.h: the simulated NCCL's profiler plugin loader
 * (sim_nccl_profiler.c), called from a few lines of sim_nccl.c.  Every
 * function does nothing when no plugin is loaded. */
#ifndef GPUSIM_SIM_NCCL_PROFILER_H
#define GPUSIM_SIM_NCCL_PROFILER_H

#include <stddef.h>

struct ncclComm;
struct sim_np_op; /* one operation's events, from its enqueue to its kernel's end */

void sim_np_comm_init(struct ncclComm *c); /* a communicator was made (loads the plugin first) */
void sim_np_comm_fini(struct ncclComm *c); /* ... is being destroyed */
/* The Coll/P2p API event around one call (v5), on the caller's thread. */
void *sim_np_api_start(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root, void *stream,
                       int p2p);
void sim_np_api_stop(void *h);
/* The task event of an operation being enqueued (an all-to-all, gather or
 * scatter: its send/recv tasks, as NCCL's kernel path makes them); stop it
 * before the kernel can run (NCCL stops it once the proxy ops are posted). */
struct sim_np_op *sim_np_task(struct ncclComm *c, const char *func, size_t count, const char *dtype, int root_peer,
                              int p2p, int is_send, void *api, void *stream);
void sim_np_task_stop(struct sim_np_op *op);
/* From the stream thread running the kernel: it starts (waits for its
 * peers), its peers arrived (data on the network), it ended (op freed). */
void sim_np_kernel_begin(struct sim_np_op *op);
void sim_np_kernel_net(struct sim_np_op *op);
void sim_np_kernel_end(struct sim_np_op *op);
/* A type's name as NCCL's ncclDatatypeToString spells it. */
const char *sim_np_dtype(int dt);

#endif
