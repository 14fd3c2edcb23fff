/* paced_calls.c RATE SECONDS: cudaStreamQuery calls offered at RATE a
 * second for SECONDS (bursts of 100, sleeping when ahead), for
 * tests/e2e/tracer_stall.sh: a steady stream of records while the tracer's
 * writer is held up.  Prints "calls: N" at the end.  With PACED_GO set to
 * a path, waits for that file after its first call (which starts the
 * tracer) before its SECONDS, and creates PATH.done after them: the
 * writer's hold-up (hold_lock.py's GO) then falls inside them. */
#define _GNU_SOURCE
#include "go_file.h"

#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

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
    const char *go = getenv("PACED_GO");
    go_wait(go);
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
    go_done(go);
    cudaStreamDestroy(s);
    printf("calls: %ld\n", calls + 2); /* with the create and the destroy */
    return 0;
}
