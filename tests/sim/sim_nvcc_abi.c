/* sim_nvcc_abi.c: the host side of nvcc's ABI, so that a .cu file compiled
 * by nvcc with `-cudart none` links against the simulator and its
 * `kernel<<<grid, block, shmem, stream>>>(args)` launches run on simulated
 * streams.  nvcc 13's host code (crt/host_runtime.h, crt/device_functions.h):
 *
 *   at start-up   __cudaRegisterFatBinary, then __cudaRegisterFunction for
 *                 each __global__ (host stub address -> device name),
 *                 __cudaRegisterFatBinaryEnd; __cudaUnregisterFatBinary at exit
 *   per launch    __cudaPushCallConfiguration (the <<<>>> arguments), then the
 *                 host stub: __cudaPopCallConfiguration, __cudaGetKernel once
 *                 (a cudaKernel_t for the stub), __cudaLaunchKernel (or
 *                 __cudaLaunchKernel_ptsz) with an array of argument pointers
 *                 that point into the stub's own frame
 *   with __NV_LEGACY_LAUNCH, cudaLaunchKernel(stub, ...) instead, also here.
 *
 * A __global__ kernel runs as a host function the workload provides under
 * this convention, looked up by the kernel's device name (its mangled name;
 * give kernels C linkage, `extern "C" __global__`, for plain names):
 *   void gpusim_kernel_NAME(void **args)   the kernel's body on the host;
 *   const size_t gpusim_kernel_NAME_args[] the byte size of each argument,
 *                                          ending with 0.
 * The arguments are copied at launch, as the real runtime copies them, since
 * the array nvcc passes points into a frame that is gone by the time the
 * stream runs the kernel.  A kernel without a body lasts
 * GPUSIM_KERNEL_US (default 10) microseconds.  The workload is linked with
 * -rdynamic so that the names can be found.  The kernel's name in CUPTI's
 * records is its device name, as the real CUPTI reports it.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct sim_kernel {
    const void *stub;            /* the host stub nvcc generated */
    const char *name;            /* device name */
    void (*body)(void **args);   /* gpusim_kernel_NAME, or NULL */
    const size_t *arg_sizes;     /* gpusim_kernel_NAME_args, or NULL */
};

#define MAX_KERNELS 1024
static struct sim_kernel kernels[MAX_KERNELS]; /* guarded by sim_lock */
static int nkernels;

struct fatbin {
    void *image;
};

void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct fatbin *f = calloc(1, sizeof *f);
    if (f)
        f->image = fatCubin;
    return (void **)f;
}

void __cudaRegisterFatBinaryEnd(void **handle)
{
    (void)handle;
}

void __cudaUnregisterFatBinary(void **handle)
{
    free(handle);
}

char __cudaInitModule(void **handle)
{
    (void)handle;
    return 1;
}

static void *convention(const char *prefix, const char *name, const char *suffix)
{
    char sym[512];
    if (snprintf(sym, sizeof sym, "%s%s%s", prefix, name, suffix) >= (int)sizeof sym)
        return NULL;
    return dlsym(RTLD_DEFAULT, sym);
}

void __cudaRegisterFunction(void **handle, const char *hostFun, char *deviceFun, const char *deviceName,
                            int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim, dim3 *gDim, int *wSize)
{
    (void)handle; (void)deviceFun; (void)thread_limit; (void)tid; (void)bid; (void)bDim; (void)gDim; (void)wSize;
    pthread_mutex_lock(&sim_lock);
    if (nkernels < MAX_KERNELS) {
        struct sim_kernel *k = &kernels[nkernels++];
        k->stub = hostFun;
        k->name = deviceName;
        *(void **)&k->body = convention("gpusim_kernel_", deviceName, "");
        k->arg_sizes = convention("gpusim_kernel_", deviceName, "_args");
    }
    pthread_mutex_unlock(&sim_lock);
}

static struct sim_kernel *find_kernel(const void *stub)
{
    struct sim_kernel *found = NULL;
    pthread_mutex_lock(&sim_lock);
    for (int i = 0; i < nkernels && !found; i++)
        if (kernels[i].stub == stub)
            found = &kernels[i];
    pthread_mutex_unlock(&sim_lock);
    return found;
}

int sim_is_nvcc_kernel(const void *fn)
{
    return find_kernel(fn) != NULL;
}

