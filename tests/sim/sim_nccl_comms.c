/* sim_nccl_comms.c: the simulated NCCL's communicators beyond
 * ncclCommInitRank/ncclCommSplit (sim_nccl.c): ncclCommInitRankScalable,
 * ncclCommShrink, non-blocking communicators, and the memory, registration
 * and reduction-operator entry points, as NCCL 2.28 documents them.
 *
 * Non-blocking (ncclConfig_t.blocking = 0), as NCCL does it:
 *   - ncclCommInitRankConfig / ncclCommInitRankScalable store the new
 *     communicator in *newcomm at once and return ncclInProgress;
 *     ncclCommGetAsyncError on it says ncclInProgress until it is made;
 *   - ncclCommSplit / ncclCommShrink return ncclInProgress with *newcomm
 *     NULL; the communicator is stored there once it is made, and
 *     ncclCommGetAsyncError on the parent says ncclInProgress until then.
 * A communicator that is not ready refuses operations (ncclInvalidArgument).
 * The making runs on a thread of its own, after SIM_ASYNC_INIT_US, so that
 * ncclInProgress is seen.
 */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_nccl.h"
#include "sim_nccl_profiler.h"
#include "sim_nccl_ce.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SIM_ASYNC_INIT_US 3000

static int nonblocking(const ncclConfig_t *config)
{
    return config && config->blocking == 0;
}

struct job {
    ncclUniqueId id;
    int nranks, rank, device;
    struct ncclComm *shell;  /* init: the communicator handed out already */
    ncclComm_t *newcomm;     /* split, shrink: where it goes once made */
    struct ncclComm *parent; /* split, shrink: whose state says when */
    int cta_policy;
};

/* Every field of c into shell but its state, which readers load meanwhile. */
static void fill_shell(struct ncclComm *shell, const struct ncclComm *c)
{
    size_t at = offsetof(struct ncclComm, async), end = at + sizeof shell->async;
    memcpy(shell, c, at);
    memcpy((char *)shell + end, (const char *)c + end, sizeof *c - end);
}

static void *make_async(void *arg)
{
    struct job *j = arg;
    usleep(SIM_ASYNC_INIT_US);
    struct ncclComm *c = sim_comm_attach(&j->id, j->nranks, j->rank, j->device, 1);
    if (c) {
        c->nonblocking = 1;
        c->cta_policy = j->cta_policy;
    }
    if (j->shell) {
        if (c) {
            fill_shell(j->shell, c);
            free(c); /* its mapping is the shell's now */
            sim_np_comm_init(j->shell); /* once it is ready, as NCCL tells its plugin */
        }
        atomic_store(&j->shell->async, c ? ncclSuccess : ncclSystemError);
    } else {
        sim_np_comm_init(c);
        __atomic_store_n(j->newcomm, c, __ATOMIC_RELEASE);
        atomic_store(&j->parent->async, c ? ncclSuccess : ncclSystemError);
    }
    free(j);
    return NULL;
}

static ncclResult_t start(struct job *j)
{
    pthread_t t;
    pthread_attr_t a;
    pthread_attr_init(&a);
    pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
    int rc = pthread_create(&t, &a, make_async, j);
    pthread_attr_destroy(&a);
    return rc ? ncclSystemError : ncclInProgress;
}

/* A new communicator of nranks with id, for ncclCommInitRank* (out: set at
 * once) and for splits and shrinks (parent: not NULL). */
ncclResult_t sim_nccl_make_comm(ncclComm_t *out, const ncclUniqueId *id, int nranks, int rank, int device,
                                const ncclConfig_t *config, struct ncclComm *parent)
{
    /* a split or shrink without a config inherits its parent's */
    if (!(config ? nonblocking(config) : parent && parent->nonblocking)) {
        *out = sim_comm_attach(id, nranks, rank, device, 1);
        if (*out)
            (*out)->cta_policy = sim_nccl_ce_policy(config, parent);
        sim_np_comm_init(*out); /* NCCL's profiler plugin hears of it (sim_nccl_profiler.c) */
        return *out ? ncclSuccess : ncclSystemError;
    }
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return ncclSystemError;
    *j = (struct job){ .id = *id, .nranks = nranks, .rank = rank, .device = device,
                       .cta_policy = sim_nccl_ce_policy(config, parent) };
    if (parent) {
        *out = NULL;
        j->newcomm = out;
        j->parent = parent;
        atomic_store(&parent->async, ncclInProgress);
    } else {
        j->shell = calloc(1, sizeof *j->shell);
        if (!j->shell) {
            free(j);
            return ncclSystemError;
        }
        j->shell->nranks = nranks;
        j->shell->rank = rank;
        j->shell->device = device;
        j->shell->id = *id;
        j->shell->nonblocking = 1;
        atomic_store(&j->shell->async, ncclInProgress);
        *out = j->shell;
    }
    return start(j);
}

