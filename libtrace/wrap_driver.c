/* wrap_driver.c: CUDA driver API wrappers (JAX, Triton and CuPy call the
 * driver directly).  Copies here name their direction in the API itself. */
#define _GNU_SOURCE
#include "libtrace/memreg.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <cuda.h>

#define INLINE static inline __attribute__((always_inline))
#define MISSING CUDA_ERROR_NOT_FOUND

CUresult cuCtxSynchronize(void)
{
    CUresult (*real)(void) = REAL(cuCtxSynchronize);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuCtxSynchronize))
        return real();
    CUresult rc = real();
    gt_exit(&c, rc);
    return rc;
}

CUresult cuStreamSynchronize(CUstream s)
{
    CUresult (*real)(CUstream) = REAL(cuStreamSynchronize);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuStreamSynchronize))
        return real(s);
    c.r->stream = (uintptr_t)s;
    CUresult rc = real(s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuEventSynchronize(CUevent e)
{
    CUresult (*real)(CUevent) = REAL(cuEventSynchronize);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuEventSynchronize))
        return real(e);
    c.r->event = (uintptr_t)e;
    CUresult rc = real(e);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int flags)
{
    CUresult (*real)(CUstream, CUevent, unsigned) = REAL(cuStreamWaitEvent);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuStreamWaitEvent))
        return real(s, e, flags);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)e;
    CUresult rc = real(s, e, flags);
    gt_exit(&c, rc);
    return rc;
}

/* Fills a copy's record; host is the host-side pointer (NULL for DtoD). */
INLINE void copy_fields(struct gt_call *c, size_t n, enum gt_copy_kind kind, const void *host, CUstream s)
{
    c->r->bytes = n;
    c->r->copy_kind = (uint8_t)kind;
    c->r->mem_kind = (uint8_t)(host ? gt_memreg_kind(host) : GT_MEM_DEVICE);
    c->r->stream = (uintptr_t)s;
}

CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n)
{
    CUresult (*real)(void *, CUdeviceptr, size_t) = REAL(cuMemcpyDtoH_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuMemcpyDtoH_v2))
        return real(dst, src, n);
    copy_fields(&c, n, GT_COPY_DTOH, dst, 0);
    CUresult rc = real(dst, src, n);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n)
{
    CUresult (*real)(CUdeviceptr, const void *, size_t) = REAL(cuMemcpyHtoD_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuMemcpyHtoD_v2))
        return real(dst, src, n);
    copy_fields(&c, n, GT_COPY_HTOD, src, 0);
    CUresult rc = real(dst, src, n);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    CUresult (*real)(CUdeviceptr, CUdeviceptr, size_t) = REAL(cuMemcpyDtoD_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuMemcpyDtoD_v2))
        return real(dst, src, n);
    copy_fields(&c, n, GT_COPY_DTOD, NULL, 0);
    CUresult rc = real(dst, src, n);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult (*real)(void *, CUdeviceptr, size_t, CUstream) = REAL(cuMemcpyDtoHAsync_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuMemcpyDtoHAsync_v2))
        return real(dst, src, n, s);
    copy_fields(&c, n, GT_COPY_DTOH, dst, s);
    CUresult rc = real(dst, src, n, s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    CUresult (*real)(CUdeviceptr, const void *, size_t, CUstream) = REAL(cuMemcpyHtoDAsync_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuMemcpyHtoDAsync_v2))
        return real(dst, src, n, s);
    copy_fields(&c, n, GT_COPY_HTOD, src, s);
    CUresult rc = real(dst, src, n, s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult (*real)(CUdeviceptr, CUdeviceptr, size_t, CUstream) = REAL(cuMemcpyDtoDAsync_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuMemcpyDtoDAsync_v2))
        return real(dst, src, n, s);
    copy_fields(&c, n, GT_COPY_DTOD, NULL, s);
    CUresult rc = real(dst, src, n, s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shmem, CUstream s, void **params, void **extra)
{
    CUresult (*real)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, CUstream,
                     void **, void **) = REAL(cuLaunchKernel);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuLaunchKernel))
        return real(f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)f;
    CUresult rc = real(f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    CUresult (*real)(const CUlaunchConfig *, CUfunction, void **, void **) = REAL(cuLaunchKernelEx);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuLaunchKernelEx))
        return real(config, f, params, extra);
    c.r->stream = config ? (uintptr_t)config->hStream : 0;
    c.r->event = (uintptr_t)f;
    CUresult rc = real(config, f, params, extra);
    gt_exit(&c, rc);
    return rc;
}
