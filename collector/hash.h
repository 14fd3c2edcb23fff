/* hash.h: the one hash function of the tracer (FNV-1a, 64 bit): call
 * stacks, kernel names and communicator ids.  Not for anything secret. */
#ifndef GPUTRACE_HASH_H
#define GPUTRACE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GT_FNV_OFFSET 1469598103934665603ull

static inline uint64_t gt_fnv1a(const void *data, size_t n, uint64_t h)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

#endif
