/* nsys.c: an Nsight Systems SQLite export (`nsys export --type sqlite`)
 * into our schema, one process per traced process (globalPid) with CUDA
 * activity.  The export is untrusted input: opened read-only with its
 * views and triggers off (format/db_guard.h), and every table read
 * checked for the columns this reader knows (an export of a version whose
 * tables differ is refused in one line, or read in part with a note).
 *
 *   CUPTI_ACTIVITY_KIND_RUNTIME  cupti_api (runtime and driver, by name:
 *                                nsys gives no callback id), returnValue as
 *                                the result; a call with a callchainId also
 *                                an api_call row with that stack as its site
 *   KERNEL, MEMCPY, MEMSET, SYNCHRONIZATION  gpu_op (nsys's memory kinds
 *                                renumbered as CUPTI's)
 *   NVTX_EVENTS                  nvtx_range (push/pop, start/end, marks; by
 *                                domain, NCCL's included)
 *   StringIds, TARGET_INFO_GPU, TARGET_INFO_SESSION_START_TIME, PROCESSES,
 *   ThreadNames                  names, GPU, clock offset, process, threads
 * Times are ns from the session's start; its UTC start is the offset.
 * docs/import.md has every field.
 *
 * Each table is read once, sorted by process (struct by_proc): a read per
 * process, each a scan of the whole table (exports have no index on the
 * process), made an export of 20,000 one-call processes (1 MB) take 65 s. */
#define _GNU_SOURCE
#include "import/import.h"
#include "import/kineto_map.h"
#include "import/out_db.h"
#include "format/api_ids.h"
#include "format/db_guard.h"
#include "common/term_text.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NSYS_STREAM_UNKNOWN 0x7e00010000000000ll /* api_call.stream the source cannot tell (docs/schema.md) */

struct nsys {
    sqlite3 *db;
    struct out_db *o;
    char **strings;  /* StringIds */
    int nstrings;
    int64_t epoch_ns;
    int chains;      /* the export has CUDA_CALLCHAINS */
    int64_t chain_off;
    uint64_t steps;  /* SQLite's VM steps on the export (GPUTRACE_IMPORT_STEPS) */
    char err[512];
};

/* Finalizes a statement on the export, its steps counted. */
static void done(struct nsys *n, sqlite3_stmt *st)
{
    if (st)
        n->steps += (uint64_t)sqlite3_stmt_status(st, SQLITE_STMTSTATUS_VM_STEP, 0);
    sqlite3_finalize(st);
}

static const char *str_of(const struct nsys *n, sqlite3_int64 id)
{
    return id >= 0 && id < n->nstrings && n->strings[id] ? n->strings[id] : NULL;
}

static int has_table(struct nsys *n, const char *t)
{
    sqlite3_stmt *st;
    int yes = 0;
    if (sqlite3_prepare_v2(n->db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", -1, &st, NULL) ==
        SQLITE_OK) {
        sqlite3_bind_text(st, 1, t, -1, SQLITE_STATIC);
        yes = sqlite3_step(st) == SQLITE_ROW;
        done(n, st);
    }
    return yes;
}

/* Prepares sql on a table that may be absent (NULL, and no error) or of
 * another layout (NULL, and n->err says which). */
static sqlite3_stmt *prep(struct nsys *n, const char *table, const char *sql)
{
    if (!has_table(n, table))
        return NULL;
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(n->db, sql, -1, &st, NULL) != SQLITE_OK) {
        if (!n->err[0])
            snprintf(n->err, sizeof n->err, "%s is not as this reader knows it (%s)", table, sqlite3_errmsg(n->db));
        return NULL;
    }
    return st;
}

static char *one_text(struct nsys *n, const char *table, const char *sql, int64_t arg);

