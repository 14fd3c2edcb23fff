/* monitor.c: monitor mode's triggers and requests (see monitor.h). */
#define _GNU_SOURCE
#include "collector/monitor.h"
#include "collector/say.h"
#include "collector/clock.h"
#include "collector/config.h"
#include "collector/cupti_sub.h"
#include "collector/mon_agg.h"
#include "collector/mon_gpu.h"
#include "collector/mon_prom.h"
#include "collector/requests.h"
#include "collector/tbuf.h"
#include "collector/window.h"
#include "collector/writer_int.h"
#include "common/printable.h"
#include "format/api_ids.h"
#include "format/api_table.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* a request is taken once this old, so that the requests of one event's
 * racing triggers (every waiting rank sees the hang within a second or so)
 * are all there; those made within GROUP_MS of it are the same request */
#define SETTLE_MS 1000
#define GROUP_MS 2000
#define LOOK_MS 1000
/* captures recording at once (a second asked while the first records) */
#define CAPTURES 4

static struct gt_mon_cfg cfg;
static struct {
    struct gt_db *mem, *disk;
    int64_t next_look_ns;
    int64_t handled_ms;     /* requests up to here are handled (or were before this process) */
    int64_t last_own_ms[2]; /* this process's last trigger of each kind (hang, slowdown) */
    /* its last slowdown requests, and when their slow steps began on this
     * process's clock: its own window row says so (onset_ns).  Several:
     * a request is answered a second after it is made, and the slow steps
     * go on triggering meanwhile (with no cool-down) */
    struct { char request[GT_REQUEST_NAME_MAX]; int64_t onset_ns; } slow[4];
    int nslow;
    struct { /* the captures in progress */
        int64_t from_ns, until_ns;
        char name[GT_REQUEST_NAME_MAX], detail[256];
    } cap[CAPTURES];
    int ncap;
    int said_fail;
    int64_t next_metrics_ns;
    uint64_t windows[GT_WIN_KINDS];
    /* the windows written by the final pass (the captures cut short, the
     * requests), written again once CUPTI's last records are in */
    int in_final, nfinal;
    struct { struct gt_request r; char detail[512]; int64_t at_ns; } final[CAPTURES + 2];
} m;

const char *gt_mon_api_name(int64_t api)
{
    const char *name = api >= 0 && api < GT_API_COUNT ? gt_api_table_name((int)api) : NULL;
    return name ? name : "a call";
}

void gt_mon_config_load(struct gt_mon_cfg *c, const char *output)
{
    memset(c, 0, sizeof *c);
    const char *mode = getenv("GPUTRACE_MODE");
    if (mode && *mode && strcmp(mode, "full") != 0) {
        if (strcmp(mode, "monitor") == 0)
            c->on = 1;
        else {
            char shown[GT_PRINTABLE_LEN];
            gt_say("GPUTRACE_MODE=%s is not 'full' or 'monitor'; using full",
                    gt_printable(mode, shown, sizeof shown));
        }
    }
    c->window_s = gt_config_env_int("GPUTRACE_WINDOW_S", 60, 1, 3600);
    c->window_mb = gt_config_env_int("GPUTRACE_WINDOW_MB", 24, 4, 4096);
    c->hang_s = gt_config_env_int("GPUTRACE_HANG_S", 30, 1, 86400);
    c->cooldown_s = gt_config_env_int("GPUTRACE_COOLDOWN_S", 120, 0, 86400);
    c->metrics_ms = gt_config_env_int("GPUTRACE_METRICS_MS", 5000, 0, 600000);
    if (c->metrics_ms > 0 && c->metrics_ms < 200)
        c->metrics_ms = 200;
    c->slowdown = 1.5;
    const char *k = getenv("GPUTRACE_SLOWDOWN");
    if (k && *k) {
        char *end;
        double v = strtod(k, &end);
        if (*end || !(v == 0 || (v > 1 && v <= 100))) {
            char shown[GT_PRINTABLE_LEN];
            gt_say("GPUTRACE_SLOWDOWN=%s is not 0 (off) or a factor in 1..100; using 1.5",
                    gt_printable(k, shown, sizeof shown));
        } else {
            c->slowdown = v;
        }
    }
    /* the run directory: the folder of this process's file */
    const char *slash = strrchr(output, '/');
    if (slash) {
        snprintf(c->rundir, sizeof c->rundir, "%.*s", (int)(slash - output), output);
        snprintf(c->file, sizeof c->file, "%s", slash + 1);
    } else {
        snprintf(c->rundir, sizeof c->rundir, ".");
        snprintf(c->file, sizeof c->file, "%s", output);
    }
    if (!c->rundir[0])
        snprintf(c->rundir, sizeof c->rundir, "/");
}

