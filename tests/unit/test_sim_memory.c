/* test_sim_memory.c: the simulator's allocations and copies: blocking
 * versus asynchronous, pageable versus pinned, cudaFree's device sync. */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sim_test_util.h"

#define MiB (1u << 20)

Test(sim_memory, blocking_copy_waits_for_prior_work_and_copies)
{
    int *d;
    int host = 0;
    cudaMalloc((void **)&d, sizeof(int));
    tu_launch(0, (struct tu_karg){ .us = 20000, .value = 42, .out = d });
    cr_assert_eq(cudaMemcpy(&host, d, sizeof host, cudaMemcpyDeviceToHost), cudaSuccess);
    cr_expect_eq(host, 42);
}

Test(sim_memory, async_pinned_copy_returns_at_once)
{
    cudaStream_t s;
    int *d, *h;
    cudaStreamCreate(&s);
    cudaMalloc((void **)&d, sizeof(int));
    cudaMallocHost((void **)&h, sizeof(int));
    *h = 0;
    tu_launch(s, (struct tu_karg){ .us = 30000, .value = 5, .out = d });
    uint64_t t0 = tu_now_ns();
    cr_assert_eq(cudaMemcpyAsync(h, d, sizeof(int), cudaMemcpyDeviceToHost, s), cudaSuccess);
    cr_expect_lt(tu_now_ns() - t0, 15000000ull, "async pinned copy blocked the host");
    cudaStreamSynchronize(s);
    cr_expect_eq(*h, 5);
}

Test(sim_memory, async_pageable_copy_blocks_the_host)
{
    cudaStream_t s;
    int *d, h = 0;
    cudaStreamCreate(&s);
    cudaMalloc((void **)&d, sizeof(int));
    tu_launch(s, (struct tu_karg){ .us = 30000, .value = 9, .out = d });
    uint64_t t0 = tu_now_ns();
    cudaMemcpyAsync(&h, d, sizeof(int), cudaMemcpyDeviceToHost, s);
    cr_expect_geq(tu_now_ns() - t0, 28000000ull, "pageable async copy did not block");
    cr_expect_eq(h, 9);
}

/* GPU time of the one memcpy record a copy makes. */
static uint64_t copy_gpu_ns(void *dst, const void *src, size_t n, enum cudaMemcpyKind k)
{
    static struct tu_records prev;
    cudaMemcpy(dst, src, n, k);
    cudaDeviceSynchronize(); /* a pageable upload returns once staged: its record comes at its end */
    struct tu_records r;
    tu_cupti_flush(&r);
    uint64_t t = 0;
    for (size_t i = prev.n; i < r.n; i++)
        if (r.rec[i]->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
            t = ((CUpti_ActivityMemcpy6 *)r.rec[i])->end - ((CUpti_ActivityMemcpy6 *)r.rec[i])->start;
    prev = r;
    return t;
}

Test(sim_memory, pageable_copies_are_slower_than_pinned)
{
    void *d, *pinned, *pageable = malloc(16 * MiB);
    cudaMalloc(&d, 16 * MiB);
    cudaMallocHost(&pinned, 16 * MiB);
    memset(pageable, 1, 16 * MiB);
    tu_cupti_start(64 * 1024);
    /* the fastest of three: a loaded machine (the sanitizer build, tests run
     * side by side) only ever adds time to a copy */
    uint64_t t_pinned = UINT64_MAX, t_pageable = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t a = copy_gpu_ns(d, pinned, 16 * MiB, cudaMemcpyHostToDevice);
        uint64_t b = copy_gpu_ns(d, pageable, 16 * MiB, cudaMemcpyHostToDevice);
        t_pinned = a < t_pinned ? a : t_pinned;
        t_pageable = b < t_pageable ? b : t_pageable;
    }
    /* the model gives 16 MiB 4.2 ms pinned and 16.8 ms pageable; a copy
     * lasts longer only when the host's memmove behind it outlasts the
     * model (its record spans the memmove: sim_stream.c), as under the
     * sanitizers beside other tests, where 16 MiB took 15 ms: then the two
     * differ by less */
    cr_expect_geq(t_pinned, 4000000, "pinned %llu ns", (unsigned long long)t_pinned);
    cr_expect_geq(t_pageable, 16000000, "pageable %llu ns", (unsigned long long)t_pageable);
    cr_expect(t_pageable > t_pinned + 8000000 || t_pinned > 8000000, "pageable %llu ns, pinned %llu ns",
              (unsigned long long)t_pageable, (unsigned long long)t_pinned);
    cr_expect_eq(((unsigned char *)d)[16 * MiB - 1], 1);
    free(pageable);
}

/* GPUSIM_COPY_SLOWDOWN=N moves every copy's bytes N times slower: a test
 * gets a copy as long as a large one's with a small memmove behind it. */
