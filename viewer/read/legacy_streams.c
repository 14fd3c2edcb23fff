/* legacy_streams.c: each device's legacy default stream told apart
 * (legacy_streams.h).
 *
 * A program names the legacy stream 0 (or cudaStreamLegacy, 1) whatever
 * its current device, and each device has its own.  PyTorch runs each
 * GPU's work on it unless told otherwise, and orders a copy from one GPU
 * to another with an event recorded on one device's current stream that
 * the other's waits for, both ways (aten/src/ATen/native/cuda/Copy.cu,
 * copy_device_to_device): a model split across a process's GPUs
 * (`device_map="auto"`) waits across GPUs on streams that are all 0.  As
 * one handle they were one stream of the process: every call on stream 0
 * mapped to the first GPU's, no wait across GPUs seen, no pipeline (its
 * idle gpu.stalled's, "waiting for something on no GPU").
 *
 * Each thread's current device is the one its last successful
 * cudaSetDevice chose (the tracer stores it + 1 in the call's bytes; a
 * recording without it has every call as before), device 0 until then,
 * as CUDA has it.  The process's first device, the current device of its
 * first call on a legacy stream, keeps the program's handle: a process on
 * one GPU, whichever, reads as before; the legacy stream of any other
 * device takes a handle of its own.  Not the first device a cudaSetDevice
 * chose: PyTorch calls it only to change the device (c10::cuda::SetDevice
 * asks cudaGetDevice first), so a model on GPUs 0 and 1 does its first
 * work on device 0 with no call, then chooses 1, then 0 again.  Nor the
 * device of a call that names no stream (cudaGetDeviceCount, cudaMalloc:
 * 0 in their stream field), made on device 0 before a process on another
 * GPU chooses it.  The per-thread default stream's calls (_ptsz, _ptds)
 * keep their 0, the thread's stream; their cudaStreamLegacy (1) is the
 * device's legacy stream as anyone's.  An NCCL call's collective takes
 * its call's handle. */
#include "viewer/read/legacy_streams.h"
#include "viewer/model/handles.h"
#include "viewer/model/stream_map.h"

#include <string.h>

/* Whether a call of the API on handle 0 or 1 names the legacy stream (a
 * launch, copy, memset, event record or wait, stream sync or query, an
 * NCCL operation, an ...Async call), not no stream at all */
static int names_a_stream(const struct model *m, int api)
{
    if (api <= 0 || api >= m->napis)
        return 0;
    switch (m->roles[api]) {
    case ROLE_SYNC_STREAM:
    case ROLE_COPY_SYNC:
    case ROLE_COPY_ASYNC:
    case ROLE_MEMSET_SYNC:
    case ROLE_EVENT_RECORD:
    case ROLE_STREAM_WAIT:
    case ROLE_LAUNCH:
    case ROLE_NCCL_OP:
        return 1;
    case ROLE_OTHER: {
        const char *n = model_api_name(m, api);
        return strstr(n, "Async") || strstr(n, "Stream");
    }
    default:
        return 0;
    }
}

void legacy_streams_split(const struct model *m, struct proc *p, int64_t lo)
{
    struct stream_map *sm = p->smap;
    if (!sm)
        return;
    if (!sm->devices_on || lo <= sm->devices_lo) { /* the process from its start */
        idmap_free(&sm->thread_device);
        sm->first_device = -1;
    }
    sm->devices_on = 1;
    sm->devices_lo = lo;
    int set = model_api_named(m, "cudaSetDevice");
    /* the last thread looked up, and its device + 1 (most calls in a row
     * are one thread's: a map probe each is a few percent of a window) */
    uint64_t last_tid = 0;
    int64_t last_dev = 1;
    struct idmap nccl = { 0 }; /* an NCCL call's id -> the handle it took */
    for (size_t i = 0; i < p->ncalls; i++) {
        struct call *c = &p->calls[i];
        uint64_t tid = (uint64_t)(uint32_t)c->tid + 1;
        if (set > 0 && c->api == set) {
            if (c->result == 0 && model_call_set_device(c) >= 0) {
                idmap_put(&sm->thread_device, tid, model_call_set_device(c) + 1, 0);
                last_tid = 0;
            }
            continue;
        }
        if ((c->stream != 0 && c->stream != 1) || (sm->first_device < 0 && !names_a_stream(m, c->api)))
            continue;
        if (tid != last_tid) {
            last_tid = tid;
            last_dev = 1; /* device 0 until the thread chooses one */
            idmap_get(&sm->thread_device, tid, &last_dev);
        }
        /* (the API's name looked at only where it matters: a few percent
         * of a window if for every call) */
        if ((sm->first_device < 0 || last_dev - 1 != sm->first_device) && c->stream == 0 &&
            model_api_per_thread(m, c->api))
            continue;
        if (sm->first_device < 0) {
            sm->first_device = (int)last_dev - 1;
        } else if (last_dev - 1 != sm->first_device) {
            c->stream = LEGACY_STREAM_HANDLE(c->stream, last_dev - 1);
            if (m->roles[c->api] == ROLE_NCCL_OP)
                idmap_put(&nccl, (uint64_t)c->call_id, c->stream, 0);
        }
    }
    /* an NCCL call's collective names the stream its call did (its
     * kernels matched on it: load_colls.c), loaded up to this window */
    for (size_t i = 0; nccl.n && i < p->ncolls; i++) {
        int64_t h;
        if ((p->colls[i].hstream == 0 || p->colls[i].hstream == 1) &&
            idmap_get(&nccl, (uint64_t)p->colls[i].call_id, &h))
            p->colls[i].hstream = h;
    }
    idmap_free(&nccl);
}