static void load_strings(struct nsys *n)
{
    /* ids are dense from 0 in an export: one far past the count (a damaged
     * or hostile file) is not given an array that long */
    char *count = one_text(n, "StringIds", "SELECT count(*) FROM StringIds WHERE ?1 = ?1", 0);
    long long most = count ? 2 * atoll(count) + 1024 : 1024;
    free(count);
    sqlite3_stmt *st = prep(n, "StringIds", "SELECT id, value FROM StringIds WHERE id BETWEEN 0 AND ?1");
    if (!st)
        return;
    sqlite3_bind_int64(st, 1, most < 50000000 ? most : 50000000);
    while (sqlite3_step(st) == SQLITE_ROW) {
        sqlite3_int64 id = sqlite3_column_int64(st, 0);
        if (id >= n->nstrings) {
            int cap = (int)id + 1 > 2 * n->nstrings ? (int)id + 1 : 2 * n->nstrings;
            char **g = realloc(n->strings, (size_t)cap * sizeof *g);
            if (!g)
                break;
            memset(g + n->nstrings, 0, (size_t)(cap - n->nstrings) * sizeof *g);
            n->strings = g;
            n->nstrings = cap;
        }
        const unsigned char *v = sqlite3_column_text(st, 1);
        free(n->strings[id]);
        n->strings[id] = strdup(v ? (const char *)v : "");
    }
    done(n, st);
}

/* "cudaMalloc_v3020" -> "cudaMalloc" (CUPTI's names carry the version) */
static void base_name(const char *name, char *out, size_t len)
{
    snprintf(out, len, "%s", name);
    char *v = strrchr(out, '_');
    if (v && v[1] == 'v' && v[2] >= '0' && v[2] <= '9' && strspn(v + 2, "0123456789") == strlen(v + 2))
        *v = 0;
}

static int api_of(const char *name)
{
    static const char *const names[] = {
#define X(n, cls, flags) #n,
        GT_API_LIST(X)
#undef X
    };
    for (int i = 0; i < GT_API_COUNT; i++)
        if (!strcmp(names[i], name))
            return i;
    return -1;
}

/* nsys's memory kinds (0 pageable, 1 pinned, 2 device, 3 array, 4 managed,
 * 5 device static, 6 managed static) as CUPTI's (1 ... 7); 0 unknown */
static int mem_kind(sqlite3_stmt *st, int col)
{
    if (sqlite3_column_type(st, col) == SQLITE_NULL)
        return 0;
    int k = sqlite3_column_int(st, col);
    return k >= 0 && k <= 6 ? k + 1 : 0;
}

static int stream_of(sqlite3_int64 s)
{
    return s < 0 || s >= 0xFFFFFFFFll ? -1 : (int)s;
}

/* A table read in process order: column 0 of each row its process's
 * key (globalPid, or globalTid >> 24), rows sorted by it, so that the
 * processes, taken in order of their key, each read theirs where the
 * read has got to.  Rows whose key is of another type than an integer
 * are no process's (the export's ids are integers). */
struct by_proc {
    sqlite3_stmt *st;
    int row; /* st is on a row */
};

static void by_proc_open(struct nsys *n, struct by_proc *c, const char *table, const char *sql)
{
    c->st = prep(n, table, sql);
    c->row = c->st && sqlite3_step(c->st) == SQLITE_ROW;
}

/* The first row of process key, past the rows of smaller keys (processes
 * without CUDA API records); 0 if it has none. */
static int by_proc_first(struct by_proc *c, int64_t key)
{
    while (c->row && sqlite3_column_int64(c->st, 0) < key)
        c->row = sqlite3_step(c->st) == SQLITE_ROW;
    return c->row && sqlite3_column_int64(c->st, 0) == key;
}

/* The next row of process key; 0 past its last. */
static int by_proc_next(struct by_proc *c, int64_t key)
{
    c->row = sqlite3_step(c->st) == SQLITE_ROW;
    return c->row && sqlite3_column_int64(c->st, 0) == key;
}

/* The GPU operations' tables (op_tables) */
#define OP_TABLES 5

/* The export's tables, each read once. */
struct readers {
    struct by_proc runtime, ops[OP_TABLES], nvtx, threads, procs;
    sqlite3_stmt *chain; /* a stack's frames, by id */
};

struct proc_info {
    int64_t lo, hi;
    int have, device, rank;
    uint64_t calls, sites, ops, ranges, syncs_called, sync_records, nccl_ranges;
};