void gt_mon_configure(const struct gt_mon_cfg *c)
{
    cfg = *c;
}

const struct gt_mon_cfg *gt_mon_cfg(void)
{
    return &cfg;
}

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The wall clock and this process's clock (CLOCK_MONOTONIC) at one
 * moment: the wall clock read between two reads of the other, the
 * tightest of three tries.  Read one after the other, a thread preempted
 * between them (a loaded machine) took the preemption into their
 * difference, and a slowdown's onset or a capture's span moved by it. */
static void clocks_now(struct timespec *real, int64_t *mono)
{
    int64_t best = INT64_MAX;
    for (int i = 0; i < 3 && best > 100000; i++) {
        struct timespec r;
        int64_t a = (int64_t)gt_mono_ns();
        clock_gettime(CLOCK_REALTIME, &r);
        int64_t b = (int64_t)gt_mono_ns();
        if (b - a < best) {
            best = b - a;
            *real = r;
            *mono = a + (b - a) / 2;
        }
    }
}

void gt_mon_start(struct gt_db *mem, struct gt_db *disk, int64_t start_ns)
{
    memset(&m, 0, sizeof m);
    m.mem = mem;
    m.disk = disk;
    /* requests made before this process began tracing are not for it; one
     * made since is, though made before this runs: its file (and so what
     * `gputrace dump` waits for) exists before its schema and the window's
     * are made, and under load a request made in that gap was never
     * answered (monitor.sh 32, 35 under the sanitizers: 1 of 2, 0 of 2) */
    int64_t since_ns = (int64_t)gt_mono_ns() - start_ns;
    m.handled_ms = wall_ms() - (since_ns > 0 ? since_ns / 1000000 : 0);
    m.last_own_ms[0] = m.last_own_ms[1] = -(int64_t)cfg.cooldown_s * 1000 - 1;
    gt_window_begin(mem, (int64_t)cfg.window_s * 1000000000, (int64_t)cfg.window_mb << 20, start_ns);
    gt_mon_agg_start(disk, cfg.slowdown);
    gt_mon_gpu_start();
    gt_cupti_observe(1);
    if (cfg.metrics_ms > 0)
        gt_mon_prom_start(disk, cfg.rundir, cfg.file);
}

/* A line on stderr unless GPUTRACE_QUIET (read at the start: the writer
 * thread never reads the environment, which the program may be changing) */
static void say(const char *line)
{
    if (!cfg.quiet)
        gt_say("%s", line);
}

/* A trigger of this process: a request, unless one of its kind is
 * recent (its own or another process's): a slowdown's cool-down never
 * holds back a hang's window.  A slowdown's words end with when its slow
 * steps began (from_ns, this process's clock), as milliseconds before the
 * request's own moment (the wall-clock time its name carries): a time
 * every rank's report can place, whatever host wrote it. */
static void trigger(int kind, const char *reason, const char *detail, int64_t from_ns)
{
    struct timespec ts;
    int64_t mono;
    clocks_now(&ts, &mono);
    int64_t now = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
    int64_t cool = (int64_t)cfg.cooldown_s * 1000;
    if (now - m.last_own_ms[kind] < cool)
        return;
    int64_t latest = gt_request_latest(cfg.rundir, reason);
    if (latest && now - latest < cool)
        return;
    m.last_own_ms[kind] = now;
    char host[GT_HOST_MAX + 1], who[GT_HOST_MAX + 32], err[4600], words[640];
    gt_config_host(host, sizeof host);
    snprintf(who, sizeof who, "%s-%d", host, (int)getpid());
    /* the request's name keeps whole milliseconds: the moment it names is
     * what they drop earlier than now */
    int64_t before = mono - from_ns - ts.tv_nsec % 1000000;
    if (from_ns > 0 && before >= 0)
        snprintf(words, sizeof words, "%s; the slow steps began %.3f ms before the request", detail,
                 (double)before / 1e6);
    else
        snprintf(words, sizeof words, "%s", detail);
    char made[GT_REQUEST_NAME_MAX];
    if (gt_request_make(cfg.rundir, now, reason, who, words, made, sizeof made, err, sizeof err) != 0) {
        say(err);
    } else if (from_ns > 0 && before >= 0) {
        int k = m.nslow++ % (int)(sizeof m.slow / sizeof m.slow[0]);
        snprintf(m.slow[k].request, sizeof m.slow[k].request, "%s", made);
        m.slow[k].onset_ns = from_ns;
    }
}

