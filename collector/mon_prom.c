/* mon_prom.c: monitor mode's metrics file (see mon_prom.h). */
#define _GNU_SOURCE
#include "collector/mon_prom.h"
#include "collector/ownfile.h"
#include "collector/mon_agg.h"
#include "collector/mon_gpu.h"
#include "collector/monitor.h"

#include <errno.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static struct {
    struct gt_db *disk;
    char dir[4200], path[4600], tmp[4600];
    _Atomic int on; /* cleared from a signal handler: the process ends */
    dev_t dev;      /* the file this process last renamed into place: */
    ino_t ino;      /* only that is removed, whatever else takes its name */
} pr;

/* The text being made: appended to, cut at the last whole line if full. */
struct out { char *buf; size_t len, cap, line; int full; };

static void put(struct out *o, const char *fmt, ...)
{
    if (o->full)
        return;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(o->buf + o->len, o->cap - o->len, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= o->cap - o->len) {
        o->full = 1;
        o->len = o->line; /* no half line */
        o->buf[o->len] = 0;
        return;
    }
    o->len += (size_t)n;
    if (o->len && o->buf[o->len - 1] == '\n')
        o->line = o->len;
}

/* A label's value as the text format has it: \\, \", \n escaped, and
 * every byte but printable ASCII made '?' (label values must be UTF-8). */
static const char *label(const char *s, char *dst, size_t len)
{
    size_t o = 0;
    for (; s && *s && o + 3 < len; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '\\' || c == '"') {
            dst[o++] = '\\';
            dst[o++] = (char)c;
        } else if (c == '\n') {
            dst[o++] = '\\';
            dst[o++] = 'n';
        } else {
            dst[o++] = c >= 0x20 && c < 0x7f ? (char)c : '?';
        }
    }
    dst[o] = 0;
    return dst;
}

static void text_of(sqlite3_stmt *st, int col, char *dst, size_t len)
{
    const unsigned char *t = sqlite3_column_text(st, col);
    snprintf(dst, len, "%s", t ? (const char *)t : "");
}

/* run, host, rank, local_rank, device and pid, from the process row (its
 * rank and device may be learnt after the start) */
static void common_labels(char *dst, size_t len)
{
    char run[256] = "", host[128] = "", a[300], b[300];
    long long rank = -1, local = -1, device = -1, pid = 0;
    sqlite3_stmt *st;
    if (pr.disk && pr.disk->db &&
        sqlite3_prepare_v2(pr.disk->db, "SELECT run_id, host, rank, local_rank, device, pid FROM process WHERE id = ?",
                           -1, &st, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(st, 1, pr.disk->process_id);
        if (sqlite3_step(st) == SQLITE_ROW) {
            text_of(st, 0, run, sizeof run);
            text_of(st, 1, host, sizeof host);
            rank = sqlite3_column_type(st, 2) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 2);
            local = sqlite3_column_type(st, 3) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 3);
            device = sqlite3_column_type(st, 4) == SQLITE_NULL ? -1 : sqlite3_column_int64(st, 4);
            pid = sqlite3_column_int64(st, 5);
        }
        sqlite3_finalize(st);
    }
    snprintf(dst, len, "run=\"%s\",host=\"%s\",rank=\"%lld\",local_rank=\"%lld\",device=\"%lld\",pid=\"%lld\"",
             label(run, a, sizeof a), label(host, b, sizeof b), rank, local, device, pid);
}