static void widen(struct proc_info *pi, int64_t a, int64_t b)
{
    if (!pi->have || a < pi->lo)
        pi->lo = a;
    if (!pi->have || b > pi->hi)
        pi->hi = b;
    pi->have = 1;
}

/* The stack of callchain id as callsite id+1's frames, innermost first. */
static void callsite(struct nsys *n, sqlite3_stmt *cc, int64_t id, int site)
{
    sqlite3_bind_int64(cc, 1, id);
    char *frames = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&frames, &len);
    int inner = 1;
    while (f && sqlite3_step(cc) == SQLITE_ROW) {
        const char *sym = str_of(n, sqlite3_column_int64(cc, 0)), *mod = str_of(n, sqlite3_column_int64(cc, 1));
        const char *base = mod && strrchr(mod, '/') ? strrchr(mod, '/') + 1 : mod ? mod : "?";
        /* the innermost frames are the profiler's own (CUPTI's callback):
         * not the program's; the report skips CUDA's own frames itself */
        if (inner && !strncmp(base, "libcupti", 8))
            continue;
        inner = 0;
        fprintf(f, "%s [%s]\n", sym ? sym : "?", base);
    }
    sqlite3_reset(cc);
    if (f)
        fclose(f);
    if (frames && len) {
        frames[len - 1] = 0; /* no newline after the last */
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(n->o->db, "INSERT OR IGNORE INTO callsite(process_id, id, frames) VALUES(?,?,?)", -1,
                               &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, n->o->pid_row);
            sqlite3_bind_int(st, 2, site);
            sqlite3_bind_text(st, 3, frames, -1, SQLITE_STATIC);
            sqlite3_step(st);
            sqlite3_finalize(st);
        }
    }
    free(frames);
}

/* The process's CUDA API records: its rows of r->runtime (key pid). */
static void runtime(struct nsys *n, struct readers *r, int64_t pid, struct proc_info *pi)
{
    sqlite3_stmt *st = r->runtime.st, *cc = r->chain, *call = NULL;
    sqlite3_prepare_v2(n->o->db, "INSERT INTO api_call(process_id, tid, api, start_ns, end_ns, stream, event, bytes,"
                       " copy_kind, mem_kind, result, callsite, call_id, pystack) VALUES(?,?,?,?,?,?,0,0,0,0,?,?,?,0)",
                       -1, &call, NULL);
    int64_t last_corr = -1, last_tid = -1;
    for (int more = by_proc_first(&r->runtime, pid); more; more = by_proc_next(&r->runtime, pid)) {
        int64_t start = sqlite3_column_int64(st, 1), end = sqlite3_column_int64(st, 2);
        int64_t gtid = sqlite3_column_int64(st, 3), corr = sqlite3_column_int64(st, 4);
        int tid = (int)(gtid & 0xFFFFFF);
        /* nsys lists a runtime call twice (its own record, with the stack,
         * and CUPTI's, "_v3020"), under one correlation: one call */
        if (corr && corr == last_corr && gtid == last_tid)
            continue;
        last_corr = corr;
        last_tid = gtid;
        const char *name = str_of(n, sqlite3_column_int64(st, 5));
        char base[256];
        base_name(name ? name : "", base, sizeof base);
        int domain = !strncmp(base, "cu", 2) && strncmp(base, "cuda", 4) ? 2 : 1;
        /* the name as nsys lists it first: the driver's own names end in
         * "_v2" too (cuMemcpyHtoD_v2), which are no CUPTI version suffix */
        int cbid = name ? kineto_cbid_of(name, domain) : -1;
        if (cbid < 0)
            cbid = kineto_cbid_of(base, domain);
        pi->syncs_called += strstr(base, "Synchronize") != NULL;
        int64_t result = sqlite3_column_int64(st, 6);
        out_capi(n->o, domain, cbid < 0 ? 0 : cbid, tid, start, end, corr,
                 sqlite3_column_type(st, 6) == SQLITE_NULL ? NULL : &result);
        widen(pi, start, end);
        pi->calls++;
        int api = name ? api_of(name) : -1;
        if (api < 0)
            api = api_of(base);
        if (call && cc && api >= 0 && sqlite3_column_type(st, 7) != SQLITE_NULL) {
            int64_t chain = sqlite3_column_int64(st, 7);
            int site = chain >= 0 && chain < (1 << 30) ? (int)chain + 1 : 0;
            if (site)
                callsite(n, cc, chain + n->chain_off, site);
            sqlite3_bind_int64(call, 1, n->o->pid_row);
            sqlite3_bind_int(call, 2, tid);
            sqlite3_bind_int(call, 3, api);
            sqlite3_bind_int64(call, 4, start);
            sqlite3_bind_int64(call, 5, end);
            sqlite3_bind_int64(call, 6, NSYS_STREAM_UNKNOWN);
            sqlite3_bind_int64(call, 7, result);
            sqlite3_bind_int(call, 8, site);
            sqlite3_bind_int64(call, 9, corr);
            sqlite3_step(call);
            sqlite3_reset(call);
            pi->sites += site > 0;
        }
    }
    sqlite3_finalize(call);
}

