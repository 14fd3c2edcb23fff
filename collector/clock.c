/* clock.c: tick calibration (see clock.h).
 *
 * Calibration points (ticks, ns) are read back to back; conversion uses the
 * first point and the latest one, so the rate gets more exact as the run
 * goes on.  The writer thread recalibrates; conversions happen on the
 * writer thread (host records) and on CUPTI's threads (its timestamp
 * callback), so that GPU and host times come from one conversion and agree
 * to the nanosecond.  The latest point is published under a sequence
 * counter.
 */
#include "collector/clock.h"

#include <cpuid.h>
#include <stdlib.h>
#include <string.h>

#include <stdatomic.h>

int gt_clock_use_tsc;
static uint64_t tick0, ns0;
static _Atomic uint64_t tick1, ns1;
/* ns per tick from the first point to the latest, as the bits of a double:
 * divided once per calibration, not once per record converted (the
 * division was a tenth of the writer's time at a million records a second,
 * and CUPTI's timestamp callback pays it on the program's threads) */
static _Atomic uint64_t rate_bits;
static _Atomic unsigned cal_seq; /* odd while the latest point is being written */

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

static void point(uint64_t *t, uint64_t *n)
{
    /* the tighter of two reads brackets the pair best */
    uint64_t a = gt_ticks(), m = gt_mono_ns(), b = gt_ticks();
    uint64_t a2 = gt_ticks(), m2 = gt_mono_ns(), b2 = gt_ticks();
    if (b2 - a2 < b - a) {
        a = a2; b = b2; m = m2;
    }
    *t = a + (b - a) / 2;
    *n = m;
}

void gt_clock_init(int force_mono)
{
    gt_clock_use_tsc = !force_mono && tsc_is_invariant();
    point(&tick0, &ns0);
    if (gt_clock_use_tsc) {
        /* a first span of 1 ms, so that conversions work from the start */
        while (gt_mono_ns() - ns0 < 1000000)
            ;
    }
    gt_clock_recalibrate();
}

void gt_clock_recalibrate(void)
{
    uint64_t t, n;
    point(&t, &n);
    double rate = t > tick0 && n > ns0 ? (double)(n - ns0) / (double)(t - tick0) : 0;
    uint64_t bits;
    memcpy(&bits, &rate, sizeof bits);
    atomic_fetch_add(&cal_seq, 1);
    atomic_store_explicit(&tick1, t, memory_order_relaxed);
    atomic_store_explicit(&ns1, n, memory_order_relaxed);
    atomic_store_explicit(&rate_bits, bits, memory_order_relaxed);
    atomic_fetch_add(&cal_seq, 1);
}

uint64_t gt_ticks_to_ns(uint64_t ticks)
{
    if (!gt_clock_use_tsc)
        return ticks;
    uint64_t t1, n1, bits;
    unsigned s;
    do {
        s = atomic_load(&cal_seq);
        t1 = atomic_load_explicit(&tick1, memory_order_relaxed);
        n1 = atomic_load_explicit(&ns1, memory_order_relaxed);
        bits = atomic_load_explicit(&rate_bits, memory_order_relaxed);
    } while ((s & 1) || atomic_load(&cal_seq) != s);
    double rate;
    memcpy(&rate, &bits, sizeof rate);
    if (!(rate > 0))
        return ns0 + (ticks - tick0) / 3; /* unreachable after init; a guess rather than a division by zero */
    return (uint64_t)((int64_t)n1 + (int64_t)((double)((int64_t)(ticks - t1)) * rate));
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
