/* schema.h: the database schema (documented in docs/schema.md).  Shared by
 * the writer and the viewer; nothing else crosses that boundary. */
#ifndef GPUTRACE_SCHEMA_H
#define GPUTRACE_SCHEMA_H

#define GT_SCHEMA_VERSION 7
/* The oldest version the report still reads: 3 only added nvtx_range_block
 * and 4 cupti_api_block and gpu_op_block, which older files simply lack; 5
 * changed what some stored values mean (a non-blocking call's end_ns is
 * its start: not measured; a send/recv's seq is 2^48 + its place among
 * the rank's to or from that peer), which the report reads either way,
 * but a report older than 5 would misread; 6 added heartbeat, window and
 * the monitor's tables (mon_*), which older files lack; 7 stores blocks
 * compact (format 2, format/block_codec.h), which a report older than 7
 * would skip as another layout: it refuses the file instead. */
#define GT_SCHEMA_OLDEST_READ 2

/* Creates every table, view and index if missing (idempotent). */
extern const char gt_schema_sql[];
/* Indexes made when a process ends (see schema.c): all of them, and the
 * same a table at a time, for the writer, which skips a table's past a
 * size (collector/db.c). */
extern const char gt_schema_late_sql[];
#define GT_SCHEMA_LATE_TABLES 4
struct gt_late_index { const char *table, *sql; };
extern const struct gt_late_index gt_schema_late[GT_SCHEMA_LATE_TABLES];

/* The first line of a callsite.frames taken inside a CUPTI callback: the
 * frames after it begin with CUPTI's, the driver's and the runtime's, which
 * the report cuts once it has their names (viewer/model/sites.c). */
#define GT_CALLSITE_RUNTIME_MARK "(stack taken in a CUPTI callback)"

/* gpu_op.kind values: 5 is CUPTI's CUDA_EVENT record of an event record
 * (which stream the event was recorded on; no time) */
enum gt_gpu_kind { GT_GPU_KERNEL = 1, GT_GPU_MEMCPY = 2, GT_GPU_MEMSET = 3, GT_GPU_SYNC = 4, GT_GPU_EVENT = 5 };

#endif
