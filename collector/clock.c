/* clock.c: tick calibration (see clock.h).
 *
 * Calibration points (ticks, ns) are read back to back.  Ticks convert
 * through a piecewise-linear map: one segment per point taken, each
 * starting where the map before it had got to at that tick, so that the
 * map is continuous, and fixed once made, so that a tick converts to the
 * same ns whenever it is converted.  Why: the writer converts a thread's
 * records when it drains them, a cycle at a time, and recalibrates
 * between cycles; the map it had used, the latest point and the long-run
 * rate, moved by the new point's error (6 ns on average, up to 90 ns seen
 * here) between two records of one thread made tens of ns apart, and the
 * later call was stored starting inside the earlier one (a Chrome trace
 * with two crossing cudaMalloc slices, which Perfetto drops).
 *
 * A segment starts at its point's tick on the map before it and runs at
 * the long-run rate (the first point to this one), less the gap between
 * the map and the point's time spread over SLEW_NS: the map meets each
 * point's line SLEW_NS after it, and never runs slower than half the rate,
 * so it only goes forward.  Points are taken at most every MIN_SPAN_NS and
 * kept for SEGS of them, over ten seconds, for records drained late (older
 * ticks use the oldest kept, extended).  Conversions happen on the writer
 * thread (host records) and on CUPTI's threads (its timestamp callback),
 * so that GPU and host times come from one map and agree to the
 * nanosecond; the segments are published under a sequence counter.
 */
#include "collector/clock.h"
#include <cpuid.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>

#define SEGS 1024                /* a power of two */
#define MIN_SPAN_NS 10000000ll   /* a point at most every 10 ms */
#define SLEW_NS 10000000.0       /* a point's gap to the map closed over 10 ms */
#define MAX_BRACKET_NS 5000.0    /* a point read across a preemption is not taken */

int gt_clock_use_tsc;
static uint64_t tick0, ns0; /* the first point: the long-run rate runs from it */

/* A segment, as the bits of its fields (read by any thread, written by
 * the writer only): from tick on, ns + (x - tick) * rate - gap * max(0,
 * 1 - (x - tick) / slew), where ns is the point's own time and gap what
 * the map before it was short of it there. */
struct seg {
    _Atomic uint64_t tick, ns, rate, gap, slew;
};
static struct seg segs[SEGS];
static _Atomic uint64_t nsegs;
static _Atomic unsigned seq; /* odd while a segment is being written */

static uint64_t bits_of(double d)
{
    uint64_t b;
    memcpy(&b, &d, sizeof b);
    return b;
}

static double double_of(uint64_t b)
{
    double d;
    memcpy(&d, &b, sizeof d);
    return d;
}

struct seg_v {
    uint64_t tick;
    int64_t ns;
    double rate, gap, slew;
};

static int64_t map(const struct seg_v *s, uint64_t ticks)
{
    double dt = (double)(int64_t)(ticks - s->tick);
    double left = dt < 0 ? 1.0 : dt >= s->slew ? 0.0 : 1.0 - dt / s->slew;
    double d = dt * s->rate - s->gap * left;
    return s->ns + (int64_t)(d < 0 ? d - 0.5 : d + 0.5);
}

/* The sequence counter's two sides (a seqlock with fences, so that the
 * relaxed loads of a reader stay between its two reads of the counter). */
static unsigned read_begin(void)
{
    return atomic_load_explicit(&seq, memory_order_acquire);
}

static int read_retry(unsigned s)
{
    atomic_thread_fence(memory_order_acquire);
    return (s & 1) || atomic_load_explicit(&seq, memory_order_relaxed) != s;
}

