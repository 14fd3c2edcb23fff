/* load_run.c: loading a run from one or more databases (see model.h).
 * Every failure is a one-line reason, never a crash: a missing file, a file
 * that is not SQLite, a database of another schema version, no such run. */
#define _GNU_SOURCE
#include "viewer/read/load_internal.h"
#include "viewer/model/comm_kernels.h"
#include "viewer/read/db_open.h"
#include "viewer/model/tmpstore.h"
#include "viewer/model/timeline.h"
#include "viewer/model/idmap.h"
#include "viewer/read/rowruns.h"
#include "viewer/read/plugin_join.h"
#include "viewer/read/load_threads.h"
#include "format/schema.h"
#include "format/gpu_block.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void load_note_damage(struct model *m, int db, int rc, const char *what)
{
    if (rc == SQLITE_OK || rc == SQLITE_DONE || rc == SQLITE_ROW || m->damaged[0])
        return;
    snprintf(m->damaged, sizeof m->damaged, "%s is damaged (%s while reading %s): this report covers what could be read",
             m->paths[db], sqlite3_errstr(rc), what);
}

static void copy_text(char *dst, size_t len, const unsigned char *src)
{
    /* as the file has it: the outputs escape it, each its own way */
    snprintf(dst, len, "%s", src ? (const char *)src : "");
}

static int load_apis(struct model *m, sqlite3 *db)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT id, name FROM api ORDER BY id", -1, &s, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(s) == SQLITE_ROW) {
        /* a row without a name still makes its id known (an unknown API) */
        model_set_api(m, sqlite3_column_int(s, 0), (const char *)sqlite3_column_text(s, 1));
    }
    sqlite3_finalize(s);
    model_set_api(m, 0, NULL); /* an empty api table: id 0 still names calls whose API is unknown */
    return 0;
}

void load_strings(sqlite3 *db, const char *table, int64_t process_id, char ***v, int *n)
{
    sqlite3_stmt *s;
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT id, value FROM %s WHERE process_id = ? AND id BETWEEN 1 AND 1000000", table);
    if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, process_id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        int id = sqlite3_column_int(s, 0);
        if (id < 1 || id > 1000000) /* the SQL said so, but a damaged file's index may not agree */
            continue;
        if (id >= *n) {
            int grown = id + 1 > 2 * *n ? id + 1 : 2 * *n;
            *v = realloc(*v, (size_t)grown * sizeof **v);
            memset(*v + *n, 0, (size_t)(grown - *n) * sizeof **v);
            *n = grown;
        }
        free((*v)[id]);
        const unsigned char *text = sqlite3_column_text(s, 1);
        (*v)[id] = strdup(text ? (const char *)text : ""); /* as the file has it (copy_text) */
    }
    sqlite3_finalize(s);
}

/* A process's collectives, each with its site, as the run is loaded; then
 * put aside (model.h) until the process is. */
