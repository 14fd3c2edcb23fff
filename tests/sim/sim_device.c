/* sim_device.c: simulated devices, error state and kernel launches.
 *
 * GPUSIM_DEVICES (default 8) sets how many devices the process sees.  The
 * current device is per thread, as in CUDA.  A "kernel" is an exported host
 * function void name(void **args); its name in activity records is its
 * symbol name, found once with dladdr and cached.  The host stub of a
 * kernel that nvcc compiled runs as sim_nvcc_abi.c says.
 */
#define _GNU_SOURCE
#include "sim_internal.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static _Thread_local int current_device;
static _Thread_local cudaError_t last_error = cudaSuccess;

int sim_device_count(void)
{
    static int count = -1;
    if (count < 0) {
        const char *v = getenv("GPUSIM_DEVICES");
        int n = v ? atoi(v) : 8;
        count = n < 1 ? 1 : n > SIM_MAX_DEVICES ? SIM_MAX_DEVICES : n;
    }
    return count;
}

int sim_current_device(void)
{
    return current_device;
}

cudaError_t sim_set_error(cudaError_t e)
{
    if (e != cudaSuccess)
        last_error = e;
    return e;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceCount_v3020);
    cudaError_t rc = cudaSuccess;
    if (!count)
        rc = sim_set_error(cudaErrorInvalidValue);
    else
        *count = sim_device_count();
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaSetDevice(int device)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaSetDevice_v3020);
    cudaError_t rc = cudaSuccess;
    if (device < 0 || device >= sim_device_count())
        rc = sim_set_error(cudaErrorInvalidDevice);
    else
        current_device = device;
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaGetDevice(int *device)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020);
    cudaError_t rc = cudaSuccess;
    if (!device)
        rc = sim_set_error(cudaErrorInvalidValue);
    else
        *device = current_device;
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaGetDeviceProperties_v12000);
    cudaError_t rc = cudaSuccess;
    if (!prop) {
        rc = sim_set_error(cudaErrorInvalidValue);
    } else if (device < 0 || device >= sim_device_count()) {
        rc = sim_set_error(cudaErrorInvalidDevice);
    } else {
        memset(prop, 0, sizeof *prop);
        snprintf(prop->name, sizeof prop->name, "gpusim GPU %d", device);
        prop->multiProcessorCount = 132;
        prop->totalGlobalMem = (size_t)80 << 30;
        prop->major = 9;
        prop->minor = 0;
        prop->pciBusID = 0x10 + device;
        prop->warpSize = 32;
        prop->maxThreadsPerBlock = 1024;
        prop->asyncEngineCount = 2;
        prop->concurrentKernels = 1;
        prop->unifiedAddressing = 1;
        prop->managedMemory = 1;
    }
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaDeviceReset(void)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceReset_v3020);
    sim_device_drain(sim_current_device());
    sim_api_end(&api, cudaSuccess);
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;
    last_error = cudaSuccess;
    return e;
}

cudaError_t cudaPeekAtLastError(void)
{
    return last_error;
}

#define SIM_ERRORS(X)                                              \
    X(cudaSuccess, "no error")                                     \
    X(cudaErrorInvalidValue, "invalid argument")                   \
    X(cudaErrorMemoryAllocation, "out of memory")                  \
    X(cudaErrorInvalidDevice, "invalid device ordinal")            \
    X(cudaErrorInvalidResourceHandle, "invalid resource handle")   \
    X(cudaErrorNotReady, "device not ready")                       \
    X(cudaErrorInvalidDevicePointer, "invalid device pointer")     \
    X(cudaErrorInvalidMemcpyDirection, "invalid copy direction for memcpy")

const char *cudaGetErrorString(cudaError_t error)
{
#define X(code, text) if (error == code) return text;
    SIM_ERRORS(X)
#undef X
    return "unrecognized error code";
}

const char *cudaGetErrorName(cudaError_t error)
{
#define X(code, text) if (error == code) return #code;
    SIM_ERRORS(X)
#undef X
    return "cudaErrorUnknown";
}

/* ---- kernels ------------------------------------------------------------ */

#define NAME_CACHE 256
static struct { const void *fn; const char *name; } name_cache[NAME_CACHE]; /* guarded by sim_lock */

static const char *kernel_name(const void *fn)
{
    size_t slot = ((uintptr_t)fn >> 4) % NAME_CACHE;
    pthread_mutex_lock(&sim_lock);
    const char *name = name_cache[slot].fn == fn ? name_cache[slot].name : NULL;
    pthread_mutex_unlock(&sim_lock);
    if (name)
        return name;
    Dl_info info;
    name = dladdr(fn, &info) && info.dli_sname ? info.dli_sname : "anonymous_kernel";
    pthread_mutex_lock(&sim_lock);
    name_cache[slot].fn = fn;
    name_cache[slot].name = name;
    pthread_mutex_unlock(&sim_lock);
    return name;
}

/* A host stub nvcc registered runs its kernel (sim_nvcc_abi.c); any other
 * function is a C workload's kernel: called with args as they are. */
cudaError_t sim_launch(const void *func, void **args, cudaStream_t stream)
{
    if (!func)
        return sim_set_error(cudaErrorInvalidValue);
    if (sim_is_nvcc_kernel(func))
        return sim_launch_nvcc_kernel(func, args, stream);
    struct sim_op *op = sim_op_new(SIM_OP_KERNEL);
    op->fn = (void (*)(void **))func;
    op->args = args;
    op->name = kernel_name(func);
    sim_enqueue(sim_resolve_stream(stream), op);
    return cudaSuccess;
}

cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                             size_t sharedMem, cudaStream_t stream)
{
    (void)gridDim; (void)blockDim; (void)sharedMem;
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
    cudaError_t rc = sim_launch(func, args, stream);
    sim_api_end(&api, rc);
    return rc;
}

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args)
{
    sim_api_ctx api;
    sim_api_begin(&api, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060);
    cudaError_t rc = config ? sim_launch(func, args, config->stream) : sim_set_error(cudaErrorInvalidValue);
    sim_api_end(&api, rc);
    return rc;
}