static void write_begin(void)
{
    atomic_fetch_add_explicit(&seq, 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
}

static void write_end(void)
{
    atomic_fetch_add_explicit(&seq, 1, memory_order_release);
}

static uint64_t seg_tick(uint64_t i)
{
    return atomic_load_explicit(&segs[i % SEGS].tick, memory_order_relaxed);
}

/* The segment a tick converts through (the last that starts at or before
 * it; the oldest kept for a tick before them all); 0 before the first. */
static int segment_of(uint64_t ticks, struct seg_v *out)
{
    unsigned s;
    int found;
    do {
        s = read_begin();
        uint64_t n = atomic_load_explicit(&nsegs, memory_order_relaxed);
        found = n > 0;
        if (!found)
            continue;
        uint64_t oldest = n > SEGS ? n - SEGS : 0, i = n - 1;
        /* ticks drained soon after they were read: the newest or the one
         * before; a backlog's, searched (the writer's when it is behind) */
        if (ticks < seg_tick(i) && i > oldest && ticks < seg_tick(--i) && i > oldest) {
            uint64_t lo = oldest, hi = i - 1; /* the answer is in [lo, hi] */
            while (lo < hi) {
                uint64_t mid = lo + (hi - lo + 1) / 2;
                if (seg_tick(mid) <= ticks)
                    lo = mid;
                else
                    hi = mid - 1;
            }
            i = lo;
        }
        const struct seg *g = &segs[i % SEGS];
        out->tick = atomic_load_explicit(&g->tick, memory_order_relaxed);
        out->ns = (int64_t)atomic_load_explicit(&g->ns, memory_order_relaxed);
        out->rate = double_of(atomic_load_explicit(&g->rate, memory_order_relaxed));
        out->gap = double_of(atomic_load_explicit(&g->gap, memory_order_relaxed));
        out->slew = double_of(atomic_load_explicit(&g->slew, memory_order_relaxed));
    } while (read_retry(s));
    return found;
}

static int tsc_is_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1;
#else
    return 0;
#endif
}

/* A point: the tighter of two reads brackets the pair best; *width, the
 * bracket in ticks. */
static void point(uint64_t *t, uint64_t *n, uint64_t *width)
{
    uint64_t a = gt_ticks(), m = gt_mono_ns(), b = gt_ticks();
    uint64_t a2 = gt_ticks(), m2 = gt_mono_ns(), b2 = gt_ticks();
    if (b2 - a2 < b - a) {
        a = a2; b = b2; m = m2;
    }
    *t = a + (b - a) / 2;
    *n = m;
    *width = b - a;
}

/* Segment k's fields (the writer, between write_begin and write_end). */
static void store(uint64_t k, uint64_t t, int64_t n, double rate, double gap, double slew)
{
    struct seg *g = &segs[k % SEGS];
    atomic_store_explicit(&g->tick, t, memory_order_relaxed);
    atomic_store_explicit(&g->ns, (uint64_t)n, memory_order_relaxed);
    atomic_store_explicit(&g->rate, bits_of(rate), memory_order_relaxed);
    atomic_store_explicit(&g->gap, bits_of(gap), memory_order_relaxed);
    atomic_store_explicit(&g->slew, bits_of(slew), memory_order_relaxed);
    atomic_store_explicit(&nsegs, k + 1, memory_order_relaxed);
}

void gt_clock_start_at(uint64_t t0, uint64_t n0, uint64_t t1, uint64_t n1)
{
    double rate = t1 > t0 && n1 > n0 ? (double)(n1 - n0) / (double)(t1 - t0) : 1.0;
    write_begin();
    tick0 = t0;
    ns0 = n0;
    store(0, t0, (int64_t)n0, rate, 0, 1);
    write_end();
}

/* A point (t, n) as a new segment.  from_now: the segment starts at a
 * tick read once readers are held off, not at t: a tick after t that a
 * CUPTI thread converted between the point's reading and here (through
 * the segment before, the writer preempted meanwhile) converts to the
 * same ns afterwards too.  Its map starts where the one before is there
 * and closes the gap to the point's line (rate from the first point). */