static void load_colls(struct model *m, struct proc *p, pthread_mutex_t *parked_lock)
{
    sqlite3 *db = m->dbs[p->db];
    sqlite3_stmt *s;
    size_t cap = 0;
    /* the kernel that ran each one is matched when the process's GPU
     * operations are loaded (load_proc.c): they may be rows or blocks */
    sqlite3_prepare_v2(db, "SELECT call_id, comm_id, seq, count, bytes, start_ns, end_ns, group_id, api,"
                           " datatype, op, peer, rank, nranks, callsite, pystack, result, stream FROM collective"
                           " WHERE process_id = ? GROUP BY call_id ORDER BY start_ns", -1, &s, NULL);
    sqlite3_bind_int64(s, 1, p->id);
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        /* refused by NCCL (an error other than ncclInProgress): it enqueued
         * nothing, so it is no collective; the call itself stays a call */
        int api = model_api_id(m, sqlite3_column_int(s, 8));
        if (model_result_failed(m, api, sqlite3_column_int(s, 16))) {
            p->refused_colls++;
            continue;
        }
        int callsite = sqlite3_column_int(s, 14), pystack = sqlite3_column_int(s, 15);
        int site = callsite || pystack ? model_site(p, callsite, pystack) : 0;
        GROW(p->colls, p->ncolls, cap);
        struct coll *c = &p->colls[p->ncolls++];
        *c = (struct coll){ .call_id = sqlite3_column_int64(s, 0), .comm = sqlite3_column_int64(s, 1),
                            .seq = sqlite3_column_int64(s, 2), .count = sqlite3_column_int64(s, 3),
                            .bytes = sqlite3_column_int64(s, 4), .start = sqlite3_column_int64(s, 5),
                            .end = sqlite3_column_int64(s, 6), .group = sqlite3_column_int64(s, 7), .api = api,
                            .dtype = sqlite3_column_int(s, 9), .op = sqlite3_column_int(s, 10),
                            .peer = sqlite3_column_int(s, 11), .rank = sqlite3_column_int(s, 12),
                            .nranks = sqlite3_column_int(s, 13), .gstream = -1 /* no kernel yet */, .site = site,
                            .hstream = sqlite3_column_int64(s, 17) };
        /* sizes are multiplied by the rank count (nccl-tests' and Kineto's
         * conventions): keep a damaged file's within what that can hold */
        c->count = c->count < 0 ? 0 : model_clamp(c->count, 40);
        c->bytes = c->bytes < 0 ? 0 : model_clamp(c->bytes, 40);
        c->nranks = c->nranks < 0 ? 0 : c->nranks > (1 << 20) ? 1 << 20 : c->nranks;
        model_span(&c->start, &c->end);
        p->unknown_comm_colls += model_coll_comm_unknown(c);
    }
    load_note_damage(m, p->db, rc, "collective");
    sqlite3_finalize(s);
    plugin_join(m, p, &cap); /* NCCL's own records: joined, or collectives of their own */
    if (parked_lock)
        pthread_mutex_lock(parked_lock);
    p->colls_at = tmpstore_append(m->parked, p->colls, p->ncolls * sizeof *p->colls);
    if (parked_lock)
        pthread_mutex_unlock(parked_lock);
    p->colls_parked = p->ncolls;
    free(p->colls);
    p->colls = NULL;
    p->ncolls = 0;
}

/* Whether process p holds a record of GPU work (a kernel, copy or memset:
 * gpu_op kinds 1-3), as a row or in a block: a fact of the data, whatever
 * its source says of CUPTI (a trace of CUPTI's range profiler holds the
 * calls and no GPU work; so does an export whose GPU tables were left
 * out).  A sync or event record alone is none: it says when the host
 * waited, not what ran.  Stops at the first; a table it cannot read counts
 * as holding some (the loading proper notes the damage). */
static int has_gpu_work(sqlite3 *db, const struct proc *p)
{
    if (!p->rows)
        return 1;
    const struct rowruns *r = &p->rows->t[RT_GPU_OP], *b = &p->rows->t[RT_GPU_BLOCK];
    int found = 0, rc = SQLITE_DONE;
    sqlite3_stmt *s;
    if (r->count != 0 && r->n &&
        sqlite3_prepare_v2(db, "SELECT 1 FROM gpu_op WHERE rowid BETWEEN ?1 AND ?2 AND process_id = ?3"
                               " AND kind BETWEEN 1 AND 3 LIMIT 1", -1, &s, NULL) == SQLITE_OK) {
        for (size_t k = 0; k < r->n && !found && rc == SQLITE_DONE; k++) {
            sqlite3_bind_int64(s, 1, r->v[k].first);
            sqlite3_bind_int64(s, 2, r->v[k].last);
            sqlite3_bind_int64(s, 3, p->id);
            rc = sqlite3_step(s);
            found = rc == SQLITE_ROW;
            sqlite3_reset(s);
        }
        sqlite3_finalize(s);
    }
    if (!found && rc == SQLITE_DONE && b->count != 0 && b->n &&
        sqlite3_prepare_v2(db, "SELECT format, n, data FROM gpu_op_block WHERE rowid BETWEEN ?1 AND ?2"
                               " AND process_id = ?3", -1, &s, NULL) == SQLITE_OK) {
        for (size_t k = 0; k < b->n && !found && rc == SQLITE_DONE; k++) {
            sqlite3_bind_int64(s, 1, b->v[k].first);
            sqlite3_bind_int64(s, 2, b->v[k].last);
            sqlite3_bind_int64(s, 3, p->id);
            while (!found && (rc = sqlite3_step(s)) == SQLITE_ROW) {
                struct gt_block_cur c;
                int n = rowruns_block(s, 0, &gt_gpu_layout, &c);
                for (int i = 0; i < n && !found; i++) {
                    struct gt_gpu_packed op;
                    gt_block_next(&c, &op);
                    found = op.kind >= 1 && op.kind <= 3;
                }
            }
            if (rc == SQLITE_ROW)
                rc = SQLITE_DONE;
            sqlite3_reset(s);
        }
        sqlite3_finalize(s);
    }
    return found || (rc != SQLITE_DONE && rc != SQLITE_ROW);
}

