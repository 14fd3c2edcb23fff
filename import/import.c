/* import.c: `gputrace import` and the detection of what a path holds (see
 * import.h): the inputs' traces (a directory's: one per rank), one process
 * per Kineto file, are one run, unless they are traces of different jobs:
 * then each job is a run of its own (jobs_split). */
#define _GNU_SOURCE
#include "import/import.h"
#include "import/out_db.h"
#include "format/db_guard.h"
#include "format/ours.h"
#include "common/term_text.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

static const char usage_text[] =
    "usage: gputrace import [-o OUT.db] [-f] [-q] TRACE [TRACE...]\n"
    "\n"
    "Writes the traces of other tools into a gputrace database, which\n"
    "gputrace-report reads like a traced run (it also takes such traces directly).\n"
    "TRACE is a PyTorch profiler (Kineto) JSON trace, plain or gzip; a directory of\n"
    "them (one per rank: one run; traces of different jobs, a run each); or an\n"
    "Nsight Systems export (nsys export --type sqlite).  The mapping is in\n"
    "docs/import.md.\n"
    "\n"
    "options:\n"
    "  -o OUT.db   the database to write (default imported.db)\n"
    "  -f          replace OUT.db if it exists and is a gputrace database (never an input)\n"
    "  -q          no notes on stderr (they stay in the database: import_note)\n"
    "environment: GPUTRACE_BULK_AFTER=N: API records and GPU operations past the\n"
    "  first N of a process (default 16384) are stored in bulk blocks (gputrace\n"
    "  expand makes rows of them)\n"
    "exit status: 0 ok, 1 bad input (one line on stderr; a trace cut short is\n"
    "  imported as far as it could be read, with a note), 2 bad usage (OUT.db is an input)\n";

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), m = strlen(suf);
    return n >= m && !strcmp(s + n - m, suf);
}

/* The first bytes of a file (decompressed if gzip), up to n; -1 on error. */
static int head_of(const char *path, unsigned char *buf, int n)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return -1;
    int fd = open(path, O_RDONLY | O_NONBLOCK);
    if (fd < 0)
        return -1;
    gzFile gz = gzdopen(fd, "rb");
    if (!gz) {
        close(fd);
        return -1;
    }
    int got = gzread(gz, buf, (unsigned)n);
    gzclose(gz);
    return got;
}

/* Interrupts a statement after about 10 million steps (progress handler). */
static int give_up(void *steps)
{
    return ++*(int *)steps > 10000;
}

/* An SQLite file: ours (a meta table), an nsys export (its tables), or neither. */
static enum import_format sqlite_kind(const char *path)
{
    sqlite3 *db;
    enum import_format f = IMPORT_NONE;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
        sqlite3_close(db);
        return f;
    }
    /* untrusted: its views and triggers off, and a schema slow to parse given up on */
    gt_guard_connection(db);
    int steps = 0;
    sqlite3_progress_handler(db, 1000, give_up, &steps);
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'table' AND name IN"
                           " ('meta', 'StringIds', 'TARGET_INFO_SESSION_START_TIME', 'CUPTI_ACTIVITY_KIND_KERNEL',"
                           " 'CUPTI_ACTIVITY_KIND_RUNTIME')", -1, &st, NULL) == SQLITE_OK) {
        while (sqlite3_step(st) == SQLITE_ROW) {
            const char *n = (const char *)sqlite3_column_text(st, 0);
            if (n && !strcmp(n, "meta"))
                f = IMPORT_OURS;
            else if (n && f == IMPORT_NONE)
                f = IMPORT_NSYS;
        }
        sqlite3_finalize(st);
    }
    sqlite3_close(db);
    return f;
}

