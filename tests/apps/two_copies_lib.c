/* two_copies_lib.c: a stand-in CUDA runtime built twice, as two copies
 * with different sonames (COPY 1 and 2), each answering with its own
 * number, so that load_ways.c can tell which copy each caller reached.
 * A test double, like the simulator. */
#include <errno.h>

int cudaDeviceSynchronize(void)
{
    errno = 100 + COPY;
    return 10 * COPY + COPY; /* 11 or 22 */
}
