/* test_sim_stream.c: the simulator's stream, event and default-stream
 * semantics, checked against what CUDA documents. */
#include <criterion/criterion.h>

#include "sim_test_util.h"

Test(sim_stream, runs_work_in_order)
{
    cudaStream_t s;
    cr_assert_eq(cudaStreamCreate(&s), cudaSuccess);
    int a = 0, b = 0, c = 0, seen_b = -1, seen_c = -1;
    tu_launch(s, (struct tu_karg){ .us = 3000, .value = 1, .out = &a });
    tu_launch(s, (struct tu_karg){ .us = 1000, .value = 2, .out = &b, .in = &a, .seen = &seen_b });
    tu_launch(s, (struct tu_karg){ .us = 0, .value = 3, .out = &c, .in = &b, .seen = &seen_c });
    cr_assert_eq(cudaStreamSynchronize(s), cudaSuccess);
    cr_expect_eq(seen_b, 1, "second kernel ran before the first finished");
    cr_expect_eq(seen_c, 2);
    cr_expect_eq(c, 3);
}

Test(sim_stream, stream_query_reports_pending_work)
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    tu_launch(s, (struct tu_karg){ .us = 20000 });
    cr_expect_eq(cudaStreamQuery(s), cudaErrorNotReady);
    cudaStreamSynchronize(s);
    cr_expect_eq(cudaStreamQuery(s), cudaSuccess);
}

Test(sim_stream, event_wait_orders_streams)
{
    cudaStream_t s1, s2;
    cudaEvent_t ev;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    cudaEventCreate(&ev);
    int flag = 0, seen = -1;
    tu_launch(s1, (struct tu_karg){ .us = 20000, .value = 1, .out = &flag });
    cudaEventRecord(ev, s1);
    cr_expect_eq(cudaEventQuery(ev), cudaErrorNotReady);
    cr_assert_eq(cudaStreamWaitEvent(s2, ev, 0), cudaSuccess);
    tu_launch(s2, (struct tu_karg){ .in = &flag, .seen = &seen });
    cudaStreamSynchronize(s2);
    cr_expect_eq(seen, 1, "the kernel on s2 did not wait for the event");
    cr_expect_eq(cudaEventQuery(ev), cudaSuccess);
    cr_expect_eq(cudaEventDestroy(ev), cudaSuccess);
}

Test(sim_stream, without_event_wait_streams_run_concurrently)
{
    cudaStream_t s1, s2;
    cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking);
    cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking);
    int flag = 0, seen = -1;
    tu_launch(s1, (struct tu_karg){ .us = 30000, .value = 1, .out = &flag });
    tu_launch(s2, (struct tu_karg){ .in = &flag, .seen = &seen });
    cudaStreamSynchronize(s2);
    cr_expect_eq(seen, 0);
    cudaDeviceSynchronize();
    cr_expect_eq(flag, 1, "cudaDeviceSynchronize returned before all streams were done");
}

Test(sim_stream, legacy_default_stream_serialises_with_blocking_streams)
{
    cudaStream_t blocking, nonblocking;
    cudaStreamCreate(&blocking);
    cudaStreamCreateWithFlags(&nonblocking, cudaStreamNonBlocking);
    int f1 = 0, f2 = 0, seen1 = -1, seen2 = -1, after = 0, seen_after = -1;
    tu_launch(blocking, (struct tu_karg){ .us = 20000, .value = 1, .out = &f1 });
    tu_launch(nonblocking, (struct tu_karg){ .us = 20000, .value = 1, .out = &f2 });
    tu_launch(0, (struct tu_karg){ .us = 10000, .in = &f1, .seen = &seen1, .value = 1, .out = &after });
    /* blocking-stream work after legacy work waits for it */
    tu_launch(blocking, (struct tu_karg){ .in = &after, .seen = &seen_after });
    tu_launch(0, (struct tu_karg){ .in = &f2, .seen = &seen2 });
    cudaStreamSynchronize(0);
    cudaStreamSynchronize(blocking);
    cr_expect_eq(seen1, 1, "legacy stream work did not wait for the blocking stream");
    cr_expect_eq(seen_after, 1, "blocking stream work did not wait for the legacy stream");
    cudaDeviceSynchronize();
}

