/* out_db.c: writing an imported trace into our schema (see out_db.h). */
#define _GNU_SOURCE
#include "import/out_db.h"
#include "import/import.h"
#include "format/api_ids.h"
#include "format/api_table.h"
#include "format/ours.h"
#include "format/schema.h"
#include "common/term_text.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* What "…[cut]" ends a name cut to fit (as the tracer marks NVTX names
 * it cuts: collector/strtab.h). */
#define CUT_MARK "\xe2\x80\xa6[cut]"

/* A name's cost against the budget: its text, and about what a string
 * costs besides in memory here and in the report (malloc, pointers). */
#define NAME_COST(len) ((uint64_t)(len) + 64)

/* The indexes of the tables an import fills: dropped while rows go in
 * (each insert would update them), made again by the schema's SQL at the
 * end, which creates what is missing. */
static const char drop_indexes[] = "DROP INDEX IF EXISTS gpu_op_by_process; DROP INDEX IF EXISTS gpu_op_by_corr;"
                                   "DROP INDEX IF EXISTS cupti_api_by_corr; DROP INDEX IF EXISTS ext_corr_by_ext;"
                                   "DROP INDEX IF EXISTS nvtx_range_by_id; DROP INDEX IF EXISTS collective_by_comm;";

static const char *const inserts[] = {
    "INSERT INTO cupti_api(process_id, domain, cbid, tid, start_ns, end_ns, correlation, result)"
    " VALUES(?,?,?,?,?,?,?,?)",
    "INSERT INTO gpu_op(process_id, kind, device, context, stream_id, name_id, start_ns, end_ns, bytes, copy_kind,"
    " src_kind, dst_kind, correlation, sync_type, event_id) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    "INSERT INTO string(process_id, id, value) VALUES(?,?,?)",
    "INSERT INTO label(process_id, id, value) VALUES(?,?,?)",
    "INSERT INTO nvtx_range(process_id, tid, kind, domain, name, category, start_ns, end_ns, depth, range_id,"
    " payload) VALUES(?,?,?,?,?,0,?,?,0,NULL,?)",
    "INSERT INTO collective(process_id, call_id, api, comm_id, seq, count, datatype, bytes, op, peer, rank, nranks,"
    " stream, start_ns, end_ns, callsite, group_id, result, pystack) VALUES(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,0,0,0,0)",
    "INSERT INTO ext_corr(process_id, external_id, correlation) VALUES(?,?,?)",
    "INSERT INTO thread_name(process_id, tid, name) VALUES(?,?,?)",
    "INSERT INTO import_note(process_id, kind, note) VALUES(?,?,?)",
    "INSERT INTO cupti_api_block(process_id, format, n, data) VALUES(?,?,?,?)",
    "INSERT INTO gpu_op_block(process_id, format, n, data) VALUES(?,?,?,?)",
};

static int fail(struct out_db *o, char *err, size_t errlen, const char *what)
{
    snprintf(err, errlen, "%s: %s", what, o->db ? sqlite3_errmsg(o->db) : "out of memory");
    return -1;
}

/* The first 4 bytes of a file, or -1 (and 0 bytes read: empty). */
static long first_word(const char *path, unsigned char w[4])
{
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW);
    if (fd < 0)
        return -1;
    long n = (long)read(fd, w, 4);
    close(fd);
    return n;
}

/* Whether path-SUFFIX may be removed before a database is made at path:
 * absent, or a regular file that is SQLite's (a write-ahead log starts
 * with 0x377f0682 or 0x377f0683 big-endian, a shared-memory index with
 * its version 3007000 in the machine's order, a rollback journal with
 * 0xd9d505f9 big-endian), or empty.  Left there, a stale one would be read
 * into the new database: a log when it goes to WAL, a journal (of an
 * import that died) as a hot one, played back into the new file. */
static int side_file_ours(const char *path, const char *suffix, char *side, size_t len)
{
    struct stat sb;
    snprintf(side, len, "%s%s", path, suffix);
    if (lstat(side, &sb) != 0)
        return errno == ENOENT;
    unsigned char w[4];
    long n = S_ISREG(sb.st_mode) ? first_word(side, w) : -1;
    if (n == 0)
        return 1;
    if (n != 4)
        return 0;
    uint32_t be = (uint32_t)w[0] << 24 | (uint32_t)w[1] << 16 | (uint32_t)w[2] << 8 | w[3], native;
    memcpy(&native, w, 4);
    if (!strcmp(suffix, "-journal"))
        return be == 0xd9d505f9u;
    return !strcmp(suffix, "-wal") ? (be & ~1u) == 0x377f0682u : native == 3007000u;
}