static void load_stuck(sqlite3 *db, struct proc *p);

/* (load_threads.h) */
void load_process(struct model *m, struct proc *p, pthread_mutex_t *parked_lock)
{
    sqlite3 *db = m->dbs[p->db];
    /* without GPU work records no analysis that needs GPU times runs on it,
     * and the report says so (output_text.c's note; the JSON's cupti) */
    if (p->cupti_active && !has_gpu_work(db, p)) {
        p->cupti_active = 0;
        snprintf(p->cupti, sizeof p->cupti, "active, but no GPU records in the trace");
    }
    load_strings(db, "string", p->id, &p->names, &p->nnames);
    p->comm_names = comm_kernels_mark(p->names, p->nnames);
    load_colls(m, p, parked_lock);
    load_stuck(db, p);
    load_ranges(m, p);
}

/* The calls the process was blocked in at its writer's last commit: how
 * many, and each (earliest first), where a hang says the rank was.  A
 * file without the table (an import) has none. */
static void load_stuck(sqlite3 *db, struct proc *p)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT tid, api, start_ns, callsite, pystack FROM inflight WHERE process_id = ?"
                               " ORDER BY start_ns, tid", -1, &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, p->id);
    size_t cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        p->inflight++;
        if (p->nstuck == cap) {
            cap = cap ? cap * 2 : 4;
            if (!(p->stuck = realloc(p->stuck, cap * sizeof *p->stuck)))
                model_out_of_memory();
        }
        p->stuck[p->nstuck++] = (struct stuck_call){ .start = model_ns(sqlite3_column_int64(s, 2)),
                                                     .tid = sqlite3_column_int(s, 0),
                                                     .api = sqlite3_column_int(s, 1),
                                                     .site = model_site(p, sqlite3_column_int(s, 3),
                                                                        sqlite3_column_int(s, 4)) };
    }
    sqlite3_finalize(s);
}

/* Each process of file d alive until its writer's last heartbeat, where
 * that is later than what its records say: a rank that waits in a
 * collective, or is stuck in host code, writes no record, but its writer
 * still commits (files before schema 6, and imports, have no heartbeat). */
static void load_heartbeats(struct model *m, size_t d)
{
    sqlite3_stmt *s;
    /* the moment this file was read: a heartbeat older than that by
     * seconds stopped (each file its own: a run's files read one after
     * another, minutes apart, were judged by the first's moment and the
     * last's ends; and only its own processes written here, as this may
     * run beside another file's load) */
    struct timespec now;
    int64_t read_ns = 0;
    if (clock_gettime(CLOCK_REALTIME, &now) == 0 && now.tv_sec > 0 && now.tv_sec < ((int64_t)1 << 32))
        read_ns = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].db == (int)d)
            m->procs[i].read_ns = read_ns;
    if (sqlite3_prepare_v2(m->dbs[d], "SELECT process_id, at_ns FROM heartbeat", -1, &s, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(s) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0), at = model_ns(sqlite3_column_int64(s, 1));
        for (size_t i = 0; i < m->nprocs; i++)
            if (m->procs[i].db == (int)d && m->procs[i].id == id) {
                m->procs[i].has_heartbeat = 1;
                if (at > m->procs[i].end)
                    m->procs[i].end = at;
            }
    }
    sqlite3_finalize(s);
}

static int cmp_gap(const void *a, const void *b)
{
    const struct gpu_gap *x = a, *y = b;
    return x->from < y->from ? -1 : x->from > y->from;
}

