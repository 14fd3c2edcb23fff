/* stub_runtime.c: the few runtime functions bench/wrap_cost.c calls, each
 * returning at once, built as a library of its own for the wrapper to call
 * through.  The simulator's calls are a test double of a GPU and cost
 * hundreds of ns (a lock, a clock read, its CUPTI bookkeeping), in whose
 * shadow the wrapper's few tens of ns went unmeasured: measured against
 * this, what the wrapper adds is all there is to see.
 *
 * The same functions are exported again under names the tracer does not
 * wrap (bench_direct_*): the tracer's dlsym hands out its wrapper for a
 * CUDA name looked up in a library handle, so a direct pointer must be
 * found under another name. */
#include <cuda_runtime_api.h>

static int streams;

cudaError_t cudaStreamCreate(cudaStream_t *s)
{
    *s = (cudaStream_t)(long)++streams;
    return cudaSuccess;
}

cudaError_t cudaStreamQuery(cudaStream_t s)
{
    (void)s;
    return cudaSuccess;
}

cudaError_t cudaMemsetAsync(void *p, int v, size_t n, cudaStream_t s)
{
    (void)p, (void)v, (void)n, (void)s;
    return cudaSuccess;
}

__attribute__((alias("cudaStreamQuery"))) cudaError_t bench_direct_cudaStreamQuery(cudaStream_t s);
__attribute__((alias("cudaMemsetAsync"))) cudaError_t bench_direct_cudaMemsetAsync(void *p, int v, size_t n,
                                                                                   cudaStream_t s);
