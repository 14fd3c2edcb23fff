/* py_kernels.c: kernels for the Python workloads (tests/apps/py_*.py).  The
 * simulator runs a kernel as an exported host function on its stream's
 * thread; these must be C, since a Python one would need the GIL that the
 * caller holds while it waits for the stream. */
#include <time.h>

void py_busy_kernel(void **args);

/* args[0] points to the microseconds to spend. */
void py_busy_kernel(void **args)
{
    int us = *(const int *)args[0];
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}