/* The stretches each process of file d had no GPU records of its own
 * (model.h, gpu_gaps): the gpu_gap table's (a tracer that takes CUPTI
 * back when the program's profiler stops), else one from "active until NS"
 * to the end.  Rows of another process, or with an end before their
 * start, are left out; overlapping ones are joined. */
static void load_gpu_gaps(struct model *m, size_t d)
{
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(m->dbs[d], "SELECT process_id, from_ns, to_ns FROM gpu_gap ORDER BY process_id, idx", -1,
                           &s, NULL) != SQLITE_OK)
        s = NULL; /* an older file, or an import: none */
    while (s && sqlite3_step(s) == SQLITE_ROW) {
        int64_t id = sqlite3_column_int64(s, 0), from = model_ns(sqlite3_column_int64(s, 1));
        int64_t to = sqlite3_column_type(s, 2) == SQLITE_NULL ? INT64_MAX : model_ns(sqlite3_column_int64(s, 2));
        if (from <= 0 || to <= from)
            continue;
        for (size_t i = 0; i < m->nprocs; i++) {
            struct proc *p = &m->procs[i];
            if (p->db != (int)d || p->id != id || !p->cupti_active)
                continue;
            size_t n = p->ngpu_gaps; /* room doubled at 16, 32, 64... */
            if ((n == 0 || (n >= 16 && (n & (n - 1)) == 0)) &&
                !(p->gpu_gaps = realloc(p->gpu_gaps, (n ? 2 * n : 16) * sizeof *p->gpu_gaps)))
                model_out_of_memory();
            p->gpu_gaps[p->ngpu_gaps++] = (struct gpu_gap){ from, to, from };
        }
    }
    sqlite3_finalize(s);
    for (size_t i = 0; i < m->nprocs; i++) {
        struct proc *p = &m->procs[i];
        if (p->db != (int)d)
            continue;
        if (!p->ngpu_gaps && p->gpu_until) { /* "active until" alone */
            if (!(p->gpu_gaps = malloc(sizeof *p->gpu_gaps)))
                model_out_of_memory();
            p->gpu_gaps[p->ngpu_gaps++] = (struct gpu_gap){ p->gpu_until, INT64_MAX, p->gpu_until };
        }
        if (p->ngpu_gaps > 1) /* (qsort of none: a null array, undefined) */
            qsort(p->gpu_gaps, p->ngpu_gaps, sizeof *p->gpu_gaps, cmp_gap);
        size_t n = 0;
        for (size_t k = 0; k < p->ngpu_gaps; k++) {
            if (n && p->gpu_gaps[k].from <= p->gpu_gaps[n - 1].to) {
                if (p->gpu_gaps[k].to > p->gpu_gaps[n - 1].to)
                    p->gpu_gaps[n - 1].to = p->gpu_gaps[k].to;
            } else {
                p->gpu_gaps[n++] = p->gpu_gaps[k];
            }
        }
        p->ngpu_gaps = n;
        p->gpu_until = n && p->gpu_gaps[n - 1].to == INT64_MAX ? p->gpu_gaps[n - 1].from : 0;
        p->gaps_read_to = INT64_MIN;
    }
}

/* (load_threads.h) */
int load_find_rows(struct model *m, size_t d)
{
    struct rows_of *v = calloc(m->nprocs + 1, sizeof *v);
    if (!v)
        return SQLITE_NOMEM;
    size_t n = 0;
    for (size_t i = 0; i < m->nprocs; i++)
        if (m->procs[i].db == (int)d)
            v[n++] = (struct rows_of){ .id = m->procs[i].id, .want_end = !m->procs[i].has_end };
    /* more workers than files: a CPU for each file's second connection */
    int rc = n ? rowruns_find(m->dbs[d], m->dbs2 ? m->dbs2[d] : NULL, v, n, m->jobs > (int)m->ndbs) : SQLITE_OK;
    for (size_t i = 0, k = 0; i < m->nprocs && k < n; i++) {
        struct proc *p = &m->procs[i];
        if (p->db != (int)d)
            continue;
        if (!(p->rows = malloc(sizeof *p->rows)))
            model_out_of_memory();
        *p->rows = v[k].rows;
        if (!p->has_end)
            p->end = v[k].last_end > p->start ? model_ns(v[k].last_end) : p->start;
        k++;
    }
    free(v);
    load_heartbeats(m, d);
    load_gpu_gaps(m, d);
    return rc;
}

