/* inject.c: the CUDA driver's injection entry point.  A process started
 * with CUDA_INJECTION64_PATH=libgputrace.so (gputrace record sets it) loads
 * the tracer when its driver initialises and calls InitializeInjection,
 * without LD_PRELOAD and whether or not the program links the runtime
 * dynamically: a program built with nvcc's default static cudart has no
 * dynamic CUDA symbol to interpose, and CUPTI's records are then the record
 * of its calls.  A process reached both ways (preloaded, then injected)
 * activates once: gt_activate is a no-op once tracing is on.
 */
#define _GNU_SOURCE
#include "libtrace/cupti_calls.h"
#include "libtrace/nccl_profiler.h"
#include "libtrace/real.h"
#include "libtrace/trace.h"

#include <stdlib.h>
#include <string.h>

/* The entry point the CUDA driver calls in a library named by
 * CUDA_INJECTION64_PATH (no header declares it). */
int InitializeInjection(void);
int InitializeInjection(void)
{
    if (!gt_activate())
        return 1;
    gt_after_first_call(); /* the exit-time flush, as after a first wrapped call */
    /* No runtime the wrappers stand in front of (a static one, or this copy
     * was not preloaded, so nothing binds to its wrappers): the syncs,
     * copies and frees are then recorded from CUPTI's callbacks.  Only
     * then, since CUPTI has one callback subscriber per process, and a
     * profiler the program starts itself (torch.profiler) would be refused
     * it.  A preloaded copy stands in front of a dynamic runtime in any
     * scope, a plugin's RTLD_LOCAL one included. */
    gt_dlerror_keep();
    int preloaded = gt_in_global_scope("InitializeInjection", (void *)InitializeInjection);
    if (!preloaded)
        gt_nccl_plugin_arrange_injected(); /* the preloaded copy pointed NCCL at itself already */
    if (!preloaded || !gt_defined_elsewhere(GT_API_cudaStreamSynchronize)) {
        const char *q = getenv("GPUTRACE_QUIET");
        gt_cupti_calls_start(q && strcmp(q, "0") != 0);
    }
    gt_dlerror_clear();
    return 1;
}
