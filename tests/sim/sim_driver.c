/* sim_driver.c: the few CUDA driver API entry points the tracer wraps
 * (syncs, stream waits, copies), and the runtime's per-thread-default-stream
 * (_ptsz/_ptds) entry points, on top of the simulated runtime.  A CUstream
 * and a cudaStream_t are the same handle, as in CUDA; with the _ptsz/_ptds
 * forms, stream 0 means the calling thread's default stream. */
#include "sim_internal.h"

#include <string.h>

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

/* ---- launches and entry points of the driver --------------------------- */

/* A CUfunction is a kernel's host function here, as cudaLaunchKernel's func
 * is (docs/simulator.md); launched through the driver, its record is a
 * driver API record, as NCCL's and Triton's launches are. */
static CUresult driver_launch(CUpti_CallbackId cbid, CUfunction f, void **params, CUstream s)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_DRIVER, cbid);
    CUresult rc = to_cu(sim_launch((const void *)f, params, (cudaStream_t)s));
    sim_api_end(&api, rc);
    return rc;
}

CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
                        unsigned int by, unsigned int bz, unsigned int shmem, CUstream s, void **params, void **extra)
{
    (void)gx; (void)gy; (void)gz; (void)bx; (void)by; (void)bz; (void)shmem; (void)extra;
    return driver_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, f, params, s);
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    (void)extra;
    if (!config)
        return CUDA_ERROR_INVALID_VALUE;
    return driver_launch(CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx, f, params, config->hStream);
}

/* cuGetProcAddress: the driver's own entry points by name (how libcudart,
 * NCCL and PyTorch reach the driver), from a table rather than dlsym, so
 * that the static archive answers the same.  The table holds local
 * aliases: the real driver hands out its own functions, which no
 * interposed symbol (the tracer's wrappers) can stand in for. */
#define LOCAL(name, unused) static __typeof__(name) local_##name __attribute__((alias(#name)));
LOCAL(cuLaunchKernel, )
LOCAL(cuLaunchKernelEx, )
LOCAL(cuCtxSynchronize, )
LOCAL(cuStreamSynchronize, )
LOCAL(cuEventSynchronize, )
LOCAL(cuStreamWaitEvent, )
LOCAL(cuMemcpyDtoH_v2, )
LOCAL(cuMemcpyHtoD_v2, )
LOCAL(cuMemcpyDtoD_v2, )
LOCAL(cuMemcpyDtoHAsync_v2, )
LOCAL(cuMemcpyHtoDAsync_v2, )
LOCAL(cuMemcpyDtoDAsync_v2, )
#undef LOCAL
/* the batched copies' (sim_driver_batch.c) */
__typeof__(cuMemcpyBatchAsync_v2) sim_local_cuMemcpyBatchAsync_v2 __attribute__((visibility("hidden")));
static const struct { const char *name; void *fn; } entry_points[] = {
    { "cuLaunchKernel", (void *)local_cuLaunchKernel },
    { "cuLaunchKernelEx", (void *)local_cuLaunchKernelEx },
    { "cuCtxSynchronize", (void *)local_cuCtxSynchronize },
    { "cuStreamSynchronize", (void *)local_cuStreamSynchronize },
    { "cuEventSynchronize", (void *)local_cuEventSynchronize },
    { "cuStreamWaitEvent", (void *)local_cuStreamWaitEvent },
    { "cuMemcpyDtoH", (void *)local_cuMemcpyDtoH_v2 },
    { "cuMemcpyHtoD", (void *)local_cuMemcpyHtoD_v2 },
    { "cuMemcpyDtoD", (void *)local_cuMemcpyDtoD_v2 },
    { "cuMemcpyDtoHAsync", (void *)local_cuMemcpyDtoHAsync_v2 },
    { "cuMemcpyHtoDAsync", (void *)local_cuMemcpyHtoDAsync_v2 },
    { "cuMemcpyDtoDAsync", (void *)local_cuMemcpyDtoDAsync_v2 },
    { "cuMemcpyBatchAsync", (void *)sim_local_cuMemcpyBatchAsync_v2 },
};

void *sim_driver_entry(const char *name)
{
    for (size_t i = 0; i < sizeof entry_points / sizeof *entry_points; i++)
        if (!strcmp(name, entry_points[i].name))
            return entry_points[i].fn;
    return NULL;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                             CUdriverProcAddressQueryResult *symbolStatus)
{
    (void)cudaVersion; (void)flags;
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof entry_points / sizeof *entry_points; i++)
        if (!strcmp(symbol, entry_points[i].name)) {
            *pfn = entry_points[i].fn;
            if (symbolStatus)
                *symbolStatus = CU_GET_PROC_ADDRESS_SUCCESS;
            return CUDA_SUCCESS;
        }
    *pfn = NULL;
    if (symbolStatus)
        *symbolStatus = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
    return CUDA_ERROR_NOT_FOUND;
}

#undef cuGetProcAddress
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags);
CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    return cuGetProcAddress_v2(symbol, pfn, cudaVersion, flags, NULL);
}
