/* test_legacy_streams.c: each device's legacy default stream told apart
 * by the calling thread's current device (viewer/read/legacy_streams.h). */
#include "viewer/read/legacy_streams.h"
#include "viewer/model/handles.h"
#include "viewer/model/stream_map.h"

#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

enum { SET = 1, LAUNCH, LAUNCH_PT, RECORD, COUNT, ALLREDUCE };

static struct model m;
static struct proc p;
static struct stream_map sm;
static struct call calls[16];

static void setup(void)
{
    memset(&m, 0, sizeof m);
    memset(&p, 0, sizeof p);
    memset(&sm, 0, sizeof sm);
    model_set_api(&m, SET, "cudaSetDevice");
    model_set_api(&m, LAUNCH, "cudaLaunchKernel");
    model_set_api(&m, LAUNCH_PT, "cudaLaunchKernel_ptsz");
    model_set_api(&m, RECORD, "cudaEventRecord");
    model_set_api(&m, COUNT, "cudaGetDeviceCount");
    model_set_api(&m, ALLREDUCE, "ncclAllReduce");
    p.smap = &sm;
    p.calls = calls;
}

static void teardown(void)
{
    for (int i = 0; i < m.napis; i++)
        free(m.api_names[i]);
    free(m.api_names);
    free(m.roles);
    free(m.answers);
    stream_map_free(&sm);
}

/* a call of thread tid at t: cudaSetDevice(dev) (dev >= 0, its bytes dev
 * + 1 as the tracer stores it), else api on stream */
static struct call call(int tid, int64_t t, int api, int64_t stream, int dev)
{
    return (struct call){ .start = t, .end = t + 1, .tid = tid, .api = (uint16_t)api, .stream = stream,
                          .bytes = dev >= 0 ? dev + 1 : 0 };
}

TestSuite(legacy_streams, .init = setup, .fini = teardown);

Test(legacy_streams, each_device_its_own)
{
    size_t n = 0;
    calls[n++] = call(1, 10, SET, 0, 1);          /* the first device: 1 */
    calls[n++] = call(1, 20, LAUNCH, 0, -1);      /* keeps 0 */
    calls[n++] = call(2, 25, LAUNCH, 0, -1);      /* a thread that chose none: device 0's */
    calls[n++] = call(1, 30, SET, 0, 2);
    calls[n++] = call(1, 40, RECORD, 0, -1);      /* device 2's */
    calls[n++] = call(1, 41, RECORD, 1, -1);      /* cudaStreamLegacy of device 2: the same key */
    calls[n++] = call(1, 42, LAUNCH_PT, 0, -1);   /* the thread's own stream: kept */
    calls[n++] = call(1, 43, LAUNCH, 0x5000, -1); /* a stream the program made: kept */
    calls[n++] = call(2, 50, SET, 0, 1);
    calls[n++] = call(2, 60, LAUNCH, 0, -1);      /* now the first device's: 0 */
    p.ncalls = n;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[1].stream, 0);
    cr_expect_eq(calls[2].stream, LEGACY_STREAM_HANDLE(0, 0));
    cr_expect_neq(calls[2].stream, 0);
    cr_expect_eq(calls[4].stream, LEGACY_STREAM_HANDLE(0, 2));
    cr_expect_eq(calls[5].stream, LEGACY_STREAM_HANDLE(1, 2));
    cr_expect_eq(LEGACY_STREAM_KEY(calls[4].stream), LEGACY_STREAM_KEY(calls[5].stream));
    cr_expect_neq(LEGACY_STREAM_KEY(calls[4].stream), LEGACY_STREAM_KEY(calls[2].stream));
    cr_expect(LEGACY_STREAM(calls[4].stream) && LEGACY_STREAM(calls[2].stream) && LEGACY_STREAM(0));
    cr_expect_eq(STREAM_HANDLE_SHOWN(calls[5].stream), 1);
    cr_expect_eq(STREAM_HANDLE_SHOWN(calls[4].stream), 0);
    cr_expect_eq(calls[6].stream, 0);
    cr_expect_eq(calls[7].stream, 0x5000);
    cr_expect_eq(calls[9].stream, 0);
}

Test(legacy_streams, unknown_or_failed_choices_change_nothing)
{
    size_t n = 0;
    calls[n++] = call(1, 10, LAUNCH, 0, -1);      /* before any device is chosen: kept */
    calls[n++] = call(1, 20, SET, 0, -1);         /* an older recording: no device */
    calls[n++] = call(1, 30, LAUNCH, 0, -1);
    p.ncalls = n;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[0].stream, 0);
    cr_expect_eq(calls[2].stream, 0);
    n = 0;
    calls[n++] = call(1, 10, SET, 0, 3);
    calls[n++] = call(1, 20, SET, 0, 5);
    calls[n - 1].result = 101;                    /* cudaErrorInvalidDevice: still on 3 */
    calls[n++] = call(1, 30, LAUNCH, 0, -1);
    p.ncalls = n;
    legacy_streams_split(&m, &p, INT64_MIN);      /* a pass from the start: the state before forgotten */
    cr_expect_eq(calls[2].stream, 0);
}