/* The onset for the window row of request name, if this process made it
 * as a slowdown's (gt_window_onset). */
static void own_onset(const char *name)
{
    for (int k = 0; k < (int)(sizeof m.slow / sizeof m.slow[0]); k++)
        if (m.slow[k].onset_ns && strcmp(name, m.slow[k].request) == 0)
            gt_window_onset(m.slow[k].onset_ns);
}

static struct mark *oldest_mark(void)
{
    struct mark *worst = NULL;
    for (int i = 0; i < gt_w.nmarks; i++)
        if (!worst || gt_w.marks[i].start_ns < worst->start_ns)
            worst = &gt_w.marks[i];
    return worst;
}

/* The metrics file, every GPUTRACE_METRICS_MS (a failure said once). */
static void metrics(int64_t now_ns)
{
    if (cfg.metrics_ms <= 0 || now_ns < m.next_metrics_ns)
        return;
    m.next_metrics_ns = now_ns + (int64_t)cfg.metrics_ms * 1000000;
    struct gt_prom_state st = { .dropped = gt_wr_dropped() };
    const struct mark *worst = oldest_mark();
    if (worst) {
        st.inflight_ns = now_ns - worst->start_ns;
        st.inflight_api = (int)worst->api;
    }
    memcpy(st.windows, m.windows, sizeof st.windows);
    char err[4800];
    if (gt_mon_prom_write(&st, err, sizeof err) != 0 && !m.said_fail) {
        m.said_fail = 1;
        char line[5000];
        snprintf(line, sizeof line, "%s (metrics); the program runs on", err);
        say(line);
    }
}

/* The blocking call in flight longest, if past GPUTRACE_HANG_S. */
static int hang_detail(int64_t now_ns, char *out, size_t len)
{
    struct mark *worst = oldest_mark();
    if (!worst || now_ns - worst->start_ns < (int64_t)cfg.hang_s * 1000000000)
        return 0;
    snprintf(out, len, "%s in flight for %.1f s on thread %lld", gt_mon_api_name(worst->api),
             (double)(now_ns - worst->start_ns) / 1e9, (long long)worst->tid);
    return 1;
}

/* A blocking call in flight this long when any window is written: the
 * process is stuck (a hang GPUTRACE_HANG_S has not timed out yet: a
 * `gputrace dump` of a hung job) or waits on one long kernel, and the
 * work queued is that; its window gets CUPTI's every buffer as a hang's
 * does, or the report could not tell a kernel that never ended from one
 * whose record CUPTI still held. */
#define STUCK_NS 1000000000LL

static int stuck(int64_t now_ns)
{
    const struct mark *worst = oldest_mark();
    return worst && now_ns - worst->start_ns >= STUCK_NS;
}