/* GPU operations, by kind (gpu_op.kind 1 to 5), each table keyed by
 * globalPid.  A sync's and an event record's `bytes` (CUPTI's
 * cudaEventSyncId) is not in the export: -1, as for a field CUPTI says
 * does not apply.  An event record has no time of its own (its call's
 * API record has it): 0, as the tracer stores it. */
static const struct { const char *table, *sql; int kind; } op_tables[OP_TABLES] = {
    { "CUPTI_ACTIVITY_KIND_KERNEL", "SELECT globalPid, start, end, deviceId, contextId, streamId, correlationId,"
      " coalesce(demangledName, shortName), 0, 0, NULL, NULL, 0, 0 FROM CUPTI_ACTIVITY_KIND_KERNEL"
      " WHERE typeof(globalPid) = 'integer' ORDER BY globalPid, rowid", 1 },
    { "CUPTI_ACTIVITY_KIND_MEMCPY", "SELECT globalPid, start, end, deviceId, contextId, streamId, correlationId, NULL,"
      " bytes, copyKind, srcKind, dstKind, 0, 0 FROM CUPTI_ACTIVITY_KIND_MEMCPY"
      " WHERE typeof(globalPid) = 'integer' ORDER BY globalPid, rowid", 2 },
    { "CUPTI_ACTIVITY_KIND_MEMSET", "SELECT globalPid, start, end, deviceId, contextId, streamId, correlationId, NULL,"
      " bytes, 0, NULL, memKind, 0, 0 FROM CUPTI_ACTIVITY_KIND_MEMSET"
      " WHERE typeof(globalPid) = 'integer' ORDER BY globalPid, rowid", 3 },
    { "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "SELECT globalPid, start, end, deviceId, contextId, streamId,"
      " correlationId, NULL, -1, 0, NULL, NULL, syncType, eventId FROM CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"
      " WHERE typeof(globalPid) = 'integer' ORDER BY globalPid, rowid", 4 },
    /* which stream each cudaEventRecord was on: what an event sync waited for */
    { "CUPTI_ACTIVITY_KIND_CUDA_EVENT", "SELECT globalPid, 0, 0, deviceId, contextId, streamId, correlationId, NULL,"
      " -1, 0, NULL, NULL, 0, eventId FROM CUPTI_ACTIVITY_KIND_CUDA_EVENT"
      " WHERE typeof(globalPid) = 'integer' ORDER BY globalPid, rowid", 5 },
};

