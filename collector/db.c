/* db.c: opening the database and the prepared statements (see db.h).
 *
 * All processes of a host may append to one file: WAL journal, a busy
 * timeout, and short transactions.  A database written by another schema
 * version is refused rather than mixed.
 */
#define _GNU_SOURCE
#include "collector/db.h"
#include "collector/boot_id.h"
#include "format/api_ids.h"
#include "format/api_table.h"
#include "collector/fdguard.h"
#include "format/call_block.h"
#include "format/capi_block.h"
#include "format/gpu_block.h"
#include "format/nvtx_block.h"
#include "format/nvtx_payload_sql.h"
#include "collector/procfile.h"
#include "format/record.h"
#include "format/schema.h"
#include "collector/strtab.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const stmt_sql[GT_ST_COUNT] = {
    [GT_ST_CALL] = "INSERT INTO api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes, copy_kind,"
                   " mem_kind, result, callsite, call_id, pystack) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [GT_ST_MARK] = "INSERT OR REPLACE INTO inflight(process_id, tid, api, start_ns, call_id, callsite, pystack)"
                   " VALUES(?,?,?,?,?,?,?)",
    [GT_ST_UNMARK] = "DELETE FROM inflight WHERE process_id = ? AND call_id = ?",
    [GT_ST_COLL] = "INSERT INTO collective(process_id, call_id, api, comm_id, seq, count, datatype, bytes, op, peer,"
                   " rank, nranks, stream, start_ns, end_ns, callsite, group_id, result, pystack)"
                   " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [GT_ST_COMM] = "INSERT INTO comm(process_id, handle, comm_id, rank, nranks, parent_comm_id, created_ns)"
                   " VALUES(?,?,?,?,?,?,?)",
    [GT_ST_GPU] = "INSERT INTO gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes,"
                  " copy_kind, src_kind, dst_kind, correlation, sync_type, event_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [GT_ST_CUPTI_API] = "INSERT INTO cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)"
                        " VALUES(?,?,?,?,?,?,?,?)",
    [GT_ST_EXT] = "INSERT INTO ext_corr(process_id, external_id, correlation) VALUES(?,?,?)",
    [GT_ST_STRING] = "INSERT OR REPLACE INTO string(process_id, id, value) VALUES(?,?,?)",
    [GT_ST_CALLSITE] = "INSERT OR REPLACE INTO callsite(process_id, id, frames) VALUES(?,?,?)",
    [GT_ST_LABEL] = "INSERT OR REPLACE INTO label(process_id, id, value) VALUES(?,?,?)",
    [GT_ST_HEARTBEAT] = "INSERT OR REPLACE INTO heartbeat(process_id, at_ns) VALUES(?,?)",
    [GT_ST_GPU_GAP] = "INSERT OR REPLACE INTO gpu_gap(process_id, idx, from_ns, to_ns) VALUES(?,?,?,NULLIF(?,0))",
    [GT_ST_MODULE] = "INSERT OR REPLACE INTO module(process_id, id, name, path, build_id) VALUES(?,?,?,?,?)",
    [GT_ST_PYSTACK] = "INSERT OR REPLACE INTO pystack(process_id, id, frames) VALUES(?,?,?)",
    [GT_ST_NVTX_END] = "UPDATE nvtx_range SET end_ns = ?3 WHERE process_id = ?1 AND range_id = ?2 AND kind = 2",
    [GT_ST_NVTX_CATEGORY] = "INSERT INTO nvtx_category(process_id, domain, category, name) VALUES(?,?,?,?)",
    [GT_ST_THREAD_NAME] = "INSERT INTO thread_name(process_id, tid, name) VALUES(?,?,?)",
    [GT_ST_CALL_BLOCK] = "INSERT INTO api_call_block(process_id, format, n, data) VALUES(?,?,?,?)",
    [GT_ST_NVTX_BLOCK] = "INSERT INTO nvtx_range_block(process_id, format, n, data) VALUES(?,?,?,?)",
    [GT_ST_CAPI_BLOCK] = "INSERT INTO cupti_api_block(process_id, format, n, data) VALUES(?,?,?,?)",
    [GT_ST_GPU_BLOCK] = "INSERT INTO gpu_op_block(process_id, format, n, data) VALUES(?,?,?,?)",
    [GT_ST_NCCL_COMM] = "INSERT INTO nccl_comm(process_id, comm_hash, rank, nranks, nnodes, name, plugin_version,"
                        " created_ns) VALUES(?,?,?,?,?,?,?,?)",
    [GT_ST_NCCL_OP] = "INSERT INTO nccl_op(process_id, event_id, comm_hash, seq, nccl_seq, func, datatype, count, algo,"
                      " proto, rank, root_peer, nchannels, nwarps, is_p2p, graph_captured, stream, start_ns, end_ns)"
                      " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [GT_ST_NCCL_OP_END] = "UPDATE nccl_op SET end_ns = ?3 WHERE process_id = ?1 AND event_id = ?2",
    [GT_ST_NCCL_KCH] = "INSERT INTO nccl_kernel_ch(process_id, event_id, op_event_id, channel, start_ns, gpu_start,"
                       " end_ns, gpu_end) VALUES(?,?,?,?,?,?,?,?)",
    [GT_ST_NCCL_KCH_END] = "UPDATE nccl_kernel_ch SET end_ns = ?3, gpu_end = ?4 WHERE process_id = ?1 AND event_id = ?2",
    [GT_ST_NCCL_PROXY] = "INSERT INTO nccl_proxy_op(process_id, event_id, op_event_id, channel, peer, is_send, nsteps,"
                         " chunk_size, start_ns, end_ns, steps_done, bytes, gpu_wait_ns, peer_wait_ns, net_ns,"
                         " recv_wait_ns, flush_ns, last_state) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    [GT_ST_NCCL_PROXY_END] = "UPDATE nccl_proxy_op SET end_ns = ?3, steps_done = ?4, bytes = ?5, gpu_wait_ns = ?6,"
                             " peer_wait_ns = ?7, net_ns = ?8, recv_wait_ns = ?9, flush_ns = ?10, last_state = ?11"
                             " WHERE process_id = ?1 AND event_id = ?2",
    [GT_ST_NCCL_PROXY_STATE] = "UPDATE nccl_proxy_op SET last_state = ?3 WHERE process_id = ?1 AND event_id = ?2",
};

