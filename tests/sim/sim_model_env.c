/* sim_model_env.c: the simulator's timing model, as the environment may
 * set it for a test: GPUSIM_NCCL_GBPS, the bandwidth collectives are
 * modelled at (default 50 GB/s; docs/simulator.md).  Tests that need a
 * collective to last long enough to measure (the twin-fix cost check) set
 * it lower, instead of moving hundreds of MiB.  GPUSIM_MALLOC_US, the host
 * time of an allocation: a real driver maps the pages of a device or
 * pinned allocation inside the call (milliseconds for large buffers),
 * which the simulator's host malloc does not; off by default.
 * GPUSIM_COPY_SLOWDOWN, how many times slower than the default rates
 * every copy moves its bytes (1 by default): a simulated copy is a host
 * memmove, which a copy engine's DMA is not, and four ranks moving 16 MiB
 * each at once on two cores delayed every rank's kernels by milliseconds
 * (the kernels' threads waited to be scheduled); a test that needs a copy
 * long enough to measure moves fewer bytes, more slowly. */
#include "sim_model_env.h"

#include <stdlib.h>

double sim_nccl_gbps(void)
{
    static double gbps; /* read once: the same model for the whole run */
    if (!gbps) {
        const char *v = getenv("GPUSIM_NCCL_GBPS");
        double x = v && *v ? strtod(v, NULL) : 0;
        gbps = x > 0.001 && x < 1e6 ? x : 50.0;
    }
    return gbps;
}

long sim_malloc_us(void)
{
    static long us = -1; /* read once, as the bandwidth is */
    if (us < 0) {
        const char *v = getenv("GPUSIM_MALLOC_US");
        long x = v && *v ? strtol(v, NULL, 10) : 0;
        us = x > 0 && x < 10000000 ? x : 0;
    }
    return us;
}

unsigned sim_copy_slowdown(void)
{
    static unsigned n; /* read once, as the bandwidth is */
    if (!n) {
        const char *v = getenv("GPUSIM_COPY_SLOWDOWN");
        long x = v && *v ? strtol(v, NULL, 10) : 0;
        n = x > 1 && x <= 1000 ? (unsigned)x : 1;
    }
    return n;
}
