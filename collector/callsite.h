/* callsite.h: call stacks of wrapped calls, interned.
 *
 * A stack is captured as return addresses and interned in a fixed, lock-free
 * open-addressing table, so a call stores only a 32-bit id.  The writer
 * thread symbolises new stacks (dladdr: function and module+offset) as they
 * appear; file and line are the report's to find (collector/modules.h).
 */
#ifndef GPUTRACE_CALLSITE_H
#define GPUTRACE_CALLSITE_H

#include "format/schema.h"

#include <stddef.h>
#include <stdint.h>

/* Captures the caller's stack (the tracer's own frames left out) up to
 * `depth` frames and returns its id, or 0 if none could be kept. */
uint32_t gt_callsite_capture(int depth);

/* The same, through a per-thread cache keyed by the call's return address
 * and stack pointer: a loop calling from the same place through the same
 * chain of callers has both equal, and then no unwinding is needed (an
 * unwind costs microseconds, a cache hit nanoseconds).  Two different
 * chains reaching the same return address at the same stack pointer would
 * share an id; that is the price, and it is rare. */
#define GT_CS_CACHE 512
struct gt_cs_slot { uintptr_t ret, sp; uint32_t id; };
/* A pointer rather than the array itself: the thread's static TLS must stay
 * small, so that the library can also be loaded after start-up (the
 * driver's CUDA_INJECTION64_PATH dlopens it, and glibc keeps only a few
 * hundred bytes of static TLS for such libraries).  Mapped on a thread's
 * first captured stack. */
extern __thread __attribute__((tls_model("initial-exec"))) struct gt_cs_slot *gt_cs_cache;
struct gt_cs_slot *gt_cs_cache_make(void);

static inline __attribute__((always_inline)) uint32_t gt_callsite_cached(uintptr_t ret, uintptr_t sp, int depth)
{
    struct gt_cs_slot *cache = gt_cs_cache;
    if (__builtin_expect(!cache, 0) && !(cache = gt_cs_cache_make()))
        return gt_callsite_capture(depth);
    struct gt_cs_slot *e = &cache[((ret >> 2) ^ (sp >> 4)) & (GT_CS_CACHE - 1)];
    if (__builtin_expect(e->ret == ret && e->sp == sp && e->id, 1))
        return e->id;
    uint32_t id = gt_callsite_capture(depth);
    e->ret = ret;
    e->sp = sp;
    e->id = id;
    return id;
}
/* A stack taken inside a CUPTI callback: written with GT_CALLSITE_RUNTIME_MARK
 * (format/schema.h)
 * as its first line, for the report to cut CUPTI's, the driver's and the
 * runtime's frames above the API the program called once it has their
 * names (in a static binary only its symbol table has them). */
uint32_t gt_callsite_capture_runtime(int depth);
/* Writer side: calls fn(id, text) for every stack not reported before;
 * text is one frame per line, "function+0xoff (module+0xoff)" (dladdr:
 * cheap, done while the program runs). */
void gt_callsite_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx);
/* Forget what was reported (after fork: the child writes its own rows). */
void gt_callsite_reset_reported(void);
/* Loads the unwinder now, so that the first captured call does not, and
 * notes where the tracer's own code lies (its frames are cut from stacks). */
void gt_callsite_warm_up(void);

#endif
