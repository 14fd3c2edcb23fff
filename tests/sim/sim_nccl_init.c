/* sim_nccl_init.c: the simulated NCCL's communicators as the public API
 * makes them: unique ids, ncclCommInitRank(Config) and InitAll, split,
 * destroy and abort, and the queries (split from sim_nccl.c, which runs
 * the operations; the shared-memory segment behind a communicator is
 * sim_nccl_shm.c's). */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_nccl.h"
#include "sim_nccl_profiler.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Id layout: "gpusimID", the launcher's session token (40 bytes), a counter
 * at 64, and for split communicators the parent's split count and colour at
 * 72 and 80.  Equal on every rank that makes the same calls in the same order. */
static void make_id(ncclUniqueId *id, const char *kind, uint64_t counter)
{
    memset(id, 0, sizeof *id);
    memcpy(id->internal, "gpusimID", 8);
    const char *session = getenv("GPUSIM_SESSION");
    char pidbuf[32];
    if (!session || !*session) {
        snprintf(pidbuf, sizeof pidbuf, "p%d", (int)getpid());
        session = pidbuf;
    }
    snprintf(id->internal + 8, 40, "%s", session);
    memcpy(id->internal + 64, &counter, sizeof counter);
    snprintf(id->internal + 96, 16, "%s", kind);
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    static atomic_ulong counter;
    if (!uniqueId)
        return ncclInvalidArgument;
    make_id(uniqueId, "rank", atomic_fetch_add(&counter, 1));
    return ncclSuccess;
}

ncclResult_t ncclGetVersion(int *version)
{
    if (!version)
        return ncclInvalidArgument;
    *version = NCCL_VERSION_CODE;
    return ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    *comm = sim_comm_attach(&commId, nranks, rank, sim_current_device(), 1);
    sim_np_comm_init(*comm);
    return *comm ? ncclSuccess : ncclSystemError;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                    ncclConfig_t *config)
{
    if (!comm || nranks < 1 || rank < 0 || rank >= nranks)
        return ncclInvalidArgument;
    return sim_nccl_make_comm(comm, &commId, nranks, rank, sim_current_device(), config, NULL);
}

ncclResult_t ncclCommInitAll(ncclComm_t *comms, int ndev, const int *devlist)
{
    static atomic_ulong counter;
    if (!comms || ndev < 1)
        return ncclInvalidArgument;
    ncclUniqueId id;
    make_id(&id, "all", atomic_fetch_add(&counter, 1));
    for (int i = 0; i < ndev; i++) {
        comms[i] = sim_comm_attach(&id, ndev, i, devlist ? devlist[i] : i, 0);
        if (!comms[i]) {
            while (i-- > 0)
                sim_comm_detach(comms[i]);
            return ncclSystemError;
        }
    }
    sim_comm_unlink(&id); /* every rank is attached: no name needs to stay */
    for (int i = 0; i < ndev; i++)
        sim_np_comm_init(comms[i]);
    return ncclSuccess;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm, ncclConfig_t *config)
{
    if (!comm || !newcomm || atomic_load(&comm->async) != ncclSuccess)
        return ncclInvalidArgument;
    int n = comm->nranks;
    comm->exch[2 * comm->rank] = color;
    comm->exch[2 * comm->rank + 1] = key;
    sim_comm_barrier(comm, 1);
    int newrank = 0, newn = 0;
    for (int r = 0; r < n; r++) {
        if (comm->exch[2 * r] != color)
            continue;
        newn++;
        int k = comm->exch[2 * r + 1];
        if (k < key || (k == key && r < comm->rank))
            newrank++;
    }
    sim_comm_barrier(comm, 1);
    unsigned split = comm->splits++;
    if (color == NCCL_SPLIT_NOCOLOR) {
        *newcomm = NULL;
        return ncclSuccess;
    }
    ncclUniqueId id = comm->id;
    uint64_t s = split, c = (uint64_t)(int64_t)color;
    memcpy(id.internal + 72, &s, sizeof s);
    memcpy(id.internal + 80, &c, sizeof c);
    id.internal[88]++;
    return sim_nccl_make_comm(newcomm, &id, newn, newrank, comm->device, config, comm);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    if (!comm)
        return ncclInvalidArgument;
    sim_np_comm_fini(comm);
    sim_comm_detach(comm);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    return ncclCommDestroy(comm);
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    if (!comm || !count)
        return ncclInvalidArgument;
    *count = comm->nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    if (!comm || !rank)
        return ncclInvalidArgument;
    *rank = comm->rank;
    return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    if (!comm || !device)
        return ncclInvalidArgument;
    *device = comm->device;
    return ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    if (!comm || !asyncError)
        return ncclInvalidArgument;
    *asyncError = atomic_load(&comm->async);
    return ncclSuccess;
}

const char *ncclGetErrorString(ncclResult_t result)
{
    switch (result) {
    case ncclSuccess: return "no error";
    case ncclUnhandledCudaError: return "unhandled cuda error";
    case ncclSystemError: return "unhandled system error";
    case ncclInternalError: return "internal error";
    case ncclInvalidArgument: return "invalid argument";
    case ncclInvalidUsage: return "invalid usage";
    case ncclRemoteError: return "remote process exited or there was a network error";
    case ncclInProgress: return "NCCL operation in progress";
    default: return "unknown result code";
    }
}
