/* kineto_map.c: Kineto's names as our numbers (see kineto_map.h). */
#define _GNU_SOURCE
#include "import/kineto_map.h"
#include "import/out_db.h"
#include "format/api_ids.h"
#include "format/cupti_cbids.h"
#include "format/record.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

int kineto_cbid_of(const char *name, int domain)
{
    /* the APIs the report reads (format/cupti_cbids.h), by the name Kineto
     * writes: CUPTI's function name, without its version suffix */
    for (size_t i = 0; i < gt_ncbid_names; i++)
        if (gt_cbid_names[i].domain == domain && !strcmp(gt_cbid_names[i].name, name))
            return (int)gt_cbid_names[i].cbid;
    return -1;
}

/* CUPTI's memory kinds by the names Kineto prints (CUPTI's own strings) */
static int mem_kind(const char *s, size_t n)
{
    static const struct { const char *name; int kind; } kinds[] = {
        { "Pageable", 1 }, { "Pinned", 2 }, { "Device", 3 }, { "Array", 4 }, { "Managed", 5 },
        { "Device Static", 6 }, { "Managed Static", 7 },
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (strlen(kinds[i].name) == n && !strncmp(kinds[i].name, s, n))
            return kinds[i].kind;
    return 0;
}

void kineto_copy_kinds(const char *name, int *copy_kind, int *src_kind, int *dst_kind)
{
    static const struct { const char *dir; int kind; } dirs[] = {
        { "HtoD", 1 }, { "DtoH", 2 }, { "HtoA", 3 }, { "AtoH", 4 }, { "AtoA", 5 }, { "AtoD", 6 },
        { "DtoA", 7 }, { "DtoD", 8 }, { "HtoH", 9 }, { "PtoP", 10 },
    };
    *copy_kind = *src_kind = *dst_kind = 0;
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++)
        if (strstr(name, dirs[i].dir)) {
            *copy_kind = dirs[i].kind;
            break;
        }
    /* "(Device -> Pageable)", or a memset's "(Device)" */
    const char *open = strchr(name, '('), *close = open ? strchr(open, ')') : NULL;
    if (!close)
        return;
    const char *arrow = strstr(open, " -> ");
    if (arrow && arrow < close) {
        *src_kind = mem_kind(open + 1, (size_t)(arrow - open - 1));
        *dst_kind = mem_kind(arrow + 4, (size_t)(close - arrow - 4));
    } else {
        *dst_kind = mem_kind(open + 1, (size_t)(close - open - 1));
    }
}

int kineto_sync_type(const char *kind)
{
    if (!kind)
        return 0;
    if (!strcmp(kind, "Event Sync"))
        return 1;
    if (!strcmp(kind, "Stream Wait Event"))
        return 2;
    if (!strcmp(kind, "Stream Sync"))
        return 3;
    if (!strcmp(kind, "Context Sync"))
        return 4;
    return 0;
}

