/* sim_inject.c: the driver's injection hook.  When the CUDA driver
 * initialises, it loads the library named by CUDA_INJECTION64_PATH and
 * calls its `int InitializeInjection(void)` (how Nsight Systems and CUPTI's
 * injection samples attach to any CUDA process, a statically linked runtime
 * included).  The simulator does the same at its first API call, before
 * that call's CUPTI record is begun, so that the call is seen.
 *
 * The injected library may call back into the runtime while it
 * initialises: a call from the initialising thread goes straight on; other
 * threads do not wait for it (the real driver would hold them briefly).
 */
#define _GNU_SOURCE
#include "sim_internal.h"

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

void sim_driver_init(void)
{
    static atomic_int state; /* 0: not yet, 1: initialising, 2: done */
    if (atomic_load_explicit(&state, memory_order_acquire) == 2)
        return;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&state, &expected, 1))
        return;
    const char *path = getenv("CUDA_INJECTION64_PATH");
    if (path && *path) {
        void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        int (*init)(void) = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
        if (!init)
            fprintf(stderr, "gpusim: CUDA_INJECTION64_PATH=%s: %s\n", path,
                    h ? "no InitializeInjection" : dlerror());
        else
            init();
    }
    atomic_store_explicit(&state, 2, memory_order_release);
}
