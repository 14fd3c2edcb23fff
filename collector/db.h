/* db.h: the writer's side of the database: opening (schema, version check),
 * the process row, and one prepared INSERT per table.  Used only by the
 * writer thread, which owns the connection. */
#ifndef GPUTRACE_DB_H
#define GPUTRACE_DB_H

#include "collector/db_batch.h"
#include "format/record.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

enum gt_stmt {
    GT_ST_CALL, GT_ST_MARK, GT_ST_UNMARK, GT_ST_COLL, GT_ST_COMM, GT_ST_GPU, GT_ST_CUPTI_API,
    GT_ST_EXT, GT_ST_STRING, GT_ST_CALLSITE, GT_ST_LABEL, GT_ST_PYSTACK, GT_ST_NVTX_END, GT_ST_NVTX_CATEGORY,
    GT_ST_THREAD_NAME, GT_ST_CALL_BLOCK, GT_ST_NVTX_BLOCK, GT_ST_CAPI_BLOCK, GT_ST_GPU_BLOCK,
    GT_ST_NCCL_COMM, GT_ST_NCCL_OP, GT_ST_NCCL_OP_END, GT_ST_NCCL_KCH, GT_ST_NCCL_KCH_END, GT_ST_NCCL_PROXY,
    GT_ST_NCCL_PROXY_END, GT_ST_NCCL_PROXY_STATE, /* the NCCL plugin's tables (plugin_store.c) */
    GT_ST_MODULE, GT_ST_HEARTBEAT, GT_ST_GPU_GAP, GT_ST_COUNT
};

struct gt_db {
    sqlite3 *db;
    sqlite3_stmt *st[GT_ST_COUNT];
    sqlite3_stmt *nvtx;              /* INSERT of an nvtx_range row (typed payload) */
    struct gt_row_batch batch[GT_BATCH_COUNT]; /* rows queued for a multi-row INSERT (db_batch.h) */
    int64_t process_id;
    int in_txn;
    int failed;            /* an SQLite error code once writing failed */
    /* monitor mode (collector/monitor.h): this is the window in memory, and
     * the process's own file gets the process row's updates and the names
     * too, so that its aggregates can be read by themselves */
    struct gt_db *mirror;
    int packed_blocks;     /* blocks stored packed (format 1), not compact (format/block_codec.h) */
    uint8_t *codebuf;      /* a block made compact, before SQLite takes it */
    size_t codecap;
};

struct gt_process_info {
    const char *run_id, *launcher, *host, *cmdline, *gpu_name, *clock_source;
    int pid, rank, local_rank, world_size, device;
    int cuda_runtime_version, nccl_version;
    int64_t clock_offset_ns, start_ns;
    int output_layout; /* enum gt_layout (config.h): which links the file may be reached through (procfile.h) */
    int packed_blocks; /* store blocks packed, as GPUTRACE_BLOCK_FORMAT=1 asks (config.h) */
    int monitor;       /* monitor mode: the file says so (meta 'mode'), from its first commit */
};

/* Opens (creating if needed) the database at path and adds this process.
 * The file is made or checked first as procfile.h says (no link someone
 * else planted is followed).  On failure returns -1 with a one-line reason
 * in err. */
int gt_db_open(struct gt_db *d, const char *path, const struct gt_process_info *p, char *err, size_t errlen);
/* The same in memory, at most limit bytes (monitor mode's window): no
 * file; sqlite3_serialize gives its image (collector/window.c). */
int gt_db_open_memory(struct gt_db *d, const struct gt_process_info *p, int64_t limit, char *err, size_t errlen);
int gt_db_begin(struct gt_db *d);
int gt_db_commit(struct gt_db *d);
/* Binds this process's id and then v[0..n) to statement s and steps it. */
int gt_db_exec_i64(struct gt_db *d, enum gt_stmt s, const int64_t *v, int n);
/* The same for the (process id, id, text) statements: strings, call sites. */
int gt_db_exec_text(struct gt_db *d, enum gt_stmt s, int64_t id, const char *text);
/* One module row: an object call-site frames point into (modules.h). */
int gt_db_module_row(struct gt_db *d, int64_t id, const char *name, const char *path, const char *build_id);
/* One row of statement s (its values after the process id): queued, for
 * api_call, gpu_op, cupti_api and ext_corr, and stored GT_BATCH_ROWS at a
 * time, the rest at gt_db_flush_rows (gt_db_commit calls it); any other
 * statement's row is stored at once.  db_batch.c. */
int gt_db_row(struct gt_db *d, enum gt_stmt s, const int64_t *v);
int gt_db_flush_rows(struct gt_db *d);
int gt_db_batch_prepare(struct gt_db *d);
void gt_db_batch_finalize(struct gt_db *d);
/* One api_call_block row: n packed calls (call_block.h). */
int gt_db_call_block(struct gt_db *d, const void *rows, int n);
/* One nvtx_range_block row: n packed ranges and marks (nvtx_block.h). */
int gt_db_nvtx_block(struct gt_db *d, const void *rows, int n);
/* One cupti_api_block row: n packed CUPTI API records (capi_block.h). */
int gt_db_capi_block(struct gt_db *d, const void *rows, int n);
/* One gpu_op_block row: n packed GPU operations (gpu_block.h). */
int gt_db_gpu_block(struct gt_db *d, const void *rows, int n);
/* One nvtx_range row: v = tid, kind, domain, name, category, start_ns,
 * end_ns, depth, range_id; end_ns stored as NULL when no_end. */
int gt_db_nvtx_row(struct gt_db *d, const int64_t *v, int no_end, int payload_type, uint64_t payload);
/* Makes the late indexes (at the end of a process). */
void gt_db_make_late_indexes(struct gt_db *d);
/* Updates a column of this process's row. */
int gt_db_set_process_i64(struct gt_db *d, const char *column, int64_t value, int is_null);
int gt_db_set_process_text(struct gt_db *d, const char *column, const char *value);
void gt_db_close(struct gt_db *d);

#endif
