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

/* A faster hash of whole 64-bit words (Python stacks: 16 frames are 128
 * bytes, and FNV-1a's byte-at-a-time chain costs about a nanosecond per
 * byte). */
static inline uint64_t gt_hash_words(const uint64_t *w, size_t n)
{
    uint64_t h = 0x9E3779B97F4A7C15ull ^ n;
    for (size_t i = 0; i < n; i++) {
        h ^= w[i] * 0xBF58476D1CE4E5B9ull;
        h = (h << 27 | h >> 37) * 0x94D049BB133111EBull;
    }
    return h ^ (h >> 31);
}

#endif
