/* json.h: writing JSON strictly: strings escaped so that every control
 * character and every byte of invalid UTF-8 comes out valid (Perfetto's
 * importer rejects control characters). */
#ifndef GPUTRACE_JSON_H
#define GPUTRACE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Writes s as a JSON string literal, quotes included. */
void json_string(FILE *out, const char *s);
/* Opens path for a trace streamed out by this thread alone: fully
 * buffered in buf (which must outlive the FILE), no stdio lock per call.
 * NULL with errno set on failure. */
FILE *json_open_stream(const char *path, char *buf, size_t len);
/* Writes ns as microseconds with nanosecond decimals ("12.345"), the time
 * unit of trace-event JSON. */
void json_us(FILE *out, int64_t ns);
/* A trace's timestamp: json_us, but never before the run's start (0): a
 * record before it (a damaged or hand-made input) is put at the start, as
 * Kineto's own writer does; Perfetto drops an event of a negative time. */
void json_ts(FILE *out, int64_t ns);

#endif
