/* paced_calls.c RATE SECONDS: cudaStreamQuery calls offered at RATE a
 * second for SECONDS (bursts of 100, sleeping when ahead), for
 * tests/e2e/tracer_stall.sh: a steady stream of records while the tracer's
 * writer is held up.  Prints "calls: N" at the end. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: paced_calls RATE SECONDS\n");
        return 2;
    }
    double rate = atof(argv[1]), secs = atof(argv[2]);
    cudaStream_t s;
    cudaStreamCreate(&s);
    long calls = 0;
    double t0 = now_s();
    for (double t; (t = now_s() - t0) < secs;) {
        if ((double)calls >= rate * t) {
            struct timespec pause = { 0, 200 * 1000 };
            nanosleep(&pause, NULL);
            continue;
        }
        for (int i = 0; i < 100; i++, calls++)
            cudaStreamQuery(s);
    }
    cudaStreamDestroy(s);
    printf("calls: %ld\n", calls + 2); /* with the create and the destroy */
    return 0;
}
