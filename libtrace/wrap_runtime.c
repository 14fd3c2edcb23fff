/* wrap_runtime.c: CUDA runtime wrappers for streams, events, the device and
 * launches, in both the legacy and the per-thread (_ptsz/_ptds) entry
 * points.  Every wrapper has the shape described in trace.h. */
#define _GNU_SOURCE
#include "libtrace/per_thread_decls.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <cuda_runtime_api.h>

#define INLINE static inline __attribute__((always_inline))

#define MISSING cudaErrorSharedObjectSymbolNotFound

/* ---- one stream argument ------------------------------------------------- */

INLINE cudaError_t stream_call(enum gt_api api, cudaStream_t s)
{
    cudaError_t (*real)(cudaStream_t) = (cudaError_t (*)(cudaStream_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(s);
    c.r->stream = (uintptr_t)s;
    cudaError_t rc = real(s);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaStreamSynchronize(cudaStream_t s) { return stream_call(GT_API_cudaStreamSynchronize, s); }
cudaError_t cudaStreamSynchronize_ptsz(cudaStream_t s) { return stream_call(GT_API_cudaStreamSynchronize_ptsz, s); }
cudaError_t cudaStreamQuery(cudaStream_t s) { return stream_call(GT_API_cudaStreamQuery, s); }
cudaError_t cudaStreamQuery_ptsz(cudaStream_t s) { return stream_call(GT_API_cudaStreamQuery_ptsz, s); }
cudaError_t cudaStreamDestroy(cudaStream_t s) { return stream_call(GT_API_cudaStreamDestroy, s); }

/* ---- stream creation ----------------------------------------------------- */

INLINE cudaError_t stream_created(struct gt_call *c, cudaError_t rc, cudaStream_t *out, unsigned flags)
{
    if (rc == cudaSuccess && out)
        c->r->stream = (uintptr_t)*out;
    c->r->bytes = flags; /* the creation flags, for the report's stream table */
    gt_exit(c, rc);
    return rc;
}

cudaError_t cudaStreamCreate(cudaStream_t *out)
{
    cudaError_t (*real)(cudaStream_t *) = REAL(cudaStreamCreate);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaStreamCreate))
        return real(out);
    return stream_created(&c, real(out), out, 0);
}

cudaError_t cudaStreamCreateWithFlags(cudaStream_t *out, unsigned int flags)
{
    cudaError_t (*real)(cudaStream_t *, unsigned) = REAL(cudaStreamCreateWithFlags);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaStreamCreateWithFlags))
        return real(out, flags);
    return stream_created(&c, real(out, flags), out, flags);
}

cudaError_t cudaStreamCreateWithPriority(cudaStream_t *out, unsigned int flags, int priority)
{
    cudaError_t (*real)(cudaStream_t *, unsigned, int) = REAL(cudaStreamCreateWithPriority);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaStreamCreateWithPriority))
        return real(out, flags, priority);
    return stream_created(&c, real(out, flags, priority), out, flags);
}

/* ---- stream/event pairs ------------------------------------------------- */

INLINE cudaError_t wait_event(enum gt_api api, cudaStream_t s, cudaEvent_t e, unsigned flags)
{
    cudaError_t (*real)(cudaStream_t, cudaEvent_t, unsigned) = (cudaError_t (*)(cudaStream_t, cudaEvent_t, unsigned))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(s, e, flags);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)e;
    cudaError_t rc = real(s, e, flags);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaStreamWaitEvent(cudaStream_t s, cudaEvent_t e, unsigned int f) { return wait_event(GT_API_cudaStreamWaitEvent, s, e, f); }
cudaError_t cudaStreamWaitEvent_ptsz(cudaStream_t s, cudaEvent_t e, unsigned int f) { return wait_event(GT_API_cudaStreamWaitEvent_ptsz, s, e, f); }

INLINE cudaError_t event_record(enum gt_api api, cudaEvent_t e, cudaStream_t s, unsigned flags, int with_flags)
{
    void *real = gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    int traced = gt_enter(&c, api);
    if (traced) {
        c.r->stream = (uintptr_t)s;
        c.r->event = (uintptr_t)e;
    }
    cudaError_t rc = with_flags ? ((cudaError_t (*)(cudaEvent_t, cudaStream_t, unsigned))real)(e, s, flags)
                                : ((cudaError_t (*)(cudaEvent_t, cudaStream_t))real)(e, s);
    if (traced)
        gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaEventRecord(cudaEvent_t e, cudaStream_t s) { return event_record(GT_API_cudaEventRecord, e, s, 0, 0); }
cudaError_t cudaEventRecord_ptsz(cudaEvent_t e, cudaStream_t s) { return event_record(GT_API_cudaEventRecord_ptsz, e, s, 0, 0); }
cudaError_t cudaEventRecordWithFlags(cudaEvent_t e, cudaStream_t s, unsigned int f) { return event_record(GT_API_cudaEventRecordWithFlags, e, s, f, 1); }
cudaError_t cudaEventRecordWithFlags_ptsz(cudaEvent_t e, cudaStream_t s, unsigned int f) { return event_record(GT_API_cudaEventRecordWithFlags_ptsz, e, s, f, 1); }

/* ---- one event argument ------------------------------------------------- */

INLINE cudaError_t event_call(enum gt_api api, cudaEvent_t e)
{
    cudaError_t (*real)(cudaEvent_t) = (cudaError_t (*)(cudaEvent_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(e);
    c.r->event = (uintptr_t)e;
    cudaError_t rc = real(e);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaEventSynchronize(cudaEvent_t e) { return event_call(GT_API_cudaEventSynchronize, e); }
cudaError_t cudaEventQuery(cudaEvent_t e) { return event_call(GT_API_cudaEventQuery, e); }
cudaError_t cudaEventDestroy(cudaEvent_t e) { return event_call(GT_API_cudaEventDestroy, e); }

INLINE cudaError_t event_created(struct gt_call *c, cudaError_t rc, cudaEvent_t *out, unsigned flags)
{
    if (rc == cudaSuccess && out)
        c->r->event = (uintptr_t)*out;
    c->r->bytes = flags;
    gt_exit(c, rc);
    return rc;
}

cudaError_t cudaEventCreate(cudaEvent_t *out)
{
    cudaError_t (*real)(cudaEvent_t *) = REAL(cudaEventCreate);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaEventCreate))
        return real(out);
    return event_created(&c, real(out), out, 0);
}

cudaError_t cudaEventCreateWithFlags(cudaEvent_t *out, unsigned int flags)
{
    cudaError_t (*real)(cudaEvent_t *, unsigned) = REAL(cudaEventCreateWithFlags);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaEventCreateWithFlags))
        return real(out, flags);
    return event_created(&c, real(out, flags), out, flags);
}

cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end)
{
    cudaError_t (*real)(float *, cudaEvent_t, cudaEvent_t) = REAL(cudaEventElapsedTime);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaEventElapsedTime))
        return real(ms, start, end);
    c.r->event = (uintptr_t)end;
    cudaError_t rc = real(ms, start, end);
    gt_exit(&c, rc);
    return rc;
}

/* ---- device --------------------------------------------------------------- */

cudaError_t cudaDeviceSynchronize(void)
{
    cudaError_t (*real)(void) = REAL(cudaDeviceSynchronize);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaDeviceSynchronize))
        return real();
    cudaError_t rc = real();
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t (*real)(int) = REAL(cudaSetDevice);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, GT_API_cudaSetDevice))
        return real(device);
    c.r->device = (uint16_t)device;
    /* the device + 1 in the row (api_call.bytes): the report tells each
     * device's legacy stream apart by the thread's current device */
    c.r->bytes = device >= 0 ? (uint64_t)device + 1 : 0;
    cudaError_t rc = real(device);
    gt_exit(&c, rc);
    return rc;
}

/* ---- launches ------------------------------------------------------------- */

INLINE cudaError_t launch(enum gt_api api, const void *func, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s)
{
    cudaError_t (*real)(const void *, dim3, dim3, void **, size_t, cudaStream_t) =
        (cudaError_t (*)(const void *, dim3, dim3, void **, size_t, cudaStream_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(func, g, b, args, shmem, s);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)func; /* the kernel; CUPTI names it */
    cudaError_t rc = real(func, g, b, args, shmem, s);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaLaunchKernel(const void *f, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s) { return launch(GT_API_cudaLaunchKernel, f, g, b, a, m, s); }
cudaError_t cudaLaunchKernel_ptsz(const void *f, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s) { return launch(GT_API_cudaLaunchKernel_ptsz, f, g, b, a, m, s); }

/* nvcc 13's <<<>>>: the host stub calls __cudaGetKernel once, then this
 * (crt/device_functions.h declares it, for C++ only) */
cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s);
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s);

INLINE cudaError_t kernel_launch(enum gt_api api, cudaKernel_t k, dim3 g, dim3 b, void **args, size_t shmem, cudaStream_t s)
{
    cudaError_t (*real)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t) =
        (cudaError_t (*)(cudaKernel_t, dim3, dim3, void **, size_t, cudaStream_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(k, g, b, args, shmem, s);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)k;
    cudaError_t rc = real(k, g, b, args, shmem, s);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s) { return kernel_launch(GT_API___cudaLaunchKernel, k, g, b, a, m, s); }
cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t k, dim3 g, dim3 b, void **a, size_t m, cudaStream_t s) { return kernel_launch(GT_API___cudaLaunchKernel_ptsz, k, g, b, a, m, s); }

INLINE cudaError_t launch_ex(enum gt_api api, const cudaLaunchConfig_t *config, const void *func, void **args)
{
    cudaError_t (*real)(const cudaLaunchConfig_t *, const void *, void **) =
        (cudaError_t (*)(const cudaLaunchConfig_t *, const void *, void **))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(config, func, args);
    c.r->stream = config ? (uintptr_t)config->stream : 0;
    c.r->event = (uintptr_t)func;
    cudaError_t rc = real(config, func, args);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *c, const void *f, void **a) { return launch_ex(GT_API_cudaLaunchKernelExC, c, f, a); }
/* the per-thread-stream form, which cuda_runtime_api.h does not declare */
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *c, const void *f, void **a);
cudaError_t cudaLaunchKernelExC_ptsz(const cudaLaunchConfig_t *c, const void *f, void **a) { return launch_ex(GT_API_cudaLaunchKernelExC_ptsz, c, f, a); }

INLINE cudaError_t graph_launch(enum gt_api api, cudaGraphExec_t g, cudaStream_t s)
{
    cudaError_t (*real)(cudaGraphExec_t, cudaStream_t) = (cudaError_t (*)(cudaGraphExec_t, cudaStream_t))gt_real(api);
    if (!real)
        return MISSING;
    struct gt_call c;
    if (!gt_enter(&c, api))
        return real(g, s);
    c.r->stream = (uintptr_t)s;
    c.r->event = (uintptr_t)g;
    cudaError_t rc = real(g, s);
    gt_exit(&c, rc);
    return rc;
}

cudaError_t cudaGraphLaunch(cudaGraphExec_t g, cudaStream_t s) { return graph_launch(GT_API_cudaGraphLaunch, g, s); }
cudaError_t cudaGraphLaunch_ptsz(cudaGraphExec_t g, cudaStream_t s) { return graph_launch(GT_API_cudaGraphLaunch_ptsz, g, s); }