static void write_window(const struct gt_request *r, const char *detail, int64_t now_ns)
{
    char dir[4400], err[4700];
    snprintf(dir, sizeof dir, "%s/window-%s", cfg.rundir, r->name);
    int flushed = strcmp(r->reason, "hang") == 0 || stuck(now_ns);
    if (flushed) {
        /* CUPTI's buffers with a record not complete come only from a
         * forced flush: the GPU work of the hang itself (a kernel that
         * does not end) kept its thread's API records and the kernels
         * before it out of the window (an H200: none at all).  Forced, the
         * work in flight gets records without times, and never its times:
         * for a hang, nothing that would have come; nor for a process
         * stuck in a blocking call.  Not for the other windows: a host
         * running ahead has hundreds of launches queued
         * (233 in a simulated 2 s window), whose times the job's later
         * windows and figures would lose; their windows' last records may
         * wait in a buffer CUPTI holds */
        gt_wr_cupti_flush(1);
        while (gt_cupti_drain_one(&gt_w.db, gt_w.bulk, gt_w.bulk_after))
            ;
    }
    /* what the threads recorded up to now, stored just before their open
     * ranges are: a step that ended since the writer's pass, its range
     * still in its thread's buffer, was missing beside its children
     * (stored before it) and the next step's open range, and the report
     * numbered the window's steps from those children (monitor.sh, once
     * in 150 runs beside a full test suite) */
    gt_wr_drain();
    gt_wr_store_marks();         /* where each thread is stuck now */
    gt_window_adding();
    gt_tbuf_open_ranges(gt_wr_on_open_range, NULL); /* and in which ranges */
    gt_wr_store_names();
    own_onset(r->name);
    if (gt_window_write(dir, cfg.file, r->name, r->reason, detail, flushed, now_ns, err, sizeof err) != 0) {
        char line[9600];
        snprintf(line, sizeof line, "the window for %s was not written: %s; the program runs on", r->name, err);
        say(line);
        return;
    }
    if (m.in_final && m.nfinal < (int)(sizeof m.final / sizeof m.final[0])) {
        m.final[m.nfinal].r = *r;
        snprintf(m.final[m.nfinal].detail, sizeof m.final[m.nfinal].detail, "%s", detail);
        m.final[m.nfinal++].at_ns = now_ns;
    }
    static const char *const kinds[GT_WIN_KINDS] = { "hang", "slowdown", "request", "capture" };
    for (int k = 0; k < GT_WIN_KINDS; k++)
        if (strcmp(r->reason, kinds[k]) == 0)
            m.windows[k]++;
}

/* Writes capture i's window and lets go of it. */
static void end_capture(int i, int64_t now_ns)
{
    struct gt_request r;
    if (gt_request_parse(m.cap[i].name, &r) == 0)
        write_window(&r, m.cap[i].detail, now_ns);
    m.cap[i] = m.cap[--m.ncap];
}

/* The captures whose time is up, the earliest end first. */
static void finish_capture(int64_t now_ns)
{
    for (;;) {
        int first = -1;
        for (int i = 0; i < m.ncap; i++)
            if (m.cap[i].until_ns <= now_ns && (first < 0 || m.cap[i].until_ns < m.cap[first].until_ns))
                first = i;
        if (first < 0)
            return;
        end_capture(first, now_ns);
        now_ns = (int64_t)gt_mono_ns();
    }
}

/* Where the window is kept from for the captures in progress: the
 * earliest start (0: none). */
static int64_t capture_keep_from(void)
{
    int64_t from = 0;
    for (int i = 0; i < m.ncap; i++)
        if (!from || m.cap[i].from_ns < from)
            from = m.cap[i].from_ns;
    return from;
}

/* A capture asks for records from start_ms for seconds: kept until then,
 * written at its end.  Each its own: one asked while another records
 * (more than GROUP_MS later) took its place, and the first was never
 * written.  Past CAPTURES at once, the one ending first is written now. */
static void start_capture(const struct gt_request *r)
{
    long long start_ms = 0, seconds = 0;
    if (sscanf(r->detail, "start_ms=%lld seconds=%lld", &start_ms, &seconds) != 2 || seconds <= 0 || seconds > 3600 ||
        start_ms <= 0 || start_ms > 9000000000000LL) /* past 2255: damaged (and its ns would overflow) */
        return;
    /* the wall clock into this process's, read now: the pass's own moment
     * is older by what the pass did before (a commit, the metrics, CUPTI's
     * flush), and the capture ended that much early */
    struct timespec real;
    int64_t mono;
    clocks_now(&real, &mono);
    int64_t offset = mono - ((int64_t)real.tv_sec * 1000000000 + real.tv_nsec);
    if (m.ncap == CAPTURES) {
        int first = 0;
        for (int i = 1; i < m.ncap; i++)
            if (m.cap[i].until_ns < m.cap[first].until_ns)
                first = i;
        end_capture(first, (int64_t)gt_mono_ns());
    }
    int i = m.ncap++;
    m.cap[i].from_ns = (int64_t)start_ms * 1000000 + offset;
    m.cap[i].until_ns = m.cap[i].from_ns + (int64_t)seconds * 1000000000;
    snprintf(m.cap[i].name, sizeof m.cap[i].name, "%s", r->name);
    snprintf(m.cap[i].detail, sizeof m.cap[i].detail, "%s", r->detail);
}