static enum import_format file_kind(const char *path)
{
    unsigned char b[64];
    int n = head_of(path, b, sizeof b);
    if (n <= 0)
        return IMPORT_NONE;
    if (n >= 16 && !memcmp(b, "SQLite format 3", 16))
        return sqlite_kind(path);
    int i = 0;
    if (n >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF)
        i = 3; /* a byte order mark */
    while (i < n && (b[i] == ' ' || b[i] == '\n' || b[i] == '\r' || b[i] == '\t'))
        i++;
    return i < n && (b[i] == '{' || b[i] == '[') ? IMPORT_KINETO : IMPORT_NONE;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The Kineto traces of a directory (*.json, *.json.gz, *.pt.trace.json...),
 * sorted; n, or -1.  None if it holds a gputrace database. */
static int dir_traces(const char *dir, char ***out)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    int n = 0, cap = 0, ours = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.')
            continue;
        if (has_suffix(e->d_name, ".db"))
            ours = 1;
        if (!has_suffix(e->d_name, ".json") && !has_suffix(e->d_name, ".json.gz"))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **g = realloc(v, (size_t)cap * sizeof *g);
            if (!g)
                break;
            v = g;
        }
        if (asprintf(&v[n], "%s/%s", dir, e->d_name) < 0)
            break;
        n++;
    }
    closedir(d);
    if (ours) {
        for (int i = 0; i < n; i++)
            free(v[i]);
        free(v);
        *out = NULL;
        return 0;
    }
    if (n)
        qsort(v, (size_t)n, sizeof *v, cmp_str);
    *out = v;
    return n;
}

enum import_format import_detect(const char *path)
{
    struct stat st;
    if (stat(path, &st) != 0)
        return IMPORT_NONE;
    if (S_ISDIR(st.st_mode)) {
        char **v;
        int n = dir_traces(path, &v);
        for (int i = 0; i < n; i++)
            free(v[i]);
        if (n > 0)
            free(v);
        return n > 0 ? IMPORT_KINETO : IMPORT_OURS;
    }
    return S_ISREG(st.st_mode) ? file_kind(path) : IMPORT_NONE;
}

/* The run's id: "import:" and the first input's name. */
static void run_id_of(const char *path, char *id, size_t len)
{
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s", path);
    size_t n = strlen(copy);
    while (n > 1 && copy[n - 1] == '/')
        copy[--n] = 0;
    snprintf(id, len, "import:%s", basename(copy));
}

/* err made safe to print and to store: it holds names from the input
 * (a file's name, a version string, SQLite's words on the file's schema)
 * that may carry control characters (term_text.h). */
static void safe_err(char *err, size_t errlen)
{
    char t[1024];
    term_text(err, t, errlen < sizeof t ? errlen : sizeof t);
    snprintf(err, errlen, "%s", t);
}

/* One input file (a directory's traces were listed before). */
static int import_file(struct out_db *o, const char *path, int verbose, char *err, size_t errlen, int *partial)
{
    int rc;
    switch (import_detect(path)) {
    case IMPORT_KINETO: rc = import_kineto_file(o, path, err, errlen); break;
    case IMPORT_NSYS: rc = import_nsys_file(o, path, err, errlen); break;
    case IMPORT_OURS:
        snprintf(err, errlen, "%s: already a gputrace database: gputrace-report reads it as it is", path);
        return -1;
    default:
        snprintf(err, errlen, "%s: neither a Kineto JSON trace nor an Nsight Systems SQLite export", path);
        return -1;
    }
    if (rc > 0) { /* cut short: what was read stays */
        safe_err(err, errlen);
        if (verbose)
            fprintf(stderr, "gputrace import: %s\n", err);
        *partial = 1;
        return 0;
    }
    return rc;
}

/* The files to read: each input, a directory as its traces (listed
 * before the output is made, so that an output made among them is not
 * one of them).  Their number, or -1 with err. */