int kineto_coll_api(const char *cname, const char *kname)
{
    /* PyTorch's names (c10d ops, and the underscored variants) */
    static const struct { const char *name; int api; } by_name[] = {
        { "allreduce", GT_API_ncclAllReduce }, { "all_reduce", GT_API_ncclAllReduce },
        { "allreduce_coalesced", GT_API_ncclAllReduce }, { "barrier", GT_API_ncclAllReduce },
        { "allgather", GT_API_ncclAllGather }, { "all_gather", GT_API_ncclAllGather },
        { "_allgather_base", GT_API_ncclAllGather }, { "allgather_into_tensor_coalesced", GT_API_ncclAllGather },
        { "all_gather_into_tensor", GT_API_ncclAllGather },
        { "reduce_scatter", GT_API_ncclReduceScatter }, { "reducescatter", GT_API_ncclReduceScatter },
        { "_reduce_scatter_base", GT_API_ncclReduceScatter }, { "reduce_scatter_tensor_coalesced", GT_API_ncclReduceScatter },
        { "broadcast", GT_API_ncclBroadcast }, { "reduce", GT_API_ncclReduce },
        { "all_to_all", GT_API_ncclAlltoAll }, { "alltoall", GT_API_ncclAlltoAll }, { "alltoall_base", GT_API_ncclAlltoAll },
        { "all_to_allv", GT_API_ncclAlltoAll }, /* alltoall_base with split sizes: a SendRecv kernel */
        { "gather", GT_API_ncclGather }, { "scatter", GT_API_ncclScatter },
        { "send", GT_API_ncclSend }, { "recv", GT_API_ncclRecv }, { "recvanysource", GT_API_ncclRecv },
    };
    for (size_t i = 0; cname && i < sizeof by_name / sizeof *by_name; i++)
        if (!strcasecmp(cname, by_name[i].name))
            return by_name[i].api;
    /* ncclKernel_AllReduce_..., ncclDevKernel_AllGather_... */
    static const struct { const char *part; int api; } by_kernel[] = {
        { "AllReduce", GT_API_ncclAllReduce }, { "AllGather", GT_API_ncclAllGather },
        { "ReduceScatter", GT_API_ncclReduceScatter }, { "Broadcast", GT_API_ncclBroadcast },
        { "Reduce", GT_API_ncclReduce }, { "SendRecv", GT_API_ncclSend },
    };
    for (size_t i = 0; kname && i < sizeof by_kernel / sizeof *by_kernel; i++)
        if (strstr(kname, by_kernel[i].part))
            return by_kernel[i].api;
    return GT_API_ncclAllReduce;
}

int kineto_coll_is_scatter(int api)
{
    return api == GT_API_ncclReduceScatter || api == GT_API_ncclScatter;
}

int kineto_dtype(const char *name)
{
    /* c10's ScalarType names, in ncclDataType_t's order where NCCL has them */
    static const struct { const char *name; int t; } types[] = {
        { "Char", 0 }, { "Byte", 1 }, { "Bool", 1 }, { "Int", 2 }, { "UInt32", 3 }, { "Long", 4 }, { "UInt64", 5 },
        { "Half", 6 }, { "Float", 7 }, { "Double", 8 }, { "BFloat16", 9 }, { "Float8_e4m3fn", 10 },
        { "Float8_e5m2", 11 },
    };
    for (size_t i = 0; name && i < sizeof types / sizeof *types; i++)
        if (!strcmp(name, types[i].name))
            return types[i].t;
    return -1;
}

int64_t kineto_dtype_size(int t)
{
    static const int sizes[] = { 1, 1, 4, 4, 8, 8, 2, 4, 8, 2, 1, 1 };
    return t >= 0 && t < 12 ? sizes[t] : 1;
}

int kineto_redop(const char *kname)
{
    static const char *const ops[] = { "_Sum_", "_Prod_", "_Max_", "_Min_", "_Avg_" };
    for (int i = 0; kname && i < 5; i++)
        if (strstr(kname, ops[i]))
            return i;
    return -1;
}

int64_t kineto_hash(const char *s)
{
    uint64_t h = 1469598103934665603ull;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return (int64_t)(h >> 2);
}