static int cmp_proc(const void *a, const void *b)
{
    const struct proc *x = a, *y = b;
    int rx = x->rank < 0 ? 1 << 30 : x->rank, ry = y->rank < 0 ? 1 << 30 : y->rank;
    if (rx != ry)
        return rx < ry ? -1 : 1;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* The distinct run ids seen, in the order first seen. */
struct run_ids {
    char **v;
    size_t n, cap;
};

static void run_ids_add(struct run_ids *r, const char *id)
{
    for (size_t i = 0; i < r->n; i++)
        if (!strcmp(r->v[i], id))
            return;
    if (r->n == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 8;
        if (!(r->v = realloc(r->v, r->cap * sizeof *r->v)))
            model_out_of_memory();
    }
    if (!(r->v[r->n++] = strdup(id)))
        model_out_of_memory();
}

static void run_ids_free(struct run_ids *r)
{
    for (size_t i = 0; i < r->n; i++)
        free(r->v[i]);
    free(r->v);
}

/* The runs not reported, when the latest was picked among several: two
 * `gputrace record` into one directory at once leave the files of both,
 * each process's with its own run's id, and reporting them as one run
 * would compare ranks of different programs.  The latest is reported, as
 * with one run, and the others are named (model.h) for the report to say
 * so, and for --run. */
static void note_other_runs(struct model *m, struct run_ids *ids)
{
    size_t k = 0;
    for (size_t i = 0; i < ids->n; i++) {
        if (!strcmp(ids->v[i], m->run_id)) {
            free(ids->v[i]);
            continue;
        }
        ids->v[k++] = ids->v[i];
    }
    m->other_runs = ids->v;
    m->nother_runs = k;
    *ids = (struct run_ids){ 0 };
}

/* The latest run over all databases, or check that `run` exists. */
static int pick_run(struct model *m, const char *run, char *err, size_t errlen)
{
    int64_t best = INT64_MIN;
    int found = 0;
    char known[512] = "";
    struct run_ids ids = { 0 };
    for (size_t d = 0; d < m->ndbs; d++) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(m->dbs[d], "SELECT run_id, min(start_ns + clock_offset_ns) FROM process GROUP BY run_id",
                               -1, &s, NULL) != SQLITE_OK) {
            snprintf(err, errlen, "cannot read processes: %s", sqlite3_errmsg(m->dbs[d]));
            run_ids_free(&ids);
            return -1;
        }
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            const char *id = (const char *)sqlite3_column_text(s, 0);
            int64_t t = sqlite3_column_int64(s, 1);
            if (!id)
                continue;
            run_ids_add(&ids, id);
            if (strlen(known) + strlen(id) + 3 < sizeof known)
                snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s", *known ? ", " : "", id);
            if (run ? strcmp(id, run) == 0 : t > best) {
                best = t;
                snprintf(m->run_id, sizeof m->run_id, "%s", id); /* raw: it is matched in SQL */
                found = 1;
            }
        }
        sqlite3_finalize(s);
        if (rc != SQLITE_DONE) { /* which runs there are cannot be told */
            snprintf(err, errlen, "%s is damaged (%s while reading process)", m->paths[d], sqlite3_errstr(rc));
            run_ids_free(&ids);
            return -1;
        }
    }
    if (found && !run) /* --run: the user chose among them */
        note_other_runs(m, &ids);
    run_ids_free(&ids);
    if (!found) {
        if (run)
            snprintf(err, errlen, "no run '%s' (runs: %s)", run, *known ? known : "none");
        else
            snprintf(err, errlen, "empty trace: no traced process in the database(s)");
        return -1;
    }
    return 0;
}

/* A second connection to each database, for the thread that reads the
 * second half of a big table (rowruns_each_split).  With
 * GPUTRACE_REPORT_THREADS=1 there is no such thread, but the connection
 * still reads that half, in turn: what SQLite makes of a damaged file
 * depends on what each connection read before, so the same connections
 * ask the same questions either way (rowruns.h).  Where none can be had,
 * the one connection reads all. */