static int list_inputs(char *const *traces, int ntraces, char ***files, char *err, size_t errlen)
{
    char **v = NULL;
    int n = 0;
    for (int i = 0; i < ntraces; i++) {
        struct stat st;
        char **in = NULL;
        int k = 1;
        if (stat(traces[i], &st) != 0) {
            snprintf(err, errlen, "%s: %s", traces[i], strerror(errno));
            goto fail;
        }
        if (S_ISDIR(st.st_mode)) {
            k = dir_traces(traces[i], &in);
            if (k <= 0) {
                snprintf(err, errlen, "%s: %s", traces[i],
                         k < 0 ? strerror(errno) : "no Kineto trace (*.json, *.json.gz) in it");
                goto fail;
            }
        }
        char **g = realloc(v, (size_t)(n + k) * sizeof *g);
        if (!g) {
            for (int j = 0; in && j < k; j++)
                free(in[j]);
            free(in);
            snprintf(err, errlen, "out of memory");
            goto fail;
        }
        v = g;
        for (int j = 0; j < k; j++)
            v[n++] = in ? in[j] : strdup(traces[i]);
        free(in);
        for (int j = n - k; j < n; j++)
            if (!v[j]) {
                snprintf(err, errlen, "out of memory");
                goto fail;
            }
    }
    *files = v;
    return n;
fail:
    for (int j = 0; j < n; j++)
        free(v[j]);
    free(v);
    return -1;
}

static int same_file(const struct stat *a, const char *path)
{
    struct stat b;
    return stat(path, &b) == 0 && a->st_dev == b.st_dev && a->st_ino == b.st_ino;
}

/* Whether out (or its -wal or -shm file, which the import removes) is one
 * of the inputs or of the traces of an input directory, by device and
 * inode: that one is never removed, whatever its name (-o traces/rank-1.json
 * traces/ must not lose rank 1). */
static int out_is_input(const char *out, char *const *traces, int ntraces, char *const *files, int nfiles)
{
    static const char *const suffix[] = { "", "-wal", "-shm" };
    for (size_t s = 0; s < sizeof suffix / sizeof *suffix; s++) {
        char p[PATH_MAX + 8];
        struct stat st;
        snprintf(p, sizeof p, "%s%s", out, suffix[s]);
        if (stat(p, &st) != 0)
            continue;
        for (int i = 0; i < ntraces; i++)
            if (same_file(&st, traces[i]))
                return 1;
        for (int i = 0; i < nfiles; i++)
            if (same_file(&st, files[i]))
                return 1;
    }
    return 0;
}

/* Fewer ranks read than the job had: what looks across ranks sees only
 * those.  Per run (jobs_split may have made several), the note given to
 * one of its processes. */
static void ranks_note(struct out_db *o)
{
    sqlite3_stmt *st;
    out_flush(o);
    if (sqlite3_prepare_v2(o->db, "SELECT count(DISTINCT rank), max(world_size), max(id) FROM process GROUP BY run_id"
                           " ORDER BY min(id)", -1, &st, NULL) != SQLITE_OK)
        return;
    int64_t pid_row = o->pid_row;
    while (sqlite3_step(st) == SQLITE_ROW)
        if (sqlite3_column_type(st, 1) != SQLITE_NULL && sqlite3_column_int64(st, 1) > sqlite3_column_int64(st, 0)) {
            char t[300];
            snprintf(t, sizeof t, "%lld of the job's %lld ranks are in these inputs: stragglers and mismatches are"
                     " looked for among those only", (long long)sqlite3_column_int64(st, 0),
                     (long long)sqlite3_column_int64(st, 1));
            o->pid_row = sqlite3_column_int64(st, 2);
            out_note(o, "comm.straggler, comm.mismatch", t);
        }
    o->pid_row = pid_row;
    sqlite3_finalize(st);
}

/* Telling jobs apart.  A directory of traces may hold two jobs' (a rank 1
 * of 2 from April beside another from August, on other GPUs): imported
 * as one run, they were one report with two "rank 1" rows, ranks of two
 * programs compared, and no word.  Each process (a Kineto file, or a
 * process of an nsys export) joins the job it fits, in the order they
 * started; it fits a job when
 *   - it came from the same file as one of the job's (an nsys export's
 *     processes are one job), or else all of:
 *   - the job has no process of its rank (two traces that claim one rank
 *     are two jobs),
 *   - the world sizes agree where both are known,
 *   - it started before the job's last process ended, or within
 *     JOBS_GAP_NS of it (a job's ranks profile the same steps, seconds
 *     apart: not months).
 * Of the jobs it fits, it joins one on the same GPU model if there is
 * one (a job rarely mixes models), else the one that started last.
 * Each job then is a run of its own, the report's "two runs in the
 * inputs" (docs/report.md): the latest reported, said so, --run another. */