static int fail(struct gt_db *d, int rc)
{
    if (!d->failed)
        d->failed = rc;
    return -1;
}

/* Whether the file is some other program's database, which must be left
 * exactly as it is: it holds tables, and no meta table saying that
 * gputrace wrote it.  A file without tables (new, empty, or being made by
 * another process of the run, whose transaction is not committed yet) is
 * ours to fill.  Read only: nothing is written before this said no.
 * Returns 0 (ours or new), or -1 with the reason in err. */
static int foreign(sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT count(*), (SELECT count(*) FROM sqlite_master WHERE type = 'table'"
                           " AND name = 'meta') FROM sqlite_master", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int rc = sqlite3_step(st);
    int objects = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    int has_meta = rc == SQLITE_ROW ? sqlite3_column_int(st, 1) : 0;
    sqlite3_finalize(st);
    if (rc != SQLITE_ROW) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(db));
        return -1;
    }
    if (objects == 0)
        return 0;
    int ours = 0;
    if (has_meta && sqlite3_prepare_v2(db, "SELECT count(*) = 2 FROM meta WHERE (key = 'schema_version')"
                                       " OR (key = 'writer' AND value LIKE 'gputrace%')", -1, &st, NULL) == SQLITE_OK) {
        ours = sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1;
        sqlite3_finalize(st);
    }
    if (!ours)
        snprintf(err, errlen, "it is a database of another program (no gputrace meta table); it is left as it is");
    return ours ? 0 : -1;
}

