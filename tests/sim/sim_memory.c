/* sim_memory.c: simulated allocations and copies.
 *
 * Device, pinned and managed memory are ordinary host memory that the
 * simulator allocated and remembers, so that pointers can be classified
 * (cudaMemcpyDefault, CUPTI's src/dst memory kinds) and kernels can touch
 * them.  Anything else is pageable host memory.
 *
 * Host synchronisation follows CUDA's "API synchronization behavior":
 *   - cudaMemcpy and cudaMemcpy2D/Peer run on the legacy default stream and
 *     return when the copy is done;
 *   - an Async copy returns at once, except when it touches pageable host
 *     memory, where it returns when the copy is done; but from pageable
 *     memory to the device either form returns once the source is staged,
 *     before the DMA of the last staging chunk has completed (STAGE_BYTES
 *     of it, at most half the copy; a stream sync after it then waits for
 *     that tail, as c10's after `.to(device)` does on a real GPU);
 *   - cudaMemset is asynchronous unless the target is pinned host memory;
 *   - cudaFree and cudaFreeHost synchronise the device first.
 * Copy time follows a bandwidth model: pageable copies are slower than pinned.
 */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_model_env.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

struct alloc { char *base; size_t size; sim_mem_kind kind; int owned; int device; };

static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static struct alloc *allocs;   /* guarded by mem_lock */
static size_t nallocs, cap;    /* guarded by mem_lock */

/* Bytes per microsecond (== MB/s) of each path, and a fixed launch latency. */
enum { BW_PINNED = 4000, BW_PAGEABLE = 1000, BW_DEVICE = 50000, BW_HOST = 4000, LATENCY_NS = 2000 };
/* The staging chunk of a pageable upload whose DMA is still running when
 * the call returns. */
#define STAGE_BYTES (1u << 20)

static void track(void *p, size_t size, sim_mem_kind kind, int owned)
{
    pthread_mutex_lock(&mem_lock);
    if (nallocs == cap) {
        cap = cap ? cap * 2 : 64;
        allocs = realloc(allocs, cap * sizeof *allocs);
        if (!allocs)
            abort();
    }
    allocs[nallocs++] = (struct alloc){ p, size, kind, owned, sim_current_device() };
    pthread_mutex_unlock(&mem_lock);
}

/* Removes the allocation starting at p; returns 0 if there was none. */
static int untrack(void *p, sim_mem_kind *kind, int *owned)
{
    int found = 0;
    pthread_mutex_lock(&mem_lock);
    for (size_t i = 0; i < nallocs; i++) {
        if (allocs[i].base == p) {
            *kind = allocs[i].kind;
            *owned = allocs[i].owned;
            allocs[i] = allocs[--nallocs];
            found = 1;
            break;
        }
    }
    pthread_mutex_unlock(&mem_lock);
    return found;
}

sim_mem_kind sim_classify(const void *ptr)
{
    sim_mem_kind k = SIM_MEM_PAGEABLE;
    const char *p = ptr;
    pthread_mutex_lock(&mem_lock);
    for (size_t i = 0; i < nallocs; i++) {
        if (p >= allocs[i].base && p < allocs[i].base + (allocs[i].size ? allocs[i].size : 1)) {
            k = allocs[i].kind;
            break;
        }
    }
    pthread_mutex_unlock(&mem_lock);
    return k;
}

uint8_t sim_cupti_mem_kind(sim_mem_kind k)
{
    static const uint8_t map[] = {
        [SIM_MEM_PAGEABLE] = CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE,
        [SIM_MEM_DEVICE] = CUPTI_ACTIVITY_MEMORY_KIND_DEVICE,
        [SIM_MEM_PINNED] = CUPTI_ACTIVITY_MEMORY_KIND_PINNED,
        [SIM_MEM_MANAGED] = CUPTI_ACTIVITY_MEMORY_KIND_MANAGED,
    };
    return map[k];
}

static int on_device(sim_mem_kind k)
{
    return k == SIM_MEM_DEVICE || k == SIM_MEM_MANAGED;
}

uint64_t sim_copy_model_ns(size_t bytes, sim_mem_kind src, sim_mem_kind dst)
{
    unsigned bw;
    if (on_device(src) && on_device(dst))
        bw = BW_DEVICE;
    else if (!on_device(src) && !on_device(dst))
        bw = BW_HOST;
    else if (src == SIM_MEM_PAGEABLE || dst == SIM_MEM_PAGEABLE)
        bw = BW_PAGEABLE;
    else
        bw = BW_PINNED;
    return LATENCY_NS + (uint64_t)bytes * 1000 * sim_copy_slowdown() / bw;
}

/* ---- allocation -------------------------------------------------------- */

