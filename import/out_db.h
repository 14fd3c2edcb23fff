/* out_db.h: the database an import writes: our schema (format/schema.c),
 * rows written straight through SQLite as the input is read, one process
 * at a time.  Names (kernel names, NVTX messages) are interned per process
 * into `string` and `label`.  Indexes are made at the end, not kept up to
 * date row by row. */
#ifndef GPUTRACE_IMPORT_OUT_DB_H
#define GPUTRACE_IMPORT_OUT_DB_H

#include "format/capi_block.h"
#include "format/gpu_block.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Past this many API records (and as many GPU operations) in a process,
 * the rest go into bulk blocks (cupti_api_block, gpu_op_block: the
 * report reads both; `gputrace expand` makes rows of them): a row costs
 * SQLite about a microsecond, a block of 4096 records about as much.
 * GPUTRACE_BULK_AFTER=N sets it (as the tracer's threshold of bulk storing). */
#define OUT_ROWS_BEFORE_BLOCKS 16384

/* Names kept per process (intern): each up to maxlen bytes, longer ones
 * cut and marked (NVTX names at 4095, as the tracer keeps them; kernel
 * names, which real C++ templates make long, at 64 KiB); and the distinct
 * names of a table at most OUT_NAMES_BUDGET bytes (a name counted with
 * 64 bytes of overhead) and a million: past that a name gets id 0 (none).
 * Each is counted, and said in a note (import_note): without a cap, a
 * trace of a million distinct 2 KB names took the import to 2 GB and the
 * report to 4 GB. */
#define OUT_KERNEL_NAME_MAX 65535
#define OUT_LABEL_MAX 4095
#define OUT_NAMES_BUDGET (16 << 20)

struct intern {
    char **keys;
    int32_t *ids;
    size_t cap, n, maxlen;
    uint64_t bytes;    /* the names kept, at NAME_COST each */
    uint64_t cut;      /* distinct names cut to maxlen */
    uint64_t unkept;   /* names given id 0, past the budget */
};

struct out_db {
    sqlite3 *db;
    sqlite3_stmt *capi, *gop, *str, *label, *nvtx, *coll, *ext, *thread, *note, *capi_block, *gop_block;
    int64_t pid_row;      /* process.id of the process being written */
    struct intern strings, labels;
    uint64_t rows;
    char run_id[256];
    /* this process's records so far, and those waiting for a block */
    uint64_t capi_n, gop_n, rows_before_blocks;
    uint64_t gpu_work; /* its kernels, copies and memsets: none, and its cupti_status says so */
    struct gt_capi_packed capi_buf[GT_BLOCK_ROWS];
    struct gt_gpu_packed gop_buf[GT_BLOCK_ROWS];
    int capi_buffered, gop_buffered;
    int packed_blocks; /* GPUTRACE_BLOCK_FORMAT=1: blocks stored packed, as the tracer would */
    uint8_t code[GT_BLOCK_ROWS * (2 + 10 * GT_BLOCK_MAX_FIELDS)]; /* a block made compact (format/block_codec.h) */
};

/* What is known of a process when it is finished. */
struct out_process {
    const char *host, *cmdline, *source, *gpu_name;
    int pid, rank, local_rank, world_size, device; /* -1: unknown */
    int nccl_version, cuda_runtime_version;         /* 0: unknown */
    int64_t start_ns, end_ns, clock_offset_ns;
};

/* Creates path (refused if it exists, unless force: then replaced).  0, or
 * -1 with err. */
int out_open(struct out_db *o, const char *path, int force, const char *run_id, char *err, size_t errlen);
/* Starts the next process: its process.id. */
int64_t out_begin_process(struct out_db *o);
void out_end_process(struct out_db *o, const struct out_process *p);
/* Commits, makes the indexes, closes; 0 or -1 with err. */
int out_close(struct out_db *o, char *err, size_t errlen);
/* Closes after a failure, removing the file. */
void out_abort(struct out_db *o, const char *path);

int32_t out_string(struct out_db *o, const char *s);
int32_t out_label(struct out_db *o, const char *s);

void out_capi(struct out_db *o, int domain, int cbid, int tid, int64_t start, int64_t end, int64_t corr,
              const int64_t *result);
struct out_gop {
    int kind, device, context, stream, name_id, copy_kind, src_kind, dst_kind, sync_type, event_id;
    int64_t start, end, bytes, corr;
};
void out_gop(struct out_db *o, const struct out_gop *g);
/* kind 1 push/pop range, 4 mark; domain a label id (0 default); end
 * OUT_OPEN: a range still open when the process ended (end_ns NULL) */
#define OUT_OPEN INT64_MIN
void out_nvtx(struct out_db *o, int tid, int kind, int domain, int name, int64_t start, int64_t end,
              const char *payload);
struct out_coll {
    int64_t call_id, comm_id, seq, count, bytes, start, end;
    int api, datatype, op, peer, rank, nranks, stream;
};
void out_coll(struct out_db *o, const struct out_coll *c);
void out_ext(struct out_db *o, int64_t external_id, int64_t corr);
void out_thread_name(struct out_db *o, int tid, const char *name);
/* A note for the report (import_note): what could not be mapped, or checked. */
void out_note(struct out_db *o, const char *kind, const char *text);
/* Writes the records waiting for a block. */
void out_flush(struct out_db *o);
/* Runs SQL on the output (a pass after the rows are in; the blocks
 * flushed first); 0 or -1. */
int out_exec(struct out_db *o, const char *sql);

#endif
