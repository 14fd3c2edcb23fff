/* long_kernel.c MS [nosync]: one kernel that runs MS milliseconds, for the
 * tracer's handling of GPU work still running when CUPTI is flushed
 * (tests/e2e/tracer_unfinished.sh).  On a stream of its own: 5 kernels of
 * 1 ms, each waited for, then the long one, waited for
 * (cudaStreamSynchronize), then exits; with "nosync" exits while it still
 * runs, as a program that never waits for its last work.
 * Prints "done" before it exits; exit status 0 if every call succeeded. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int ms;

static void sleep_ms(int n)
{
    struct timespec ts = { n / 1000, (long)(n % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void short_kernel(void **args)
{
    (void)args;
    sleep_ms(1);
}

static void long_kernel(void **args)
{
    (void)args;
    sleep_ms(ms);
}

int main(int argc, char **argv)
{
    ms = argc > 1 ? atoi(argv[1]) : 300;
    int nosync = argc > 2 && strcmp(argv[2], "nosync") == 0;
    cudaStream_t s;
    void *argv_k[1] = { NULL };
    if (cudaStreamCreate(&s) != cudaSuccess)
        return 1;
    for (int i = 0; i < 5; i++)
        if (cudaLaunchKernel((const void *)short_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_k, 0, s) != cudaSuccess ||
            cudaStreamSynchronize(s) != cudaSuccess)
            return 1;
    if (cudaLaunchKernel((const void *)long_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, argv_k, 0, s) != cudaSuccess)
        return 1;
    if (!nosync && cudaStreamSynchronize(s) != cudaSuccess)
        return 1;
    printf("done\n");
    return 0;
}