static cudaError_t sim_alloc(void **ptr, size_t size, sim_mem_kind kind, CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    cudaError_t rc = cudaSuccess;
    if (!ptr) {
        rc = sim_set_error(cudaErrorInvalidValue);
    } else {
        void *p = NULL;
        if (posix_memalign(&p, 256, size ? size : 1) != 0) {
            *ptr = NULL;
            rc = sim_set_error(cudaErrorMemoryAllocation);
        } else {
            memset(p, 0, size);
            track(p, size, kind, 1);
            *ptr = p;
            long us = sim_malloc_us(); /* the driver mapping the pages */
            struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
            while (us && nanosleep(&ts, &ts) != 0)
                ;
        }
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaMalloc(void **devPtr, size_t size)
{
    return sim_alloc(devPtr, size, SIM_MEM_DEVICE, CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020);
}

cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    return sim_alloc(ptr, size, SIM_MEM_PINNED, CUPTI_RUNTIME_TRACE_CBID_cudaMallocHost_v3020);
}

cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags)
{
    (void)flags;
    return sim_alloc(pHost, size, SIM_MEM_PINNED, CUPTI_RUNTIME_TRACE_CBID_cudaHostAlloc_v3020);
}

cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags)
{
    (void)flags;
    return sim_alloc(devPtr, size, SIM_MEM_MANAGED, CUPTI_RUNTIME_TRACE_CBID_cudaMallocManaged_v6000);
}

static cudaError_t sim_free(void *p, int host, CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    cudaError_t rc = cudaSuccess;
    if (p) {
        sim_device_drain(sim_current_device()); /* cudaFree synchronises the device */
        sim_mem_kind kind;
        int owned;
        if (!untrack(p, &kind, &owned) || !owned || (kind == SIM_MEM_PINNED) != host)
            rc = sim_set_error(host ? cudaErrorInvalidValue : cudaErrorInvalidDevicePointer);
        else
            free(p);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaFree(void *devPtr)
{
    return sim_free(devPtr, 0, CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020);
}

cudaError_t cudaFreeHost(void *ptr)
{
    return sim_free(ptr, 1, CUPTI_RUNTIME_TRACE_CBID_cudaFreeHost_v3020);
}

cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags)
{
    (void)flags;
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaHostRegister_v4000);
    cudaError_t rc = cudaSuccess;
    if (!ptr || !size)
        rc = sim_set_error(cudaErrorInvalidValue);
    else
        track(ptr, size, SIM_MEM_PINNED, 0);
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaHostUnregister(void *ptr)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaHostUnregister_v4000);
    sim_mem_kind kind;
    int owned;
    cudaError_t rc = cudaSuccess;
    if (!ptr || !untrack(ptr, &kind, &owned) || owned)
        rc = sim_set_error(cudaErrorInvalidValue);
    sim_api_end(&api, rc);
    return rc;
}

/* ---- copies and memsets ------------------------------------------------ */

static uint8_t copy_kind(sim_mem_kind src, sim_mem_kind dst)
{
    if (on_device(src))
        return on_device(dst) ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOD : CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    return on_device(dst) ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD : CUPTI_ACTIVITY_MEMCPY_KIND_HTOH;
}

/* The memory kind a pointer has, given the side of the copy the caller
 * declared: a host pointer is pinned, managed or pageable; a device pointer
 * is device or managed memory. */
static sim_mem_kind side_kind(const void *p, int device_side)
{
    sim_mem_kind k = sim_classify(p);
    if (device_side)
        return k == SIM_MEM_MANAGED ? SIM_MEM_MANAGED : SIM_MEM_DEVICE;
    return k == SIM_MEM_DEVICE ? SIM_MEM_PINNED : k;
}

static int kinds_for(enum cudaMemcpyKind kind, const void *src, const void *dst, sim_mem_kind *sk, sim_mem_kind *dk)
{
    switch (kind) {
    case cudaMemcpyHostToHost:     *sk = side_kind(src, 0); *dk = side_kind(dst, 0); return 0;
    case cudaMemcpyHostToDevice:   *sk = side_kind(src, 0); *dk = side_kind(dst, 1); return 0;
    case cudaMemcpyDeviceToHost:   *sk = side_kind(src, 1); *dk = side_kind(dst, 0); return 0;
    case cudaMemcpyDeviceToDevice: *sk = side_kind(src, 1); *dk = side_kind(dst, 1); return 0;
    case cudaMemcpyDefault:        *sk = sim_classify(src); *dk = sim_classify(dst); return 0;
    default: return -1;
    }
}

struct copy_req {
    void *dst; const void *src; size_t bytes;
    size_t width, height, spitch, dpitch;
    enum cudaMemcpyKind kind;
    cudaStream_t stream;
    int async;
};