Test(sim_stream, nonblocking_stream_does_not_wait_for_legacy)
{
    cudaStream_t nb;
    cudaStreamCreateWithFlags(&nb, cudaStreamNonBlocking);
    int flag = 0, seen = -1;
    tu_launch(0, (struct tu_karg){ .us = 30000, .value = 1, .out = &flag });
    tu_launch(nb, (struct tu_karg){ .in = &flag, .seen = &seen });
    cudaStreamSynchronize(nb);
    cr_expect_eq(seen, 0);
    cudaDeviceSynchronize();
}

Test(sim_stream, per_thread_default_stream)
{
    int flag = 0;
    tu_launch(cudaStreamPerThread, (struct tu_karg){ .us = 5000, .value = 7, .out = &flag });
    cr_assert_eq(cudaStreamSynchronize(cudaStreamPerThread), cudaSuccess);
    cr_expect_eq(flag, 7);
}

Test(sim_stream, event_elapsed_time_and_timing_flags)
{
    cudaStream_t s;
    cudaEvent_t a, b, nt;
    float ms = 0;
    cudaStreamCreate(&s);
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    cudaEventCreateWithFlags(&nt, cudaEventDisableTiming);
    cudaEventRecord(a, s);
    tu_launch(s, (struct tu_karg){ .us = 10000 });
    cudaEventRecord(b, s);
    cudaEventRecord(nt, s);
    cr_expect_eq(cudaEventElapsedTime(&ms, a, b), cudaErrorNotReady);
    cr_assert_eq(cudaEventSynchronize(b), cudaSuccess);
    cr_assert_eq(cudaEventElapsedTime(&ms, a, b), cudaSuccess);
    cr_expect(ms >= 9.5f && ms < 200.0f, "elapsed %f ms", ms);
    cr_expect_eq(cudaEventElapsedTime(&ms, a, nt), cudaErrorInvalidResourceHandle);
    cr_expect_eq(cudaGetLastError(), cudaErrorInvalidResourceHandle);
    cr_expect_eq(cudaGetLastError(), cudaSuccess);
    cr_expect_eq(cudaEventDestroy(a), cudaSuccess);
    cudaEventDestroy(b);
    cudaEventDestroy(nt);
}

Test(sim_stream, stream_synchronize_blocks_the_host)
{
    cudaStream_t s;
    cudaStreamCreate(&s);
    uint64_t t0 = tu_now_ns();
    tu_launch(s, (struct tu_karg){ .us = 20000 });
    uint64_t launched = tu_now_ns();
    cudaStreamSynchronize(s);
    uint64_t done = tu_now_ns();
    cr_expect_lt(launched - t0, 10000000ull, "a launch blocked the host");
    cr_expect_geq(done - t0, 19000000ull);
}

Test(sim_device, devices_and_properties)
{
    int n = 0, d = -1;
    struct cudaDeviceProp p;
    cr_assert_eq(cudaGetDeviceCount(&n), cudaSuccess);
    cr_expect_geq(n, 4);
    cr_expect_eq(cudaSetDevice(2), cudaSuccess);
    cudaGetDevice(&d);
    cr_expect_eq(d, 2);
    cr_expect_eq(cudaSetDevice(n), cudaErrorInvalidDevice);
    cr_assert_eq(cudaGetDeviceProperties(&p, 1), cudaSuccess);
    cr_expect_str_eq(p.name, "gpusim GPU 1");
    cr_expect_gt(p.multiProcessorCount, 0);
    cr_expect_str_eq(cudaGetErrorName(cudaErrorInvalidDevice), "cudaErrorInvalidDevice");
    cr_expect_eq(cudaPeekAtLastError(), cudaErrorInvalidDevice);
}