/* Every rank passes the same ids in the same order: the first names the
 * communicator (NCCL uses the others to spread the bootstrap). */
ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId, ncclUniqueId *commIds,
                                      ncclConfig_t *config)
{
    if (nId <= 0 || nId > nranks)
        return ncclInvalidArgument;
    if (!newcomm || !commIds || nranks < 1 || myrank < 0 || myrank >= nranks)
        return ncclInvalidArgument;
    return sim_nccl_make_comm(newcomm, &commIds[0], nranks, myrank, sim_current_device(), config, NULL);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

/* The excluded ranks do not call it; the others keep their order. */
ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount, ncclComm_t *newcomm,
                            ncclConfig_t *config, int shrinkFlags)
{
    if (!comm || !newcomm || !excludeRanksList || excludeRanksCount <= 0)
        return ncclInvalidArgument;
    if (shrinkFlags & ~NCCL_SHRINK_ABORT)
        return ncclInvalidArgument;
    if (atomic_load(&comm->async) != ncclSuccess)
        return ncclInvalidArgument;
    qsort(excludeRanksList, (size_t)excludeRanksCount, sizeof(int), cmp_int); /* as NCCL does, in place */
    int below = 0;
    for (int i = 0; i < excludeRanksCount; i++) {
        int r = excludeRanksList[i];
        if (r < 0 || r >= comm->nranks || (i > 0 && r == excludeRanksList[i - 1]))
            return ncclInvalidArgument;
        if (r == comm->rank)
            return ncclInvalidArgument;
        below += r < comm->rank;
    }
    unsigned nth = comm->splits++;
    ncclUniqueId id = comm->id;
    uint64_t s = nth, x = 0;
    for (int i = 0; i < excludeRanksCount; i++)
        x = x * 1000003u + (uint64_t)excludeRanksList[i] + 1;
    memcpy(id.internal + 72, &s, sizeof s);
    memcpy(id.internal + 80, &x, sizeof x);
    id.internal[89]++; /* a shrink's, where a split's counts at 88 */
    *newcomm = NULL;
    return sim_nccl_make_comm(newcomm, &id, comm->nranks - excludeRanksCount, comm->rank - below, comm->device,
                              config, comm);
}

/* NCCL's profiling interface: every entry point is also exported as
 * pnccl..., of which the nccl... name is an alias; a call of the pnccl
 * name reaches the implementation without passing the nccl one (so not
 * through an interposed wrapper of it either).  Only the one a test needs
 * is modelled. */
ncclResult_t pncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    return sim_nccl_make_comm(comm, &commId, nranks, rank, sim_current_device(), NULL, NULL);
}

/* The simulator's operations are done when their stream is: nothing to
 * wait for beyond the caller's own syncs; NULL is accepted, as NCCL 2.28.9
 * accepts it. */
ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    (void)comm;
    return ncclSuccess;
}

ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags)
{
    (void)comm;
    return revokeFlags == NCCL_REVOKE_DEFAULT ? ncclSuccess : ncclInvalidArgument;
}

/* ---- memory, registration, reduction operators ---------------------------- */

ncclResult_t ncclMemAlloc(void **ptr, size_t size)
{
    if (!ptr)
        return ncclInvalidArgument;
    return cudaMalloc(ptr, size) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

ncclResult_t ncclMemFree(void *ptr)
{
    return cudaFree(ptr) == cudaSuccess ? ncclSuccess : ncclUnhandledCudaError;
}

/* A registration handle: what NCCL gives back is opaque to the program. */
struct sim_reg { void *buff; size_t size; };

ncclResult_t ncclCommRegister(const ncclComm_t comm, void *buff, size_t size, void **handle)
{
    if (!comm || !handle)
        return ncclInvalidArgument;
    struct sim_reg *r = malloc(sizeof *r);
    if (!r)
        return ncclSystemError;
    *r = (struct sim_reg){ buff, size };
    *handle = r;
    return ncclSuccess;
}

ncclResult_t ncclCommDeregister(const ncclComm_t comm, void *handle)
{
    if (!comm || !handle)
        return ncclInvalidArgument;
    free(handle);
    return ncclSuccess;
}

struct ncclWindow_vidmem { void *buff; size_t size; int flags; };

/* Collective: every member registers its window before any returns. */
ncclResult_t ncclCommWindowRegister(ncclComm_t comm, void *buff, size_t size, ncclWindow_t *win, int winFlags)
{
    if (!comm || !win || atomic_load(&comm->async) != ncclSuccess)
        return ncclInvalidArgument;
    struct ncclWindow_vidmem *w = malloc(sizeof *w);
    if (!w)
        return ncclSystemError;
    *w = (struct ncclWindow_vidmem){ buff, size, winFlags };
    sim_comm_barrier(comm, 1);
    sim_nccl_ce_window(comm, buff, size, winFlags, 1);
    *win = w;
    return ncclSuccess;
}

ncclResult_t ncclCommWindowDeregister(ncclComm_t comm, ncclWindow_t win)
{
    if (!comm || !win)
        return ncclInvalidArgument;
    sim_comm_barrier(comm, 1);
    sim_nccl_ce_window(comm, win->buff, win->size, win->flags, 0);
    free(win);
    return ncclSuccess;
}

/* Operators past ncclNumOps: created and destroyed; the simulator's
 * collectives do not reduce with them (they refuse them). */
static atomic_int next_op = ncclNumOps;

ncclResult_t ncclRedOpCreatePreMulSum(ncclRedOp_t *op, void *scalar, ncclDataType_t datatype,
                                      ncclScalarResidence_t residence, ncclComm_t comm)
{
    if (!op || !scalar || !comm || !sim_nccl_type_size(datatype) ||
        (residence != ncclScalarDevice && residence != ncclScalarHostImmediate))
        return ncclInvalidArgument;
    *op = (ncclRedOp_t)atomic_fetch_add(&next_op, 1);
    return ncclSuccess;
}

ncclResult_t ncclRedOpDestroy(ncclRedOp_t op, ncclComm_t comm)
{
    if (!comm || (int)op < ncclNumOps)
        return ncclInvalidArgument;
    return ncclSuccess;
}
