/* stream_map.c: a process's stream and event handles (stream_map.h). */
#include "viewer/model/stream_map.h"
#include "viewer/model/handles.h"
#include "viewer/model/model.h"

#include <stdlib.h>

int stream_map_get(const struct stream_map *s, int64_t handle)
{
    int cupti = CUPTI_STREAM_ID(handle); /* a call only CUPTI saw names its stream so */
    if (cupti >= 0)
        return cupti;
    for (size_t i = 0; i < s->nstreams; i++)
        if (s->streams[i].handle == handle)
            return s->streams[i].stream;
    return -1;
}

void stream_map_put(struct stream_map *s, int64_t handle, int stream)
{
    if (s->nstreams == s->streams_cap) {
        s->streams_cap = s->streams_cap ? s->streams_cap * 2 : 16;
        if (!(s->streams = realloc(s->streams, s->streams_cap * sizeof *s->streams)))
            model_out_of_memory();
    }
    s->streams[s->nstreams++] = (struct handle_stream){ handle, stream };
}

void stream_map_note_missed(struct stream_map *s, int64_t handle)
{
    if (s->missed_overflow)
        return;
    for (size_t i = 0; i < s->nmissed; i++)
        if (s->missed[i] == handle)
            return;
    if (s->nmissed == s->missed_cap) {
        if (s->missed_cap >= 4096) { /* a file of countless handles: analysed again if any is mapped */
            s->missed_overflow = 1;
            return;
        }
        s->missed_cap = s->missed_cap ? s->missed_cap * 2 : 16;
        if (!(s->missed = realloc(s->missed, s->missed_cap * sizeof *s->missed)))
            model_out_of_memory();
    }
    s->missed[s->nmissed++] = handle;
}

int stream_map_found_missed(const struct stream_map *s)
{
    if (s->missed_overflow)
        return s->nstreams > 0;
    for (size_t i = 0; i < s->nmissed; i++)
        if (stream_map_get(s, s->missed[i]) >= 0)
            return 1;
    return 0;
}

void stream_map_add_compute(struct stream_map *s, int stream)
{
    if (stream_map_computes(s, stream))
        return;
    if (s->ncompute_streams == s->compute_cap) {
        s->compute_cap = s->compute_cap ? s->compute_cap * 2 : 8;
        if (!(s->compute_streams = realloc(s->compute_streams, s->compute_cap * sizeof *s->compute_streams)))
            model_out_of_memory();
    }
    s->compute_streams[s->ncompute_streams++] = stream;
}

int stream_map_computes(const struct stream_map *s, int stream)
{
    for (size_t i = 0; i < s->ncompute_streams; i++)
        if (s->compute_streams[i] == stream)
            return 1;
    return 0;
}

void stream_map_learn_event(struct stream_map *s, int cupti_event, int64_t handle)
{
    idmap_put(&s->cupti_events, (uint64_t)(uint32_t)cupti_event + 1, handle, 0); /* (+1: a key is never 0) */
}

int64_t stream_map_event_handle(const struct stream_map *s, int cupti_event)
{
    int64_t h;
    return idmap_get(&s->cupti_events, (uint64_t)(uint32_t)cupti_event + 1, &h) ? h : 0;
}

void stream_map_forget_events(struct stream_map *s)
{
    idmap_free(&s->cupti_events);
}

void stream_map_free(struct stream_map *s)
{
    free(s->streams);
    free(s->missed);
    free(s->compute_streams);
    idmap_free(&s->cupti_events);
    idmap_free(&s->thread_device);
    *s = (struct stream_map){ 0 };
}
