/* clock.h: the tracer's clock.
 *
 * Everything in one process is on CLOCK_MONOTONIC nanoseconds.  The wrapper
 * fast path only reads raw ticks: the invariant TSC where the CPU has one
 * (12 to 22 ns a read where measured, against 27 ns for clock_gettime on
 * kvm-clock), else clock_gettime itself.  The writer thread converts ticks
 * to nanoseconds with a calibration it refreshes (gt_clock_recalibrate), so
 * conversion is never on the application's threads; a tick converts to the
 * same ns whenever it is converted, and later ticks never to earlier ns.
 */
#ifndef GPUTRACE_CLOCK_H
#define GPUTRACE_CLOCK_H

#include "collector/visibility.h"

#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#endif

extern GT_INTERNAL int gt_clock_use_tsc; /* set once by gt_clock_init, read-only after */

static inline uint64_t gt_mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t gt_ticks(void)
{
#ifdef GT_BENCH_COUNTER_CLOCK
    /* bench/run.sh's second build only, never a product one: a thread's
     * counter in place of the clock, to show what the wrapper costs
     * without its clock reads, beside the real build */
    static _Thread_local __attribute__((tls_model("initial-exec"))) uint64_t counter;
    if (gt_clock_use_tsc)
        return counter += 1000;
#endif
#if defined(__x86_64__) || defined(__i386__)
    if (gt_clock_use_tsc)
        return __rdtsc();
#endif
    return gt_mono_ns();
}

/* Chooses the tick source (force_mono: never the TSC) and takes the first
 * calibration point; a map made before in this address space (a forked
 * child's parent's) of the same tick source is kept. */
void gt_clock_init(int force_mono);
/* Takes a new calibration point (at most every 10 ms; one read across a
 * preemption is not taken); call from the writer thread. */
void gt_clock_recalibrate(void);
/* The map's first two points, and a point read elsewhere: what init and
 * recalibrate take, given (tests/unit/test_clock.c). */
void gt_clock_start_at(uint64_t t0, uint64_t n0, uint64_t t1, uint64_t n1);
void gt_clock_add_point(uint64_t ticks, uint64_t ns);
/* Ticks to CLOCK_MONOTONIC ns; any thread. */
uint64_t gt_ticks_to_ns(uint64_t ticks);
/* Now, converted the same way: CUPTI's timestamp callback, so that GPU and
 * host records share one time base exactly. */
uint64_t gt_clock_now_ns(void);
/* "tsc" or "clock_gettime". */
const char *gt_clock_source(void);
/* CLOCK_REALTIME - CLOCK_MONOTONIC, in ns, now. */
int64_t gt_clock_realtime_offset(void);

#endif
