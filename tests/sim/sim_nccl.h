/* sim_nccl.h: internals shared by the simulator's NCCL files.
 *
 * A communicator lives in a POSIX shared-memory segment that every rank maps:
 * a process-shared mutex and condition variable, two barriers (one for GPU
 * work on stream threads, one for host-side exchanges such as ncclCommSplit,
 * so that the two never interleave), per-rank staging slots for collectives
 * and per-pair mailboxes for send/recv.
 */
#ifndef GPUSIM_SIM_NCCL_H
#define GPUSIM_SIM_NCCL_H

#include <nccl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define SIM_NCCL_SLOT_BYTES (256u << 10)
#define SIM_NCCL_MBOX_BYTES (64u << 10)

/* released_ns: CLOCK_MONOTONIC when the last member arrived (machine-wide),
 * the instant a real GPU's collective would end on every rank at once */
struct sim_barrier { int arrived; uint64_t generation, released_ns; };
struct sim_mbox { int full; size_t len; };

struct sim_shm_comm {
    atomic_int ready;          /* set by the creator once the rest is initialised */
    int nranks;
    pthread_mutex_t mu;        /* process-shared, robust; guards everything below */
    pthread_cond_t cv;         /* process-shared */
    struct sim_barrier gpu_bar;
    struct sim_barrier host_bar;
    /* followed by: int exch[2 * nranks]; struct sim_mbox mbox[nranks*nranks];
     * slots[nranks][SLOT]; mbox data[nranks*nranks][MBOX] */
};

struct ncclComm {
    struct sim_shm_comm *shm;
    size_t map_size;
    int nranks, rank, device;
    ncclUniqueId id;
    unsigned splits;           /* how many splits this rank made of it */
    int *exch;
    struct sim_mbox *mbox;
    char *slots;
    char *mbox_data;
    atomic_int async;          /* what ncclCommGetAsyncError says: ncclInProgress while a
                                * non-blocking init, split or shrink runs (sim_nccl_comms.c) */
    int nonblocking;           /* made with config.blocking = 0: its splits inherit it */
    int cta_policy;            /* config.CTAPolicy (sim_nccl_ce.c): NCCL_CTA_POLICY_ZERO runs CE collectives */
};

/* Maps (creating if first) the segment for id; with barrier, waits for all
 * nranks ranks to arrive.  Returns NULL on failure. */
struct ncclComm *sim_comm_attach(const ncclUniqueId *id, int nranks, int rank, int device, int barrier);
void sim_comm_detach(struct ncclComm *c);
void sim_comm_unlink(const ncclUniqueId *id);
uint64_t sim_comm_barrier(struct ncclComm *c, int host); /* the release instant (mono ns) */
void sim_comm_lock(struct ncclComm *c);
void sim_comm_unlock(struct ncclComm *c);
void sim_comm_wait(struct ncclComm *c);      /* cond wait; caller holds the lock */
void sim_comm_signal(struct ncclComm *c);    /* broadcast; caller holds the lock */
char *sim_comm_slot(struct ncclComm *c, int rank);
char *sim_comm_mbox_data(struct ncclComm *c, int src, int dst);
struct sim_mbox *sim_comm_mbox(struct ncclComm *c, int src, int dst);

/* A communicator made as config says, blocking or not (sim_nccl_comms.c):
 * for ncclCommInitRank* (parent NULL: *out is set at once) and for splits
 * and shrinks of parent (non-blocking: *out once it is made). */
ncclResult_t sim_nccl_make_comm(ncclComm_t *out, const ncclUniqueId *id, int nranks, int rank, int device,
                                const ncclConfig_t *config, struct ncclComm *parent);

/* Reductions: dst[i] = dst[i] op src[i] for n elements; returns -1 for an
 * unsupported type or op. */
size_t sim_nccl_type_size(ncclDataType_t t);
int sim_nccl_reduce(void *dst, const void *src, size_t n, ncclDataType_t t, ncclRedOp_t op);
int sim_nccl_divide(void *dst, size_t n, ncclDataType_t t, int by); /* for ncclAvg */
const char *sim_nccl_type_name(ncclDataType_t t);
const char *sim_nccl_op_name(ncclRedOp_t op);
/* The first point-to-point call from this rank to peer blocks while the
 * pair connects (sim_nccl_connect.c). */
void sim_nccl_connect(struct ncclComm *c, int peer);

#endif
