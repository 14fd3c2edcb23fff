/* inject.c: the CUDA driver's injection entry point.  A process started
 * with CUDA_INJECTION64_PATH=libgputrace.so (gputrace record sets it) loads
 * the tracer when its driver initialises and calls InitializeInjection,
 * without LD_PRELOAD and whether or not the program links the runtime
 * dynamically: a program built with nvcc's default static cudart has no
 * dynamic CUDA symbol to interpose, and CUPTI's records are then the record
 * of its calls.  A process reached both ways (preloaded, then injected)
 * activates once: gt_activate is a no-op once tracing is on.
 */
#include "libtrace/trace.h"

int InitializeInjection(void)
{
    if (gt_activate())
        gt_after_first_call(); /* the exit-time flush, as after a first wrapped call */
    return 1;
}