Test(sim_memory, copy_slowdown_lengthens_copies)
{
    setenv("GPUSIM_COPY_SLOWDOWN", "16", 1); /* read at the first copy */
    void *d, *pinned;
    cudaMalloc(&d, MiB);
    cudaMallocHost(&pinned, MiB);
    memset(pinned, 7, MiB);
    tu_cupti_start(64 * 1024);
    /* 1 MiB pinned: 0.26 ms at the default rate, 4.2 ms 16 times slower
     * (its memmove well under a millisecond, under the sanitizers too) */
    uint64_t t = copy_gpu_ns(d, pinned, MiB, cudaMemcpyHostToDevice);
    cr_expect_geq(t, 4000000, "1 MiB pinned, 16 times slower: %llu ns", (unsigned long long)t);
    cr_expect_eq(((unsigned char *)d)[MiB - 1], 7);
}

/* As CUDA documents pageable uploads: the call returns once the source is
 * staged, the DMA of its last chunk still running (a stream sync after it
 * waits for that tail); a download from the device returns when done. */
Test(sim_memory, pageable_upload_returns_once_staged)
{
    void *d, *pageable = malloc(8 * MiB);
    cudaMalloc(&d, 8 * MiB);
    memset(pageable, 2, 8 * MiB);
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    /* the tail lasts 262 us: a machine busy enough may deschedule this
     * thread that long once, not five times in a row */
    int pending = 0;
    for (int i = 0; i < 5; i++) {
        cr_assert_eq(cudaMemcpyAsync(d, pageable, 8 * MiB, cudaMemcpyHostToDevice, s), cudaSuccess);
        pending += cudaStreamQuery(s) == cudaErrorNotReady;
        cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    }
    cr_expect_gt(pending, 0, "the DMA's tail still ran when the call returned (%d of 5)", pending);
    cr_expect_eq(((unsigned char *)d)[8 * MiB - 1], 2);
    cr_assert_eq(cudaMemcpyAsync(pageable, d, 8 * MiB, cudaMemcpyDeviceToHost, s), cudaSuccess);
    cr_expect_eq(cudaStreamQuery(s), cudaSuccess, "a pageable download returns when done");
    cudaStreamDestroy(s);
    cudaFree(d);
    free(pageable);
}

Test(sim_memory, free_synchronises_the_device)
{
    cudaStream_t s;
    void *a, *b;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaMalloc(&a, 64);
    cudaMalloc(&b, 64);
    int flag = 0;
    tu_launch(s, (struct tu_karg){ .us = 20000, .value = 1, .out = &flag });
    cr_assert_eq(cudaFree(b), cudaSuccess);
    cr_expect_eq(flag, 1, "cudaFree returned before the device was idle");
    cr_expect_eq(cudaFree(b), cudaErrorInvalidDevicePointer);
    cr_expect_eq(cudaFree(NULL), cudaSuccess);
    cudaFree(a);
}

Test(sim_memory, memset_and_2d_and_peer_copies)
{
    char *d, *d2, h[64];
    cudaMalloc((void **)&d, 64);
    cudaMalloc((void **)&d2, 64);
    cr_assert_eq(cudaMemset(d, 0x5a, 64), cudaSuccess);
    cudaMemsetAsync(d + 32, 0x11, 32, 0);
    cudaMemcpyPeer(d2, 1, d, 0, 64);
    cudaMemcpy(h, d2, 64, cudaMemcpyDeviceToHost);
    cr_expect_eq(h[0], 0x5a);
    cr_expect_eq(h[40], 0x11);
    char src[4][8], dst[4][16];
    memset(src, 'x', sizeof src);
    memset(dst, 0, sizeof dst);
    cr_assert_eq(cudaMemcpy2D(dst, 16, src, 8, 8, 4, cudaMemcpyHostToHost), cudaSuccess);
    cr_expect_eq(dst[3][7], 'x');
    cr_expect_eq(dst[3][8], 0);
}

Test(sim_memory, managed_and_registered_memory)
{
    int *m;
    cr_assert_eq(cudaMallocManaged((void **)&m, 16, 1), cudaSuccess);
    m[0] = 3;
    static int reg[1024];
    cr_expect_eq(cudaHostRegister(reg, sizeof reg, 0), cudaSuccess);
    cr_expect_eq(cudaHostUnregister(reg), cudaSuccess);
    cr_expect_eq(cudaHostUnregister(reg), cudaErrorInvalidValue);
    cr_expect_eq(cudaFree(m), cudaSuccess);
    void *h;
    cr_expect_eq(cudaHostAlloc(&h, 16, 0), cudaSuccess);
    cr_expect_eq(cudaFreeHost(h), cudaSuccess);
}
