/* cb_cost.c: the cost of a call the tracer records from CUPTI's callbacks
 * (a static-runtime program, which no wrapper sees: docs/loading.md).
 *
 * Linked with the simulator's static archive, as nvcc links its static
 * runtime, and run twice by bench/run.sh: with CUDA_INJECTION64_PATH naming
 * the tracer and without.  In each process, batches of a 0-byte
 * cudaMemsetAsync (a call whose stack the report needs: recorded from its
 * callback, with its stack) alternate with batches of kernel launches
 * (which CUPTI's activity records alone see: no callback for launches, whose
 * cost matters most), so machine noise hits both alike.  Prints the two
 * medians (ns per call) and the floor (a TSC read plus a store): a launch
 * traced minus untraced is what CUPTI's activity adds to a call; the memset
 * adds that and the callback's record. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <x86intrin.h>

#include "bench_util.h"

/* a kernel of the simulator's C contract: a host function, run on the stream */
void cb_cost_nop_kernel(void **args)
{
    (void)args;
}
static void *no_args[1];

#define BATCHES 101
#define PER_BATCH 2000

int main(void)
{
    cudaStream_t s;
    cudaStreamCreate(&s); /* the driver initialises (and injects) here */
    static volatile uint64_t sink[PER_BATCH];
    double memset_ns[BATCHES], launch_ns[BATCHES], floor_ns[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++)
            cudaMemsetAsync(NULL, 0, 0, s);
        uint64_t t1 = now_ns();
        for (int i = 0; i < PER_BATCH; i++)
            cudaLaunchKernel((const void *)cb_cost_nop_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, no_args, 0, s);
        uint64_t t2 = now_ns();
        for (int i = 0; i < PER_BATCH; i++)
            sink[i] = __rdtsc();
        uint64_t t3 = now_ns();
        memset_ns[b] = (double)(t1 - t0) / PER_BATCH;
        launch_ns[b] = (double)(t2 - t1) / PER_BATCH;
        floor_ns[b] = (double)(t3 - t2) / PER_BATCH;
        cudaStreamSynchronize(s); /* the launches run before the next batch */
        struct timespec pause = { 0, 10 * 1000 * 1000 }; /* the writer drains between bursts */
        nanosleep(&pause, NULL);
    }
    printf("%.1f %.1f %.1f\n", median_of(memset_ns, BATCHES), median_of(launch_ns, BATCHES),
           median_of(floor_ns, BATCHES));
    return 0;
}