static void open_second_connections(struct model *m)
{
    const char *threads = getenv("GPUTRACE_REPORT_THREADS");
    rowruns_set_threads(!(threads && !strcmp(threads, "1")));
    m->dbs2 = calloc(m->ndbs, sizeof *m->dbs2);
    for (size_t d = 0; m->dbs2 && d < m->ndbs; d++) {
        model_open_again(m->paths[d], &m->dbs2[d]);
    }
}

int load_model(struct model *m, char **paths, int npaths, const char *run, char *err, size_t errlen)
{
    int progress = m->progress, jobs = m->jobs;
    memset(m, 0, sizeof *m);
    m->progress = progress;
    m->jobs = jobs;
    m->dbs = calloc((size_t)npaths, sizeof *m->dbs);
    m->paths = (const char *const *)paths;
    m->stacks = &load_stacks;
    for (int i = 0; i < npaths; i++) {
        if (model_open_db(paths[i], &m->dbs[i], err, errlen) != 0) {
            m->ndbs = (size_t)i + 1;
            return -1;
        }
        m->ndbs = (size_t)i + 1;
        if (load_apis(m, m->dbs[i]) != 0) {
            snprintf(err, errlen, "%s: cannot read the api table", paths[i]);
            return -1;
        }
    }
    open_second_connections(m);
    if (pick_run(m, run, err, errlen) != 0)
        return -1;
    size_t cap = 0;
    int bad_rc = SQLITE_DONE;
    size_t bad_db = 0;
    for (size_t d = 0; d < m->ndbs; d++) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(m->dbs[d], "SELECT id, rank, pid, device, host, gpu_name, start_ns, end_ns, clock_offset_ns,"
                                          " exit_code, exit_signal, end_reason, cupti_status, world_size, dropped_host, dropped_cupti, clock_source"
                                          " GLOB '*+cupti' FROM process"
                                          " WHERE run_id = ?", -1, &s, NULL) != SQLITE_OK) {
            snprintf(err, errlen, "%s: cannot read processes: %s", paths[d], sqlite3_errmsg(m->dbs[d]));
            return -1;
        }
        sqlite3_bind_text(s, 1, m->run_id, -1, SQLITE_STATIC);
        int rc;
        while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
            GROW(m->procs, m->nprocs, cap);
            struct proc *p = &m->procs[m->nprocs++];
            memset(p, 0, sizeof *p);
            p->db = (int)d;
            p->one_clock = sqlite3_column_int(s, 16); /* CUPTI stamped with our clock map (cupti_sub.h) */
            p->id = sqlite3_column_int64(s, 0);
            p->rank = sqlite3_column_type(s, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 1);
            p->pid = sqlite3_column_int(s, 2);
            p->device = sqlite3_column_type(s, 3) == SQLITE_NULL ? -1 : sqlite3_column_int(s, 3);
            copy_text(p->host, sizeof p->host, sqlite3_column_text(s, 4));
            copy_text(p->gpu, sizeof p->gpu, sqlite3_column_text(s, 5));
            p->start = model_ns(sqlite3_column_int64(s, 6));
            p->calls_end = p->start;
            p->has_end = sqlite3_column_type(s, 7) != SQLITE_NULL;
            p->end = model_ns(sqlite3_column_int64(s, 7));
            p->clock_offset = model_offset_ns(sqlite3_column_int64(s, 8));
            p->has_exit_code = sqlite3_column_type(s, 9) != SQLITE_NULL;
            p->exit_code = sqlite3_column_int(s, 9);
            p->has_signal = sqlite3_column_type(s, 10) != SQLITE_NULL;
            p->exit_signal = sqlite3_column_int(s, 10);
            copy_text(p->end_reason, sizeof p->end_reason, sqlite3_column_text(s, 11));
            copy_text(p->cupti, sizeof p->cupti, sqlite3_column_text(s, 12));
            p->cupti_active = strcmp(p->cupti, "active") == 0;
            p->gpu_until = 0;
            long long until;
            char rest;
            if (sscanf(p->cupti, "active until %lld%c", &until, &rest) == 2 && rest == ' ') {
                p->cupti_active = 1; /* until then (collector/writer.c), unless gpu_gap says more */
                p->gpu_until = model_ns(until) > 0 ? model_ns(until) : 1;
            }
            p->world = sqlite3_column_int(s, 13);
            /* counts, the file's: never negative, summed saturating */
            p->dropped_host = sqlite3_column_int64(s, 14) > 0 ? sqlite3_column_int64(s, 14) : 0;
            p->dropped_cupti = sqlite3_column_int64(s, 15) > 0 ? sqlite3_column_int64(s, 15) : 0;
        }
        load_note_damage(m, (int)d, rc, "process");
        if (rc != SQLITE_DONE && bad_rc == SQLITE_DONE) {
            bad_rc = rc;
            bad_db = d;
        }
        sqlite3_finalize(s);
    }
    if (!m->nprocs) { /* the run was listed, but its processes could not be read */
        if (bad_rc != SQLITE_DONE)
            snprintf(err, errlen, "%s is damaged (%s while reading process)", paths[bad_db], sqlite3_errstr(bad_rc));
        else
            snprintf(err, errlen, "empty trace: no traced process in the database(s)");
        return -1;
    }
    load_boot_ids(m); /* which machine each ran on (boot_ids.c) */
    qsort(m->procs, m->nprocs, sizeof *m->procs, cmp_proc);
    load_monitor_windows(m); /* the inputs are monitor windows: why, and what each spans */
    load_monitor_run(m);     /* or a monitored run's own files: its aggregates, its windows */
    if (load_find_all_rows(m) != 0) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    m->t0 = INT64_MAX;
    if (!(m->parked = malloc(sizeof *m->parked)))
        model_out_of_memory();
    tmpstore_open(m->parked);
    load_all_processes(m);
    for (size_t i = 0; i < m->nprocs; i++) {
        int64_t t = m->procs[i].start + m->procs[i].clock_offset;
        if (t < m->t0)
            m->t0 = t;
    }
    return 0;
}

