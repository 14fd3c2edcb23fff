/* wrap_cost.c: the per-call cost the tracer adds, on a call that returns at
 * once (cudaStreamQuery of a stub runtime, bench/stub_runtime.c, whose
 * functions do nothing: the simulator's own cost would hide the wrapper's).
 *
 * Measured side by side in one process: batches through the program's own
 * symbol (the tracer's wrapper when preloaded) alternate with batches that
 * call the stub's function directly (under another name, found with dlsym
 * on its library), so machine noise hits both alike.  Batches are 10 ms
 * apart so the writer keeps up (the rate it sustains is bench/sink_rate.c's
 * job).  Prints three medians (ns per call): wrapped, direct, and the floor
 * (a TSC read plus a store).  With "loop N", N calls in a row and nothing
 * else (see loop_only). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

#include "bench_util.h"

#define BATCHES 101
#define PER_BATCH 2000

static double median(double *v)
{
    return median_of(v, BATCHES);
}

/* The call under test: cudaStreamQuery (no call stack), or with "memset",
 * a zero-byte cudaMemsetAsync, which returns at once but is one of the calls
 * that capture a call stack. */
static cudaError_t (*direct_query)(cudaStream_t);
static cudaError_t (*direct_memset)(void *, int, size_t, cudaStream_t);
static int use_memset;

static inline void wrapped_call(cudaStream_t s)
{
    if (use_memset)
        cudaMemsetAsync(NULL, 0, 0, s);
    else
        cudaStreamQuery(s);
}

static inline void direct(cudaStream_t s)
{
    if (use_memset)
        direct_memset(NULL, 0, 0, s);
    else
        direct_query(s);
}

/* "loop N [R [M]]": N calls of cudaStreamQuery in a row, as a program
 * makes them, nothing else; prints the loop's ns per call, wall and its
 * thread's CPU (bench/wrap_whole.sh times the whole process around it, the
 * writer draining meanwhile).  With R rounds (50 ms apart), the thread's
 * CPU per call of each round after the first too, of M calls each
 * (default N): the first round pays for the ring's growth (the segments
 * its backlog needs, faulted in), the later ones find them mapped, and
 * may fill them: a round whose backlog passes what the ring may hold
 * (245,760 to 262,080 records at the default 8 MiB, collector/tbuf.h)
 * before the drain takes it drops the rest. */
static double thread_ns(void)
{
    struct timespec c;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &c);
    return (double)c.tv_sec * 1e9 + (double)c.tv_nsec;
}

static int loop_only(long first, int rounds, long later)
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaStreamQuery(s); /* activation, if traced, happens here */
    for (int k = 0; k < rounds; k++) {
        long n = k ? later : first;
        double c0 = thread_ns();
        uint64_t t0 = now_ns();
        for (long i = 0; i < n; i++)
            cudaStreamQuery(s);
        uint64_t t1 = now_ns();
        double cpu = thread_ns() - c0;
        /* wall, and this thread's CPU time: on a loaded machine the wall
         * time counts whatever ran on this core meanwhile, the CPU time not */
        if (k == 0)
            printf("%.1f %.1f", n ? (double)(t1 - t0) / (double)n : 0.0, n ? cpu / (double)n : 0.0);
        else
            printf(" %.1f", n ? cpu / (double)n : 0.0);
        struct timespec pause = { 0, 50 * 1000 * 1000 };
        if (k + 1 < rounds)
            nanosleep(&pause, NULL);
    }
    printf("\n");
    return 0;
}

int main(int argc, char **argv)
{
    if (argc > 2 && argv[1][0] == 'l')
        return loop_only(atol(argv[2]), argc > 3 ? atoi(argv[3]) : 1, argc > 4 ? atol(argv[4]) : atol(argv[2]));
    use_memset = argc > 1 && argv[1][0] == 'm';
    /* the stub's own functions, under names the tracer's dlsym passes
     * through (with a CUDA name it would hand out its wrapper) */
    void *stub = dlopen("libbench_stub_runtime.so", RTLD_NOW | RTLD_NOLOAD);
    if (stub) {
        direct_query = (cudaError_t (*)(cudaStream_t))dlsym(stub, "bench_direct_cudaStreamQuery");
        direct_memset = (cudaError_t (*)(void *, int, size_t, cudaStream_t))dlsym(stub, "bench_direct_cudaMemsetAsync");
    }
    if (!direct_query || !direct_memset) {
        fprintf(stderr, "wrap_cost: the stub runtime (bench/stub_runtime.c) is not loaded\n");
        return 1;
    }
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaStreamQuery(s); /* activation, if traced, happens here */
    static volatile uint64_t sink[PER_BATCH];
    double wrapped[BATCHES], plain[BATCHES], floor_[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++)
            wrapped_call(s);
        uint64_t t1 = now_ns();
        for (int i = 0; i < PER_BATCH; i++)
            direct(s);
        uint64_t t2 = now_ns();
        for (int i = 0; i < PER_BATCH; i++)
            sink[i] = __rdtsc();
        uint64_t t3 = now_ns();
        wrapped[b] = (double)(t1 - t0) / PER_BATCH;
        plain[b] = (double)(t2 - t1) / PER_BATCH;
        floor_[b] = (double)(t3 - t2) / PER_BATCH;
        /* let the writer drain between batches, as it does between bursts
         * of calls in a program: this measures recording, not dropping */
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    printf("%.1f %.1f %.1f\n", median(wrapped), median(plain), median(floor_));
    return 0;
}