int kineto_rank_in(const char *ranks, int rank)
{
    if (!ranks || rank < 0)
        return rank;
    const char *p = ranks;
    for (int i = 0; *p; i++) {
        while (*p && (*p < '0' || *p > '9'))
            p++;
        if (!*p)
            break;
        char *end;
        long v = strtol(p, &end, 10);
        if (v == rank)
            return i;
        p = end;
    }
    return rank;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* The host times of the API records stored in blocks whose correlation is
 * an NCCL kernel's (those of rows are joined in SQL): into import_corr. */
static void block_times(struct out_db *o, sqlite3_int64 pid)
{
    sqlite3_stmt *st, *ins;
    uint32_t *v = NULL;
    size_t n = 0, cap = 0;
    if (sqlite3_prepare_v2(o->db, "SELECT correlation FROM ext_corr WHERE process_id = ?", -1, &st, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, pid);
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 256;
            uint32_t *g = realloc(v, cap * sizeof *g);
            if (!g)
                break;
            v = g;
        }
        v[n++] = (uint32_t)sqlite3_column_int64(st, 0);
    }
    sqlite3_finalize(st);
    if (!n) {
        free(v);
        return;
    }
    qsort(v, n, sizeof *v, cmp_u32);
    if (sqlite3_prepare_v2(o->db, "SELECT format, n, data FROM cupti_api_block WHERE process_id = ?", -1, &st, NULL) ==
            SQLITE_OK &&
        sqlite3_prepare_v2(o->db, "INSERT OR IGNORE INTO import_corr VALUES(?,?,?)", -1, &ins, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, pid);
        while (sqlite3_step(st) == SQLITE_ROW) {
            struct gt_block_cur c;
            const void *data = sqlite3_column_blob(st, 2); /* before its size, as SQLite asks */
            int k = gt_block_open(&c, &gt_capi_layout, sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1), data,
                                  sqlite3_column_bytes(st, 2));
            for (int i = 0; i < k; i++) { /* none of a damaged block */
                struct gt_capi_packed r;
                gt_block_next(&c, &r);
                if (!bsearch(&r.correlation, v, n, sizeof *v, cmp_u32))
                    continue;
                sqlite3_bind_int64(ins, 1, r.correlation);
                sqlite3_bind_int64(ins, 2, r.start_ns);
                sqlite3_bind_int64(ins, 3, r.end_ns);
                sqlite3_step(ins);
                sqlite3_reset(ins);
            }
        }
        sqlite3_finalize(ins);
    }
    sqlite3_finalize(st);
    free(v);
}

/* Whether two rows of the ordered scan tie on the window's order (the
 * same group, start and call id: a trace's duplicate kernel events), or
 * hold what is no integer there: the SQL's order among them is its own. */
static int ties(sqlite3_stmt *st, const sqlite3_int64 prev[4], int have_prev)
{
    for (int c = 1; c <= 3; c++)
        if (sqlite3_column_type(st, c) != SQLITE_INTEGER)
            return 1;
    return have_prev && sqlite3_column_int64(st, 1) == prev[0] && sqlite3_column_int64(st, 7) == prev[3] &&
           sqlite3_column_int64(st, 2) == prev[1] && sqlite3_column_int64(st, 3) == prev[2];
}

/* What a collective is numbered among, within its group: a send or recv
 * (seq -4) among this rank's of its direction and peer, every other among
 * the group's collectives (0) */
#define NUMBER_PART "CASE WHEN c.seq = -4 THEN 1 + 4294967296 * c.api + (c.peer + 1) ELSE 0 END"

/* The numbering of kineto_number's SQL (row_number() over each group by
 * start and call id; the host times of the call of the same group and
 * number, else of the kernel's launch) as one ordered scan and an UPDATE
 * by rowid of the rows it changes: the window function, its table and the
 * UPDATE FROM join cost a fifth of a trace's import, this a few hundredths.
 * Inside a savepoint: where rows tie on the order (or a call of the same
 * group and number comes twice, which is one), what was changed is undone
 * and -1 says to number them by the SQL, whose order among ties it is. */
