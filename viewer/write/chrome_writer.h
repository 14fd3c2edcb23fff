/* chrome_writer.h: the Chrome trace's writer state, shared by the writer
 * (chrome_trace.c) and the parts that workers write a process into and
 * the report joins in process order (chrome_part.c). */
#ifndef GPUTRACE_CHROME_WRITER_H
#define GPUTRACE_CHROME_WRITER_H

#include <stdio.h>

/* A track's tid when its own id is taken in its process (a host thread
 * whose tid is a stream's id, or the other way round): rare, as CUDA's
 * stream ids are small and thread ids rarely are. */
#define THREAD_TID_MOVED 1000000000
#define STREAM_TID_MOVED 1500000000

/* Host threads in order of first appearance and GPU streams: a process's
 * tracks, named once all its windows are written; the tracks whose tid is
 * not their id, kept for the collectives and findings written at the end
 * (at most MOVES_KEPT a process). */
#define TRACKS_NAMED 256
#define MOVES_KEPT 256
struct move { int proc, stream, id, tid; };
struct writer {
    FILE *out; long events; int progress;
    int threads[TRACKS_NAMED], nthreads, streams[TRACKS_NAMED], stream_tids[TRACKS_NAMED], nstreams;
    int stream_devs[TRACKS_NAMED]; /* the device of each stream's first GPU operation */
    int stream_roles[TRACKS_NAMED]; /* what ran on each (STREAM_*, chrome_trace.c), for its name */
    struct move *moves; int nmoves, moves_cap, proc_moves; /* proc_moves: the process's so far */
    size_t nprocs;
    int rank_width;               /* digits of the largest rank, for names that sort */
    int part_failed;              /* an errno: a part joined could not be written or read back */
    char buf[1 << 16];
};

/* Starts an event: its separator from the one before. */
void chrome_begin_event(struct writer *w);

#endif
