/* flood_threads.c THREADS SECONDS: THREADS threads that each call
 * cudaStreamQuery(0) as fast as they can for SECONDS, for
 * tests/e2e/tracer_membound.sh: with the tracer's writer held up meanwhile,
 * every buffer of the tracer fills (its worst case for memory).  Prints
 * "calls: N" (every wrapped call the program made) once the threads are
 * done, and, from a destructor (after the tracer's end, which an atexit
 * handler runs), "hwm_kb: N": the process's peak resident memory.
 * With FLOOD_GO set to a path, each thread makes one call (which starts the
 * tracer) and waits for that file before its SECONDS, and main creates
 * PATH.done once they are over: hold_lock.py then holds the writer up over
 * exactly the flood, however slowly it started. */
#define _GNU_SOURCE
#include "go_file.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double secs;
static _Atomic long total;
static const char *go_file;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *flood(void *arg)
{
    (void)arg;
    long n = 0;
    if (go_file) {
        cudaStreamQuery(0);
        n++;
        go_wait(go_file);
    }
    double t0 = now_s();
    while (now_s() - t0 < secs)
        for (int i = 0; i < 100; i++, n++)
            cudaStreamQuery(0);
    total += n;
    return NULL;
}

__attribute__((destructor)) static void peak(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmHWM:", 6) == 0)
            printf("hwm_kb: %ld\n", atol(line + 6));
    if (f)
        fclose(f);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: flood_threads THREADS SECONDS\n");
        return 2;
    }
    int n = atoi(argv[1]);
    secs = atof(argv[2]);
    go_file = getenv("FLOOD_GO");
    pthread_t t[256];
    if (n < 1 || n > 256)
        return 2;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, flood, NULL) != 0)
            return 1;
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    if (go_done(go_file) != 0)
        return 1;
    printf("calls: %ld\n", (long)total);
    fflush(stdout);
    return 0;
}