static int number_in_c(struct out_db *o, sqlite3_int64 pid)
{
    sqlite3_stmt *sel = NULL, *upd = NULL;
    /* the ORDER BY's unary plus: sorted whole before the first row (no
     * index walked while the UPDATE changes it) */
    if (sqlite3_prepare_v2(o->db,
                           "SELECT c.rowid, c.comm_id, c.start_ns, c.call_id, c.seq, coalesce(h.hs, k.hs),"
                           " coalesce(h.he, k.he), " NUMBER_PART " part FROM collective c"
                           " LEFT JOIN import_corr k ON k.corr = c.call_id - (1 << 32)"
                           " LEFT JOIN import_host_seq h ON h.process_id = c.process_id AND h.comm_id = c.comm_id"
                           " AND h.seq = c.seq WHERE c.process_id = ?"
                           " ORDER BY +c.comm_id, +part, +c.start_ns, +c.call_id, +c.rowid",
                           -1, &sel, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(o->db,
                           "UPDATE collective SET seq = ?, start_ns = coalesce(?, start_ns), end_ns = coalesce(?, end_ns)"
                           " WHERE rowid = ?",
                           -1, &upd, NULL) != SQLITE_OK ||
        sqlite3_exec(o->db, "SAVEPOINT kineto_number", NULL, NULL, NULL) != SQLITE_OK) {
        sqlite3_finalize(sel);
        sqlite3_finalize(upd);
        return -1;
    }
    sqlite3_bind_int64(sel, 1, pid);
    sqlite3_int64 prev[4] = { 0, 0, 0, 0 }, k = 0;
    int have_prev = 0, tied = 0, rc;
    while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
        if (ties(sel, prev, have_prev)) {
            tied = 1;
            break;
        }
        sqlite3_int64 comm = sqlite3_column_int64(sel, 1), part = sqlite3_column_int64(sel, 7);
        k = have_prev && comm == prev[0] && part == prev[3] ? k + 1 : 0; /* row_number() - 1 within the group */
        prev[0] = comm;
        prev[3] = part;
        prev[1] = sqlite3_column_int64(sel, 2);
        prev[2] = sqlite3_column_int64(sel, 3);
        have_prev = 1;
        sqlite3_int64 kind = sqlite3_column_type(sel, 4) == SQLITE_INTEGER ? sqlite3_column_int64(sel, 4) : 0;
        int numbered = kind == -2 || kind == -3 || kind == -4;
        if (!numbered && sqlite3_column_type(sel, 5) == SQLITE_NULL && sqlite3_column_type(sel, 6) == SQLITE_NULL)
            continue; /* the UPDATE would write what is there */
        if (numbered)
            sqlite3_bind_int64(upd, 1, kind == -2 ? k : k + (sqlite3_int64)(kind == -3 ? GT_SEQ_ORDER : GT_SEQ_P2P));
        else
            sqlite3_bind_value(upd, 1, sqlite3_column_value(sel, 4));
        sqlite3_bind_value(upd, 2, sqlite3_column_value(sel, 5));
        sqlite3_bind_value(upd, 3, sqlite3_column_value(sel, 6));
        sqlite3_bind_int64(upd, 4, sqlite3_column_int64(sel, 0));
        int u = sqlite3_step(upd);
        sqlite3_reset(upd);
        if (u != SQLITE_DONE) {
            tied = 1; /* the SQL then, as before */
            break;
        }
    }
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
        tied = 1;
    sqlite3_finalize(sel);
    sqlite3_finalize(upd);
    if (tied) {
        sqlite3_exec(o->db, "ROLLBACK TO kineto_number; RELEASE kineto_number", NULL, NULL, NULL);
        return -1;
    }
    sqlite3_exec(o->db, "RELEASE kineto_number", NULL, NULL, NULL);
    return 0;
}

