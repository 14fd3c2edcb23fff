/* wrap_memory.c: CUDA runtime wrappers for allocation, copies and memsets.
 * Allocations feed the registry (memreg) that tells a copy's host memory
 * kind; copies record their bytes, direction and host memory kind. */
#define _GNU_SOURCE
#include "libtrace/memreg.h"
#include "libtrace/per_thread_decls.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <cuda_runtime_api.h>

#define INLINE static inline __attribute__((always_inline))
#define MISSING cudaErrorSharedObjectSymbolNotFound

/* ---- allocation ------------------------------------------------------------ */

INLINE cudaError_t allocated(struct gt_call *c, cudaError_t rc, void **ptr, size_t size, enum gt_mem_kind kind)
{
    if (rc == cudaSuccess && ptr && *ptr)
        gt_memreg_add(*ptr, size, kind);
    if (c) {
        c->r->bytes = size;
        c->r->mem_kind = (uint8_t)kind;
        gt_exit(c, rc);
    }
    return rc;
}

/* The registry is kept up to date even when a call is not recorded. */
cudaError_t cudaMalloc(void **p, size_t size)
{
    cudaError_t (*real)(void **, size_t) = REAL(cudaMalloc);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, GT_API_cudaMalloc);
    return allocated(t ? &c : NULL, real(p, size), p, size, GT_MEM_DEVICE);
}

cudaError_t cudaMallocHost(void **p, size_t size)
{
    cudaError_t (*real)(void **, size_t) = REAL(cudaMallocHost);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, GT_API_cudaMallocHost);
    return allocated(t ? &c : NULL, real(p, size), p, size, GT_MEM_PINNED);
}

cudaError_t cudaHostAlloc(void **p, size_t size, unsigned int flags)
{
    cudaError_t (*real)(void **, size_t, unsigned) = REAL(cudaHostAlloc);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, GT_API_cudaHostAlloc);
    return allocated(t ? &c : NULL, real(p, size, flags), p, size, GT_MEM_PINNED);
}

cudaError_t cudaMallocManaged(void **p, size_t size, unsigned int flags)
{
    cudaError_t (*real)(void **, size_t, unsigned) = REAL(cudaMallocManaged);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, GT_API_cudaMallocManaged);
    return allocated(t ? &c : NULL, real(p, size, flags), p, size, GT_MEM_MANAGED);
}

cudaError_t cudaHostRegister(void *p, size_t size, unsigned int flags)
{
    cudaError_t (*real)(void *, size_t, unsigned) = REAL(cudaHostRegister);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, GT_API_cudaHostRegister);
    return allocated(t ? &c : NULL, real(p, size, flags), &p, size, GT_MEM_PINNED);
}

INLINE cudaError_t release(enum gt_api api, void *p)
{
    cudaError_t (*real)(void *) = (cudaError_t (*)(void *))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, api);
    if (t)
        c.r->event = (uintptr_t)p;
    cudaError_t rc = real(p);
    if (rc == cudaSuccess && p)
        gt_memreg_remove(p);
    if (t)
        gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaFree(void *p) { return release(GT_API_cudaFree, p); }
cudaError_t cudaFreeHost(void *p) { return release(GT_API_cudaFreeHost, p); }
cudaError_t cudaHostUnregister(void *p) { return release(GT_API_cudaHostUnregister, p); }

/* ---- copies ---------------------------------------------------------------- */

static int is_host(enum gt_mem_kind k)
{
    return k == GT_MEM_PAGEABLE || k == GT_MEM_PINNED;
}

/* Fills direction and host memory kind.  Only the host side is looked up,
 * except for cudaMemcpyDefault, where both pointers decide. */
INLINE void classify(struct gt_record *r, const void *dst, const void *src, enum cudaMemcpyKind kind)
{
    enum gt_mem_kind s, d;
    switch (kind) {
    case cudaMemcpyHostToDevice: r->copy_kind = GT_COPY_HTOD; r->mem_kind = (uint8_t)gt_memreg_kind(src); return;
    case cudaMemcpyDeviceToHost: r->copy_kind = GT_COPY_DTOH; r->mem_kind = (uint8_t)gt_memreg_kind(dst); return;
    case cudaMemcpyDeviceToDevice: r->copy_kind = GT_COPY_DTOD; r->mem_kind = GT_MEM_DEVICE; return;
    case cudaMemcpyHostToHost: r->copy_kind = GT_COPY_HTOH; r->mem_kind = (uint8_t)gt_memreg_kind(src); return;
    default:
        s = gt_memreg_kind(src);
        d = gt_memreg_kind(dst);
        if (is_host(s) && !is_host(d)) { r->copy_kind = GT_COPY_HTOD; r->mem_kind = (uint8_t)s; }
        else if (!is_host(s) && is_host(d)) { r->copy_kind = GT_COPY_DTOH; r->mem_kind = (uint8_t)d; }
        else if (is_host(s)) { r->copy_kind = GT_COPY_HTOH; r->mem_kind = (uint8_t)s; }
        else { r->copy_kind = GT_COPY_DTOD; r->mem_kind = GT_MEM_DEVICE; }
    }
}

