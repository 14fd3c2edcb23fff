/* nvtx_payload.h: NVTX's payload extension (nvToolsExtPayload.h): the
 * schemas and enums a program registers, and the structured payloads of its
 * events as text (nvtx_payload.c). */
#ifndef GPUTRACE_NVTX_PAYLOAD_H
#define GPUTRACE_NVTX_PAYLOAD_H

#include <stddef.h>
#include <stdint.h>

/* The interned text ("name=value, name=value") of an extended payload,
 * which an NVTX record carries as payload type GT_NVTX_PAYLOAD_TEXT
 * (format/record.h):
 * `data` points at `count` nvtxPayloadData_t, as an event's attributes
 * carry them (payloadType NVTX_PAYLOAD_TYPE_EXT, reserved0 = count).  Only
 * the fixed-size fields of registered schemas are read; 0 when nothing can
 * be.  Takes no lock. */
uint32_t gt_nvtx_payload_text(const void *data, size_t count);

#endif
