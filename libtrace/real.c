/* real.c: resolving the real functions (see real.h). */
#define _GNU_SOURCE
#include "libtrace/real.h"

#include <dlfcn.h>

static const char *const names[GT_API_COUNT] = {
#define X(name, cls, flags) [GT_API_##name] = #name,
    GT_API_LIST(X)
#undef X
};

void *gt_real_table[GT_API_COUNT];

void *gt_real_slow(enum gt_api api)
{
    void *p = dlsym(RTLD_NEXT, names[api]);
    if (p)
        __atomic_store_n(&gt_real_table[api], p, __ATOMIC_RELAXED);
    return p;
}