/* SQLite's waits for another process's lock: as sqlite3_busy_timeout's
 * 10 s, but given up at once when the program took our descriptors
 * (fdguard.h), for the program's close waits for this writer to stop. */
static int on_busy(void *arg, int count)
{
    (void)arg;
    if (gt_fd_revoked() || count >= 10000)
        return 0;
    struct timespec t = { 0, 1000 * 1000 };
    nanosleep(&t, NULL);
    return 1;
}

/* ...and a long statement (the indexes made at the end) stops too. */
static int on_progress(void *arg)
{
    (void)arg;
    return gt_fd_revoked();
}

static int check_version(sqlite3 *db, char *err, size_t errlen)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT value FROM meta WHERE key = 'schema_version'", -1, &st, NULL) != SQLITE_OK)
        return 0; /* no meta table: a new file */
    int ok = 0;
    if (sqlite3_step(st) == SQLITE_ROW) {
        int v = sqlite3_column_int(st, 0);
        if (v != GT_SCHEMA_VERSION) {
            snprintf(err, errlen, "it holds schema version %d, this tracer writes version %d", v, GT_SCHEMA_VERSION);
            ok = -1;
        }
    }
    sqlite3_finalize(st);
    return ok;
}

static int create(sqlite3 *db, int monitor, char *err, size_t errlen)
{
    char *msg = NULL;
    if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, &msg) != SQLITE_OK)
        goto bad;
    if (foreign(db, err, errlen) != 0 || check_version(db, err, errlen) != 0) {
        sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
        return -1;
    }
    if (sqlite3_exec(db, gt_schema_sql, NULL, NULL, &msg) != SQLITE_OK)
        goto bad;
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT OR IGNORE INTO meta VALUES('schema_version', '%d');"
             "INSERT OR IGNORE INTO meta VALUES('writer', 'gputrace " GT_VERSION "');", GT_SCHEMA_VERSION);
    if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK)
        goto bad;
    /* a monitored run's file says so from its first commit: `gputrace
     * dump` asks only such runs (a request in a run recorded in full is
     * answered by no one), and may look as soon as the file is there */
    if (monitor && sqlite3_exec(db, "INSERT OR REPLACE INTO meta VALUES('mode', 'monitor')", NULL, NULL, &msg) !=
                       SQLITE_OK)
        goto bad;
    if (gt_api_table_fill(db) != SQLITE_OK)
        goto bad;
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK)
        goto bad;
    return 0;
bad:
    snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(db));
    sqlite3_free(msg);
    sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    return -1;
}

static int setup(struct gt_db *d, const struct gt_process_info *p, char *err, size_t errlen);

static int open_db(struct gt_db *d, const char *path, const struct gt_process_info *p, char *err, size_t errlen);

int gt_db_open(struct gt_db *d, const char *path, const struct gt_process_info *p, char *err, size_t errlen)
{
    int held = gt_fd_hold_std(); /* the database, its WAL and shm (made by the first write) above them */
    int rc = open_db(d, path, p, err, errlen);
    gt_fd_release_std(held);
    return rc;
}