static void gpu_ops(struct nsys *n, struct readers *r, int64_t gpid, struct proc_info *pi)
{
    for (size_t i = 0; i < OP_TABLES; i++) {
        sqlite3_stmt *st = r->ops[i].st;
        for (int more = by_proc_first(&r->ops[i], gpid); more; more = by_proc_next(&r->ops[i], gpid)) {
            struct out_gop g = { .kind = op_tables[i].kind, .start = sqlite3_column_int64(st, 1),
                                 .end = sqlite3_column_int64(st, 2), .device = sqlite3_column_int(st, 3),
                                 .context = sqlite3_column_int(st, 4),
                                 .stream = stream_of(sqlite3_column_int64(st, 5)),
                                 .corr = sqlite3_column_int64(st, 6), .bytes = sqlite3_column_int64(st, 8),
                                 .copy_kind = sqlite3_column_int(st, 9), .src_kind = mem_kind(st, 10),
                                 .dst_kind = mem_kind(st, 11), .sync_type = sqlite3_column_int(st, 12) };
            int64_t ev = sqlite3_column_int64(st, 13);
            g.event_id = ev < 0 || ev >= 0xFFFFFFFFll ? -1 : (int)ev;
            if (g.kind == 1) {
                g.name_id = out_string(n->o, str_of(n, sqlite3_column_int64(st, 7)));
                if (pi->device < 0)
                    pi->device = g.device;
            }
            out_gop(n->o, &g);
            pi->sync_records += g.kind == 4;
            if (g.kind == 5) /* no time: none to widen the process's span with */
                continue;
            widen(pi, g.start, g.end);
            pi->ops++;
        }
    }
}

/* NVTX: 59 push/pop range, 60 start/end range, 34 mark; 75 names a
 * domain, 39 a thread (nsys's event types). */
#define NVTX_SQL(payload)                                                                                       \
    "SELECT globalTid >> 24, start, end, eventType, coalesce(text, (SELECT value FROM StringIds WHERE id = textId)),"  \
    " globalTid, coalesce(domainId, 0), category, rangeId, " payload " FROM NVTX_EVENTS"                             \
    " WHERE typeof(globalTid) = 'integer' ORDER BY 1, eventType <> 75, start, rowid"
/* the payload, from the columns the export has: the JSON text of newer
 * ones, the numbers of older ones, or none (a payload is no reason to
 * refuse the ranges) */
static const char *const nvtx_sql[] = {
    NVTX_SQL("coalesce(jsonText, int64Value, uint64Value, doubleValue, int32Value, uint32Value, floatValue)"),
    NVTX_SQL("coalesce(int64Value, uint64Value, doubleValue, int32Value, uint32Value, floatValue)"),
    NVTX_SQL("NULL"),
};

static void nvtx(struct nsys *n, struct readers *r, int64_t pid, struct proc_info *pi)
{
    sqlite3_stmt *st = r->nvtx.st;
    int64_t domains[64] = { 0 };
    int dlabel[64] = { 0 }, nd = 0, nccl_label = 0;
    for (int more = by_proc_first(&r->nvtx, pid); more; more = by_proc_next(&r->nvtx, pid)) {
        int type = sqlite3_column_int(st, 3);
        const char *text = (const char *)sqlite3_column_text(st, 4);
        int tid = (int)(sqlite3_column_int64(st, 5) & 0xFFFFFF);
        int64_t dom = sqlite3_column_int64(st, 6);
        if (type == 75) { /* a domain's name */
            if (nd < 64 && text) {
                domains[nd] = dom;
                dlabel[nd++] = out_label(n->o, text);
                if (!strcmp(text, "NCCL"))
                    nccl_label = dlabel[nd - 1];
            }
            continue;
        }
        if (type == 39) { /* a thread's name (nsys's MPI trace names them "MPI Rank N") */
            int mpi_rank;
            char rest;
            if (text) {
                out_thread_name(n->o, tid, text);
                if (sscanf(text, "MPI Rank %d%c", &mpi_rank, &rest) == 1 && pi->rank < 0)
                    pi->rank = mpi_rank;
            }
            continue;
        }
        int kind = type == 59 ? 1 : type == 60 ? 2 : type == 34 ? 4 : 0;
        if (!kind)
            continue;
        int label = 0;
        for (int i = 0; i < nd; i++)
            if (domains[i] == dom)
                label = dlabel[i];
        pi->nccl_ranges += label && label == nccl_label;
        int64_t start = sqlite3_column_int64(st, 1);
        int64_t end = sqlite3_column_type(st, 2) == SQLITE_NULL ? (kind == 4 ? start : -1) : sqlite3_column_int64(st, 2);
        const char *payload = (const char *)sqlite3_column_text(st, 9);
        out_nvtx(n->o, tid, kind, label, out_label(n->o, text ? text : ""), start, end < 0 ? OUT_OPEN : end, payload);
        widen(pi, start, end < start ? start : end);
        pi->ranges++;
    }
}