Test(legacy_streams, carried_across_windows_and_started_over)
{
    calls[0] = call(1, 10, SET, 0, 0);
    calls[1] = call(1, 15, LAUNCH, 0, -1);        /* the first device used: 0 */
    calls[2] = call(1, 20, SET, 0, 1);
    p.ncalls = 3;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[1].stream, 0);
    calls[0] = call(1, 30, LAUNCH, 0, -1);        /* the next window: still on device 1 */
    p.ncalls = 1;
    legacy_streams_split(&m, &p, 25);
    cr_expect_eq(calls[0].stream, LEGACY_STREAM_HANDLE(0, 1));
    calls[0] = call(1, 5, LAUNCH, 0, -1);         /* the first window again: nothing chosen yet */
    p.ncalls = 1;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[0].stream, 0);
}

Test(legacy_streams, a_collective_takes_its_calls_stream)
{
    /* one process, two GPUs, an all-reduce on stream 0 of each in a group */
    struct coll colls[2] = { { .call_id = 11, .hstream = 0 }, { .call_id = 12, .hstream = 0 } };
    p.colls = colls;
    p.ncolls = 2;
    calls[0] = call(1, 10, SET, 0, 0);
    calls[1] = call(1, 20, ALLREDUCE, 0, -1);
    calls[1].call_id = 11;
    calls[2] = call(1, 30, SET, 0, 1);
    calls[3] = call(1, 40, ALLREDUCE, 0, -1);
    calls[3].call_id = 12;
    p.ncalls = 4;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[3].stream, LEGACY_STREAM_HANDLE(0, 1));
    cr_expect_eq(colls[0].hstream, 0);
    cr_expect_eq(colls[1].hstream, LEGACY_STREAM_HANDLE(0, 1));
}

/* PyTorch sets a device only where it is not the current one already
 * (c10::cuda::SetDevice): a model on GPUs 0 and 1 runs its first work on
 * device 0 with no cudaSetDevice, then chooses 1, then 0 again.  Device
 * 0's legacy stream is one stream throughout, device 1's another. */
Test(legacy_streams, work_before_any_choice_is_device_0s)
{
    size_t n = 0;
    calls[n++] = call(1, 5, COUNT, 0, -1);      /* cudaGetDeviceCount and the like: no stream */
    calls[n++] = call(1, 10, LAUNCH, 0, -1);      /* device 0, chosen by no call */
    calls[n++] = call(1, 20, SET, 0, 1);
    calls[n++] = call(1, 30, LAUNCH, 0, -1);      /* device 1's */
    calls[n++] = call(1, 40, SET, 0, 0);
    calls[n++] = call(1, 50, RECORD, 0, -1);      /* device 0's again */
    p.ncalls = n;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(LEGACY_STREAM_KEY(calls[1].stream), LEGACY_STREAM_KEY(calls[5].stream));
    cr_expect_neq(LEGACY_STREAM_KEY(calls[1].stream), LEGACY_STREAM_KEY(calls[3].stream));
    cr_expect_eq(calls[1].stream, 0); /* the first device used keeps the program's handle */
    cr_expect_eq(calls[5].stream, 0);
    cr_expect_eq(calls[3].stream, LEGACY_STREAM_HANDLE(0, 1));
}

/* A process on one GPU that is not GPU 0 asks about the devices first
 * (on device 0, calls that name no stream): its legacy stream keeps 0. */
Test(legacy_streams, one_gpu_not_0_after_device_queries)
{
    size_t n = 0;
    calls[n++] = call(1, 5, COUNT, 0, -1);      /* cudaGetDeviceCount: no stream */
    calls[n++] = call(1, 10, SET, 0, 3);
    calls[n++] = call(1, 20, LAUNCH, 0, -1);
    calls[n++] = call(1, 30, RECORD, 1, -1);
    p.ncalls = n;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[2].stream, 0);
    cr_expect_eq(calls[3].stream, 1);
}

/* A per-thread stream program's cudaStreamLegacy is the device's legacy
 * stream all the same (its 0 is the thread's own stream) */
Test(legacy_streams, per_thread_calls_legacy_handle)
{
    size_t n = 0;
    calls[n++] = call(1, 10, SET, 0, 1);
    calls[n++] = call(1, 20, LAUNCH_PT, 1, -1);   /* device 1's legacy stream: the first used */
    calls[n++] = call(1, 30, SET, 0, 2);
    calls[n++] = call(1, 40, LAUNCH_PT, 0, -1);   /* the thread's stream: kept */
    calls[n++] = call(1, 50, LAUNCH_PT, 1, -1);   /* device 2's legacy stream */
    p.ncalls = n;
    legacy_streams_split(&m, &p, INT64_MIN);
    cr_expect_eq(calls[1].stream, 1);
    cr_expect_eq(calls[3].stream, 0);
    cr_expect_eq(calls[4].stream, LEGACY_STREAM_HANDLE(1, 2));
}