/* Makes room for the new database at path: nothing there, or (force) a
 * file that is a gputrace database by its content, or empty (the
 * report's temporary file), removed with its SQLite side files.  Anything
 * else stays, and the import is refused: -f replaces an output, never a
 * trace or a file of someone else's that happens to have the name. */
static int make_room(const char *path, int force, char *err, size_t errlen)
{
    struct stat sb;
    char side[4200];
    if (lstat(path, &sb) == 0) {
        if (!force) {
            snprintf(err, errlen, "%s exists (-f replaces it)", path);
            return -1;
        }
        if (!S_ISREG(sb.st_mode)) {
            snprintf(err, errlen, "%s exists and is not a regular file: not replaced", path);
            return -1;
        }
        /* (by the file as it is on disk: an import killed in its
         * transaction left a journal, which a read would have to play back) */
        if (sb.st_size != 0 && !gt_ours_db(path)) {
            snprintf(err, errlen, "%s exists and is not a gputrace database: not replaced (-f replaces only those)",
                     path);
            return -1;
        }
    }
    static const char *const sides[] = { "-wal", "-shm", "-journal" };
    const size_t nsides = sizeof sides / sizeof *sides;
    for (size_t i = 0; i < nsides; i++)
        if (!side_file_ours(path, sides[i], side, sizeof side)) {
            snprintf(err, errlen, "%s exists and is not SQLite's: not replaced", side);
            return -1;
        }
    if (lstat(path, &sb) == 0)
        unlink(path);
    for (size_t i = 0; i < nsides; i++) {
        snprintf(side, sizeof side, "%s%s", path, sides[i]);
        unlink(side);
    }
    return 0;
}