/* CUPTI's completed buffers asked for (stored in the next pass), and the
 * GPU time up to the lag accounted, the blocking calls in flight with it. */
static void gpu_ledger(int64_t now_ns)
{
    gt_wr_cupti_flush(0);
    static int64_t from[256];
    int n = 0;
    for (int i = 0; i < gt_w.nmarks && n < 256; i++)
        from[n++] = gt_w.marks[i].start_ns;
    static int64_t gaps[GT_CUPTI_MAX_GAPS][2];
    gt_mon_gpu_cupti_dropped(gt_cupti_dropped());
    gt_mon_gpu_unrecorded(gaps, gt_cupti_gaps(gaps, GT_CUPTI_MAX_GAPS));
    gt_mon_gpu_account(now_ns - GT_MON_GPU_LAG_NS, from, n);
}

/* settle: a request is taken once SETTLE_MS old; at the end, at once.
 * Every request settled by now is taken, oldest first, not one a look: a
 * process whose looks came late (a loaded machine, a long window write,
 * requests made every second with no cool-down) would otherwise write
 * each window a look later than the others did, seconds apart once a few
 * were queued, and a window's files would cover different times. */
static void look(int64_t now_ns, int settle)
{
    struct gt_request r;
    int found = gt_request_next(cfg.rundir, m.handled_ms, &r);
    char detail[512];
    int64_t slow_from = 0;
    if (!settle)
        ; /* the process ends: no trigger of its own */
    else if (hang_detail(now_ns, detail, sizeof detail))
        trigger(0, "hang", detail, 0);
    else if (gt_mon_agg_slow_step(detail, sizeof detail, &slow_from))
        trigger(1, "slowdown", detail, slow_from);
    while (found > 0 && !(settle && wall_ms() - r.at_ms < SETTLE_MS)) {
        m.handled_ms = r.at_ms + GROUP_MS;
        if (strcmp(r.reason, "capture") == 0)
            start_capture(&r);
        else
            write_window(&r, r.detail, now_ns);
        found = gt_request_next(cfg.rundir, m.handled_ms, &r);
        now_ns = (int64_t)gt_mono_ns(); /* the next window's own moment */
    }
}

void gt_mon_pass(int commit)
{
    if (!cfg.on || !m.mem)
        return;
    int64_t now = (int64_t)gt_mono_ns();
    gt_window_keep(now, capture_keep_from());
    if (commit) {
        gt_mon_agg_flush();
        metrics(now);
    }
    if (now < m.next_look_ns)
        return;
    m.next_look_ns = now + (int64_t)LOOK_MS * 1000000;
    gpu_ledger(now);
    finish_capture(now);
    look(now, 1);
}

void gt_mon_final(void)
{
    if (!cfg.on || !m.mem)
        return;
    int64_t now = (int64_t)gt_mono_ns();
    for (int i = 0; i < m.ncap; i++) /* a capture cut short by the end: what it got */
        m.cap[i].until_ns = now;
    m.in_final = 1;
    finish_capture(now);
    look(now, 0);
    m.in_final = 0;
    gt_mon_prom_remove(); /* the process's metrics end with it */
    gt_cupti_observe(0);
    gt_mon_gpu_stop();
}

void gt_mon_final_gpu(void)
{
    for (int i = 0; i < m.nfinal; i++) {
        char dir[4400], err[4700];
        snprintf(dir, sizeof dir, "%s/window-%s", cfg.rundir, m.final[i].r.name);
        own_onset(m.final[i].r.name);
        if (gt_window_rewrite(dir, cfg.file, m.final[i].r.name, m.final[i].r.reason, m.final[i].detail, 1,
                              m.final[i].at_ns, err, sizeof err) != 0) {
            char line[9600];
            snprintf(line, sizeof line, "the window for %s lacks CUPTI's last records: %s", m.final[i].r.name, err);
            say(line);
        }
    }
    m.nfinal = 0;
}