void kineto_number(struct out_db *o)
{
    char sql[1600];
    long long pid = (long long)o->pid_row;
    sqlite3_stmt *st;
    int any = 0;
    out_flush(o);
    if (sqlite3_prepare_v2(o->db, "SELECT 1 FROM collective WHERE process_id = ? LIMIT 1", -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, pid);
        any = sqlite3_step(st) == SQLITE_ROW;
        sqlite3_finalize(st);
    }
    if (!any)
        return;
    /* the launch's host times: the API record of the kernel's correlation */
    snprintf(sql, sizeof sql,
             "CREATE INDEX IF NOT EXISTS cupti_api_by_corr ON cupti_api(process_id, correlation);"
             "CREATE TEMP TABLE IF NOT EXISTS import_seq(r INTEGER PRIMARY KEY, s INTEGER, hs INTEGER, he INTEGER);"
             "DELETE FROM import_seq;"
             "CREATE TEMP TABLE IF NOT EXISTS import_corr(corr INTEGER PRIMARY KEY, hs INTEGER, he INTEGER);"
             "DELETE FROM import_corr;"
             "INSERT OR IGNORE INTO import_corr SELECT corr, hs, he FROM import_host WHERE process_id = %lld;"
             /* the collectives' call ids as a key of their own, and the
              * join in that order (CROSS JOIN): on tables just filled,
              * without statistics, SQLite once scanned the collectives for
              * each ext_corr row, 39 s of a 1.1 M-event trace's import */
             "CREATE TEMP TABLE IF NOT EXISTS import_calls(id INTEGER PRIMARY KEY);"
             "DELETE FROM import_calls;"
             "INSERT OR IGNORE INTO import_calls SELECT call_id FROM collective WHERE process_id = %lld;"
             "INSERT OR IGNORE INTO import_corr SELECT x.correlation, a.start_ns, a.end_ns FROM ext_corr x"
             " CROSS JOIN import_calls c CROSS JOIN cupti_api a"
             " WHERE x.process_id = %lld AND c.id = x.external_id"
             " AND a.process_id = %lld AND a.correlation = x.correlation;",
             pid, pid, pid, pid);
    out_exec(o, sql);
    block_times(o, pid);
    if (number_in_c(o, pid) == 0)
        return;
    snprintf(sql, sizeof sql,
             "INSERT OR IGNORE INTO import_seq SELECT c.rowid, row_number() OVER (PARTITION BY c.comm_id, " NUMBER_PART
             " ORDER BY c.start_ns,"
             " c.call_id) - 1, coalesce(h.hs, k.hs), coalesce(h.he, k.he) FROM collective c"
             " LEFT JOIN import_corr k ON k.corr = c.call_id - (1 << 32)"
             " LEFT JOIN import_host_seq h ON h.process_id = c.process_id AND h.comm_id = c.comm_id AND h.seq = c.seq"
             " WHERE c.process_id = %lld;"
             /* every collective of the process has its import_seq row:
              * joined once (UPDATE FROM), not looked up by a subquery
              * per column (a tenth of a Kineto trace's import) */
             "UPDATE collective SET"
             " seq = CASE WHEN seq = -2 THEN q.s WHEN seq = -3 THEN q.s + %lld WHEN seq = -4 THEN q.s + %lld ELSE seq END,"
             " start_ns = coalesce(q.hs, start_ns), end_ns = coalesce(q.he, end_ns)"
             " FROM import_seq q WHERE q.r = collective.rowid AND collective.process_id = %lld;",
             pid, (long long)GT_SEQ_ORDER, (long long)GT_SEQ_P2P, pid);
    out_exec(o, sql);
}

void kineto_order_ranks(struct out_db *o, int rank, int world)
{
    char sql[600];
    long long pid = (long long)o->pid_row;
    out_flush(o);
    if (rank >= 0 && world > 0)
        snprintf(sql, sizeof sql, "UPDATE collective SET rank = %d, nranks = %d WHERE process_id = %lld AND seq = -3;",
                 rank, world, pid);
    else
        snprintf(sql, sizeof sql,
                 "DELETE FROM ext_corr WHERE process_id = %lld AND external_id IN (SELECT call_id FROM collective"
                 " WHERE process_id = %lld AND seq = -3);"
                 "DELETE FROM collective WHERE process_id = %lld AND seq = -3;",
                 pid, pid, pid);
    out_exec(o, sql);
}