static char *one_text(struct nsys *n, const char *table, const char *sql, int64_t arg)
{
    sqlite3_stmt *st = prep(n, table, sql);
    char *v = NULL;
    if (!st)
        return NULL;
    sqlite3_bind_int64(st, 1, arg);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
        v = strdup((const char *)sqlite3_column_text(st, 0));
    done(n, st);
    return v;
}

/* The first row of the process's in r->procs (PROCESSES by globalPid),
 * as the name of its command, or NULL. */
static char *command_of(struct readers *r, int64_t gpid)
{
    const unsigned char *name = by_proc_first(&r->procs, gpid) ? sqlite3_column_text(r->procs.st, 1) : NULL;
    return name ? strdup((const char *)name) : NULL;
}

/* One traced process of the export: pid (bits 24-47 of its global ids). */
static void process(struct nsys *n, struct readers *r, int64_t pid, const char *path)
{
    struct out_db *o = n->o;
    int64_t gpid = pid * (1 << 24); /* globalPid: the pid's bits where they are in a globalTid */
    out_begin_process(o);
    struct proc_info pi = { .device = -1, .rank = -1 };
    runtime(n, r, pid, &pi);
    gpu_ops(n, r, gpid, &pi);
    nvtx(n, r, pid, &pi);
    for (int more = by_proc_first(&r->threads, pid); more; more = by_proc_next(&r->threads, pid)) {
        const char *name = str_of(n, sqlite3_column_int64(r->threads.st, 1));
        if (name)
            out_thread_name(o, (int)(sqlite3_column_int64(r->threads.st, 2) & 0xFFFFFF), name);
    }
    char *cmd = command_of(r, gpid);
    /* the device of the process's own host (the vm bits of its globalPid,
     * TARGET_INFO_GPU's vmId: one export can hold several hosts), else of
     * any host: the device (below 2^16) and the vm (bit 48 on) in one key */
    char *gpu = pi.device >= 0 && pi.device < 0x10000
                    ? one_text(n, "TARGET_INFO_GPU", "SELECT name FROM TARGET_INFO_GPU WHERE id = (?1 & 65535)"
                               " ORDER BY vmId = ?1 - (?1 & 65535) DESC LIMIT 1",
                               (int64_t)((uint64_t)gpid >> 48 << 48) | pi.device)
                    : NULL;
    char source[4200];
    snprintf(source, sizeof source, "nsys:%s", path);
    /* (EXPORT_META_DATA's EXPORT_HOST is the host the export ran on, not
     * necessarily the traced one: not used) */
    struct out_process p = { .host = NULL, .cmdline = cmd, .source = source, .pid = (int)(pid & 0xFFFFFF),
                             .rank = pi.rank, .local_rank = -1, .world_size = -1, .device = pi.device,
                             .gpu_name = gpu, .start_ns = pi.lo, .end_ns = pi.hi, .clock_offset_ns = n->epoch_ns };
    if (!pi.sites && pi.calls)
        out_note(o, "call sites", "the export has no CUDA call stacks (nsys profile --cudabacktrace): findings are"
                 " grouped by API");
    if (pi.syncs_called && !pi.sync_records)
        out_note(o, "sync.*", "the export has no synchronisation records: the stream a cudaStreamSynchronize"
                 " waited for, and the event a cudaEventSynchronize, are unknown; those syncs are counted, not analysed");
    if (pi.nccl_ranges)
        out_note(o, "comm.*", "nsys records NCCL only as NVTX ranges of its domain: no communicator ids or sequence"
                 " numbers to match collectives across ranks by");
    else
        out_note(o, "comm.*", "no NCCL in the export (no NVTX ranges of NCCL's domain): nothing to check");
    out_note(o, "comm.hang", "an export holds finished events only: no call in flight to find a hang by");
    out_end_process(o, &p);
    free(cmd);
    free(gpu);
}