static int open_db(struct gt_db *d, const char *path, const struct gt_process_info *p, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->packed_blocks = p->packed_blocks;
    /* made (or checked) here first: SQLite follows any link it is given */
    struct gt_procfile pf;
    if (gt_procfile_open(&pf, path, p->output_layout, err, errlen) != 0)
        return -1;
    /* no mutex of the connection's own: only the writer thread uses it (the
     * activating thread's few writes come before that thread starts,
     * collector/writer.c), and SQLite's lock and unlock around every bind
     * and step were a third of a stored row's cost (db_batch.h) */
    if (sqlite3_open_v2(pf.path, &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", d->db ? sqlite3_errmsg(d->db) : "out of memory");
        goto fail;
    }
    sqlite3_busy_handler(d->db, on_busy, NULL);
    sqlite3_progress_handler(d->db, 1000, on_progress, NULL);
    if (foreign(d->db, err, errlen) != 0 || gt_procfile_check(&pf, err, errlen) != 0) {
        /* not ours: closed as found (gt_db_close would turn a file in WAL
         * mode back to a rollback journal, as it does its own) */
        d->failed = 1;
        goto fail;
    }
    char *msg = NULL;
    /* Switching to WAL takes an exclusive lock and does not wait for one:
     * when all ranks of a host open a new file at once, retry for a while.
     * synchronous=OFF: the checkpoints SQLite runs inside a commit synced
     * the file, holding the writer up for tens of ms, long enough at a
     * million records a second for the rings to overflow (11-15% dropped at
     * that rate; none now, bench/run.sh).  What is written survives the
     * program being killed (it is in the OS's cache); only a crash of the
     * machine itself could lose the end of a trace or damage the file.
     * Checkpoints every 256 pages keep each one short.  synchronous=OFF
     * first: the switch to WAL is a write of its own, which synced the
     * journal, the file and the directory four times in each new process
     * (up to hundreds of ms on a disk busy with other work).  Temporary tables
     * and sorts in memory: a temporary file would be a descriptor of ours
     * that fdguard.h does not know. */
    int rc;
    for (int tries = 0; (rc = sqlite3_exec(d->db, "PRAGMA page_size=16384; PRAGMA synchronous=OFF; PRAGMA journal_mode=WAL;"
                                                  " PRAGMA cache_size=-8192; PRAGMA wal_autocheckpoint=256; PRAGMA temp_store=MEMORY;", NULL, NULL,
                                          &msg)) == SQLITE_BUSY && tries < 2000; tries++) {
        sqlite3_free(msg);
        msg = NULL;
        struct timespec pause = { 0, 5 * 1000 * 1000 };
        nanosleep(&pause, NULL);
    }
    if (rc != SQLITE_OK) {
        snprintf(err, errlen, "%s", msg ? msg : sqlite3_errmsg(d->db));
        sqlite3_free(msg);
        goto fail;
    }
    if (setup(d, p, err, errlen) != 0)
        goto fail;
    return 0;
fail:
    gt_db_close(d);
    return -1;
}

int gt_db_open_memory(struct gt_db *d, const struct gt_process_info *p, int64_t limit, char *err, size_t errlen)
{
    memset(d, 0, sizeof *d);
    d->packed_blocks = p->packed_blocks;
    /* SQLite's memdb (sqlite3_deserialize of nothing): the database is
     * one block of memory, bounded by limit, which sqlite3_serialize
     * hands out as a database file's image without a copy */
    if (sqlite3_open_v2(":memory:", &d->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
        sqlite3_deserialize(d->db, "main", NULL, 0, 0, SQLITE_DESERIALIZE_RESIZEABLE | SQLITE_DESERIALIZE_FREEONCLOSE) != SQLITE_OK) {
        snprintf(err, errlen, "%s", d->db ? sqlite3_errmsg(d->db) : "out of memory");
        goto fail;
    }
    sqlite3_int64 lim = limit;
    sqlite3_file_control(d->db, "main", SQLITE_FCNTL_SIZE_LIMIT, &lim);
    if (sqlite3_exec(d->db, "PRAGMA page_size=4096; PRAGMA journal_mode=MEMORY; PRAGMA temp_store=MEMORY;", NULL, NULL, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
        goto fail;
    }
    if (setup(d, p, err, errlen) != 0)
        goto fail;
    return 0;
fail:
    gt_db_close(d);
    return -1;
}

/* The schema, the statements, the run and this process's row. */
static int setup(struct gt_db *d, const struct gt_process_info *p, char *err, size_t errlen)
{
    int rc;
    if (create(d->db, p->monitor, err, errlen) != 0)
        return -1;
    for (int i = 0; i < GT_ST_COUNT; i++)
        if (sqlite3_prepare_v3(d->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &d->st[i], NULL) != SQLITE_OK) {
            snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
            return -1;
        }
    if (sqlite3_prepare_v3(d->db, "INSERT INTO nvtx_range(process_id, tid, kind, domain, name, category, start_ns,"
                           " end_ns, depth, range_id, payload) VALUES(?,?,?,?,?,?,?,?,?,?,?)", -1,
                           SQLITE_PREPARE_PERSISTENT, &d->nvtx, NULL) != SQLITE_OK || gt_db_batch_prepare(d) != 0) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
        return -1;
    }
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, "INSERT OR IGNORE INTO run(id, started_ns, launcher) VALUES(?,?,?)", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, p->run_id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(st, 2, p->start_ns + p->clock_offset_ns);
        sqlite3_bind_text(st, 3, p->launcher, -1, SQLITE_STATIC);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    if (sqlite3_prepare_v2(d->db,
            "INSERT INTO process(run_id, host, pid, rank, local_rank, world_size, device, gpu_name, cmdline,"
            " cuda_runtime_version, nccl_version, clock_source, clock_offset_ns, start_ns)"
            " VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
        return -1;
    }
    sqlite3_bind_text(st, 1, p->run_id, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 2, p->host, -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 3, p->pid);
    if (p->rank >= 0) sqlite3_bind_int(st, 4, p->rank);
    if (p->local_rank >= 0) sqlite3_bind_int(st, 5, p->local_rank);
    if (p->world_size > 0) sqlite3_bind_int(st, 6, p->world_size);
    if (p->device >= 0) sqlite3_bind_int(st, 7, p->device);
    if (p->gpu_name) sqlite3_bind_text(st, 8, p->gpu_name, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 9, p->cmdline, -1, SQLITE_STATIC);
    if (p->cuda_runtime_version > 0) sqlite3_bind_int(st, 10, p->cuda_runtime_version);
    if (p->nccl_version > 0) sqlite3_bind_int(st, 11, p->nccl_version);
    sqlite3_bind_text(st, 12, p->clock_source, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 13, p->clock_offset_ns);
    sqlite3_bind_int64(st, 14, p->start_ns);
    rc = sqlite3_step(st);
    sqlite3_finalize(st);
    if (rc != SQLITE_DONE) {
        snprintf(err, errlen, "%s", sqlite3_errmsg(d->db));
        return -1;
    }
    d->process_id = sqlite3_last_insert_rowid(d->db);
    gt_boot_id_store(d->db, d->process_id); /* which machine's boot (collector/boot_id.c) */
    return 0;
}

/* A block's records compact (format/block_codec.h): most of what storing
 * a record cost was its bytes, SQLite's insert of them, the WAL and the
 * checkpoint copying them again.  Packed when asked, or when memory for
 * the compact form ran out (a reader takes either). */
static int store_block(struct gt_db *d, enum gt_stmt which, const struct gt_block_layout *l, const void *rows, int n)
{
    if (d->failed)
        return -1;
    sqlite3_stmt *st = d->st[which];
    int format = GT_BLOCK_PACKED;
    const void *data = rows;
    size_t bytes = (size_t)n * l->size, need = gt_block_bound(l, n);
    if (!d->packed_blocks && need > d->codecap) {
        uint8_t *b = realloc(d->codebuf, need);
        if (b) {
            d->codebuf = b;
            d->codecap = need;
        }
    }
    if (!d->packed_blocks && need <= d->codecap) {
        size_t coded = gt_block_encode(l, rows, n, d->codebuf);
        if (coded < bytes) { /* records of noise can take more compact (10-byte varints) */
            bytes = coded;
            data = d->codebuf;
            format = GT_BLOCK_COMPACT;
        }
    }
    sqlite3_bind_int64(st, 1, d->process_id);
    sqlite3_bind_int(st, 2, format);
    sqlite3_bind_int(st, 3, n);
    sqlite3_bind_blob(st, 4, data, (int)bytes, SQLITE_STATIC);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : fail(d, rc);
}

int gt_db_call_block(struct gt_db *d, const void *rows, int n)
{
    return store_block(d, GT_ST_CALL_BLOCK, &gt_call_layout, rows, n);
}

int gt_db_nvtx_block(struct gt_db *d, const void *rows, int n)
{
    return store_block(d, GT_ST_NVTX_BLOCK, &gt_nvtx_layout, rows, n);
}

int gt_db_capi_block(struct gt_db *d, const void *rows, int n)
{
    return store_block(d, GT_ST_CAPI_BLOCK, &gt_capi_layout, rows, n);
}

int gt_db_gpu_block(struct gt_db *d, const void *rows, int n)
{
    return store_block(d, GT_ST_GPU_BLOCK, &gt_gpu_layout, rows, n);
}

int gt_db_nvtx_row(struct gt_db *d, const int64_t *v, int no_end, int payload_type, uint64_t payload)
{
    if (d->failed)
        return -1;
    sqlite3_stmt *st = d->nvtx;
    sqlite3_bind_int64(st, 1, d->process_id);
    for (int i = 0; i < 9; i++)
        sqlite3_bind_int64(st, i + 2, v[i]);
    if (no_end)
        sqlite3_bind_null(st, 8);
    if (v[8] == 0)
        sqlite3_bind_null(st, 10);
    /* a structured payload was read into text when the event happened */
    gt_bind_nvtx_payload(st, 11, payload_type, payload,
                         payload_type == GT_NVTX_PAYLOAD_TEXT ? gt_strtab_get((uint32_t)payload) : NULL);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    return rc == SQLITE_DONE ? 0 : fail(d, rc);
}

/* The rows of a table past which its late indexes are not made: SQLite
 * sorts an index's keys in memory with temp_store=MEMORY (it never spills
 * them to a file then), ~52 bytes a row: 2 M call rows took 104 MiB and
 * 10 s at exit.  131,072 rows sort in ~7 MiB, within the tracer's memory
 * bound (membudget.h), and in a few ms; a larger table is indexed by
 * whoever queries it (the report needs none of these: it reads by rowid). */
#define LATE_INDEX_MAX_ROWS 131072

void gt_db_make_late_indexes(struct gt_db *d)
{
    if (!d->db || d->failed)
        return;
    for (int i = 0; i < GT_SCHEMA_LATE_TABLES; i++) {
        char sql[128];
        snprintf(sql, sizeof sql, "SELECT coalesce(max(rowid), 0) FROM %s", gt_schema_late[i].table);
        sqlite3_stmt *st;
        int64_t rows = LATE_INDEX_MAX_ROWS + 1;
        if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) == SQLITE_OK) {
            if (sqlite3_step(st) == SQLITE_ROW)
                rows = sqlite3_column_int64(st, 0);
            sqlite3_finalize(st);
        }
        if (rows <= LATE_INDEX_MAX_ROWS)
            sqlite3_exec(d->db, gt_schema_late[i].sql, NULL, NULL, NULL);
    }
}

int gt_db_begin(struct gt_db *d)
{
    if (d->failed || d->in_txn)
        return d->failed ? -1 : 0;
    int rc = sqlite3_exec(d->db, "BEGIN", NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return fail(d, rc);
    d->in_txn = 1;
    return 0;
}

int gt_db_commit(struct gt_db *d)
{
    gt_db_flush_rows(d);
    if (!d->in_txn)
        return d->failed ? -1 : 0;
    int rc = sqlite3_exec(d->db, "COMMIT", NULL, NULL, NULL);
    if (rc == SQLITE_BUSY) {
        return 0; /* another process holds the lock past the busy timeout: retry at the next commit */
    }
    d->in_txn = 0;
    if (rc != SQLITE_OK) {
        sqlite3_exec(d->db, "ROLLBACK", NULL, NULL, NULL);
        return fail(d, rc);
    }
    return 0;
}

int gt_db_exec_i64(struct gt_db *d, enum gt_stmt s, const int64_t *v, int n)
{
    if (d->failed)
        return -1;
    sqlite3_stmt *st = d->st[s];
    sqlite3_bind_int64(st, 1, d->process_id);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 2, v[i]);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail(d, rc);
    return 0;
}

int gt_db_exec_text(struct gt_db *d, enum gt_stmt s, int64_t id, const char *text)
{
    if (d->mirror)
        gt_db_exec_text(d->mirror, s, id, text);
    if (d->failed)
        return -1;
    sqlite3_stmt *st = d->st[s];
    sqlite3_bind_int64(st, 1, d->process_id);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_text(st, 3, text, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail(d, rc);
    return 0;
}

int gt_db_module_row(struct gt_db *d, int64_t id, const char *name, const char *path, const char *build_id)
{
    if (d->mirror)
        gt_db_module_row(d->mirror, id, name, path, build_id);
    if (d->failed)
        return -1;
    sqlite3_stmt *st = d->st[GT_ST_MODULE];
    sqlite3_bind_int64(st, 1, d->process_id);
    sqlite3_bind_int64(st, 2, id);
    sqlite3_bind_text(st, 3, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 4, path, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 5, build_id, -1, SQLITE_TRANSIENT);
    int rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE)
        return fail(d, rc);
    return 0;
}

static int set_process(struct gt_db *d, const char *column, int64_t v, const char *text, int is_null)
{
    if (!d->db)
        return -1;
    char sql[160];
    snprintf(sql, sizeof sql, "UPDATE process SET %s = ? WHERE id = ?", column);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(d->db, sql, -1, &st, NULL) != SQLITE_OK)
        return -1;
    if (is_null)
        sqlite3_bind_null(st, 1);
    else if (text)
        sqlite3_bind_text(st, 1, text, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_int64(st, 1, v);
    sqlite3_bind_int64(st, 2, d->process_id);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : fail(d, rc);
}

int gt_db_set_process_i64(struct gt_db *d, const char *column, int64_t value, int is_null)
{
    if (d->mirror)
        set_process(d->mirror, column, value, NULL, is_null);
    return set_process(d, column, value, NULL, is_null);
}

int gt_db_set_process_text(struct gt_db *d, const char *column, const char *value)
{
    if (d->mirror)
        set_process(d->mirror, column, 0, value ? value : "", 0);
    return set_process(d, column, 0, value ? value : "", 0);
}

/* PRAGMA journal_mode=DELETE: 0 once it answered (a file in WAL mode
 * turned back; an in-memory one says its own mode), -1 when SQLite
 * refused, as it does a file another connection holds in WAL mode. */
static int leave_wal(sqlite3 *db)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "PRAGMA journal_mode=DELETE", -1, &st, NULL) != SQLITE_OK)
        return -1;
    int answered = sqlite3_step(st) == SQLITE_ROW;
    sqlite3_finalize(st);
    return answered ? 0 : -1;
}

