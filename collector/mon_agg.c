/* mon_agg.c: monitor mode's aggregates (see mon_agg.h). */
#include "collector/mon_agg.h"
#include "collector/mon_gpu.h"
#include "collector/clock.h"
#include "collector/hash.h"
#include "format/api_ids.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SITES 4096 /* open addressing: (call site, api) keys */
#define COMMS 1024
#define NAMES 32   /* top-level range names counted for the step */
#define STEPS_PENDING 4096
#define HISTORY 32 /* steps the median is taken over (the last one included) */
/* steps in a row each over k times the median before it: a slowdown.  One
 * slow step is a blip (a checkpoint's step, a collection, a host
 * descheduled): on a loaded machine such blips made windows before the
 * slowdown monitor.sh plants, whose request then took the planted one in */
#define SLOW_RUN 2

struct site { int64_t callsite; int api, used, dirty; int64_t calls, total_ns, max_ns; };
struct comm { struct gt_mon_comm c; int used, dirty; int64_t last_seq, last_ns; uint64_t in_bucket[GT_COMM_BUCKETS]; };
/* a top-level range's name, its count, the times of its first two (steps
 * once the name is known for the step's: count_name), and how many of its
 * ranges were counted as steps */
struct name { uint32_t name; int64_t count; int64_t first[2][2]; int64_t stepped; };
struct step { int64_t name, idx, start_ns, end_ns; };

static struct {
    struct gt_db *disk;
    struct site sites[SITES];
    struct comm comms[COMMS];
    struct name names[NAMES];
    int nnames;
    uint32_t step_name; /* 0 until one name repeats */
    int64_t nsteps;
    struct step pending[STEPS_PENDING];
    int npending;
    int64_t history[HISTORY]; /* durations, a ring */
    int64_t step_sum_ns;
    uint64_t step_bucket[GT_STEP_BUCKETS]; /* each step in the first bucket it fits (made cumulative when read) */
    int nhistory;
    double k;                 /* GPUTRACE_SLOWDOWN */
    char slow[256];           /* a slowdown not looked at yet */
    int slow_run;             /* the steps in a row that were slow, up to the last */
    double slow_prev;         /* the step before the last: its ratio to its median */
    int64_t run_from_ns;      /* the start of the first step of the run of slow ones */
    int64_t slow_from_ns;     /* ... of the slowdown in slow[] */
    uint64_t lost;
    sqlite3_stmt *put_site, *put_comm, *put_step, *beat;
} a;

static void check_step(int64_t start_ns);

static sqlite3_stmt *prep(const char *sql)
{
    sqlite3_stmt *st = NULL;
    if (a.disk && a.disk->db)
        sqlite3_prepare_v3(a.disk->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st, NULL);
    return st;
}

void gt_mon_agg_start(struct gt_db *disk, double slowdown)
{
    memset(&a, 0, sizeof a);
    a.disk = disk;
    a.k = slowdown;
    a.put_site = prep("INSERT OR REPLACE INTO mon_callsite(process_id, callsite, api, calls, total_ns, max_ns)"
                      " VALUES(?,?,?,?,?,?)");
    a.put_comm = prep("INSERT OR REPLACE INTO mon_comm(process_id, comm_id, api, calls, bytes, last_seq, last_ns)"
                      " VALUES(?,?,?,?,?,?,?)");
    a.put_step = prep("INSERT INTO mon_step(process_id, name, idx, n, start_ns, end_ns, min_ns, max_ns)"
                      " VALUES(?,?,?,?,?,?,?,?)");
    a.beat = prep("INSERT OR REPLACE INTO heartbeat(process_id, at_ns) VALUES(?,?)");
}

/* a table slot's hash of a 64-bit key (hash.h) */
static uint64_t mix(uint64_t x)
{
    return gt_hash_words(&x, 1);
}

