/* clock.c: tick calibration (see clock.h).
 *
 * Calibration points (ticks, ns) are read back to back; conversion uses the
 * first point and the latest one, so the rate gets more exact as the run
 * goes on.  Only the writer thread recalibrates and converts; the points are
 * plain globals guarded by that (single-thread) use, except the first, which
 * is written before the writer starts.
 */
#include "collector/clock.h"

#include <cpuid.h>
#include <stdlib.h>

int gt_clock_use_tsc;
static uint64_t tick0, ns0, tick1, ns1;

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
    tick1 = tick0;
    ns1 = ns0;
}

void gt_clock_recalibrate(void)
{
    point(&tick1, &ns1);
}

uint64_t gt_ticks_to_ns(uint64_t ticks)
{
    if (!gt_clock_use_tsc)
        return ticks;
    if (tick1 <= tick0 || ns1 <= ns0) {
        /* no span yet: calibrate over a short busy wait */
        uint64_t start = gt_mono_ns();
        while (gt_mono_ns() - start < 2000000)
            ;
        gt_clock_recalibrate();
    }
    double rate = (double)(ns1 - ns0) / (double)(tick1 - tick0);
    return (uint64_t)((int64_t)ns1 + (int64_t)((double)((int64_t)(ticks - tick1)) * rate));
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
