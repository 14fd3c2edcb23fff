/* wrap_cost.c: the per-call cost the tracer adds, measured on a call that
 * returns at once (cudaStreamQuery on an idle simulated stream).  Prints
 * the median ns per call over batches; bench/run.sh runs it untraced and
 * traced side by side, with the floor (a bare clock read plus a store). */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <x86intrin.h>

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define BATCHES 41
#define PER_BATCH 20000

int main(int argc, char **argv)
{
    int floor_only = argc > 1;
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaStreamQuery(s); /* activation, if traced, happens here */
    static volatile uint64_t sink[PER_BATCH];
    double per[BATCHES];
    for (int b = 0; b < BATCHES; b++) {
        uint64_t t0 = now_ns();
        for (int i = 0; i < PER_BATCH; i++) {
            if (floor_only)
                sink[i] = __rdtsc();
            else
                cudaStreamQuery(s);
        }
        per[b] = (double)(now_ns() - t0) / PER_BATCH;
    }
    qsort(per, BATCHES, sizeof *per, cmp);
    printf("%.1f\n", per[BATCHES / 2]);
    return 0;
}
