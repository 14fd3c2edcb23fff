/* api_ids.h: the one list of wrapped API entry points.
 *
 * X(name, class, flags): `class` groups calls for the report (stream, event,
 * device, memory, copy, launch, driver, nccl); `flags` says what the tracer
 * does around the call:
 *   GT_F_STACK  capture a call stack (syncs, copies, frees, NCCL calls;
 *               allocations and stream creation, which the report names
 *               when they hold the host: host.setup);
 *   GT_F_BLOCK  may block for long: leave an in-flight mark when it starts;
 *   GT_F_NCCL   an NCCL operation: its record takes a second ring slot for
 *               the communicator, sequence number and shape (record.h);
 *   GT_F_XCORR  a CUDA call that blocks the host (syncs, non-Async copies
 *               and memsets, frees): the call's id is pushed as CUPTI's
 *               external correlation id around it, so that the report
 *               joins it to CUPTI's record of it by id, not by time.  Not
 *               on launches, async copies, records, waits or queries: the
 *               push and pop add tens of ns (about 15 here, docs/loading.md),
 *               which only a blocking call hides.
 * The enum, the name table and the `api` table of the database all come from
 * this list; the viewer reads the names from the database, not from here.
 */
#ifndef GPUTRACE_API_IDS_H
#define GPUTRACE_API_IDS_H

#define GT_F_STACK 1u
#define GT_F_BLOCK 2u
#define GT_F_NCCL 4u
#define GT_F_XCORR 8u
#define GT_F_SB (GT_F_STACK | GT_F_BLOCK)
#define GT_F_SBX (GT_F_SB | GT_F_XCORR)