INLINE cudaError_t copy(enum gt_api api, void *dst, const void *src, size_t n, enum cudaMemcpyKind k)
{
    cudaError_t (*real)(void *, const void *, size_t, enum cudaMemcpyKind) =
        (cudaError_t (*)(void *, const void *, size_t, enum cudaMemcpyKind))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n, k);
    c.r->bytes = n;
    classify(c.r, dst, src, k);
    cudaError_t rc = real(dst, src, n, k);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaMemcpy(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { return copy(GT_API_cudaMemcpy, d, s, n, k); }
cudaError_t cudaMemcpy_ptds(void *d, const void *s, size_t n, enum cudaMemcpyKind k) { return copy(GT_API_cudaMemcpy_ptds, d, s, n, k); }

INLINE cudaError_t copy_async(enum gt_api api, void *dst, const void *src, size_t n, enum cudaMemcpyKind k, cudaStream_t st)
{
    cudaError_t (*real)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t) =
        (cudaError_t (*)(void *, const void *, size_t, enum cudaMemcpyKind, cudaStream_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(dst, src, n, k, st);
    c.r->bytes = n;
    c.r->stream = (uintptr_t)st;
    classify(c.r, dst, src, k);
    cudaError_t rc = real(dst, src, n, k, st);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaMemcpyAsync(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return copy_async(GT_API_cudaMemcpyAsync, d, s, n, k, st); }
cudaError_t cudaMemcpyAsync_ptsz(void *d, const void *s, size_t n, enum cudaMemcpyKind k, cudaStream_t st) { return copy_async(GT_API_cudaMemcpyAsync_ptsz, d, s, n, k, st); }

INLINE cudaError_t copy_2d(enum gt_api api, void *dst, size_t dp, const void *src, size_t sp, size_t w, size_t h,
                          enum cudaMemcpyKind k, cudaStream_t st, int async)
{
    void *real = gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, api);
    if (t) {
        c.r->bytes = w * h;
        c.r->stream = (uintptr_t)st;
        classify(c.r, dst, src, k);
    }
    cudaError_t rc = async
        ? ((cudaError_t (*)(void *, size_t, const void *, size_t, size_t, size_t, enum cudaMemcpyKind, cudaStream_t))real)(dst, dp, src, sp, w, h, k, st)
        : ((cudaError_t (*)(void *, size_t, const void *, size_t, size_t, size_t, enum cudaMemcpyKind))real)(dst, dp, src, sp, w, h, k);
    if (t)
        gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaMemcpy2D(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k) { return copy_2d(GT_API_cudaMemcpy2D, d, dp, s, sp, w, h, k, 0, 0); }
cudaError_t cudaMemcpy2D_ptds(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k) { return copy_2d(GT_API_cudaMemcpy2D_ptds, d, dp, s, sp, w, h, k, 0, 0); }
cudaError_t cudaMemcpy2DAsync(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return copy_2d(GT_API_cudaMemcpy2DAsync, d, dp, s, sp, w, h, k, st, 1); }
cudaError_t cudaMemcpy2DAsync_ptsz(void *d, size_t dp, const void *s, size_t sp, size_t w, size_t h, enum cudaMemcpyKind k, cudaStream_t st) { return copy_2d(GT_API_cudaMemcpy2DAsync_ptsz, d, dp, s, sp, w, h, k, st, 1); }

cudaError_t cudaMemcpyPeer(void *dst, int dd, const void *src, int sd, size_t n)
{
    cudaError_t (*real)(void *, int, const void *, int, size_t) = REAL(cudaMemcpyPeer);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaMemcpyPeer))
        return real(dst, dd, src, sd, n);
    c.r->bytes = n;
    c.r->copy_kind = GT_COPY_DTOD;
    c.r->mem_kind = GT_MEM_DEVICE;
    cudaError_t rc = real(dst, dd, src, sd, n);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dd, const void *src, int sd, size_t n, cudaStream_t st)
{
    cudaError_t (*real)(void *, int, const void *, int, size_t, cudaStream_t) = REAL(cudaMemcpyPeerAsync);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaMemcpyPeerAsync))
        return real(dst, dd, src, sd, n, st);
    c.r->bytes = n;
    c.r->stream = (uintptr_t)st;
    c.r->copy_kind = GT_COPY_DTOD;
    c.r->mem_kind = GT_MEM_DEVICE;
    cudaError_t rc = real(dst, dd, src, sd, n, st);
    gt_exit(&c, rc);
    return rc;
}

INLINE cudaError_t memset_call(enum gt_api api, void *dst, int v, size_t n, cudaStream_t st, int async)
{
    void *real = gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    int t = gt_enter(&c, api);
    if (t) {
        c.r->bytes = n;
        c.r->stream = (uintptr_t)st;
        c.r->copy_kind = GT_COPY_MEMSET;
        c.r->mem_kind = (uint8_t)gt_memreg_kind(dst);
    }
    cudaError_t rc = async ? ((cudaError_t (*)(void *, int, size_t, cudaStream_t))real)(dst, v, n, st)
                           : ((cudaError_t (*)(void *, int, size_t))real)(dst, v, n);
    if (t)
        gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaMemset(void *d, int v, size_t n) { return memset_call(GT_API_cudaMemset, d, v, n, 0, 0); }
cudaError_t cudaMemset_ptds(void *d, int v, size_t n) { return memset_call(GT_API_cudaMemset_ptds, d, v, n, 0, 0); }
cudaError_t cudaMemsetAsync(void *d, int v, size_t n, cudaStream_t st) { return memset_call(GT_API_cudaMemsetAsync, d, v, n, st, 1); }
cudaError_t cudaMemsetAsync_ptsz(void *d, int v, size_t n, cudaStream_t st) { return memset_call(GT_API_cudaMemsetAsync_ptsz, d, v, n, st, 1); }