void gt_mon_agg_blocking(int64_t callsite, int api, int64_t start_ns, int64_t end_ns)
{
    uint64_t h = mix((uint64_t)callsite * 1315423911u + (uint64_t)api);
    for (int probe = 0; probe < 64; probe++) {
        struct site *s = &a.sites[(h + (uint64_t)probe) % SITES];
        if (s->used && (s->callsite != callsite || s->api != api))
            continue;
        if (!s->used)
            *s = (struct site){ .callsite = callsite, .api = api, .used = 1 };
        int64_t d = end_ns > start_ns ? end_ns - start_ns : 0;
        s->calls++;
        s->total_ns += d;
        if (d > s->max_ns)
            s->max_ns = d;
        s->dirty = 1;
        return;
    }
    a.lost++;
}

int gt_mon_agg_collective(uint64_t comm_id, int api, int nranks, int64_t bytes, int64_t seq, int64_t start_ns)
{
    uint64_t h = mix(comm_id ^ ((uint64_t)api << 56));
    for (int probe = 0; probe < 64; probe++) {
        int slot = (int)((h + (uint64_t)probe) % COMMS);
        struct comm *c = &a.comms[slot];
        if (c->used && (c->c.comm_id != comm_id || c->c.api != api))
            continue;
        if (!c->used)
            *c = (struct comm){ .c = { .comm_id = comm_id, .api = api }, .used = 1 };
        if (nranks > 0)
            c->c.nranks = nranks;
        c->c.calls++;
        c->c.bytes += bytes;
        c->last_seq = seq;
        c->last_ns = start_ns;
        c->dirty = 1;
        return slot;
    }
    a.lost++;
    return -1;
}

const double gt_comm_bucket_le[GT_COMM_BUCKETS] = { 1e-5, 2.5e-5, 1e-4, 2.5e-4, 1e-3, 2.5e-3, 1e-2,
                                                    2.5e-2, 0.1, 0.25, 1, 2.5, 10, 1e300 };

double gt_mon_bus_factor(int api, int nranks)
{
    double n = nranks > 0 ? nranks : 1;
    switch (api) {
    case GT_API_ncclAllReduce:
        return 2 * (n - 1) / n;
    case GT_API_ncclAllGather:
    case GT_API_ncclReduceScatter:
    case GT_API_ncclAlltoAll:
    case GT_API_ncclGather:
    case GT_API_ncclScatter:
        return (n - 1) / n;
    default: /* broadcast, reduce, send, recv */
        return 1;
    }
}

void gt_mon_agg_comm_gpu(int slot, int64_t gpu_ns, int64_t bytes)
{
    if (slot < 0 || slot >= COMMS || !a.comms[slot].used)
        return;
    struct comm *c = &a.comms[slot];
    c->c.kernels++;
    c->c.gpu_ns += gpu_ns;
    c->c.bus_bytes += (double)bytes * gt_mon_bus_factor(c->c.api, c->c.nranks);
    int b = 0;
    while (b < GT_COMM_BUCKETS - 1 && (double)gpu_ns > gt_comm_bucket_le[b] * 1e9)
        b++;
    c->in_bucket[b]++;
}

/* The name repeated most, once it has been seen three times; the name's
 * entry (NULL: no room). */
static struct name *count_name(uint32_t name, int64_t start_ns, int64_t end_ns)
{
    int i = 0;
    while (i < a.nnames && a.names[i].name != name)
        i++;
    if (i == a.nnames) {
        if (a.nnames == NAMES)
            return NULL;
        a.names[a.nnames++] = (struct name){ name, 0, { { 0, 0 }, { 0, 0 } }, 0 };
    }
    if (a.names[i].count < 2) {
        a.names[i].first[a.names[i].count][0] = start_ns;
        a.names[i].first[a.names[i].count][1] = end_ns;
    }
    a.names[i].count++;
    if (a.names[i].count >= 3 && (!a.step_name || a.names[i].count > a.names[0].count)) {
        /* the leader first, so that the next comparison is with it */
        struct name t = a.names[0];
        a.names[0] = a.names[i];
        a.names[i] = t;
        if (a.step_name != a.names[0].name) {
            a.step_name = a.names[0].name;
            a.nhistory = 0; /* another loop: its own median */
            a.slow_run = 0;
        }
        return &a.names[0];
    }
    return &a.names[i];
}