static cudaError_t do_copy(const struct copy_req *r, CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    sim_mem_kind sk, dk;
    cudaError_t rc = cudaSuccess;
    if ((!r->dst || !r->src) && r->bytes) {
        rc = sim_set_error(cudaErrorInvalidValue);
    } else if (kinds_for(r->kind, r->src, r->dst, &sk, &dk) != 0) {
        rc = sim_set_error(cudaErrorInvalidMemcpyDirection);
    } else if (r->bytes) {
        struct sim_op *op = sim_op_new(SIM_OP_MEMCPY);
        op->dst = r->dst;
        op->src = r->src;
        op->bytes = r->bytes;
        op->width = r->width;
        op->height = r->height;
        op->spitch = r->spitch;
        op->dpitch = r->dpitch;
        op->async = r->async;
        op->copy_kind = copy_kind(sk, dk);
        op->src_kind = sim_cupti_mem_kind(sk);
        op->dst_kind = sim_cupti_mem_kind(dk);
        op->model_ns = sim_copy_model_ns(r->bytes, sk, dk);
        if (sk == SIM_MEM_PAGEABLE && on_device(dk)) {
            uint64_t tail = (uint64_t)(r->bytes < STAGE_BYTES ? r->bytes : STAGE_BYTES) * 1000 *
                            sim_copy_slowdown() / BW_PINNED;
            if (tail > op->model_ns / 2)
                tail = op->model_ns / 2;
            op->stage_ns = op->model_ns - tail;
        }
        int staged = op->stage_ns > 0; /* read before the op is the stream's to free */
        struct sim_stream *s = sim_resolve_stream(r->async ? r->stream : NULL);
        uint64_t ticket = sim_enqueue(s, op);
        if (staged)
            sim_wait_staged(s, ticket);
        else if (!r->async || sk == SIM_MEM_PAGEABLE || dk == SIM_MEM_PAGEABLE)
            sim_wait_ticket(s, ticket);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind)
{
    struct copy_req r = { .dst = dst, .src = src, .bytes = count, .kind = kind };
    return do_copy(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020);
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    struct copy_req r = { .dst = dst, .src = src, .bytes = count, .kind = kind, .stream = stream, .async = 1 };
    return do_copy(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
}

cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                         size_t height, enum cudaMemcpyKind kind)
{
    struct copy_req r = { .dst = dst, .src = src, .bytes = width * height, .width = width, .height = height,
                          .spitch = spitch, .dpitch = dpitch, .kind = kind };
    return do_copy(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2D_v3020);
}

cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                              size_t height, enum cudaMemcpyKind kind, cudaStream_t stream)
{
    struct copy_req r = { .dst = dst, .src = src, .bytes = width * height, .width = width, .height = height,
                          .spitch = spitch, .dpitch = dpitch, .kind = kind, .stream = stream, .async = 1 };
    return do_copy(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020);
}

cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count)
{
    (void)dstDevice; (void)srcDevice;
    struct copy_req r = { .dst = dst, .src = src, .bytes = count, .kind = cudaMemcpyDeviceToDevice };
    return do_copy(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeer_v4000);
}

cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                cudaStream_t stream)
{
    (void)dstDevice; (void)srcDevice;
    struct copy_req r = { .dst = dst, .src = src, .bytes = count, .kind = cudaMemcpyDeviceToDevice,
                          .stream = stream, .async = 1 };
    return do_copy(&r, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000);
}

static cudaError_t do_memset(void *dst, int value, size_t count, cudaStream_t stream, int async,
                             CUpti_CallbackId cbid)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    cudaError_t rc = cudaSuccess;
    if (!dst && count) {
        rc = sim_set_error(cudaErrorInvalidValue);
    } else if (count) {
        sim_mem_kind k = sim_classify(dst);
        struct sim_op *op = sim_op_new(SIM_OP_MEMSET);
        op->dst = dst;
        op->value = value;
        op->bytes = count;
        op->async = async;
        op->dst_kind = sim_cupti_mem_kind(k);
        op->model_ns = sim_copy_model_ns(count, SIM_MEM_DEVICE, SIM_MEM_DEVICE);
        struct sim_stream *s = sim_resolve_stream(async ? stream : NULL);
        uint64_t ticket = sim_enqueue(s, op);
        if (!async && k == SIM_MEM_PINNED)
            sim_wait_ticket(s, ticket);
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaMemset(void *devPtr, int value, size_t count)
{
    return do_memset(devPtr, value, count, NULL, 0, CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020);
}

cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream)
{
    return do_memset(devPtr, value, count, stream, 1, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020);
}
