/* sim_test_util.c: see sim_test_util.h. */
#define _GNU_SOURCE
#include "sim_test_util.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

uint64_t tu_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void tu_sleep_us(int us)
{
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

void tu_kernel(void **args)
{
    struct tu_karg *a = *(struct tu_karg **)args[0];
    tu_sleep_us(a->us);
    if (a->in && a->seen)
        *a->seen = *a->in;
    if (a->out)
        *a->out = a->value;
}

struct slot { struct tu_karg a; struct tu_karg *ap; void *argv[1]; };
static struct slot ring[1024];
static unsigned ring_next;

void tu_launch(cudaStream_t s, struct tu_karg a)
{
    struct slot *k = &ring[__atomic_fetch_add(&ring_next, 1, __ATOMIC_RELAXED) % 1024];
    k->a = a;
    k->ap = &k->a;
    k->argv[0] = &k->ap;
    cudaLaunchKernel((const void *)tu_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, k->argv, 0, s);
}

static size_t buf_bytes;
static pthread_mutex_t cap_lock = PTHREAD_MUTEX_INITIALIZER;
static CUpti_Activity **cap;
static size_t ncap, capcap;

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max)
{
    *buffer = aligned_alloc(8, buf_bytes);
    *size = buf_bytes;
    *max = 0;
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    (void)ctx; (void)stream; (void)size;
    CUpti_Activity *r = NULL;
    pthread_mutex_lock(&cap_lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &r) == CUPTI_SUCCESS) {
        if (ncap == capcap) {
            capcap = capcap ? capcap * 2 : 256;
            cap = realloc(cap, capcap * sizeof *cap);
        }
        /* records are copied out: the buffer is freed below */
        size_t sz = 512;
        CUpti_Activity *copy = malloc(sz);
        size_t left = (size_t)(buffer + valid - (uint8_t *)r);
        memcpy(copy, r, left < sz ? left : sz);
        cap[ncap++] = copy;
    }
    pthread_mutex_unlock(&cap_lock);
    free(buffer);
}

void tu_cupti_start(size_t buffer_bytes)
{
    buf_bytes = buffer_bytes;
    cuptiActivityRegisterCallbacks(on_request, on_complete);
    static const CUpti_ActivityKind kinds[] = {
        CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
        CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
        CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        cuptiActivityEnable(kinds[i]);
}

void tu_cupti_flush(struct tu_records *out)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&cap_lock);
    out->rec = cap;
    out->n = ncap;
    pthread_mutex_unlock(&cap_lock);
}

int tu_run_ranks(int n, int (*fn)(int rank, int nranks))
{
    static int launches;
    char session[64];
    snprintf(session, sizeof session, "u%dl%d", (int)getpid(), launches++);
    pid_t pids[64];
    for (int r = 0; r < n; r++) {
        pids[r] = fork();
        if (pids[r] == 0) {
            setenv("GPUSIM_SESSION", session, 1);
            fflush(stdout);
            _exit(fn(r, n));
        }
    }
    int failed = 0;
    for (int r = 0; r < n; r++) {
        int st;
        waitpid(pids[r], &st, 0);
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
            failed++;
    }
    return failed;
}
