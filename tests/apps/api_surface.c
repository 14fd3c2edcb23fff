/* api_surface.c: one call of each kind the tracer wraps beyond the training
 * step (driver API syncs and copies, per-thread-default-stream entry points,
 * 2D and peer copies, memsets, registered memory, NCCL groups, split and
 * single-process communicators, an operation NCCL refuses), for the
 * tracer's tests (not a training pattern).  Built twice: as is, and with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM, where the runtime and driver calls
 * become their _ptsz/_ptds forms.
 */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nccl.h>
#include <stdio.h>
#include <string.h>

void nop_kernel(void **args) { (void)args; }

#define CK(x) do { if ((x) != 0) { fprintf(stderr, "%s failed\n", #x); return 1; } } while (0)

int main(void)
{
    cudaStream_t s;
    cudaEvent_t e;
    char host[256], pinned_buf[256], *dev, *dev2;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, 0));
    CK(cudaEventCreate(&e));
    CK(cudaMalloc((void **)&dev, 256));
    CK(cudaMalloc((void **)&dev2, 256));
    CK(cudaHostRegister(pinned_buf, sizeof pinned_buf, 0));
    void *argv_[1] = { NULL };
    /* runtime calls: the _ptsz/_ptds forms when built with per-thread streams */
    CK(cudaLaunchKernel((const void *)nop_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_, 0, s));
    cudaLaunchConfig_t config = { .gridDim = { 1, 1, 1 }, .blockDim = { 1, 1, 1 }, .stream = s };
    CK(cudaLaunchKernelExC(&config, (const void *)nop_kernel, argv_));
    CK(cudaMemcpyAsync(dev, pinned_buf, 256, cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(dev2, 0, 256, s));
    CK(cudaEventRecord(e, s));
    CK(cudaStreamWaitEvent(0, e, 0));
    CK(cudaStreamSynchronize(s));
    CK(cudaMemcpy(host, dev, 256, cudaMemcpyDeviceToHost));
    CK(cudaMemset(dev, 1, 256));
    CK(cudaMemcpy2D(host, 16, dev, 16, 16, 16, cudaMemcpyDeviceToHost));
    CK(cudaMemcpyPeer(dev2, 1, dev, 0, 256));
    /* driver calls: their _ptsz/_ptds forms in the per-thread build */
    CK(cuMemcpyHtoD((CUdeviceptr)(uintptr_t)dev, host, 256));
    CK(cuMemcpyDtoH(host, (CUdeviceptr)(uintptr_t)dev, 256));
    CK(cuMemcpyDtoD((CUdeviceptr)(uintptr_t)dev2, (CUdeviceptr)(uintptr_t)dev, 256));
    CK(cuMemcpyHtoDAsync((CUdeviceptr)(uintptr_t)dev, pinned_buf, 256, (CUstream)s));
    CK(cuStreamWaitEvent((CUstream)s, (CUevent)e, 0));
    CK(cuStreamSynchronize((CUstream)s));
    CK(cuEventSynchronize((CUevent)e));
    CK(cuCtxSynchronize());
    CK(cuCtxSynchronize_v2(NULL)); /* CUDA 13: a context named (NULL: the current one) */
    /* NCCL: a single-process communicator, a group, a split */
    ncclComm_t comm, half;
    int dev0 = 0;
    CK(ncclCommInitAll(&comm, 1, &dev0));
    CK(ncclGroupStart());
    CK(ncclAllReduce(dev, dev, 64, ncclFloat32, ncclSum, comm, s));
    CK(ncclBroadcast(dev, dev2, 64, ncclFloat32, 0, comm, s));
    CK(ncclGroupEnd());
    /* refused (a datatype NCCL does not have): it takes no sequence number */
    if (ncclAllReduce(dev, dev, 64, (ncclDataType_t)99, ncclSum, comm, s) != ncclInvalidArgument)
        return 1;
    CK(ncclAllReduce(dev, dev, 64, ncclFloat32, ncclSum, comm, s));
    CK(ncclCommSplit(comm, 0, 0, &half, NULL));
    CK(ncclAllGather(dev, dev2, 16, ncclFloat32, half, s));
    CK(cudaStreamSynchronize(s));
    CK(ncclCommDestroy(half));
    CK(ncclCommDestroy(comm));
    CK(cudaHostUnregister(pinned_buf));
    CK(cudaFree(dev));
    CK(cudaFree(dev2));
    CK(cudaEventDestroy(e));
    CK(cudaStreamDestroy(s));
    printf("api_surface: ok\n");
    return 0;
}
