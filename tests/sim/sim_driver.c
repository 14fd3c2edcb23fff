/* sim_driver.c: the few CUDA driver API entry points the tracer wraps
 * (syncs, stream waits, copies), and the runtime's per-thread-default-stream
 * (_ptsz/_ptds) entry points, on top of the simulated runtime.  A CUstream
 * and a cudaStream_t are the same handle, as in CUDA; with the _ptsz/_ptds
 * forms, stream 0 means the calling thread's default stream. */
#include "sim_internal.h"

/* the _ptsz/_ptds prototypes, as the toolkit declares them */
#include "libtrace/per_thread_decls.h"

#include <cuda.h>

static CUresult to_cu(cudaError_t e)
{
    switch (e) {
    case cudaSuccess: return CUDA_SUCCESS;
    case cudaErrorNotReady: return CUDA_ERROR_NOT_READY;
    case cudaErrorInvalidResourceHandle: return CUDA_ERROR_INVALID_HANDLE;
    default: return CUDA_ERROR_INVALID_VALUE;
    }
}

CUresult cuCtxSynchronize(void) { return to_cu(cudaDeviceSynchronize()); }
CUresult cuCtxSynchronize_v2(CUcontext ctx) { (void)ctx; return to_cu(cudaDeviceSynchronize()); } /* one context per device */
CUresult cuStreamSynchronize(CUstream s) { return to_cu(cudaStreamSynchronize((cudaStream_t)s)); }
CUresult cuEventSynchronize(CUevent e) { return to_cu(cudaEventSynchronize((cudaEvent_t)e)); }
CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f) { return to_cu(cudaStreamWaitEvent((cudaStream_t)s, (cudaEvent_t)e, f)); }

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return to_cu(cudaMemcpy(dst, (const void *)(uintptr_t)src, n, cudaMemcpyDeviceToHost)); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return to_cu(cudaMemcpy((void *)(uintptr_t)dst, src, n, cudaMemcpyHostToDevice)); }
CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n) { return to_cu(cudaMemcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, cudaMemcpyDeviceToDevice)); }
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s) { return to_cu(cudaMemcpyAsync(dst, (const void *)(uintptr_t)src, n, cudaMemcpyDeviceToHost, (cudaStream_t)s)); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s) { return to_cu(cudaMemcpyAsync((void *)(uintptr_t)dst, src, n, cudaMemcpyHostToDevice, (cudaStream_t)s)); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return to_cu(cudaMemcpyAsync((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, n, cudaMemcpyDeviceToDevice, (cudaStream_t)s)); }

/* ---- per-thread default stream entry points ------------------------------ */

static cudaStream_t ptsz(cudaStream_t s)
{
    return s ? s : cudaStreamPerThread;
}

cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return cudaStreamSynchronize(ptsz(s)); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return cudaStreamQuery(ptsz(s)); }
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int f) { return cudaStreamWaitEvent(ptsz(s), e, f); }
cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) { return cudaEventRecord(e, ptsz(s)); }
cudaError_t cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s) { return cudaLaunchKernel(f, g, b, a, m, ptsz(s)); }
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *c, const void *f, void **a)
{
    if (!c)
        return cudaLaunchKernelExC(c, f, a);
    cudaLaunchConfig_t k = *c;
    k.stream = ptsz(c->stream);
    return cudaLaunchKernelExC(&k, f, a);
}
cudaError_t cudaMemcpy_ptds(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { return cudaMemcpy(d, s, n, k); }
cudaError_t cudaMemcpyAsync_ptsz(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return cudaMemcpyAsync(d, s, n, k, ptsz(st)); }
cudaError_t cudaMemset_ptds(void *d, int v, size_t n) { return cudaMemset(d, v, n); }
cudaError_t cudaMemsetAsync_ptsz(void *d, int v, size_t n, cudaStream_t st) { return cudaMemsetAsync(d, v, n, ptsz(st)); }
cudaError_t cudaMemcpy2D_ptds(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k) { return cudaMemcpy2D(d, dp, s, sp, w, h, k); }
cudaError_t cudaMemcpy2DAsync_ptsz(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return cudaMemcpy2DAsync(d, dp, s, sp, w, h, k, ptsz(st)); }

/* the driver's per-thread forms (what cuda.h calls under
 * CUDA_API_PER_THREAD_DEFAULT_STREAM): stream 0 is the thread's own */
CUresult cuStreamSynchronize_ptsz(CUstream s) { return cuStreamSynchronize((CUstream)ptsz((cudaStream_t)s)); }
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f) { return cuStreamWaitEvent((CUstream)ptsz((cudaStream_t)s), e, f); }
CUresult cuMemcpyDtoH_v2_ptds(void *dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoH_v2(dst, src, n); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr dst, const void *src, size_t n) { return cuMemcpyHtoD_v2(dst, src, n); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr dst, CUdeviceptr src, size_t n) { return cuMemcpyDtoD_v2(dst, src, n); }
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *dst, CUdeviceptr src, size_t n, CUstream s) { return cuMemcpyDtoHAsync_v2(dst, src, n, (CUstream)ptsz((cudaStream_t)s)); }
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr dst, const void *src, size_t n, CUstream s) { return cuMemcpyHtoDAsync_v2(dst, src, n, (CUstream)ptsz((cudaStream_t)s)); }
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { return cuMemcpyDtoDAsync_v2(dst, src, n, (CUstream)ptsz((cudaStream_t)s)); }
