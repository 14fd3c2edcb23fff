/* real_toolkit.c: wrapped CUDA runtime, driver and NCCL calls made through
 * the toolkit's own libcudart, libnccl and libcuda (the driver, or where
 * there is none the toolkit's stub of it), not the simulator, on a machine
 * that may have no GPU: every call then fails, and the tracer
 * must pass each result through unchanged while the real CUPTI, loaded
 * from the toolkit, declines.  Each call prints "API RESULT" (and errno
 * where a call could set it), so that tracer_real_toolkit.sh can compare a
 * traced run with an untraced one line by line and with what was recorded.
 * Exits 3, so that the exit status is seen to pass through too.
 */
#include "libtrace/per_thread_decls.h" /* the _ptsz/_ptds forms, called by name */

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

static void show(const char *api, int rc)
{
    printf("%s %d\n", api, rc);
}

int main(void)
{
    int n = -1, version = -1;
    errno = 0;
    printf("cudaGetDeviceCount(untraced) %d count=%d\n", (int)cudaGetDeviceCount(&n), n);
    printf("cudaRuntimeGetVersion(untraced) %d version=%d\n", (int)cudaRuntimeGetVersion(&version), version);

    cudaStream_t s = NULL, s2 = NULL;
    cudaEvent_t e = NULL;
    void *d = NULL, *h = NULL;
    char a[64], b[64];
    memset(a, 1, sizeof a);
    show("cudaSetDevice", cudaSetDevice(0));
    show("cudaStreamCreate", cudaStreamCreate(&s));
    show("cudaStreamCreateWithFlags", cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    show("cudaEventCreate", cudaEventCreate(&e));
    show("cudaMalloc", cudaMalloc(&d, 1024));
    show("cudaMallocHost", cudaMallocHost(&h, 1024));
    show("cudaMemcpy", cudaMemcpy(b, a, sizeof a, cudaMemcpyHostToHost));
    show("cudaMemcpyAsync", cudaMemcpyAsync(b, a, sizeof a, cudaMemcpyDefault, s));
    show("cudaMemsetAsync", cudaMemsetAsync(d, 0, 16, s));
    show("cudaEventRecord", cudaEventRecord(e, s));
    show("cudaStreamWaitEvent", cudaStreamWaitEvent(s2, e, 0));
    show("cudaStreamSynchronize", cudaStreamSynchronize(s));
    show("cudaEventSynchronize", cudaEventSynchronize(e));
    /* after the syncs, so that with a GPU too the answer does not depend on timing */
    show("cudaStreamQuery", cudaStreamQuery(s));
    show("cudaEventQuery", cudaEventQuery(e));
    show("cudaDeviceSynchronize", cudaDeviceSynchronize());
    /* odd arguments: what the runtime says about them must reach the program */
    show("cudaStreamCreate", cudaStreamCreate(NULL));
    show("cudaMalloc", cudaMalloc(NULL, 16));
    show("cudaFree", cudaFree(d));
    show("cudaFreeHost", cudaFreeHost(h));
    show("cudaEventDestroy", cudaEventDestroy(e));
    show("cudaStreamDestroy", cudaStreamDestroy(s));
    printf("cudaGetLastError(untraced) %d\n", (int)cudaGetLastError());
    printf("cudaGetLastError(untraced) %d\n", (int)cudaGetLastError());

    /* the driver API, as JAX, Triton and CuPy call it */
    char buf[16];
    printf("cuInit(untraced) %d\n", (int)cuInit(0));
    show("cuCtxSynchronize", cuCtxSynchronize());
    show("cuStreamSynchronize", cuStreamSynchronize(NULL));
    show("cuEventSynchronize", cuEventSynchronize(NULL));
    show("cuStreamWaitEvent", cuStreamWaitEvent(NULL, NULL, 0));
    show("cuMemcpyDtoH_v2", cuMemcpyDtoH(buf, 0, sizeof buf));
    show("cuMemcpyHtoD_v2", cuMemcpyHtoD(0, buf, sizeof buf));
    show("cuMemcpyDtoD_v2", cuMemcpyDtoD(0, 0, sizeof buf));
    show("cuMemcpyDtoHAsync_v2", cuMemcpyDtoHAsync(buf, 0, sizeof buf, NULL));
    show("cuMemcpyHtoDAsync_v2", cuMemcpyHtoDAsync(0, buf, sizeof buf, NULL));
    show("cuMemcpyDtoDAsync_v2", cuMemcpyDtoDAsync(0, 0, sizeof buf, NULL));
    show("cuLaunchKernel", cuLaunchKernel(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    show("cuLaunchKernelEx", cuLaunchKernelEx(NULL, NULL, NULL, NULL));
    show("cuCtxSynchronize_v2", cuCtxSynchronize_v2(NULL));
    show("cuStreamSynchronize_ptsz", cuStreamSynchronize_ptsz(NULL));
    show("cuStreamWaitEvent_ptsz", cuStreamWaitEvent_ptsz(NULL, NULL, 0));
    show("cuMemcpyDtoH_v2_ptds", cuMemcpyDtoH_v2_ptds(buf, 0, sizeof buf));
    show("cuMemcpyHtoD_v2_ptds", cuMemcpyHtoD_v2_ptds(0, buf, sizeof buf));
    show("cuMemcpyDtoD_v2_ptds", cuMemcpyDtoD_v2_ptds(0, 0, sizeof buf));
    show("cuMemcpyDtoHAsync_v2_ptsz", cuMemcpyDtoHAsync_v2_ptsz(buf, 0, sizeof buf, NULL));
    show("cuMemcpyHtoDAsync_v2_ptsz", cuMemcpyHtoDAsync_v2_ptsz(0, buf, sizeof buf, NULL));
    show("cuMemcpyDtoDAsync_v2_ptsz", cuMemcpyDtoDAsync_v2_ptsz(0, 0, sizeof buf, NULL));
    show("cuLaunchKernel_ptsz", cuLaunchKernel_ptsz(NULL, 1, 1, 1, 1, 1, 1, 0, NULL, NULL, NULL));
    show("cuLaunchKernelEx_ptsz", cuLaunchKernelEx_ptsz(NULL, NULL, NULL, NULL));

    ncclUniqueId id;
    ncclComm_t comm = NULL;
    memset(&id, 0, sizeof id);
    printf("ncclGetUniqueId(untraced) %d\n", (int)ncclGetUniqueId(&id));
    show("ncclCommInitRank", ncclCommInitRank(&comm, 1, id, 0));
    show("ncclCommInitRank", ncclCommInitRank(NULL, 1, id, 0));
    show("ncclGroupStart", ncclGroupStart());
    show("ncclAllReduce", ncclAllReduce(a, b, 4, ncclFloat32, ncclSum, NULL, NULL));
    show("ncclGroupEnd", ncclGroupEnd());
    show("ncclBroadcast", ncclBroadcast(a, b, 4, ncclInt8, 0, NULL, NULL));
    /* NCCL 2.28's other entry points, as its nccl.h declares them */
    ncclComm_t made = NULL;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclSimInfo_t sim = NCCL_SIM_INFO_INITIALIZER;
    ncclResult_t async = ncclSuccess;
    ncclRedOp_t op = ncclSum;
    ncclWindow_t win = NULL;
    void *mem = NULL, *reg = NULL;
    float scale = 0.5f;
    show("ncclGroupStart", ncclGroupStart());
    show("ncclGroupSimulateEnd", ncclGroupSimulateEnd(&sim));
    show("ncclCommInitRankScalable", ncclCommInitRankScalable(&made, 1, 0, 1, &id, &config));
    /* ncclCommShrink is not called: NCCL 2.28.9 crashes on a NULL
     * communicator (tracer_real_toolkit.sh checks that it is defined) */
    printf("ncclCommGetAsyncError(untraced) %d\n", (int)ncclCommGetAsyncError(NULL, &async));
    show("ncclMemAlloc", ncclMemAlloc(&mem, 1024));
    show("ncclMemFree", ncclMemFree(NULL));
    show("ncclCommRegister", ncclCommRegister(NULL, a, sizeof a, &reg));
    show("ncclCommDeregister", ncclCommDeregister(NULL, NULL));
    show("ncclCommWindowRegister", ncclCommWindowRegister(NULL, a, sizeof a, &win, NCCL_WIN_DEFAULT));
    show("ncclCommWindowDeregister", ncclCommWindowDeregister(NULL, NULL));
    show("ncclRedOpCreatePreMulSum", ncclRedOpCreatePreMulSum(&op, &scale, ncclFloat32, ncclScalarHostImmediate, NULL));
    show("ncclRedOpDestroy", ncclRedOpDestroy(ncclSum, NULL));
    show("ncclCommFinalize", ncclCommFinalize(NULL));
    show("ncclCommRevoke", ncclCommRevoke(NULL, NCCL_REVOKE_DEFAULT));
    printf("errno %d\n", errno);
    return 3;
}