#define JOBS_GAP_NS (600ll * 1000000000ll)

struct job_proc {
    int64_t id, start, end; /* start, end: ns since 1970; timed: whether they are known */
    int rank, world, timed;
    char *gpu, *source;
};

struct job {
    int64_t first, last_end; /* of its timed processes */
    int world, nprocs, timed;
    int *ranks, nranks;      /* the ranks its processes claim */
    const char **sources;    /* the files its processes came from (the processes' strings) */
    int nsources;
    const char *gpu;        /* its first process's (NULL: unknown) */
    char id[400];      /* run_id_of's (300) and a time */
};

static char *dup_col(sqlite3_stmt *st, int i)
{
    const char *t = (const char *)sqlite3_column_text(st, i);
    return t && *t ? strdup(t) : NULL;
}

/* The processes written, by start (those of unknown start first); their number, or -1. */
static int job_procs(struct out_db *o, struct job_proc **out)
{
    sqlite3_stmt *st;
    struct job_proc *v = NULL;
    int n = 0, cap = 0;
    out_flush(o);
    if (sqlite3_prepare_v2(o->db, "SELECT id, rank, world_size, clock_offset_ns + start_ns, clock_offset_ns + end_ns,"
                           " gpu_name, source FROM process ORDER BY 4, id", -1, &st, NULL) != SQLITE_OK)
        return -1;
    while (sqlite3_step(st) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            struct job_proc *g = realloc(v, (size_t)cap * sizeof *g);
            if (!g)
                break;
            v = g;
        }
        struct job_proc *p = &v[n++];
        p->id = sqlite3_column_int64(st, 0);
        p->rank = sqlite3_column_type(st, 1) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 1);
        p->world = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int(st, 2);
        /* a sum past 64 bits is a float in SQLite: no time to compare */
        p->timed = sqlite3_column_type(st, 3) == SQLITE_INTEGER && sqlite3_column_int64(st, 3) > 0;
        p->start = sqlite3_column_int64(st, 3);
        p->end = sqlite3_column_type(st, 4) == SQLITE_INTEGER ? sqlite3_column_int64(st, 4) : p->start;
        p->end = p->end > p->start ? p->end : p->start;
        p->gpu = dup_col(st, 5);
        p->source = dup_col(st, 6);
    }
    sqlite3_finalize(st);
    *out = v;
    return n;
}

static int job_has_rank(const struct job *j, int rank)
{
    for (int i = 0; rank >= 0 && i < j->nranks; i++)
        if (j->ranks[i] == rank)
            return 1;
    return 0;
}

/* Whether p fits job j (above); if not, why, in why (when why is empty). */
static int job_fits(const struct job *j, const struct job_proc *p, char *why, size_t len)
{
    char t[200] = "";
    if (job_has_rank(j, p->rank))
        snprintf(t, sizeof t, "rank %d claimed by two traces", p->rank);
    else if (p->world > 0 && j->world > 0 && p->world != j->world)
        snprintf(t, sizeof t, "world sizes %d and %d", j->world, p->world);
    else if (p->timed && j->timed && p->start - j->last_end > JOBS_GAP_NS)
        snprintf(t, sizeof t, "started %.1f days apart", (double)(p->start - j->first) / 86400e9);
    if (*t && !*why)
        snprintf(why, len, "%s", t);
    return !*t;
}

/* The job p joins among v[0..n), or -1 for a new one (and why not one
 * of those, in why). */
static int job_for(const struct job *v, int n, const struct job_proc *p, char *why, size_t len)
{
    for (int j = 0; p->source && j < n; j++)
        for (int k = 0; k < v[j].nsources; k++)
            if (!strcmp(v[j].sources[k], p->source))
                return j;
    int best = -1;
    for (int j = 0; j < n; j++) {
        if (!job_fits(&v[j], p, why, len))
            continue;
        int same_gpu = p->gpu && v[j].gpu && !strcmp(p->gpu, v[j].gpu);
        int best_same = best >= 0 && p->gpu && v[best].gpu && !strcmp(p->gpu, v[best].gpu);
        if (best < 0 || same_gpu > best_same || (same_gpu == best_same && v[j].first >= v[best].first))
            best = j;
    }
    return best;
}