/* CUDA_CALLCHAINS numbers stacks from 1 where callchainId counts from 0
 * (nsys 2022.2's export): the offset read off the two tables' lowest
 * ids, 0 or 1. */
static int64_t chain_offset(struct nsys *n)
{
    sqlite3_stmt *q;
    int64_t off = 0;
    if (sqlite3_prepare_v2(n->db, "SELECT (SELECT min(id) FROM CUDA_CALLCHAINS) - (SELECT min(callchainId) FROM"
                           " CUPTI_ACTIVITY_KIND_RUNTIME)", -1, &q, NULL) == SQLITE_OK) {
        if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_int64(q, 0) == 1)
            off = 1;
        done(n, q);
    }
    return off;
}

static void readers_open(struct nsys *n, struct readers *r)
{
    memset(r, 0, sizeof *r);
    n->chains = has_table(n, "CUDA_CALLCHAINS");
    by_proc_open(n, &r->runtime, "CUPTI_ACTIVITY_KIND_RUNTIME",
                 n->chains ? "SELECT globalTid >> 24, start, end, globalTid, correlationId, nameId, returnValue,"
                             " callchainId FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE typeof(globalTid) = 'integer'"
                             " ORDER BY 1, correlationId, globalTid, callchainId IS NULL, start, rowid"
                           : "SELECT globalTid >> 24, start, end, globalTid, correlationId, nameId, returnValue, NULL"
                             " FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE typeof(globalTid) = 'integer'"
                             " ORDER BY 1, correlationId, globalTid, start, rowid");
    if (n->chains) {
        sqlite3_prepare_v2(n->db, "SELECT symbol, module FROM CUDA_CALLCHAINS WHERE id = ? ORDER BY stackDepth", -1,
                           &r->chain, NULL);
        n->chain_off = chain_offset(n);
    }
    for (size_t i = 0; i < OP_TABLES; i++)
        by_proc_open(n, &r->ops[i], op_tables[i].table, op_tables[i].sql);
    /* the first form the export's columns allow (the last: its error, if any) */
    size_t f = 0, forms = sizeof nvtx_sql / sizeof *nvtx_sql;
    for (sqlite3_stmt *st; f + 1 < forms && has_table(n, "NVTX_EVENTS"); f++)
        if (sqlite3_prepare_v2(n->db, nvtx_sql[f], -1, &st, NULL) == SQLITE_OK) {
            sqlite3_finalize(st);
            break;
        }
    by_proc_open(n, &r->nvtx, "NVTX_EVENTS", nvtx_sql[f]);
    by_proc_open(n, &r->threads, "ThreadNames", "SELECT globalTid >> 24, nameId, globalTid FROM ThreadNames"
                 " WHERE typeof(globalTid) = 'integer' ORDER BY 1, rowid");
    by_proc_open(n, &r->procs, "PROCESSES", "SELECT globalPid, name FROM PROCESSES WHERE typeof(globalPid) ="
                 " 'integer' ORDER BY globalPid, rowid");
}

static void readers_close(struct nsys *n, struct readers *r)
{
    struct by_proc *all[] = { &r->runtime, &r->ops[0], &r->ops[1], &r->ops[2], &r->ops[3], &r->ops[4], &r->nvtx, &r->threads,
                              &r->procs };
    for (size_t i = 0; i < sizeof all / sizeof *all; i++)
        done(n, all[i]->st);
    done(n, r->chain);
}

/* EXPORT_SCHEMA_VERSION_MAJOR 2 or 3: the versions this reader knows. */
/* The export's schema's major version, or NULL if it does not say: in
 * EXPORT_META_DATA (nsys up to 2023), or META_DATA_EXPORT (2024 on), as
 * EXPORT_SCHEMA_VERSION_MAJOR or the head of EXPORT_SCHEMA_VERSION
 * ("3.16.1"). */