/* ---- the call configuration: one stack per thread, as <<<>>> nests ------- */

struct launch_config {
    dim3 grid, block;
    size_t shmem;
    cudaStream_t stream;
};
#define CONFIG_DEPTH 16
static _Thread_local struct launch_config configs[CONFIG_DEPTH];
static _Thread_local int nconfigs;

unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem, struct CUstream_st *stream)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaPushCallConfiguration_v13000);
    unsigned rc = 0;
    if (nconfigs == CONFIG_DEPTH)
        rc = 1; /* non-zero: the <<<>>> expression skips the launch */
    else
        configs[nconfigs++] = (struct launch_config){ gridDim, blockDim, sharedMem, stream };
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaPopCallConfiguration_v13000);
    cudaError_t rc = cudaSuccess;
    if (!nconfigs) {
        rc = sim_set_error(cudaErrorMissingConfiguration);
    } else {
        struct launch_config *c = &configs[--nconfigs];
        *gridDim = c->grid;
        *blockDim = c->block;
        *sharedMem = c->shmem;
        *(cudaStream_t *)stream = c->stream;
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *fun)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000);
    struct sim_kernel *k = find_kernel(fun);
    cudaError_t rc = k ? cudaSuccess : sim_set_error(cudaErrorInvalidDeviceFunction);
    if (kernel)
        *kernel = (cudaKernel_t)k;
    sim_api_end(&api, rc);
    return rc;
}

/* ---- running a kernel ------------------------------------------------------ */

struct kernel_run {
    struct sim_kernel *k;
    void *args[64];
    char data[];
};

static void run_kernel(struct sim_op *op)
{
    struct kernel_run *run = op->ctx;
    if (run->k->body) {
        run->k->body(run->args);
    } else {
        static uint64_t us;
        if (!us) {
            const char *v = getenv("GPUSIM_KERNEL_US");
            us = v && atoi(v) > 0 ? (uint64_t)atoi(v) : 10;
        }
        sim_sleep_until(sim_mono_ns() + us * 1000);
    }
    free(run);
}

/* Enqueues a registered kernel; the arguments are copied now. */
static cudaError_t enqueue_kernel(struct sim_kernel *k, void **args, cudaStream_t stream)
{
    size_t n = 0, bytes = 0;
    if (k->body && k->arg_sizes)
        for (; k->arg_sizes[n] && n < 64; n++)
            bytes += (k->arg_sizes[n] + 15) & ~(size_t)15;
    struct kernel_run *run = calloc(1, sizeof *run + bytes);
    if (!run)
        return sim_set_error(cudaErrorMemoryAllocation);
    run->k = k;
    char *p = run->data;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, args[i], k->arg_sizes[i]);
        run->args[i] = p;
        p += (k->arg_sizes[i] + 15) & ~(size_t)15;
    }
    struct sim_op *op = sim_op_new(SIM_OP_HOSTFN);
    op->hostfn = run_kernel;
    op->ctx = run;
    op->name = k->name;
    sim_enqueue(sim_resolve_stream(stream), op);
    return cudaSuccess;
}

/* cudaLaunchKernel and cudaLaunchKernelExC of a registered stub
 * (__NV_LEGACY_LAUNCH, or a program that takes the stub's address). */
cudaError_t sim_launch_nvcc_kernel(const void *stub, void **args, cudaStream_t stream)
{
    struct sim_kernel *k = find_kernel(stub);
    return k ? enqueue_kernel(k, args, stream) : sim_set_error(cudaErrorInvalidDeviceFunction);
}

static cudaError_t launch(CUpti_CallbackId cbid, cudaKernel_t kernel, void **args, cudaStream_t stream)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, cbid);
    struct sim_kernel *k = (struct sim_kernel *)kernel;
    cudaError_t rc = k ? enqueue_kernel(k, args, stream) : sim_set_error(cudaErrorInvalidResourceHandle);
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                               cudaStream_t stream)
{
    (void)gridDim; (void)blockDim; (void)sharedMem;
    return launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000, kernel, args, stream);
}

cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                    size_t sharedMem, cudaStream_t stream)
{
    (void)gridDim; (void)blockDim; (void)sharedMem;
    /* stream 0 is the calling thread's default stream in this form */
    return launch(CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000, kernel, args,
                  stream ? stream : cudaStreamPerThread);
}