static void job_add(struct job *j, const struct job_proc *p)
{
    if (p->timed) {
        j->first = j->timed ? j->first : p->start;
        j->last_end = j->timed && j->last_end > p->end ? j->last_end : p->end;
        j->timed = 1;
    }
    if (j->world <= 0)
        j->world = p->world;
    if (!j->gpu)
        j->gpu = p->gpu;
    j->nprocs++;
    int known = 0;
    for (int k = 0; p->source && k < j->nsources && !known; k++)
        known = !strcmp(j->sources[k], p->source);
    const char **s = p->source && !known ? realloc(j->sources, (size_t)(j->nsources + 1) * sizeof *s) : NULL;
    if (s) {
        j->sources = s;
        j->sources[j->nsources++] = p->source;
    }
    int *g = p->rank >= 0 ? realloc(j->ranks, (size_t)(j->nranks + 1) * sizeof *g) : NULL;
    if (g) {
        j->ranks = g;
        j->ranks[j->nranks++] = p->rank;
    }
}

/* Each job's run id: the run's and the UTC second its first process
 * started (import:traces@2024-04-01T09:44:06Z), which tells the user which
 * is which; else its place (import:traces#2); unique either way. */
static void job_ids(struct job *v, int n, const char *run_id)
{
    for (int j = 0; j < n; j++) {
        time_t t = (time_t)(v[j].first / 1000000000);
        struct tm tm;
        char when[64];
        /* 2000 to 2100: a clock, not the times of a trace without one */
        if (v[j].timed && t >= 946684800 && t < 4102444800 && gmtime_r(&t, &tm) &&
            strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
            snprintf(v[j].id, sizeof v[j].id, "%s@%s", run_id, when);
        else
            snprintf(v[j].id, sizeof v[j].id, "%s#%d", run_id, j + 1);
        for (int i = 0; i < j; i++)
            if (!strcmp(v[i].id, v[j].id)) {
                size_t l = strlen(v[j].id);
                snprintf(v[j].id + l, sizeof v[j].id - l, "#%d", j + 1);
                break;
            }
    }
}

/* The processes and the run table made to say which job each is in. */
static int jobs_write(struct out_db *o, const struct job *v, int n, const struct job_proc *procs,
                      const int *jobs_of, int nprocs)
{
    sqlite3_stmt *up, *run;
    if (out_exec(o, "DELETE FROM run") != 0)
        return -1;
    if (sqlite3_prepare_v2(o->db, "UPDATE process SET run_id = ? WHERE id = ?", -1, &up, NULL) != SQLITE_OK)
        return -1;
    if (sqlite3_prepare_v2(o->db, "INSERT INTO run(id, started_ns, launcher) VALUES(?, NULL, 'gputrace import')", -1,
                           &run, NULL) != SQLITE_OK) {
        sqlite3_finalize(up);
        return -1;
    }
    int rc = 0;
    for (int j = 0; j < n; j++) {
        sqlite3_bind_text(run, 1, v[j].id, -1, SQLITE_STATIC);
        rc |= sqlite3_step(run) != SQLITE_DONE;
        sqlite3_reset(run);
    }
    for (int i = 0; i < nprocs; i++) {
        sqlite3_bind_text(up, 1, v[jobs_of[i]].id, -1, SQLITE_STATIC);
        sqlite3_bind_int64(up, 2, procs[i].id);
        rc |= sqlite3_step(up) != SQLITE_DONE;
        sqlite3_reset(up);
    }
    sqlite3_finalize(up);
    sqlite3_finalize(run);
    return rc ? -1 : 0;
}

/* The one line `gputrace import` says when it made several runs. */
static void jobs_line(const struct job *v, int n, const char *why)
{
    char line[2048];
    int l = snprintf(line, sizeof line, "gputrace import: the inputs hold %d jobs (%s): imported as %d runs,", n, why,
                     n);
    for (int j = 0; j < n && l > 0 && (size_t)l < sizeof line; j++)
        l += snprintf(line + l, sizeof line - (size_t)l, "%s %s (%d process%s%s%s)",
                      j ? (j + 1 == n ? " and" : ",") : "", v[j].id, v[j].nprocs, v[j].nprocs == 1 ? "" : "es",
                      v[j].gpu ? ", " : "", v[j].gpu ? v[j].gpu : "");
    if (l > 0 && (size_t)l < sizeof line)
        snprintf(line + l, sizeof line - (size_t)l, "; gputrace-report reports the latest, --run ID another");
    /* run ids and GPU names come from the input: escaped, one line */
    char shown[2048];
    fprintf(stderr, "%s\n", term_text(line, shown, sizeof shown));
}

/* Splits the imported processes into jobs (above), each a run, when they
 * are of several; says so when verbose.  0, or -1 (out of memory, or
 * SQLite failed: the run is left as one). */
static int jobs_split(struct out_db *o, const char *run_id, int verbose)
{
    struct job_proc *procs = NULL;
    int nprocs = job_procs(o, &procs), n = 0, rc = 0;
    struct job *v = nprocs > 0 ? calloc((size_t)nprocs, sizeof *v) : NULL;
    int *jobs_of = nprocs > 0 ? calloc((size_t)nprocs, sizeof *jobs_of) : NULL;
    char why[200] = "", why_not[200];
    if (nprocs > 0 && (!v || !jobs_of))
        rc = -1;
    for (int i = 0; rc == 0 && i < nprocs; i++) {
        *why_not = 0;
        int j = job_for(v, n, &procs[i], why_not, sizeof why_not);
        if (j < 0 && n > 0 && !*why) /* the first reason found to tell two jobs apart */
            snprintf(why, sizeof why, "%s", why_not);
        if (j < 0)
            j = n++;
        jobs_of[i] = j;
        job_add(&v[j], &procs[i]);
    }
    if (rc == 0 && n > 1) {
        job_ids(v, n, run_id);
        rc = jobs_write(o, v, n, procs, jobs_of, nprocs);
        if (rc == 0 && verbose > 1)
            jobs_line(v, n, why);
    }
    for (int j = 0; v && j < n; j++) {
        free(v[j].ranks);
        free(v[j].sources);
    }
    for (int i = 0; i < nprocs; i++) {
        free(procs[i].gpu);
        free(procs[i].source);
    }
    free(procs);
    free(v);
    free(jobs_of);
    return rc;
}

static void print_notes(struct out_db *o)
{
    sqlite3_stmt *st;
    out_flush(o);
    if (sqlite3_prepare_v2(o->db, "SELECT DISTINCT kind, note FROM import_note", -1, &st, NULL) != SQLITE_OK)
        return;
    while (sqlite3_step(st) == SQLITE_ROW) { /* made safe when stored (out_note): again here, where printed */
        char kind[256], note[2048];
        fprintf(stderr, "gputrace import: note: %s: %s\n",
                term_text((const char *)sqlite3_column_text(st, 0), kind, sizeof kind),
                term_text((const char *)sqlite3_column_text(st, 1), note, sizeof note));
    }
    sqlite3_finalize(st);
}

int import_traces(const char *out, int force, char *const *traces, int ntraces, int verbose, char *err,
                  size_t errlen)
{
    struct out_db *o = malloc(sizeof *o); /* its block buffers are big for a stack */
    char id[300];
    if (!o) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    run_id_of(traces[0], id, sizeof id);
    char **files;
    int nfiles = list_inputs(traces, ntraces, &files, err, errlen);
    if (nfiles < 0) {
        safe_err(err, errlen);
        free(o);
        return -1;
    }
    int partial = 0, rc = 0;
    if (out_is_input(out, traces, ntraces, files, nfiles)) { /* before anything is removed */
        snprintf(err, errlen, "%s is an input: not overwritten", out);
        rc = -2;
    } else if (out_open(o, out, force, id, err, errlen) != 0) {
        out_abort(o, NULL);
        rc = -1;
    }
    for (int i = 0; i < nfiles && rc == 0; i++)
        if (import_file(o, files[i], verbose, err, errlen, &partial) != 0) {
            out_abort(o, out);
            rc = -1;
        }
    for (int i = 0; i < nfiles; i++)
        free(files[i]);
    free(files);
    if (rc < 0) {
        safe_err(err, errlen);
        free(o);
        return rc;
    }
    jobs_split(o, id, verbose);
    ranks_note(o);
    if (verbose > 1)
        print_notes(o);
    if (out_close(o, err, errlen) != 0) {
        unlink(out);
        safe_err(err, errlen);
        rc = -1;
    }
    free(o);
    return rc < 0 ? -1 : partial ? 1 : 0;
}

/* Whether out may be written (0), or not (1, after a line): it must not
 * be one of the inputs, nor lie in an input directory (each of whose
 * traces is read after out is made), both by identity (device, inode),
 * so that no other name of the same file gets past; and -f replaces only
 * a gputrace database (format/ours.h), with its -wal and -shm, which
 * out_open removes: so neither is there without a database of ours. */
static int output_refused(const char *out, int force, char *const *inputs, int n)
{
    struct stat o, dir, in;
    int out_there = stat(out, &o) == 0;
    char parent[PATH_MAX];
    snprintf(parent, sizeof parent, "%s", out);
    int dir_there = stat(dirname(parent), &dir) == 0;
    for (int k = 0; k < n; k++) {
        if (stat(inputs[k], &in) != 0)
            continue; /* the import says so */
        /* out is an input, or one of an input directory's traces */
        if (out_there && ((in.st_dev == o.st_dev && in.st_ino == o.st_ino) ||
                          (S_ISDIR(in.st_mode) && dir_there && in.st_dev == dir.st_dev && in.st_ino == dir.st_ino))) {
            fprintf(stderr, "gputrace import: %s is an input: not overwritten\n", out);
            return 1;
        }
        if (S_ISDIR(in.st_mode) && dir_there && in.st_dev == dir.st_dev && in.st_ino == dir.st_ino) {
            fprintf(stderr, "gputrace import: %s is in the input directory %s: not written there; choose another -o\n",
                    out, inputs[k]);
            return 1;
        }
    }
    struct stat st;
    /* an empty file holds nothing to lose (the report's temporary one, made
     * before the import fills it) */
    if (force && lstat(out, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && !gt_ours_db(out)) {
        fprintf(stderr, "gputrace import: %s exists and is not a gputrace database: not replaced, even with -f\n", out);
        return 1;
    }
    for (size_t k = 1; k < GT_OURS_NSIDECARS; k++) {
        char side[PATH_MAX + 16];
        snprintf(side, sizeof side, "%s%s", out, gt_ours_sidecars[k]);
        if (lstat(side, &st) == 0 && !gt_ours_file(side)) {
            fprintf(stderr, "gputrace import: %s exists without a gputrace database of its own: not removed;"
                    " choose another -o\n", side);
            return 1;
        }
    }
    return 0;
}

int import_main(int argc, char **argv)
{
    const char *out = "imported.db";
    int force = 0, quiet = 0, i = 0;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            fputs(usage_text, stdout);
            return 0;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(argv[i], "-f")) {
            force = 1;
        } else if (!strcmp(argv[i], "-q")) {
            quiet = 1;
        } else if (!strcmp(argv[i], "--")) {
            i++;
            break;
        } else {
            fprintf(stderr, "gputrace import: unknown option '%s'\n%s", argv[i], usage_text);
            return 2;
        }
    }
    if (i >= argc) {
        fputs(usage_text, stderr);
        return 2;
    }
    if (output_refused(out, force, argv + i, argc - i))
        return 2;
    char err[1024];
    int rc = import_traces(out, force, argv + i, argc - i, quiet ? 1 : 2, err, sizeof err);
    if (rc < 0) { /* -2: the output is an input, a usage error as it always was */
        fprintf(stderr, "gputrace import: %s\n", err);
        return rc == -2 ? 2 : 1;
    }
    if (!quiet)
        fprintf(stderr, "gputrace import: wrote %s\n", out);
    return rc ? 1 : 0;
}
