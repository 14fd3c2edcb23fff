/* sink_rate.c [RATE [nvtx|launch]]: how many records per second reach the
 * database, at default settings, from one thread making wrapped calls (or,
 * with "nvtx", NVTX push/pop pairs: one range record each; with "launch",
 * kernel launches: with CUPTI on, a call, an API record and a kernel record
 * each) for about two
 * seconds while the writer drains; then exit (the final flush is part of
 * the time).  Without RATE (or with 0) the thread calls as fast as it can;
 * with it, it offers RATE records per second (bursts of 1000, sleeping
 * between), to show whether that rate is sustained without drops.  Prints
 * records made, seconds, and the rate; the caller counts the stored rows
 * and the drops. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_util.h"

static double now_s(void)
{
    return (double)now_ns() / 1e9;
}

static void nop_kernel(void) {}

static double t_start = -1;
static long calls;

/* A destructor of the program runs after every atexit handler, the
 * tracer's final flush included. */
__attribute__((destructor)) static void report(void)
{
    if (t_start < 0)
        return;
    double t = now_s() - t_start;
    printf("records %ld in %.2f s (final flush included): %.0f records/s\n", calls, t, (double)calls / t);
}

int main(int argc, char **argv)
{
    double rate = argc > 1 ? atof(argv[1]) : 0;
    int nvtx = argc > 2 && argv[2][0] == 'n';
    int launch = argc > 2 && argv[2][0] == 'l';
    void *args[1] = { NULL };
    cudaStream_t s;
    cudaStreamCreate(&s);
    cudaStreamQuery(s);
    if (nvtx) { /* NVTX's one-time set-up, outside the timing */
        nvtxRangePushA("warm-up");
        nvtxRangePop();
    }
    t_start = now_s();
    for (double t; (t = now_s() - t_start) < 2.0;) {
        if (rate > 0 && (double)calls >= rate * t) {
            /* ahead of the schedule: sleep until the next burst is due,
             * leaving the CPU to the writer.  Not a short pause polled
             * again: 20,000 wake-ups were most of an untraced run's CPU
             * time, and their noise hid the tracer's (bench/row_cost.sh) */
            double due = (double)calls / rate - t;
            long ns = due > 0.01 ? 10000000L : due > 0 ? (long)(due * 1e9) + 1 : 1000;
            struct timespec pause = { 0, ns };
            nanosleep(&pause, NULL);
            continue;
        }
        if (nvtx) {
            for (int i = 0; i < 1000; i++, calls++) {
                nvtxRangePushA("op");
                nvtxRangePop();
            }
        } else if (launch) {
            for (int i = 0; i < 1000; i++, calls++)
                cudaLaunchKernel((const void *)nop_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, args, 0, s);
        } else {
            for (int i = 0; i < 1000; i++, calls++)
                cudaStreamQuery(s);
        }
    }
    if (launch) /* every kernel done, so that each has its record */
        cudaStreamSynchronize(s);
    return 0;
}
