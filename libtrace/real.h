/* real.h: the real functions behind the wrappers, from dlsym(RTLD_NEXT).
 *
 * Resolved on first use and cached (one relaxed load afterwards).  A
 * symbol that cannot be found yields NULL; each wrapper then returns the
 * API's own "not available" error instead of crashing the program.
 */
#ifndef GPUTRACE_REAL_H
#define GPUTRACE_REAL_H

#include "collector/visibility.h"

#include "collector/api_ids.h"

void *gt_real_slow(enum gt_api api);
extern GT_INTERNAL void *gt_real_table[GT_API_COUNT];

static inline void *gt_real(enum gt_api api)
{
    void *p = __atomic_load_n(&gt_real_table[api], __ATOMIC_RELAXED);
    return __builtin_expect(p != 0, 1) ? p : gt_real_slow(api);
}

/* REAL(cudaFoo) has the type of cudaFoo. */
#define REAL(name) ((__typeof__(&name))gt_real(GT_API_##name))

#endif
