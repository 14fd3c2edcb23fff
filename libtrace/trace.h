/* trace.h: the one shape of every wrapper.
 *
 *   struct gt_call c;
 *   if (!gt_enter(&c, GT_API_x))          // not tracing: one load, one branch
 *       return REAL(x)(args...);
 *   ...fill c.r fields known before the call...
 *   rc = REAL(x)(args...);
 *   gt_exit(&c, rc);                      // stamps, appends, restores errno
 *   return rc;
 *
 * The fast path takes no lock, allocates nothing and makes no system call:
 * two clock reads (TSC where invariant), a thread-local ring append, and a
 * stack capture only for the calls that need one (C frames, cached; Python
 * frames when the thread holds the GIL).  A thread-local guard
 * keeps calls made by the tracer itself, or made inside a traced call, from
 * being recorded again.
 */
#ifndef GPUTRACE_TRACE_H
#define GPUTRACE_TRACE_H

#include "collector/visibility.h"

#include "collector/api_ids.h"
#include "collector/callsite.h"
#include "collector/clock.h"
#include "collector/pyframes.h"
#include "collector/record.h"
#include "collector/state.h"
#include "collector/tbuf.h"

#include <errno.h>
#include <string.h>

struct gt_call {
    struct gt_record *r;   /* the ring slot being filled (or the scratch record) */
    struct gt_tbuf *buf;
    int reserved;          /* r is a ring slot, to be committed */
};

extern GT_TLS int gt_guard;
extern GT_TLS uint64_t gt_thread_calls;
extern GT_TLS struct gt_record gt_scratch; /* used when the ring is full */
extern GT_INTERNAL const unsigned char gt_api_flags[GT_API_COUNT];
extern GT_INTERNAL int gt_stack_depth;
/* NVTX records made inside a wrapped call (NCCL marks its own calls): the
 * call's slot is reserved and not yet committed, so they wait here until
 * gt_exit has committed it (nvtx_inject.c). */
#define GT_NVTX_PENDING 8
extern GT_TLS int gt_nvtx_npending;
void gt_nvtx_flush_pending(struct gt_tbuf *b);

/* Slow path: the first wrapped call of the process.  Returns 1 when tracing. */
int gt_activate(void);
/* Slow path: work owed after the first real call returned (atexit order). */
void gt_after_first_call(void);
extern GT_INTERNAL _Atomic int gt_first_call_done;

static inline __attribute__((always_inline)) int gt_enter(struct gt_call *c, enum gt_api api)
{
    if (__builtin_expect(gt_guard, 0))
        return 0;
    /* Nothing on this path touches errno: the slow paths (activation, a
     * ring's first use, an unwind) save and restore it themselves. */
    if (__builtin_expect(!gt_tracing(), 0) && !gt_activate())
        return 0;
    struct gt_tbuf *b = gt_tbuf_mine();
    if (__builtin_expect(!b, 0))
        return 0;
    unsigned f = gt_api_flags[api];
    uint32_t callsite = 0, pystack = 0;
    if (f & GT_F_STACK) {
        if (gt_stack_depth) {
            char here;
            callsite = gt_callsite_cached((uintptr_t)__builtin_return_address(0), (uintptr_t)&here, gt_stack_depth);
        }
        /* Python frames cannot be cached by C return address: the
         * interpreter reaches a C function from every Python line through
         * the same C frames */
        if (gt_py_depth)
            pystack = gt_pystack_capture();
    }
    uint64_t call_id = ((uint64_t)b->tid << 32) | ++gt_thread_calls;
    uint64_t t0 = gt_ticks();
    if (f & GT_F_BLOCK) {
        /* the start mark goes first, so that it is visible while we block */
        struct gt_record *m = gt_tbuf_reserve(b);
        if (m) {
            gt_record_clear(m);
            m->type = GT_REC_MARK;
            m->api = (uint16_t)api;
            m->tid = b->tid;
            m->callsite = callsite;
            m->pystack = pystack;
            m->call_id = call_id;
            m->t_start = t0;
            gt_tbuf_commit(b);
        }
    }
    struct gt_record *r = gt_tbuf_reserve(b);
    c->reserved = r != NULL;
    c->r = r ? r : &gt_scratch;
    c->buf = b;
    gt_record_clear(c->r);
    c->r->type = GT_REC_CALL;
    c->r->api = (uint16_t)api;
    c->r->tid = b->tid;
    c->r->callsite = callsite;
    c->r->pystack = pystack;
    c->r->call_id = call_id;
    c->r->t_start = t0;
    gt_guard = 1;
    return 1;
}

static inline __attribute__((always_inline)) void gt_exit(struct gt_call *c, int result)
{
    c->r->t_end = gt_ticks();
    c->r->result = result;
    if (__builtin_expect(c->reserved, 1))
        gt_tbuf_commit(c->buf);
    if (__builtin_expect(gt_nvtx_npending, 0))
        gt_nvtx_flush_pending(c->buf);
    gt_guard = 0;
    if (__builtin_expect(!atomic_load_explicit(&gt_first_call_done, memory_order_relaxed), 0)) {
        int saved_errno = errno;
        gt_after_first_call();
        errno = saved_errno;
    }
}

#endif
