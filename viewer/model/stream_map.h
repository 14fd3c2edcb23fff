/* stream_map.h: a process's stream and event handles as the model knows
 * them over the windows of its records read so far (stream_map.c).
 *
 * A program names a stream by its handle (a pointer), CUPTI by an id of
 * its own; the first call on a handle that caused GPU work says which id
 * it is.  A handle looked up before any window mapped it is noted, so
 * that the driver can analyse the process again if a later window maps
 * it.  CUPTI names an event by an id too: the handle a wrapped call of
 * the event had (its CUDA_EVENT or SYNCHRONIZATION record named the id)
 * is the one a call of the same event that only CUPTI saw takes. */
#ifndef GPUTRACE_STREAM_MAP_H
#define GPUTRACE_STREAM_MAP_H

#include "viewer/model/idmap.h"

#include <stddef.h>
#include <stdint.h>

struct handle_stream { int64_t handle; int stream; };

struct stream_map {
    struct handle_stream *streams; size_t nstreams, streams_cap;
    /* handles looked up before they were seen (at most 4096: then
     * missed_overflow) */
    int64_t *missed; size_t nmissed, missed_cap;
    int missed_overflow;
    /* streams that run compute (non-NCCL) kernels: over the whole process
     * (counted before the first window: compute_preset), or over the
     * windows so far */
    int *compute_streams; size_t ncompute_streams, compute_cap;
    int compute_preset;
    struct idmap cupti_events; /* CUPTI's event id + 1 -> handle */
    /* each calling thread's current device (tid + 1 -> device + 1) and
     * the process's first device, its first legacy stream's (-1: none
     * used yet), as the windows so far had them, from the window starting
     * at devices_lo (read/legacy_streams.h) */
    struct idmap thread_device;
    int first_device, devices_on;
    int64_t devices_lo;
};

/* The CUPTI stream of a handle (a handle that is a CUPTI id, handles.h,
 * is its own), or -1 if no window so far mapped it. */
int stream_map_get(const struct stream_map *s, int64_t handle);
/* Maps handle to stream (which stream_map_get did not know). */
void stream_map_put(struct stream_map *s, int64_t handle, int stream);
/* Notes a handle looked up and not known yet. */
void stream_map_note_missed(struct stream_map *s, int64_t handle);
/* Whether a handle noted missed is mapped now (or too many were noted to
 * tell, and some handle is mapped). */
int stream_map_found_missed(const struct stream_map *s);
void stream_map_add_compute(struct stream_map *s, int stream);
int stream_map_computes(const struct stream_map *s, int stream);
/* The handle of CUPTI's event id, as stream_map_learn_event was told it
 * (0: not). */
void stream_map_learn_event(struct stream_map *s, int cupti_event, int64_t handle);
int64_t stream_map_event_handle(const struct stream_map *s, int cupti_event);
void stream_map_forget_events(struct stream_map *s);
void stream_map_free(struct stream_map *s);

#endif
