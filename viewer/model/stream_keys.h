/* stream_keys.h: a GPU stream as the model names it (stream_keys.c).
 *
 * CUPTI's stream ids are unique within a context only (cupti_activity.h:
 * cuptiGetStreamIdEx returns "a context-unique ID"), so a process that
 * drives two GPUs (model parallelism in one process, ncclCommInitAll) can
 * have a stream 8 on each; every record names its context.  The model
 * tells them apart: a stream's key is CUPTI's id where no other context's
 * stream took that id first (every stream of a one-GPU process, and of
 * most others), else a key of its own from STREAM_KEY_OWN up.  Context 0
 * (a trace that names none) is whichever context holds the id.  What is
 * written for a user is CUPTI's id again (model_stream_raw), beside the
 * device.  Ids of STREAM_KEY_OWN or more are taken as they are: no CUPTI
 * counter comes near, and a crafted trace's only share a key. */
#ifndef GPUTRACE_STREAM_KEYS_H
#define GPUTRACE_STREAM_KEYS_H

#include "viewer/model/idmap.h"

#include <stdint.h>

#define STREAM_KEY_OWN (1 << 30)
#define STREAM_KEYS_OWN_MAX 4096 /* streams of their own past these share the first context's key */

struct stream_keys {
    /* the loading thread's: CUPTI's id + 1 -> the context that took it
     * first; (context << 32 | id) -> its own key */
    struct idmap holder, own;
    uint32_t last_context; int64_t last_raw; int last_key, has_last;
    /* CUPTI's id of each key of its own, by key - STREAM_KEY_OWN: written
     * before they are counted, read by any thread */
    int *own_raw;
    int nown;
};

struct proc;
/* The key of CUPTI's stream raw of context in process p.  Called by the
 * one thread that reads p's GPU records at a time. */
int model_stream_key(struct proc *p, uint32_t context, int64_t raw);
/* CUPTI's id of the stream of key in p (any thread). */
int model_stream_raw(const struct proc *p, int key);
void model_stream_keys_free(struct stream_keys *k);

#endif