#define GT_API_LIST(X)                                               \
    X(cudaStreamCreate, stream, GT_F_STACK)                          \
    X(cudaStreamCreateWithFlags, stream, GT_F_STACK)                 \
    X(cudaStreamCreateWithPriority, stream, GT_F_STACK)              \
    X(cudaStreamDestroy, stream, 0)                                  \
    X(cudaStreamSynchronize, sync, GT_F_SBX)                         \
    X(cudaStreamSynchronize_ptsz, sync, GT_F_SBX)                    \
    X(cudaStreamQuery, stream, 0)                                    \
    X(cudaStreamQuery_ptsz, stream, 0)                               \
    X(cudaStreamWaitEvent, stream, 0)                                \
    X(cudaStreamWaitEvent_ptsz, stream, 0)                           \
    X(cudaEventCreate, event, 0)                                     \
    X(cudaEventCreateWithFlags, event, 0)                            \
    X(cudaEventRecord, event, 0)                                     \
    X(cudaEventRecord_ptsz, event, 0)                                \
    X(cudaEventRecordWithFlags, event, 0)                            \
    X(cudaEventRecordWithFlags_ptsz, event, 0)                       \
    X(cudaEventSynchronize, sync, GT_F_SBX)                          \
    X(cudaEventQuery, event, 0)                                      \
    X(cudaEventElapsedTime, event, 0)                                \
    X(cudaEventDestroy, event, 0)                                    \
    X(cudaDeviceSynchronize, sync, GT_F_SBX)                         \
    X(cudaSetDevice, device, 0)                                      \
    X(cudaMalloc, memory, GT_F_STACK)                                \
    X(cudaFree, memory, GT_F_SBX)                                    \
    X(cudaMallocHost, memory, GT_F_STACK)                            \
    X(cudaHostAlloc, memory, GT_F_STACK)                             \
    X(cudaFreeHost, memory, GT_F_SBX)                                \
    X(cudaMallocManaged, memory, GT_F_STACK)                         \
    X(cudaHostRegister, memory, GT_F_STACK)                          \
    X(cudaHostUnregister, memory, 0)                                 \
    X(cudaMemcpy, copy, GT_F_SBX)                                    \
    X(cudaMemcpy_ptds, copy, GT_F_SBX)                               \
    X(cudaMemcpyAsync, copy, GT_F_SB)                                \
    X(cudaMemcpyAsync_ptsz, copy, GT_F_SB)                           \
    X(cudaMemcpy2D, copy, GT_F_SBX)                                  \
    X(cudaMemcpy2D_ptds, copy, GT_F_SBX)                             \
    X(cudaMemcpy2DAsync, copy, GT_F_SB)                              \
    X(cudaMemcpy2DAsync_ptsz, copy, GT_F_SB)                         \
    X(cudaMemcpyPeer, copy, GT_F_SBX)                                \
    X(cudaMemcpyPeerAsync, copy, GT_F_SB)                            \
    X(cudaMemset, copy, GT_F_SBX)                                    \
    X(cudaMemset_ptds, copy, GT_F_SBX)                               \
    X(cudaMemsetAsync, copy, GT_F_STACK)                             \
    X(cudaMemsetAsync_ptsz, copy, GT_F_STACK)                        \
    X(cudaLaunchKernel, launch, 0)                                   \
    X(cudaLaunchKernel_ptsz, launch, 0)                              \
    X(__cudaLaunchKernel, launch, 0)                                 \
    X(__cudaLaunchKernel_ptsz, launch, 0)                            \
    X(cudaLaunchKernelExC, launch, 0)                                \
    X(cudaLaunchKernelExC_ptsz, launch, 0)                           \
    X(cudaGraphLaunch, launch, 0)                                    \
    X(cudaGraphLaunch_ptsz, launch, 0)                               \
    X(cuCtxSynchronize, sync, GT_F_SBX)                              \
    X(cuCtxSynchronize_v2, sync, GT_F_SBX)                           \
    X(cuStreamSynchronize, sync, GT_F_SBX)                           \
    X(cuStreamSynchronize_ptsz, sync, GT_F_SBX)                      \
    X(cuEventSynchronize, sync, GT_F_SBX)                            \
    X(cuStreamWaitEvent, stream, 0)                                  \
    X(cuStreamWaitEvent_ptsz, stream, 0)                             \
    X(cuMemcpyDtoH_v2, copy, GT_F_SBX)                               \
    X(cuMemcpyDtoH_v2_ptds, copy, GT_F_SBX)                          \
    X(cuMemcpyHtoD_v2, copy, GT_F_SBX)                               \
    X(cuMemcpyHtoD_v2_ptds, copy, GT_F_SBX)                          \
    X(cuMemcpyDtoD_v2, copy, GT_F_SBX)                               \
    X(cuMemcpyDtoD_v2_ptds, copy, GT_F_SBX)                          \
    X(cuMemcpyDtoHAsync_v2, copy, GT_F_SB)                           \
    X(cuMemcpyDtoHAsync_v2_ptsz, copy, GT_F_SB)                      \
    X(cuMemcpyHtoDAsync_v2, copy, GT_F_SB)                           \
    X(cuMemcpyHtoDAsync_v2_ptsz, copy, GT_F_SB)                      \
    X(cuMemcpyDtoDAsync_v2, copy, GT_F_STACK)                        \
    X(cuMemcpyDtoDAsync_v2_ptsz, copy, GT_F_STACK)                   \
    X(cuLaunchKernel, launch, 0)                                     \
    X(cuLaunchKernel_ptsz, launch, 0)                                \
    X(cuLaunchKernelEx, launch, 0)                                   \
    X(cuLaunchKernelEx_ptsz, launch, 0)                              \
    X(ncclCommInitRank, nccl, GT_F_SB)                               \
    X(ncclCommInitAll, nccl, GT_F_SB)                                \
    X(ncclCommInitRankConfig, nccl, GT_F_SB)                         \
    X(ncclCommSplit, nccl, GT_F_SB)                                  \
    X(ncclCommDestroy, nccl, GT_F_STACK)                             \
    X(ncclCommAbort, nccl, GT_F_STACK)                               \
    X(ncclAllReduce, nccl, GT_F_SB | GT_F_NCCL)                      \
    X(ncclBroadcast, nccl, GT_F_SB | GT_F_NCCL)                      \
    X(ncclBcast, nccl, GT_F_SB | GT_F_NCCL)                          \
    X(ncclReduce, nccl, GT_F_SB | GT_F_NCCL)                         \
    X(ncclAllGather, nccl, GT_F_SB | GT_F_NCCL)                      \
    X(ncclReduceScatter, nccl, GT_F_SB | GT_F_NCCL)                  \
    X(ncclAlltoAll, nccl, GT_F_SB | GT_F_NCCL)                       \
    X(ncclGather, nccl, GT_F_SB | GT_F_NCCL)                         \
    X(ncclScatter, nccl, GT_F_SB | GT_F_NCCL)                        \
    X(ncclSend, nccl, GT_F_SB | GT_F_NCCL)                           \
    X(ncclRecv, nccl, GT_F_SB | GT_F_NCCL)                           \
    X(ncclGroupStart, nccl, 0)                                       \
    X(ncclGroupEnd, nccl, GT_F_SB)                                   \
    X(ncclGroupSimulateEnd, nccl, 0)                                 \
    X(ncclCommInitRankScalable, nccl, GT_F_SB)                       \
    X(ncclCommShrink, nccl, GT_F_SB)                                 \
    X(ncclCommGetAsyncError, nccl, 0)                                \
    X(ncclRedOpCreatePreMulSum, nccl, 0)                             \
    X(ncclRedOpDestroy, nccl, 0)                                     \
    X(ncclMemAlloc, nccl, 0)                                         \
    X(ncclMemFree, nccl, GT_F_STACK)                                 \
    X(ncclCommRegister, nccl, GT_F_STACK)                            \
    X(ncclCommDeregister, nccl, 0)                                   \
    X(ncclCommWindowRegister, nccl, GT_F_SB)                         \
    X(ncclCommWindowDeregister, nccl, GT_F_SB)                       \
    X(ncclCommFinalize, nccl, GT_F_SB)                               \
    X(ncclCommRevoke, nccl, GT_F_STACK)

enum gt_api {
#define X(name, cls, flags) GT_API_##name,
    GT_API_LIST(X)
#undef X
    GT_API_COUNT
};

#endif