static char *schema_major(struct nsys *n)
{
    static const char *const sql[2] = {
        "SELECT value FROM EXPORT_META_DATA WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR' AND ?1 = ?1",
        "SELECT coalesce((SELECT value FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION_MAJOR'),"
        " (SELECT CASE WHEN instr(value, '.') > 0 THEN substr(value, 1, instr(value, '.') - 1) ELSE value END"
        " FROM META_DATA_EXPORT WHERE name = 'EXPORT_SCHEMA_VERSION')) WHERE ?1 = ?1",
    };
    char *major = one_text(n, "EXPORT_META_DATA", sql[0], 0);
    return major ? major : one_text(n, "META_DATA_EXPORT", sql[1], 0);
}

static int known_schema(const char *major)
{
    return (major[0] == '2' || major[0] == '3') && !major[1];
}

int import_nsys_file(struct out_db *o, const char *path, char *err, size_t errlen)
{
    struct nsys n = { .o = o };
    char why[512];
    if (gt_guard_regular(path, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s", why);
        return -1;
    }
    if (sqlite3_open_v2(path, &n.db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
        snprintf(err, errlen, "%s: cannot open: %s", path, n.db ? sqlite3_errmsg(n.db) : "out of memory");
        sqlite3_close(n.db);
        return -1;
    }
    gt_guard_connection(n.db);
    static const char *const tables[] = { "StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL",
                                          "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET",
                                          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS", "CUDA_CALLCHAINS",
                                          "PROCESSES", "ThreadNames", "TARGET_INFO_GPU",
                                          "TARGET_INFO_SESSION_START_TIME", "EXPORT_META_DATA", "META_DATA_EXPORT",
                                          "CUPTI_ACTIVITY_KIND_CUDA_EVENT", NULL };
    int rc = 0;
    if (gt_guard_tables(n.db, tables, why, sizeof why) != 0) {
        snprintf(err, errlen, "%s: not an Nsight Systems export as this reader knows it (%s)", path, why);
        sqlite3_close(n.db);
        return -1;
    }
    static const char *const needed[] = { "StringIds", "CUPTI_ACTIVITY_KIND_RUNTIME" };
    for (size_t i = 0; i < sizeof needed / sizeof *needed; i++)
        if (!has_table(&n, needed[i])) {
            snprintf(err, errlen, "%s: an Nsight Systems export without the table %s: nothing to read", path,
                     needed[i]);
            sqlite3_close(n.db);
            return -1;
        }
    char *major = schema_major(&n);
    if (major && !known_schema(major)) {
        char shown[100]; /* the file's text: made safe to show, and short */
        snprintf(err, errlen, "%s: an Nsight Systems export of a version this reader does not know (schema %s)", path,
                 term_cell(major, 20, TERM_CUT | TERM_ELLIPSIS, shown, sizeof shown));
        free(major);
        sqlite3_close(n.db);
        return -1;
    }
    free(major);
    load_strings(&n);
    char *epoch = one_text(&n, "TARGET_INFO_SESSION_START_TIME", "SELECT utcEpochNs FROM"
                           " TARGET_INFO_SESSION_START_TIME WHERE ?1 = ?1", 0);
    n.epoch_ns = epoch ? strtoll(epoch, NULL, 10) : 0;
    free(epoch);
    /* the traced processes: those with CUDA API records, in the order of
     * their pids, as the runtime table is read */
    struct readers r;
    readers_open(&n, &r);
    int nproc = 0;
    while (r.runtime.row && !n.err[0]) {
        process(&n, &r, sqlite3_column_int64(r.runtime.st, 0), path);
        nproc++;
    }
    readers_close(&n, &r);
    if (getenv("GPUTRACE_IMPORT_STEPS")) /* for the tests: the work is linear in the export's size */
        fprintf(stderr, "gputrace import: %s: %llu SQLite steps\n", path, (unsigned long long)n.steps);
    if (n.err[0]) {
        snprintf(err, errlen, "%s: an Nsight Systems export of a version this reader does not know: %s", path, n.err);
        if (nproc)
            out_note(o, "import", err);
        rc = nproc ? 1 : -1;
    } else if (!nproc) {
        snprintf(err, errlen, "%s: an Nsight Systems export without CUDA API records", path);
        rc = -1;
    }
    for (int i = 0; i < n.nstrings; i++)
        free(n.strings[i]);
    free(n.strings);
    sqlite3_close(n.db);
    return rc;
}