int out_open(struct out_db *o, const char *path, int force, const char *run_id, char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->strings.maxlen = OUT_KERNEL_NAME_MAX;
    o->labels.maxlen = OUT_LABEL_MAX;
    snprintf(o->run_id, sizeof o->run_id, "%s", run_id);
    const char *bulk = getenv("GPUTRACE_BULK_AFTER");
    char *end;
    unsigned long long after = bulk ? strtoull(bulk, &end, 10) : 0;
    o->rows_before_blocks = bulk && *bulk && !*end ? after : OUT_ROWS_BEFORE_BLOCKS;
    const char *format = getenv("GPUTRACE_BLOCK_FORMAT"); /* read as the tracer reads it (collector/config.c) */
    o->packed_blocks = format && *format && strtol(format, &end, 10) == 1 && !*end;
    if (make_room(path, force, err, errlen) != 0)
        return -1;
    if (sqlite3_open_v2(path, &o->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return fail(o, err, errlen, path);
    /* a new file that nothing else reads until it is closed, written in
     * one transaction: its pages past the file's start size, nearly all of
     * them, are never journaled, and no sync.  A journal all the same, so
     * that a savepoint rolls back (kineto_number's: with the journal off
     * ROLLBACK TO undoes nothing); on disk, deleted at the commit, so that
     * a savepoint's copies of the pages it changes spill to a temporary
     * file (in memory they grew with the collectives: 57 bytes each, 112
     * MB at 1.1 million) */
    if (sqlite3_exec(o->db, "PRAGMA journal_mode=DELETE; PRAGMA synchronous=OFF; PRAGMA cache_size=-16384;", NULL, NULL,
                     NULL) != SQLITE_OK ||
        sqlite3_exec(o->db, gt_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(o->db, drop_indexes, NULL, NULL, NULL) != SQLITE_OK)
        return fail(o, err, errlen, path);
    /* the marks that make it ours committed before the import's one
     * transaction: an import killed in it leaves a file -f replaces (and
     * its journal with it), not one it refuses as another's */
    char sql[256];
    snprintf(sql, sizeof sql, "INSERT INTO meta VALUES('schema_version', '%d');"
             "INSERT INTO meta VALUES('writer', 'gputrace import " GT_VERSION "');", GT_SCHEMA_VERSION);
    if (sqlite3_exec(o->db, sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(o->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
        return fail(o, err, errlen, path);
    if (gt_api_table_fill(o->db) != SQLITE_OK)
        return fail(o, err, errlen, path);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(o->db, "INSERT INTO run(id, started_ns, launcher) VALUES(?, NULL, 'gputrace import')", -1,
                           &st, NULL) != SQLITE_OK)
        return fail(o, err, errlen, path);
    sqlite3_bind_text(st, 1, o->run_id, -1, SQLITE_STATIC);
    sqlite3_step(st);
    sqlite3_finalize(st);
    sqlite3_stmt **stmts[] = { &o->capi, &o->gop, &o->str, &o->label, &o->nvtx, &o->coll, &o->ext, &o->thread,
                               &o->note, &o->capi_block, &o->gop_block };
    for (size_t i = 0; i < sizeof stmts / sizeof *stmts; i++)
        if (sqlite3_prepare_v3(o->db, inserts[i], -1, SQLITE_PREPARE_PERSISTENT, stmts[i], NULL) != SQLITE_OK)
            return fail(o, err, errlen, path);
    return 0;
}

static void intern_free(struct intern *t)
{
    for (size_t i = 0; i < t->cap; i++)
        free(t->keys[i]);
    free(t->keys);
    free(t->ids);
    size_t maxlen = t->maxlen;
    memset(t, 0, sizeof *t);
    t->maxlen = maxlen;
}

/* A block compact (format/block_codec.h), as the tracer stores it: a
 * fifth of the bytes or less for SQLite to write. */
static void put_block(struct out_db *o, sqlite3_stmt *st, const struct gt_block_layout *l, int n, const void *rows)
{
    _Static_assert(sizeof o->code >= GT_BLOCK_ROWS * (2 + 10 * GT_BLOCK_MAX_FIELDS), "any block's compact bound");
    size_t bytes = (size_t)n * l->size;
    int packed = o->packed_blocks || gt_block_bound(l, n) > sizeof o->code;
    if (!packed) {
        size_t coded = gt_block_encode(l, rows, n, o->code);
        packed = coded >= bytes; /* records of noise can take more compact */
        bytes = packed ? bytes : coded;
    }
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int(st, 2, packed ? GT_BLOCK_PACKED : GT_BLOCK_COMPACT);
    sqlite3_bind_int(st, 3, n);
    sqlite3_bind_blob(st, 4, packed ? rows : (const void *)o->code, (int)bytes, SQLITE_STATIC);
    sqlite3_step(st);
    sqlite3_reset(st);
    o->rows++;
}

void out_flush(struct out_db *o)
{
    if (o->capi_buffered)
        put_block(o, o->capi_block, &gt_capi_layout, o->capi_buffered, o->capi_buf);
    if (o->gop_buffered)
        put_block(o, o->gop_block, &gt_gpu_layout, o->gop_buffered, o->gop_buf);
    o->capi_buffered = o->gop_buffered = 0;
}

int64_t out_begin_process(struct out_db *o)
{
    out_flush(o);
    o->capi_n = o->gop_n = o->gpu_work = 0;
    intern_free(&o->strings);
    intern_free(&o->labels);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(o->db, "INSERT INTO process(run_id, cupti_status, clock_source) VALUES(?, 'active', NULL)",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_text(st, 1, o->run_id, -1, SQLITE_STATIC);
        sqlite3_step(st);
        sqlite3_finalize(st);
    }
    o->pid_row = sqlite3_last_insert_rowid(o->db);
    return o->pid_row;
}

static void bind_opt_int(sqlite3_stmt *st, int i, int64_t v, int64_t unknown)
{
    if (v == unknown)
        sqlite3_bind_null(st, i);
    else
        sqlite3_bind_int64(st, i, v);
}

/* What the process's names lost to the limits (intern), as notes. */
static void names_notes(struct out_db *o)
{
    char t[400];
    if (o->strings.cut) {
        snprintf(t, sizeof t, "%llu kernel names longer than %d bytes were cut to that: each ends in \"" CUT_MARK "\"",
                 (unsigned long long)o->strings.cut, OUT_KERNEL_NAME_MAX);
        out_note(o, "kernel names", t);
    }
    if (o->strings.unkept) {
        snprintf(t, sizeof t, "%llu kernels have no name: their process's distinct kernel names passed what the"
                 " import keeps (%d MiB, a million names); NCCL's among them count as compute",
                 (unsigned long long)o->strings.unkept, OUT_NAMES_BUDGET >> 20);
        out_note(o, "kernel names", t);
    }
    if (o->labels.unkept) {
        snprintf(t, sizeof t, "%llu NVTX ranges or thread names have no name: their process's distinct names passed"
                 " what the import keeps (%d MiB, a million names)", (unsigned long long)o->labels.unkept,
                 OUT_NAMES_BUDGET >> 20);
        out_note(o, "NVTX names", t);
    }
}

void out_end_process(struct out_db *o, const struct out_process *p)
{
    names_notes(o);
    out_flush(o);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(o->db, "UPDATE process SET host=?, pid=?, rank=?, local_rank=?, world_size=?, device=?,"
                           " gpu_name=?, cmdline=?, nccl_version=?, cuda_runtime_version=?, clock_offset_ns=?,"
                           " start_ns=?, end_ns=?, end_reason='exit (code unknown)', source=?,"
                           " python_status='not recorded by the source', nvtx_status=?, cupti_status=? WHERE id=?",
                           -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_text(st, 1, p->host ? p->host : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_int(st, 2, p->pid > 0 ? p->pid : 0);
    bind_opt_int(st, 3, p->rank, -1);
    bind_opt_int(st, 4, p->local_rank, -1);
    bind_opt_int(st, 5, p->world_size, -1);
    bind_opt_int(st, 6, p->device, -1);
    if (p->gpu_name)
        sqlite3_bind_text(st, 7, p->gpu_name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 8, p->cmdline ? p->cmdline : "", -1, SQLITE_TRANSIENT);
    bind_opt_int(st, 9, p->nccl_version, 0);
    bind_opt_int(st, 10, p->cuda_runtime_version, 0);
    sqlite3_bind_int64(st, 11, p->clock_offset_ns);
    sqlite3_bind_int64(st, 12, p->start_ns);
    sqlite3_bind_int64(st, 13, p->end_ns > p->start_ns ? p->end_ns : p->start_ns);
    sqlite3_bind_text(st, 14, p->source ? p->source : "", -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 15, o->labels.n ? "active" : "no NVTX ranges in the source", -1, SQLITE_STATIC);
    /* CUPTI made the source's GPU records, if it holds any: a trace of
     * calls alone (CUPTI's range profiler on, GPU tables left out of an
     * export) has none to analyse (docs/import.md) */
    sqlite3_bind_text(st, 16, o->gpu_work ? "active" : "no GPU records in the source", -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 17, o->pid_row);
    sqlite3_step(st);
    sqlite3_finalize(st);
}

int out_exec(struct out_db *o, const char *sql)
{
    out_flush(o);
    return sqlite3_exec(o->db, sql, NULL, NULL, NULL) == SQLITE_OK ? 0 : -1;
}

int out_close(struct out_db *o, char *err, size_t errlen)
{
    int rc = 0;
    out_flush(o);
    sqlite3_stmt *stmts[] = { o->capi, o->gop, o->str, o->label, o->nvtx, o->coll, o->ext, o->thread, o->note,
                              o->capi_block, o->gop_block };
    for (size_t i = 0; i < sizeof stmts / sizeof *stmts; i++)
        sqlite3_finalize(stmts[i]);
    if (sqlite3_exec(o->db, gt_schema_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(o->db, gt_schema_late_sql, NULL, NULL, NULL) != SQLITE_OK ||
        sqlite3_exec(o->db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
        rc = fail(o, err, errlen, "cannot write the database");
    /* the report opens files in WAL mode like the tracer's */
    if (rc == 0 && sqlite3_exec(o->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK)
        rc = fail(o, err, errlen, "cannot write the database");
    intern_free(&o->strings);
    intern_free(&o->labels);
    if (sqlite3_close(o->db) != SQLITE_OK && rc == 0) {
        snprintf(err, errlen, "cannot close the database");
        rc = -1;
    }
    o->db = NULL;
    return rc;
}

void out_abort(struct out_db *o, const char *path)
{
    sqlite3_stmt *stmts[] = { o->capi, o->gop, o->str, o->label, o->nvtx, o->coll, o->ext, o->thread, o->note,
                              o->capi_block, o->gop_block };
    for (size_t i = 0; i < sizeof stmts / sizeof *stmts; i++)
        sqlite3_finalize(stmts[i]);
    intern_free(&o->strings);
    intern_free(&o->labels);
    sqlite3_close(o->db);
    o->db = NULL;
    if (path)
        unlink(path);
}

/* FNV-1a */
/* A name's hash, eight bytes a step: kernel names of C++ templates run
 * to hundreds of bytes, and a byte at a time (FNV) was a twentieth of a
 * real trace's import.  Only the table's probing depends on it, not the
 * ids (given in order of first sight). */
static uint64_t hash_text(const char *s, size_t len)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ len, w;
    size_t i = 0;
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    w = 0;
    memcpy(&w, s + i, len - i);
    h = (h ^ w) * 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 29);
}

/* s (len bytes, fitted to the table) interned: its id, 0 if not kept. */
static int32_t intern_fitted(struct out_db *o, struct intern *t, sqlite3_stmt *st, const char *s, size_t len)
{
    if (2 * (t->n + 1) > t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 1024;
        char **keys = calloc(cap, sizeof *keys);
        int32_t *ids = calloc(cap, sizeof *ids);
        if (!keys || !ids) {
            free(keys);
            free(ids);
            return 0;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->keys[i]) {
                size_t k = hash_text(t->keys[i], strlen(t->keys[i])) & (cap - 1);
                while (keys[k])
                    k = (k + 1) & (cap - 1);
                keys[k] = t->keys[i];
                ids[k] = t->ids[i];
            }
        free(t->keys);
        free(t->ids);
        t->keys = keys;
        t->ids = ids;
        t->cap = cap;
    }
    size_t k = hash_text(s, len) & (t->cap - 1);
    while (t->keys[k]) {
        if (!strcmp(t->keys[k], s))
            return t->ids[k];
        k = (k + 1) & (t->cap - 1);
    }
    /* the report reads ids up to a million, and holds every name of a
     * process: past the budget a name is not kept (id 0: no name), counted */
    if (t->n >= 1000000 || t->bytes + NAME_COST(len) > OUT_NAMES_BUDGET) {
        t->unkept++;
        return 0;
    }
    if (!(t->keys[k] = strdup(s)))
        return 0;
    t->bytes += NAME_COST(len);
    t->ids[k] = (int32_t)++t->n;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int(st, 2, t->ids[k]);
    sqlite3_bind_text(st, 3, s, -1, SQLITE_STATIC);
    sqlite3_step(st);
    sqlite3_reset(st);
    return t->ids[k];
}

static int32_t intern(struct out_db *o, struct intern *t, sqlite3_stmt *st, const char *s)
{
    if (!s)
        return 0;
    /* a name longer than the table keeps: its head, cut between UTF-8
     * characters, and the mark, in all at most maxlen bytes */
    char *cut = NULL;
    size_t len = strlen(s);
    if (len > t->maxlen) {
        size_t n = t->maxlen - strlen(CUT_MARK);
        while (n > 0 && ((unsigned char)s[n] & 0xC0) == 0x80)
            n--;
        if (asprintf(&cut, "%.*s" CUT_MARK, (int)n, s) < 0)
            return 0;
        s = cut;
        len = strlen(s);
    }
    size_t before = t->n;
    int32_t id = intern_fitted(o, t, st, s, len);
    t->cut += cut && t->n > before; /* a new name, and a cut one */
    free(cut);
    return id;
}

int32_t out_string(struct out_db *o, const char *s)
{
    return intern(o, &o->strings, o->str, s);
}

int32_t out_label(struct out_db *o, const char *s)
{
    return intern(o, &o->labels, o->label, s);
}

static void step(struct out_db *o, sqlite3_stmt *st)
{
    sqlite3_step(st);
    sqlite3_reset(st);
    o->rows++;
}

void out_capi(struct out_db *o, int domain, int cbid, int tid, int64_t start, int64_t end, int64_t corr,
              const int64_t *result)
{
    if (o->capi_n++ >= o->rows_before_blocks) { /* a block's fields, as sqlite3_column_int would read them */
        o->capi_buf[o->capi_buffered++] = (struct gt_capi_packed){
            .start_ns = start, .end_ns = end, .tid = (uint32_t)tid, .cbid = (uint32_t)cbid,
            .correlation = (uint32_t)corr, .result = result ? (uint32_t)*result : 0, .domain = (uint8_t)domain };
        if (o->capi_buffered == GT_BLOCK_ROWS)
            out_flush(o);
        return;
    }
    sqlite3_stmt *st = o->capi;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int(st, 2, domain);
    sqlite3_bind_int(st, 3, cbid);
    sqlite3_bind_int(st, 4, tid);
    sqlite3_bind_int64(st, 5, start);
    sqlite3_bind_int64(st, 6, end);
    sqlite3_bind_int64(st, 7, corr);
    if (result)
        sqlite3_bind_int64(st, 8, *result);
    else
        sqlite3_bind_null(st, 8); /* the source does not say */
    step(o, st);
}

void out_gop(struct out_db *o, const struct out_gop *g)
{
    o->gpu_work += g->kind >= 1 && g->kind <= 3;
    if (o->gop_n++ >= o->rows_before_blocks) {
        o->gop_buf[o->gop_buffered++] = (struct gt_gpu_packed){
            .start_ns = g->start, .end_ns = g->end, .bytes = g->bytes, .stream_id = g->stream,
            .context = (uint32_t)g->context, .name_id = (uint32_t)g->name_id, .correlation = (uint32_t)g->corr,
            .device = g->device, .event_id = g->event_id, .kind = (uint8_t)g->kind, .copy_kind = (uint8_t)g->copy_kind,
            .src_kind = (uint8_t)g->src_kind, .dst_kind = (uint8_t)g->dst_kind, .sync_type = (uint8_t)g->sync_type };
        if (o->gop_buffered == GT_BLOCK_ROWS)
            out_flush(o);
        return;
    }
    sqlite3_stmt *st = o->gop;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int(st, 2, g->kind);
    sqlite3_bind_int(st, 3, g->device);
    sqlite3_bind_int(st, 4, g->context);
    sqlite3_bind_int(st, 5, g->stream);
    sqlite3_bind_int(st, 6, g->name_id);
    sqlite3_bind_int64(st, 7, g->start);
    sqlite3_bind_int64(st, 8, g->end);
    sqlite3_bind_int64(st, 9, g->bytes);
    sqlite3_bind_int(st, 10, g->copy_kind);
    sqlite3_bind_int(st, 11, g->src_kind);
    sqlite3_bind_int(st, 12, g->dst_kind);
    sqlite3_bind_int64(st, 13, g->corr);
    sqlite3_bind_int(st, 14, g->sync_type);
    sqlite3_bind_int(st, 15, g->event_id);
    step(o, st);
}

void out_nvtx(struct out_db *o, int tid, int kind, int domain, int name, int64_t start, int64_t end,
              const char *payload)
{
    sqlite3_stmt *st = o->nvtx;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int(st, 2, tid);
    sqlite3_bind_int(st, 3, kind);
    sqlite3_bind_int(st, 4, domain);
    sqlite3_bind_int(st, 5, name);
    sqlite3_bind_int64(st, 6, start);
    if (end == OUT_OPEN)
        sqlite3_bind_null(st, 7);
    else
        sqlite3_bind_int64(st, 7, end);
    if (payload)
        sqlite3_bind_text(st, 8, payload, -1, SQLITE_TRANSIENT);
    else
        sqlite3_bind_null(st, 8);
    step(o, st);
}

void out_coll(struct out_db *o, const struct out_coll *c)
{
    sqlite3_stmt *st = o->coll;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int64(st, 2, c->call_id);
    sqlite3_bind_int(st, 3, c->api);
    sqlite3_bind_int64(st, 4, c->comm_id);
    sqlite3_bind_int64(st, 5, c->seq);
    sqlite3_bind_int64(st, 6, c->count);
    sqlite3_bind_int(st, 7, c->datatype);
    sqlite3_bind_int64(st, 8, c->bytes);
    sqlite3_bind_int(st, 9, c->op);
    sqlite3_bind_int(st, 10, c->peer);
    sqlite3_bind_int(st, 11, c->rank);
    sqlite3_bind_int(st, 12, c->nranks);
    sqlite3_bind_int(st, 13, c->stream);
    sqlite3_bind_int64(st, 14, c->start);
    sqlite3_bind_int64(st, 15, c->end);
    step(o, st);
}

void out_ext(struct out_db *o, int64_t external_id, int64_t corr)
{
    sqlite3_stmt *st = o->ext;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int64(st, 2, external_id);
    sqlite3_bind_int64(st, 3, corr);
    step(o, st);
}

void out_thread_name(struct out_db *o, int tid, const char *name)
{
    sqlite3_stmt *st = o->thread;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_int(st, 2, tid);
    sqlite3_bind_int(st, 3, out_label(o, name));
    step(o, st);
}

void out_note(struct out_db *o, const char *kind, const char *text)
{
    /* a note may quote the input (a version string, SQLite's words on the
     * file's schema, a file's name): stored as a terminal may show it, one
     * line, as every report prints it (term_text.h) */
    char k[256], t[2048];
    sqlite3_stmt *st = o->note;
    sqlite3_bind_int64(st, 1, o->pid_row);
    sqlite3_bind_text(st, 2, term_text(kind, k, sizeof k), -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(st, 3, term_text(text, t, sizeof t), -1, SQLITE_TRANSIENT);
    step(o, st);
}