static void step(uint32_t name, int64_t start_ns, int64_t end_ns);

void gt_mon_agg_range(uint32_t name, int depth, int64_t start_ns, int64_t end_ns)
{
    if (depth != 0 || !name)
        return;
    uint32_t was = a.step_name;
    struct name *n = count_name(name, start_ns, end_ns);
    if (name != a.step_name)
        return;
    /* just known for the steps' name: its earlier ranges were steps too,
     * the first two with their times (a loop of 20 steps was counted 18),
     * later ones counted, not timed; but only those not counted already,
     * when the name led before (X 10 times, Y 20, X 30 were 70 steps) */
    if (was != name && n) {
        int64_t earlier = n->count - 1;
        if (n->stepped == 0)
            for (int k = 0; k < 2 && k < earlier; k++) {
                step(name, n->first[k][0], n->first[k][1]);
                n->stepped++;
            }
        a.nsteps += earlier - n->stepped;
        n->stepped = earlier;
    }
    step(name, start_ns, end_ns);
    if (n)
        n->stepped++;
}

/* One step of the loop, as it ends. */
static void step(uint32_t name, int64_t start_ns, int64_t end_ns)
{
    if (a.npending < STEPS_PENDING)
        a.pending[a.npending++] = (struct step){ name, a.nsteps, start_ns, end_ns };
    else
        a.lost++;
    a.nsteps++;
    gt_mon_gpu_step(start_ns, end_ns);
    a.history[a.nhistory % HISTORY] = end_ns - start_ns;
    a.nhistory++;
    a.step_sum_ns += end_ns - start_ns;
    int b = 0;
    while (b < GT_STEP_BUCKETS - 1 && (double)(end_ns - start_ns) > gt_step_bucket_le[b] * 1e9)
        b++;
    a.step_bucket[b]++;
    check_step(start_ns);
}

const double gt_step_bucket_le[GT_STEP_BUCKETS] = { 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25,
                                                    0.5, 1, 2.5, 5, 10, 30, 60, 1e300 };

void gt_mon_agg_steps(struct gt_mon_steps *out)
{
    memset(out, 0, sizeof *out);
    out->name = a.step_name;
    out->count = a.nsteps;
    out->sum_ns = a.step_sum_ns;
    out->last_ns = a.nhistory ? a.history[(a.nhistory - 1) % HISTORY] : 0;
    uint64_t run = 0;
    for (int b = 0; b < GT_STEP_BUCKETS; b++)
        out->bucket[b] = run += a.step_bucket[b];
}

void gt_mon_agg_each_site(void (*fn)(int64_t callsite, int api, int64_t calls, int64_t total_ns, void *ctx), void *ctx)
{
    for (int i = 0; i < SITES; i++)
        if (a.sites[i].used)
            fn(a.sites[i].callsite, a.sites[i].api, a.sites[i].calls, a.sites[i].total_ns, ctx);
}

void gt_mon_agg_each_comm(void (*fn)(const struct gt_mon_comm *c, void *ctx), void *ctx)
{
    for (int i = 0; i < COMMS; i++) {
        if (!a.comms[i].used)
            continue;
        struct gt_mon_comm c = a.comms[i].c;
        uint64_t run = 0;
        for (int b = 0; b < GT_COMM_BUCKETS; b++)
            c.bucket[b] = run += a.comms[i].in_bucket[b];
        fn(&c, ctx);
    }
}

static int by_value(const void *x, const void *y)
{
    int64_t p = *(const int64_t *)x, q = *(const int64_t *)y;
    return p < q ? -1 : p > q;
}

/* Each step as it ends (it began at start_ns): the SLOW_RUN'th in a row
 * slower than k times the median of those before it?  The words, and
 * when the run of slow steps began (the report compares the steps from
 * then on with those before), are kept for the next look (monitor.c, once
 * a second). */
