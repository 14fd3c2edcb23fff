/* many_threads.c: many threads that each make one CUDA call and are all
 * alive at once, for the tracer's memory test (not a training pattern).
 * Usage: many_threads [NTHREADS]
 * The main thread makes one call first; then NTHREADS threads each call
 * cudaStreamQuery(0) once and wait until all have; the main thread prints
 * its resident memory at that point ("rss_kb: N") and the number of
 * wrapped calls made ("wrapped calls: N").  Under a memory limit it starts
 * as many threads as it can and says how many ("threads: N").
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static _Atomic int called, measured;

static void *worker(void *arg)
{
    (void)arg;
    cudaStreamQuery(0);
    called++;
    while (!measured)
        usleep(1000);
    return NULL;
}

static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmRSS:", 6) == 0)
            kb = atol(line + 6);
    if (f)
        fclose(f);
    return kb;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    if (n < 1 || n > 100000)
        return 2;
    pthread_t *t = calloc((size_t)n, sizeof *t);
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 256 << 10);
    cudaSetDevice(0);
    int made = 0;
    while (made < n && pthread_create(&t[made], &attr, worker, NULL) == 0)
        made++;
    while (called < made)
        usleep(1000);
    printf("rss_kb: %ld\n", rss_kb());
    measured = 1;
    for (int i = 0; i < made; i++)
        pthread_join(t[i], NULL);
    printf("threads: %d\n", made);
    printf("wrapped calls: %d\n", made + 1);
    return 0;
}
