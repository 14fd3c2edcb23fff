/* sim_nccl_ce.h: NCCL 2.28's copy-engine collectives in the simulator
 * (sim_nccl_ce.c; docs/nccl-ce.md), called from a few lines of sim_nccl.c
 * and sim_nccl_comms.c. */
#ifndef GPUSIM_SIM_NCCL_CE_H
#define GPUSIM_SIM_NCCL_CE_H

#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stddef.h>

struct ncclComm;

/* The CE collectives of NCCL 2.28 (ncclCeImplemented, src/ce_coll.cc). */
enum sim_ce_func { SIM_CE_NONE = -1, SIM_CE_ALLGATHER, SIM_CE_ALLTOALL, SIM_CE_GATHER, SIM_CE_SCATTER };

/* A communicator's CTA policy from the config it was made with (a split
 * without one: its parent's). */
int sim_nccl_ce_policy(const ncclConfig_t *config, const struct ncclComm *parent);
/* A window registered (add 1) or deregistered (add 0) on c. */
void sim_nccl_ce_window(struct ncclComm *c, void *buff, size_t size, int flags, int add);
/* Whether NCCL 2.28 runs this collective on the copy engines
 * (src/enqueue.cc:2573-2582). */
int sim_nccl_ce_wanted(struct ncclComm *c, enum sim_ce_func f, const void *send, const void *recv, size_t count);
/* Issues it on stream, as ncclLaunchCeColl does: ready sync, one batch of
 * copies through the driver's cuMemcpyBatchAsync, complete sync. */
ncclResult_t sim_nccl_ce_launch(struct ncclComm *c, enum sim_ce_func f, const void *send, void *recv, size_t count,
                                ncclDataType_t dt, int root, cudaStream_t stream);

#endif