void load_progress_done(struct model *m)
{
    if (m->progress && m->rows_read >= 1000000)
        fprintf(stderr, "\r%60s\r", "");
}

void load_free(struct model *m)
{
    model_free_timelines(m);
    if (m->parked) {
        tmpstore_close(m->parked);
        free(m->parked);
        m->parked = NULL;
    }
    for (size_t i = 0; i < m->nprocs; i++) {
        free(m->procs[i].calls);
        free(m->procs[i].ops);
        free(m->procs[i].colls);
        for (int k = 0; k < m->procs[i].nnames; k++)
            free(m->procs[i].names[k]);
        free(m->procs[i].plugin_depth);
        model_stream_keys_free(&m->procs[i].skeys);
        free(m->procs[i].stuck);
        free(m->procs[i].names);
        free(m->procs[i].comm_names);
        for (int k = 0; k < m->procs[i].nlabels; k++)
            free(m->procs[i].labels[k]);
        free(m->procs[i].labels);
        for (int k = 0; k < m->procs[i].nsites; k++)
            free(m->procs[i].sites[k].text);
        free(m->procs[i].sites);
        idmap_free(&m->procs[i].site_index);
        free(m->procs[i].ranges);
        free(m->procs[i].gpu_gaps);
        if (m->procs[i].rows)
            rowruns_free(m->procs[i].rows);
        free(m->procs[i].rows);
    }
    free(m->procs);
    free(m->windows);
    free(m->magg);
    free(m->mdirs);
    for (int i = 0; i < m->napis; i++)
        free(m->api_names[i]);
    free(m->api_names);
    free(m->cbid_api);
    free(m->api_has_records);
    free(m->roles);
    free(m->answers);
    for (size_t i = 0; i < m->ndbs; i++) {
        if (m->dbs[i])
            sqlite3_close(m->dbs[i]);
        if (m->dbs2 && m->dbs2[i])
            sqlite3_close(m->dbs2[i]);
    }
    free(m->dbs);
    free(m->dbs2);
    for (size_t i = 0; i < m->nother_runs; i++)
        free(m->other_runs[i]);
    free(m->other_runs);
    memset(m, 0, sizeof *m);
}
