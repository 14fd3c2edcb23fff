/* nvtx_cost.c: what an NVTX push/pop pair costs under the tracer.
 *
 * Without a tool NVTX calls an empty function through a pointer; with the
 * tracer injected, its push and pop.  Measured side by side in one process:
 * batches of push/pop pairs alternate with batches of two calls through a
 * pointer to an empty function (what the pair costs untraced).  The first
 * pair (NVTX's one-time initialisation) is made before timing.  Batches
 * are 10 ms apart so that the writer keeps up.  Prints two medians, ns per
 * pair: traced, and untraced. */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

#define BATCHES 101
#define PER_BATCH 2000

__attribute__((noinline)) static void empty(const char *s) { __asm__ volatile("" ::"r"(s)); }
static void (*volatile empty_ptr)(const char *) = empty;

int main(void)
{
    double traced[BATCHES], untraced[BATCHES];
    nvtxRangePushA("warm-up");
    nvtxRangePop();
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++) {
            nvtxRangePushA("forward");
            nvtxRangePop();
        }
        uint64_t t1 = now_ns();
        for (int i = 0; i < PER_BATCH; i++) {
            empty_ptr("forward");
            empty_ptr(NULL);
        }
        uint64_t t2 = now_ns();
        traced[b] = (double)(t1 - t0) / PER_BATCH;
        untraced[b] = (double)(t2 - t1) / PER_BATCH;
        struct timespec pause = { 0, 10 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    printf("%.1f %.1f\n", median_of(traced, BATCHES), median_of(untraced, BATCHES));
    return 0;
}