/* A call site's first frame, as stored in the process's file. */
static void site_text(int64_t id, char *dst, size_t len)
{
    dst[0] = 0;
    sqlite3_stmt *st;
    if (!pr.disk || !pr.disk->db ||
        sqlite3_prepare_v2(pr.disk->db, "SELECT frames FROM callsite WHERE process_id = ? AND id = ?", -1, &st,
                           NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(st, 1, pr.disk->process_id);
    sqlite3_bind_int64(st, 2, id);
    if (sqlite3_step(st) == SQLITE_ROW)
        text_of(st, 0, dst, len);
    sqlite3_finalize(st);
    dst[strcspn(dst, "\n")] = 0;
    if (!dst[0])
        snprintf(dst, len, "site %lld", (long long)id);
}

struct site_row { int64_t callsite, calls, total_ns; int api; };
static struct site_row sites[4096];
static struct gt_mon_comm comms[1024];
static size_t nsites, ncomms;

static void take_site(int64_t callsite, int api, int64_t calls, int64_t total_ns, void *ctx)
{
    (void)ctx;
    if (nsites < sizeof sites / sizeof *sites)
        sites[nsites++] = (struct site_row){ callsite, calls, total_ns, api };
}

static void take_comm(const struct gt_mon_comm *c, void *ctx)
{
    (void)ctx;
    if (ncomms < sizeof comms / sizeof *comms)
        comms[ncomms++] = *c;
}

static int by_total(const void *x, const void *y)
{
    const struct site_row *a = x, *b = y;
    return a->total_ns < b->total_ns ? 1 : a->total_ns > b->total_ns ? -1 : 0;
}

static int by_calls(const void *x, const void *y)
{
    const struct gt_mon_comm *a = x, *b = y;
    return a->calls < b->calls ? 1 : a->calls > b->calls ? -1 : 0;
}

static void head(struct out *o, const char *name, const char *type, const char *help)
{
    put(o, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void steps(struct out *o, const char *c)
{
    struct gt_mon_steps s;
    gt_mon_agg_steps(&s);
    char name[160] = "", l[400];
    if (s.name && pr.disk && pr.disk->db) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(pr.disk->db, "SELECT value FROM label WHERE process_id = ? AND id = ?", -1, &st,
                               NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, pr.disk->process_id);
            sqlite3_bind_int64(st, 2, s.name);
            if (sqlite3_step(st) == SQLITE_ROW)
                text_of(st, 0, name, sizeof name);
            sqlite3_finalize(st);
        }
    }
    label(name, l, sizeof l);
    head(o, "gputrace_steps_total", "counter", "Steps (the top-level NVTX range the process repeats most) ended.");
    put(o, "gputrace_steps_total{%s,step=\"%s\"} %lld\n", c, l, (long long)s.count);
    head(o, "gputrace_step_seconds", "histogram", "Time of each step.");
    for (int b = 0; b < GT_STEP_BUCKETS; b++) {
        if (b == GT_STEP_BUCKETS - 1)
            put(o, "gputrace_step_seconds_bucket{%s,step=\"%s\",le=\"+Inf\"} %llu\n", c, l,
                (unsigned long long)s.bucket[b]);
        else
            put(o, "gputrace_step_seconds_bucket{%s,step=\"%s\",le=\"%g\"} %llu\n", c, l, gt_step_bucket_le[b],
                (unsigned long long)s.bucket[b]);
    }
    put(o, "gputrace_step_seconds_sum{%s,step=\"%s\"} %.9f\n", c, l, (double)s.sum_ns / 1e9);
    put(o, "gputrace_step_seconds_count{%s,step=\"%s\"} %lld\n", c, l, (long long)s.count);
    head(o, "gputrace_last_step_seconds", "gauge", "Time of the last step.");
    put(o, "gputrace_last_step_seconds{%s,step=\"%s\"} %.9f\n", c, l, (double)s.last_ns / 1e9);
}

static void blocked(struct out *o, const char *c)
{
    nsites = 0;
    gt_mon_agg_each_site(take_site, NULL);
    qsort(sites, nsites, sizeof *sites, by_total);
    head(o, "gputrace_host_blocked_seconds_total", "counter",
         "Host time blocked in calls that wait for the GPU (syncs, blocking copies, NCCL calls that block), by API and"
         " call site: the sites that blocked longest, the rest as site=\"other\".");
    int64_t rest_ns = 0, rest_calls = 0;
    char site[512], a[600], b[160];
    for (size_t i = 0; i < nsites; i++) {
        if (i >= GT_PROM_SITES) {
            rest_ns += sites[i].total_ns;
            rest_calls += sites[i].calls;
            continue;
        }
        site_text(sites[i].callsite, site, sizeof site);
        put(o, "gputrace_host_blocked_seconds_total{%s,api=\"%s\",site=\"%s\"} %.9f\n", c,
            label(gt_mon_api_name(sites[i].api), b, sizeof b), label(site, a, sizeof a), (double)sites[i].total_ns / 1e9);
    }
    if (nsites > GT_PROM_SITES)
        put(o, "gputrace_host_blocked_seconds_total{%s,api=\"other\",site=\"other\"} %.9f\n", c, (double)rest_ns / 1e9);
    head(o, "gputrace_host_blocked_calls_total", "counter", "Calls that wait for the GPU, by API and call site, as above.");
    for (size_t i = 0; i < nsites && i < GT_PROM_SITES; i++) {
        site_text(sites[i].callsite, site, sizeof site);
        put(o, "gputrace_host_blocked_calls_total{%s,api=\"%s\",site=\"%s\"} %lld\n", c,
            label(gt_mon_api_name(sites[i].api), b, sizeof b), label(site, a, sizeof a), (long long)sites[i].calls);
    }
    if (nsites > GT_PROM_SITES)
        put(o, "gputrace_host_blocked_calls_total{%s,api=\"other\",site=\"other\"} %lld\n", c, (long long)rest_calls);
}

/* The communicator and operation labels of comms[i], or "other". */
static const char *comm_labels(size_t i, size_t top, char *dst, size_t len)
{
    char b[160];
    if (i >= top)
        snprintf(dst, len, "comm=\"other\",op=\"other\"");
    else
        snprintf(dst, len, "comm=\"%llx\",op=\"%s\"", (unsigned long long)comms[i].comm_id,
                 label(gt_mon_api_name(comms[i].api), b, sizeof b));
    return dst;
}

/* comms[top..] added into comms[top] (the "other" row), which is then the
 * last: how many rows to print. */
static size_t fold_rest(size_t top)
{
    if (ncomms <= top)
        return ncomms;
    struct gt_mon_comm *r = &comms[top];
    for (size_t i = top + 1; i < ncomms; i++) {
        r->calls += comms[i].calls;
        r->bytes += comms[i].bytes;
        r->kernels += comms[i].kernels;
        r->gpu_ns += comms[i].gpu_ns;
        r->bus_bytes += comms[i].bus_bytes;
        for (int b = 0; b < GT_COMM_BUCKETS; b++)
            r->bucket[b] += comms[i].bucket[b];
    }
    return top + 1;
}

static void collectives(struct out *o, const char *c)
{
    ncomms = 0;
    gt_mon_agg_each_comm(take_comm, NULL);
    qsort(comms, ncomms, sizeof *comms, by_calls);
    size_t n = ncomms = fold_rest(GT_PROM_COMMS);
    char l[400];
    head(o, "gputrace_collectives_total", "counter", "Collective and point-to-point calls, by communicator and operation.");
    for (size_t i = 0; i < n; i++)
        put(o, "gputrace_collectives_total{%s,%s} %lld\n", c, comm_labels(i, GT_PROM_COMMS, l, sizeof l),
            (long long)comms[i].calls);
    head(o, "gputrace_collective_bytes_total", "counter", "Bytes of those calls, as above.");
    for (size_t i = 0; i < n; i++)
        put(o, "gputrace_collective_bytes_total{%s,%s} %lld\n", c, comm_labels(i, GT_PROM_COMMS, l, sizeof l),
            (long long)comms[i].bytes);
    head(o, "gputrace_collective_bus_bytes_total", "counter",
         "Bytes of those calls whose kernels ran, times the operation's bus factor (nccl-tests'): divided by the"
         " kernels' seconds, the bus bandwidth.");
    for (size_t i = 0; i < n; i++)
        put(o, "gputrace_collective_bus_bytes_total{%s,%s} %.0f\n", c, comm_labels(i, GT_PROM_COMMS, l, sizeof l),
            comms[i].bus_bytes);
    /* the histograms of the busiest only: 16 lines each */
    n = fold_rest(GT_PROM_COMM_HISTS);
    head(o, "gputrace_collective_gpu_seconds", "histogram",
         "GPU time of each NCCL kernel, by communicator and operation: its wait for the peers that arrive after this"
         " rank, and the transfer (across ranks, the latest to arrive waits least).");
    for (size_t i = 0; i < n; i++) {
        comm_labels(i, GT_PROM_COMM_HISTS, l, sizeof l);
        for (int b = 0; b < GT_COMM_BUCKETS; b++) {
            char le[32];
            if (b == GT_COMM_BUCKETS - 1)
                snprintf(le, sizeof le, "+Inf");
            else
                snprintf(le, sizeof le, "%g", gt_comm_bucket_le[b]);
            put(o, "gputrace_collective_gpu_seconds_bucket{%s,%s,le=\"%s\"} %llu\n", c, l, le,
                (unsigned long long)comms[i].bucket[b]);
        }
        put(o, "gputrace_collective_gpu_seconds_sum{%s,%s} %.9f\n", c, l, (double)comms[i].gpu_ns / 1e9);
        put(o, "gputrace_collective_gpu_seconds_count{%s,%s} %lld\n", c, l, (long long)comms[i].kernels);
    }
}

/* The live GPU ledger (mon_gpu.h): time by state, and the last step's
 * shares. */
static void gpu(struct out *o, const char *c)
{
    struct gt_mon_gpu g;
    gt_mon_gpu_read(&g);
    head(o, "gputrace_gpu_seconds_total", "counter",
         "GPU time since the process's first GPU work, by state: computing, communication hidden by compute or"
         " exposed, copies, and idle by cause (the host blocked in a call that waits for the GPU, the host busy"
         " elsewhere, launch gaps under 100 us); accounted up to 2 s ago.");
    for (int k = 0; k < GT_MS_COUNT; k++)
        put(o, "gputrace_gpu_seconds_total{%s,state=\"%s\"} %.9f\n", c, gt_mon_state_names[k], (double)g.ns[k] / 1e9);
    head(o, "gputrace_last_step_gpu_ratio", "gauge",
         "Share of the last accounted step's time in each GPU state, as above (absent before a step is accounted).");
    for (int k = 0; k < GT_MS_COUNT && g.step_len > 0; k++)
        put(o, "gputrace_last_step_gpu_ratio{%s,state=\"%s\"} %.6f\n", c, gt_mon_state_names[k],
            (double)g.step_ns[k] / (double)g.step_len);
}

size_t gt_mon_prom_format(char *buf, size_t len, const struct gt_prom_state *st)
{
    struct out o = { buf, 0, len, 0, 0 };
    if (!len)
        return 0;
    buf[0] = 0;
    char c[1400], b[160];
    common_labels(c, sizeof c);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    head(&o, "gputrace_heartbeat_timestamp_seconds", "gauge", "When the process's writer last wrote this file.");
    put(&o, "gputrace_heartbeat_timestamp_seconds{%s} %lld.%03ld\n", c, (long long)now.tv_sec, now.tv_nsec / 1000000);
    steps(&o, c);
    gpu(&o, c);
    blocked(&o, c);
    collectives(&o, c);
    head(&o, "gputrace_inflight_seconds", "gauge",
         "How long the call that may block longest in flight has been (a hang past GPUTRACE_HANG_S); 0 if none.");
    put(&o, "gputrace_inflight_seconds{%s,api=\"%s\"} %.3f\n", c,
        label(st->inflight_ns > 0 ? gt_mon_api_name(st->inflight_api) : "", b, sizeof b), (double)st->inflight_ns / 1e9);
    head(&o, "gputrace_dropped_records_total", "counter", "Records the tracer could not keep.");
    put(&o, "gputrace_dropped_records_total{%s} %llu\n", c, (unsigned long long)st->dropped);
    static const char *const why[GT_WIN_KINDS] = { "hang", "slowdown", "request", "capture" };
    head(&o, "gputrace_windows_total", "counter", "Windows of full records written, by why.");
    for (int k = 0; k < GT_WIN_KINDS; k++)
        put(&o, "gputrace_windows_total{%s,reason=\"%s\"} %llu\n", c, why[k], (unsigned long long)st->windows[k]);
    return o.len;
}

void gt_mon_prom_start(struct gt_db *disk, const char *rundir, const char *file)
{
    memset(&pr, 0, sizeof pr);
    pr.disk = disk;
    const char *dot = strrchr(file, '.');
    int stem = dot ? (int)(dot - file) : (int)strlen(file);
    snprintf(pr.dir, sizeof pr.dir, "%s/" GT_PROM_DIR, rundir);
    snprintf(pr.path, sizeof pr.path, "%s/%.*s.prom", pr.dir, stem, file);
    snprintf(pr.tmp, sizeof pr.tmp, "%s/.%.*s.prom.tmp", pr.dir, stem, file);
    pr.on = 1;
}

/* The file, if it is still the one this process wrote (lstat and unlink:
 * async-signal-safe). */
static void remove_ours(void)
{
    struct stat st;
    if (pr.ino && lstat(pr.path, &st) == 0 && st.st_dev == pr.dev && st.st_ino == pr.ino)
        unlink(pr.path);
}

int gt_mon_prom_write(const struct gt_prom_state *st, char *err, size_t errlen)
{
    static char buf[256 << 10];
    if (!pr.on)
        return 0;
    size_t n = gt_mon_prom_format(buf, sizeof buf, st);
    if (mkdir(pr.dir, 0777) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "cannot make %s: %s", pr.dir, strerror(errno));
        return -1;
    }
    /* (a temporary file there already is nobody's to remove by its name:
     * the write is refused, said once) */
    if (gt_ownfile_write(pr.tmp, buf, n, err, errlen) != 0)
        return -1;
    if (rename(pr.tmp, pr.path) != 0) {
        snprintf(err, errlen, "cannot write %s: %s", pr.path, strerror(errno));
        unlink(pr.tmp);
        return -1;
    }
    struct stat written;
    if (stat(pr.path, &written) == 0) {
        pr.dev = written.st_dev;
        pr.ino = written.st_ino;
    }
    if (!atomic_load(&pr.on))
        remove_ours(); /* the process began to end while this was written */
    return 0;
}

void gt_mon_prom_remove_now(void)
{
    if (atomic_exchange(&pr.on, 0))
        remove_ours();
}

void gt_mon_prom_remove(void)
{
    if (atomic_exchange(&pr.on, 0))
        remove_ours();
}