static void check_step(int64_t start_ns)
{
    int before = (a.nhistory < HISTORY ? a.nhistory : HISTORY) - 1; /* steps before the last */
    if (before < 5 || a.k <= 0 || a.slow[0])
        return;
    int64_t last = a.history[(a.nhistory - 1) % HISTORY], prev[HISTORY];
    for (int i = 0; i < before; i++)
        prev[i] = a.history[(a.nhistory - 2 - i) % HISTORY];
    qsort(prev, (size_t)before, sizeof prev[0], by_value);
    int64_t median = prev[before / 2];
    if (median <= 0 || (double)last <= a.k * (double)median) {
        a.slow_run = 0;
        return;
    }
    double ratio = (double)last / (double)median;
    if (++a.slow_run == 1)
        a.run_from_ns = start_ns;
    if (a.slow_run < SLOW_RUN) {
        a.slow_prev = ratio;
        return;
    }
    a.slow_run = 0;
    a.slow_from_ns = a.run_from_ns;
    /* numbered from 1, as the report numbers a loop's iterations */
    snprintf(a.slow, sizeof a.slow,
             "step %lld took %.1f ms, %.2fx the median %.1f ms of the %d steps before it (the step before it %.2fx)",
             (long long)a.nsteps, (double)last / 1e6, ratio, (double)median / 1e6, before, a.slow_prev);
}

int gt_mon_agg_slow_step(char *out, size_t len, int64_t *from_ns)
{
    if (!a.slow[0])
        return 0;
    snprintf(out, len, "%s", a.slow);
    *from_ns = a.slow_from_ns;
    a.slow[0] = 0;
    return 1;
}

void gt_mon_agg_stop(void)
{
    sqlite3_stmt **all[] = { &a.put_site, &a.put_comm, &a.put_step, &a.beat };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        sqlite3_finalize(*all[i]);
        *all[i] = NULL;
    }
    a.disk = NULL;
}

uint64_t gt_mon_agg_lost(void)
{
    return a.lost;
}

static void step_row(sqlite3_stmt *st, const int64_t *v, int n)
{
    if (!st)
        return;
    sqlite3_bind_int64(st, 1, a.disk->process_id);
    for (int i = 0; i < n; i++)
        sqlite3_bind_int64(st, i + 2, v[i]);
    sqlite3_step(st);
    sqlite3_reset(st);
}

void gt_mon_agg_flush(void)
{
    if (!a.disk || !a.disk->db || a.disk->failed)
        return;
    gt_db_begin(a.disk);
    for (int i = 0; i < SITES; i++) {
        struct site *s = &a.sites[i];
        if (!s->dirty)
            continue;
        int64_t v[] = { s->callsite, s->api, s->calls, s->total_ns, s->max_ns };
        step_row(a.put_site, v, 5);
        s->dirty = 0;
    }
    for (int i = 0; i < COMMS; i++) {
        struct comm *c = &a.comms[i];
        if (!c->dirty)
            continue;
        int64_t v[] = { (int64_t)c->c.comm_id, c->c.api, c->c.calls, c->c.bytes, c->last_seq, c->last_ns };
        step_row(a.put_comm, v, 6);
        c->dirty = 0;
    }
    /* the steps since the last commit, a row for each run of one name:
     * bounded by the commit rate, whatever the step rate */
    for (int i = 0, j; i < a.npending; i = j) {
        const struct step *s = &a.pending[i];
        int64_t lo = INT64_MAX, hi = 0;
        for (j = i; j < a.npending && a.pending[j].name == s->name; j++) {
            int64_t d = a.pending[j].end_ns - a.pending[j].start_ns;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
        }
        int64_t v[] = { s->name, s->idx, j - i, s->start_ns, a.pending[j - 1].end_ns, lo, hi };
        step_row(a.put_step, v, 7);
    }
    a.npending = 0;
    int64_t beat[] = { (int64_t)gt_mono_ns() };
    step_row(a.beat, beat, 1);
    gt_db_commit(a.disk);
}
