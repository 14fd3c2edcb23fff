/* wrap_driver.c: CUDA driver API wrappers (JAX, Triton and CuPy call the
 * driver directly).  Copies here name their direction in the API itself.
 * Each call has its per-thread-default-stream entry point too (_ptsz,
 * _ptds: what cuda.h calls when a program is built with
 * CUDA_API_PER_THREAD_DEFAULT_STREAM), and cuCtxSynchronize its CUDA 13
 * form that names the context; one helper per shape serves them all. */
#define _GNU_SOURCE
#include "libtrace/memreg.h"
#include "libtrace/per_thread_decls.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <cuda.h>

#define INLINE static inline __attribute__((always_inline))
#define MISSING CUDA_ERROR_NOT_FOUND


/* ---- syncs and stream waits ---------------------------------------------- */

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

/* The context is not recorded: the report takes a context sync, like
 * cuCtxSynchronize, as waiting for the whole device. */
CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    CUresult (*real)(CUcontext) = REAL(cuCtxSynchronize_v2);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cuCtxSynchronize_v2))
        return real(ctx);
    CUresult rc = real(ctx);
    gt_exit(&c, rc);
    return rc;
}

INLINE CUresult stream_sync(enum gt_api api, CUstream s)
{
    CUresult (*real)(CUstream) = (CUresult (*)(CUstream))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(s);
    c.r->stream = (uintptr_t)s;
    CUresult rc = real(s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuStreamSynchronize(CUstream s) { return stream_sync(GT_API_cuStreamSynchronize, s); }
CUresult cuStreamSynchronize_ptsz(CUstream s) { return stream_sync(GT_API_cuStreamSynchronize_ptsz, s); }

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

INLINE CUresult wait_event(enum gt_api api, CUstream s, CUevent e, unsigned int flags)
{
    CUresult (*real)(CUstream, CUevent, unsigned) = (CUresult (*)(CUstream, CUevent, unsigned))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(s, e, flags);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)e;
    CUresult rc = real(s, e, flags);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned int f) { return wait_event(GT_API_cuStreamWaitEvent, s, e, f); }
CUresult cuStreamWaitEvent_ptsz(CUstream s, CUevent e, unsigned int f) { return wait_event(GT_API_cuStreamWaitEvent_ptsz, s, e, f); }

/* ---- copies -------------------------------------------------------------- */

/* Fills a copy's record; host is the host-side pointer (NULL for DtoD). */
INLINE void copy_fields(struct gt_call *c, size_t n, enum gt_copy_kind kind, const void *host, CUstream s)
{
    c->r->bytes = n;
    c->r->copy_kind = (uint8_t)kind;
    c->r->mem_kind = (uint8_t)(host ? gt_memreg_kind(host) : GT_MEM_DEVICE);
    c->r->stream = (uintptr_t)s;
}

INLINE CUresult dtoh(enum gt_api api, void *dst, CUdeviceptr src, size_t n)
{
    CUresult (*real)(void *, CUdeviceptr, size_t) = (CUresult (*)(void *, CUdeviceptr, size_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n);
    copy_fields(&c, n, GT_COPY_DTOH, dst, 0);
    CUresult rc = real(dst, src, n);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoH_v2(void *d, CUdeviceptr s, size_t n) { return dtoh(GT_API_cuMemcpyDtoH_v2, d, s, n); }
CUresult cuMemcpyDtoH_v2_ptds(void *d, CUdeviceptr s, size_t n) { return dtoh(GT_API_cuMemcpyDtoH_v2_ptds, d, s, n); }

INLINE CUresult htod(enum gt_api api, CUdeviceptr dst, const void *src, size_t n)
{
    CUresult (*real)(CUdeviceptr, const void *, size_t) = (CUresult (*)(CUdeviceptr, const void *, size_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n);
    copy_fields(&c, n, GT_COPY_HTOD, src, 0);
    CUresult rc = real(dst, src, n);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyHtoD_v2(CUdeviceptr d, const void *s, size_t n) { return htod(GT_API_cuMemcpyHtoD_v2, d, s, n); }
CUresult cuMemcpyHtoD_v2_ptds(CUdeviceptr d, const void *s, size_t n) { return htod(GT_API_cuMemcpyHtoD_v2_ptds, d, s, n); }

INLINE CUresult dtod(enum gt_api api, CUdeviceptr dst, CUdeviceptr src, size_t n)
{
    CUresult (*real)(CUdeviceptr, CUdeviceptr, size_t) = (CUresult (*)(CUdeviceptr, CUdeviceptr, size_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n);
    copy_fields(&c, n, GT_COPY_DTOD, NULL, 0);
    CUresult rc = real(dst, src, n);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, size_t n) { return dtod(GT_API_cuMemcpyDtoD_v2, d, s, n); }
CUresult cuMemcpyDtoD_v2_ptds(CUdeviceptr d, CUdeviceptr s, size_t n) { return dtod(GT_API_cuMemcpyDtoD_v2_ptds, d, s, n); }

INLINE CUresult dtoh_async(enum gt_api api, void *dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult (*real)(void *, CUdeviceptr, size_t, CUstream) =
        (CUresult (*)(void *, CUdeviceptr, size_t, CUstream))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n, s);
    copy_fields(&c, n, GT_COPY_DTOH, dst, s);
    CUresult rc = real(dst, src, n, s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoHAsync_v2(void *d, CUdeviceptr s, size_t n, CUstream st) { return dtoh_async(GT_API_cuMemcpyDtoHAsync_v2, d, s, n, st); }
CUresult cuMemcpyDtoHAsync_v2_ptsz(void *d, CUdeviceptr s, size_t n, CUstream st) { return dtoh_async(GT_API_cuMemcpyDtoHAsync_v2_ptsz, d, s, n, st); }

INLINE CUresult htod_async(enum gt_api api, CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
    CUresult (*real)(CUdeviceptr, const void *, size_t, CUstream) =
        (CUresult (*)(CUdeviceptr, const void *, size_t, CUstream))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n, s);
    copy_fields(&c, n, GT_COPY_HTOD, src, s);
    CUresult rc = real(dst, src, n, s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void *s, size_t n, CUstream st) { return htod_async(GT_API_cuMemcpyHtoDAsync_v2, d, s, n, st); }
CUresult cuMemcpyHtoDAsync_v2_ptsz(CUdeviceptr d, const void *s, size_t n, CUstream st) { return htod_async(GT_API_cuMemcpyHtoDAsync_v2_ptsz, d, s, n, st); }

INLINE CUresult dtod_async(enum gt_api api, CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s)
{
    CUresult (*real)(CUdeviceptr, CUdeviceptr, size_t, CUstream) =
        (CUresult (*)(CUdeviceptr, CUdeviceptr, size_t, CUstream))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n, s);
    copy_fields(&c, n, GT_COPY_DTOD, NULL, s);
    CUresult rc = real(dst, src, n, s);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { return dtod_async(GT_API_cuMemcpyDtoDAsync_v2, d, s, n, st); }
CUresult cuMemcpyDtoDAsync_v2_ptsz(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream st) { return dtod_async(GT_API_cuMemcpyDtoDAsync_v2_ptsz, d, s, n, st); }

/* ---- launches ------------------------------------------------------------ */

typedef CUresult (*launch_fn)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void **, void **);

INLINE CUresult launch(enum gt_api api, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                       unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    launch_fn real = (launch_fn)gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)f;
    CUresult rc = real(f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuLaunchKernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shmem, CUstream s, void **params, void **extra)
{
    return launch(GT_API_cuLaunchKernel, f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
}

CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                             unsigned bz, unsigned shmem, CUstream s, void **params, void **extra)
{
    return launch(GT_API_cuLaunchKernel_ptsz, f, gx, gy, gz, bx, by, bz, shmem, s, params, extra);
}

INLINE CUresult launch_ex(enum gt_api api, const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    CUresult (*real)(const CUlaunchConfig *, CUfunction, void **, void **) =
        (CUresult (*)(const CUlaunchConfig *, CUfunction, void **, void **))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(config, f, params, extra);
    c.r->stream = config ? (uintptr_t)config->hStream : 0;
    c.r->event = (uintptr_t)f;
    CUresult rc = real(config, f, params, extra);
    gt_exit(&c, rc);
    return rc;
}

CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    return launch_ex(GT_API_cuLaunchKernelEx, config, f, params, extra);
}

CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **params, void **extra)
{
    return launch_ex(GT_API_cuLaunchKernelEx_ptsz, config, f, params, extra);
}
