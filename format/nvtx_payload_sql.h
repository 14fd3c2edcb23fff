/* nvtx_payload_sql.h: an NVTX payload into nvtx_range.payload, for the
 * writer and for `gputrace expand` (which reads it back out of a block):
 * a scalar as a number of its type, a structured payload's text as text,
 * anything else as NULL. */
#ifndef GPUTRACE_NVTX_PAYLOAD_SQL_H
#define GPUTRACE_NVTX_PAYLOAD_SQL_H

#include "format/nvtx_block.h"

#include <sqlite3.h>
#include <stdint.h>
#include <string.h>

/* text: the structured payload's text (type GT_NVTX_PAYLOAD_TEXT), or NULL */
static inline void gt_bind_nvtx_payload(sqlite3_stmt *st, int col, int type, uint64_t bits, const char *text)
{
    /* nvtxPayloadType_t: 1 u64, 2 i64, 3 double, 4 u32, 5 i32, 6 float */
    union { uint64_t u; int64_t i; double d; uint32_t u32; int32_t i32; float f; } p;
    memcpy(&p, &bits, sizeof p);
    switch (type) {
    case 1: sqlite3_bind_int64(st, col, p.u > INT64_MAX ? INT64_MAX : (int64_t)p.u); break;
    case 2: sqlite3_bind_int64(st, col, p.i); break;
    case 3: sqlite3_bind_double(st, col, p.d); break;
    case 4: sqlite3_bind_int64(st, col, p.u32); break;
    case 5: sqlite3_bind_int64(st, col, p.i32); break;
    case 6: sqlite3_bind_double(st, col, p.f); break;
    case GT_NVTX_PAYLOAD_TEXT:
        if (text)
            sqlite3_bind_text(st, col, text, -1, SQLITE_TRANSIENT);
        else
            sqlite3_bind_null(st, col);
        break;
    default: sqlite3_bind_null(st, col); break;
    }
}

#endif
