/* handles.h: how the model writes a stream or an event that only CUPTI
 * named (a call only CUPTI saw, read/cupti_calls.c) in a call's stream and
 * event fields, beside the handles programs hold; and the call id of such
 * a call. */
#ifndef GPUTRACE_HANDLES_H
#define GPUTRACE_HANDLES_H

#include "format/call_block.h"

#include <stdint.h>

/* A stream known by CUPTI's id only, in a call's handle field: never a
 * pointer a program holds (the top byte of a user address is 0). */
#define CUPTI_STREAM_TAG ((int64_t)((uint64_t)0x7e << 56))
#define CUPTI_STREAM_HANDLE(id) (CUPTI_STREAM_TAG | (int64_t)(uint32_t)(id))
/* also the tracer's value for a stream it could not tell (docs/schema.md) */
#define CUPTI_STREAM_UNKNOWN GT_STREAM_UNKNOWN
#define CUPTI_STREAM_ID(h)                                                                         \
    (((uint64_t)(h) >> 56) == 0x7e && !((uint64_t)(h) & ((uint64_t)1 << 40)) ? (int)(uint32_t)(h) : -1)

/* The legacy default stream (a program's handle 0, or cudaStreamLegacy's
 * 1) of a device other than the process's first, in a call's stream field
 * (read/legacy_streams.h): each device has its own, which a program that
 * drives several names 0 on each.  Tag 0x7d: never a pointer a program
 * holds, nor CUPTI's 0x7e.  The first device's keeps the program's handle. */
#define LEGACY_STREAM_TAG ((int64_t)((uint64_t)0x7d << 56))
#define LEGACY_STREAM_HANDLE(h, dev) (LEGACY_STREAM_TAG | (int64_t)(uint16_t)(dev) << 8 | ((h) & 1))
#define LEGACY_STREAM_TAGGED(h) (((uint64_t)(h) >> 56) == 0x7d)
/* Whether a handle names a legacy stream (0, 1, or one tagged so), and the
 * one key of each device's (0 for the first device's: 0 and 1 are one) */
#define LEGACY_STREAM(h) ((h) == 0 || (h) == 1 || LEGACY_STREAM_TAGGED(h))
#define LEGACY_STREAM_KEY(h) (LEGACY_STREAM_TAGGED(h) ? (int64_t)((uint64_t)(h) & ~(uint64_t)0xff) : 0)
/* The handle as the program wrote it (what the outputs show) */
#define STREAM_HANDLE_SHOWN(h) (LEGACY_STREAM_TAGGED(h) ? (int64_t)((uint64_t)(h) & 1) : (h))

/* The call_id of a call made from a CUPTI record (a wrapped call's is
 * positive: its thread and number). */
#define CUPTI_CALL_ID ((int64_t)-1)

/* An event known by CUPTI's id only, in a call's event field (bit 41: not
 * a stream's). */
#define CUPTI_EVENT_HANDLE(id) (CUPTI_STREAM_TAG | ((int64_t)1 << 41) | (int64_t)(uint32_t)(id))

#endif