static void add_point(uint64_t t, uint64_t n, int from_now)
{
    struct seg_v last;
    if (!segment_of(UINT64_MAX, &last) || t <= last.tick || t <= tick0 || n <= ns0 ||
        (int64_t)(n - (uint64_t)last.ns) < MIN_SPAN_NS)
        return;
    double rate = (double)(n - ns0) / (double)(t - tick0);
    uint64_t k = atomic_load_explicit(&nsegs, memory_order_relaxed);
    write_begin();
    uint64_t at = from_now ? gt_ticks() : t;
    if (at < t)
        at = t;
    double ahead = (double)(at - t) * rate;
    int64_t line = (int64_t)n + (int64_t)(ahead + 0.5);
    double gap = (double)(line - map(&last, at));
    /* the map never runs slower than half the rate: forward only */
    double least = 2 * (gap < 0 ? -gap : gap);
    store(k, at, line, rate, gap, (least > SLEW_NS ? least : SLEW_NS) / rate);
    write_end();
}

void gt_clock_add_point(uint64_t t, uint64_t n)
{
    add_point(t, n, 0);
}

void gt_clock_init(int force_mono)
{
    int tsc = !force_mono && tsc_is_invariant();
    /* a map already made in this address space, of the same ticks: a
     * forked child's, made by its parent over its whole run (the TSC is
     * the machine's), kept; a new one would start from a 1 ms span.  Not
     * one caught mid-write at the fork (its sequence odd): made anew */
    unsigned s = atomic_load(&seq);
    if (atomic_load(&nsegs) && tsc == gt_clock_use_tsc && !(s & 1))
        return;
    /* the sequence even again before the map is made anew: a child that
     * caught it odd (its parent's writer mid-write) kept it odd through
     * gt_clock_start_at's two steps, and every conversion spun forever
     * (no other thread reads it yet: a fresh process, or a forked child) */
    if (s & 1)
        atomic_fetch_add(&seq, 1);
    gt_clock_use_tsc = tsc;
    uint64_t t0, n0, w;
    point(&t0, &n0, &w);
    if (gt_clock_use_tsc) {
        /* a first span of 1 ms, so that conversions work from the start:
         * slept, not spun (a millisecond of CPU a process); a signal's
         * interruption sleeps the rest, errno as it was */
        int saved = errno;
        for (uint64_t n; (n = gt_mono_ns() - n0) < 1000000;) {
            struct timespec rest = { 0, (long)(1000000 - n) };
            nanosleep(&rest, NULL);
        }
        errno = saved;
    }
    uint64_t t1, n1;
    point(&t1, &n1, &w);
    gt_clock_start_at(t0, n0, t1, n1);
}

void gt_clock_recalibrate(void)
{
    if (!gt_clock_use_tsc)
        return;
    uint64_t t, n, width;
    point(&t, &n, &width);
    struct seg_v last;
    if (segment_of(UINT64_MAX, &last) && (double)width * last.rate <= MAX_BRACKET_NS)
        add_point(t, n, 1);
}

uint64_t gt_ticks_to_ns(uint64_t ticks)
{
    if (!gt_clock_use_tsc)
        return ticks;
    struct seg_v s;
    if (!segment_of(ticks, &s))
        return ticks; /* unreachable after init */
    return (uint64_t)map(&s, ticks);
}

uint64_t gt_clock_now_ns(void)
{
    return gt_ticks_to_ns(gt_ticks());
}

const char *gt_clock_source(void)
{
    return gt_clock_use_tsc ? "tsc" : "clock_gettime";
}

int64_t gt_clock_realtime_offset(void)
{
    struct timespec r, m;
    clock_gettime(CLOCK_REALTIME, &r);
    clock_gettime(CLOCK_MONOTONIC, &m);
    return ((int64_t)r.tv_sec - (int64_t)m.tv_sec) * 1000000000ll + ((int64_t)r.tv_nsec - (int64_t)m.tv_nsec);
}