void gt_db_close(struct gt_db *d)
{
    for (int i = 0; i < GT_ST_COUNT; i++)
        if (d->st[i])
            sqlite3_finalize(d->st[i]);
    gt_db_batch_finalize(d);
    if (d->nvtx)
        sqlite3_finalize(d->nvtx);
    if (d->db && !d->failed) {
        /* back to a rollback journal, now that the writing is done: a WAL
         * database makes every reader (the report's read-only connection
         * among them) leave an empty -wal and a -shm beside it.  Only when
         * no other connection holds the file (one file shared by several
         * processes stays in WAL): tried once, without waiting. */
        sqlite3_busy_handler(d->db, NULL, NULL);
        if (leave_wal(d->db) != 0)
            /* another connection holds the file (a process of a shared
             * file, a reader): the log stays, and what this process wrote
             * since the last checkpoint (all of a short run) would be in it
             * alone, so that the file copied without its -wal lacked it,
             * schema and all, if every process closed while another was
             * there.  Copied into the file now, as far as no reader's
             * snapshot holds it back; without waiting, as above. */
            sqlite3_exec(d->db, "PRAGMA wal_checkpoint(PASSIVE)", NULL, NULL, NULL);
    }
    if (d->db)
        sqlite3_close(d->db);
    free(d->codebuf);
    memset(d, 0, sizeof *d);
}
