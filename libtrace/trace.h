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
 * one clock read (TSC where invariant) at the start, a second at the end
 * only for the calls whose end the tracer must know itself (GT_F_END
 * below), a thread-local ring append, and a
 * stack capture only for the calls that need one (C frames, cached; Python
 * frames when the thread holds the GIL).  A thread-local guard
 * keeps calls made by the tracer itself, or made inside a traced call, from
 * being recorded again.
 */
#ifndef GPUTRACE_TRACE_H
#define GPUTRACE_TRACE_H

#include "collector/visibility.h"

#include "format/api_ids.h"
#include "collector/callsite.h"
#include "collector/clock.h"
#include "collector/cupti_sub.h"
#include "collector/pyframes.h"
#include "format/record.h"
#include "collector/state.h"
#include "collector/tbuf.h"

#include <errno.h>
#include <string.h>

/* What a wrapper holds across the real call: as little as can be, since
 * each value kept is a register saved and restored around it.  The ring is
 * found again from the thread's state after the call. */
struct gt_call {
    struct gt_record *r;    /* the ring slot being filled (or a scratch record) */
    struct gt_record *nccl; /* NCCL calls (GT_F_NCCL): their GT_REC_NCCL slot; NULL otherwise */
    unsigned timed;         /* its end is read (GT_F_END): a constant where the wrapper's api is */
};

extern GT_TLS struct gt_record gt_scratch[2]; /* used when the ring is full */
/* GT_F_END: the call's end is read from the clock when it returns.  Not
 * for the calls a program makes at a high rate that return within
 * microseconds without waiting for the GPU (launches, event records and
 * queries, stream queries and waits, async memsets: the classes below
 * without GT_F_BLOCK): the second read was two fifths of what the wrapper
 * added to such a call (57 ns with it, 33 without: bench/run.sh, section
 * 1).  Their record's t_end stays 0, stored as an
 * end equal to the start ("not measured", docs/tracer-guarantees.md), and
 * the report takes the length from CUPTI's record of the call
 * (viewer/read/correlate.c).  Blocking calls, and the rare calls whose
 * length the analyses read with no CUPTI record to take it from (NCCL's,
 * allocation, device set-up) keep it. */
#define GT_F_END 0x80u
#define GT_CLASS_END_stream 0u
#define GT_CLASS_END_event 0u
#define GT_CLASS_END_launch 0u
#define GT_CLASS_END_copy 0u
#define GT_CLASS_END_sync GT_F_END
#define GT_CLASS_END_memory GT_F_END
#define GT_CLASS_END_device GT_F_END
#define GT_CLASS_END_nccl GT_F_END
_Static_assert(!((GT_F_STACK | GT_F_BLOCK | GT_F_NCCL | GT_F_XCORR) & GT_F_END), "GT_F_END is free in api_ids.h");

/* In every file, so that each wrapper's flags (its api is a constant) are
 * known when it is compiled: what a call does not need is not in its code */
static const unsigned char gt_api_flags[GT_API_COUNT] = {
#define X(name, cls, flags) [GT_API_##name] = (flags) | ((flags) & GT_F_BLOCK ? GT_F_END : GT_CLASS_END_##cls),
    GT_API_LIST(X)
#undef X
};
extern GT_INTERNAL int gt_stack_depth;
/* NVTX records made inside a wrapped call (NCCL marks its own calls): the
 * call's slot is reserved and not yet committed, so they wait here until
 * gt_exit has committed it (nvtx_inject.c). */
#define GT_NVTX_PENDING 8
void gt_nvtx_flush_pending(struct gt_tbuf *b);

/* Slow path: the first wrapped call of the process.  Returns 1 when tracing. */
int gt_activate(void);
/* Slow path: work owed after the first real call returned (atexit order). */
void gt_after_first_call(void);
extern GT_INTERNAL _Atomic int gt_first_call_done;

/* from_runtime: the call is seen in a CUPTI callback (cupti_calls.c), not
 * by a wrapper: its stack is taken whole and marked, the runtime's frames
 * above the program's to be cut when it is written (a callback's return
 * address is CUPTI's, the same for every call site, so no cache). */
static inline __attribute__((always_inline)) int gt_enter_mode(struct gt_call *c, enum gt_api api, int from_runtime)
{
    if (__builtin_expect(gt_thread.guard, 0)) {
        /* a signal handler's call in the middle of an NVTX event of this
         * thread, whose ring is not to be touched now: counted */
        if (gt_thread.guard == GT_GUARD_NVTX)
            atomic_fetch_add_explicit(&gt_thread.tbuf->dropped, 1, memory_order_relaxed);
        return 0;
    }
    /* in a callback, CUPTI's record of the call began before it: the call
     * starts before anything else is done (a ring's first use, the stack),
     * so that the two coincide */
    uint64_t t_callback = from_runtime ? gt_ticks() : 0;
    /* Nothing on this path touches errno: the slow paths (activation, a
     * ring's first use, an unwind) save and restore it themselves. */
    if (__builtin_expect(!gt_tracing(), 0) && !gt_activate())
        return 0;
    struct gt_tbuf *b = gt_tbuf_mine();
    if (__builtin_expect(!b, 0))
        return 0;
    /* from here on the ring's next slot is this call's: an NVTX event of a
     * signal handler that comes in now waits (nvtx_inject.c) instead of
     * taking the slot too */
    gt_thread.guard = 1;
    unsigned f = gt_api_flags[api];
    uint32_t callsite = 0, pystack = 0;
    if (f & GT_F_STACK) {
        if (gt_stack_depth) {
            char here;
            callsite = from_runtime ? gt_callsite_capture_runtime(gt_stack_depth)
                                    : gt_callsite_cached((uintptr_t)__builtin_return_address(0), (uintptr_t)&here,
                                                         gt_stack_depth);
        }
        /* Python frames cannot be cached by C return address: the
         * interpreter reaches a C function from every Python line through
         * the same C frames */
        if (gt_py_depth)
            pystack = gt_pystack_capture();
    }
    uint32_t call_seq = ++gt_thread.calls;
    uint64_t t0 = from_runtime ? t_callback : gt_ticks();
    if (f & GT_F_BLOCK) {
        /* the start mark goes first, so that it is visible while we block */
        struct gt_record *m = gt_tbuf_reserve(b);
        if (m) {
            gt_record_clear(m);
            m->type = GT_REC_MARK;
            m->api = (uint16_t)api;
            m->callsite = callsite;
            m->pystack = pystack;
            m->call_seq = call_seq;
            m->t_start = t0;
            gt_tbuf_commit(b);
        }
    }
    unsigned n = 1 + ((f & GT_F_NCCL) != 0);
    struct gt_record *r = gt_tbuf_reserve_n(b, n);
    c->r = r ? r : &gt_scratch[0];
    c->nccl = NULL;
    /* a call seen in CUPTI's callback keeps its end: its record brackets
     * the call, and the time join takes it by both ends */
    c->timed = (f & GT_F_END) || from_runtime;
    gt_record_clear(c->r);
    if (__builtin_expect(!r, 0))
        c->r->flags = GT_RF_SCRATCH;
    if (f & GT_F_NCCL) {
        c->nccl = r ? gt_tbuf_slot(b, 1) : &gt_scratch[1];
        gt_record_clear(c->nccl);
        c->nccl->type = GT_REC_NCCL;
        c->r->flags |= GT_RF_NCCL;
    }
    c->r->type = GT_REC_CALL;
    c->r->api = (uint16_t)api;
    c->r->callsite = callsite;
    c->r->pystack = pystack;
    c->r->call_seq = call_seq;
    c->r->t_start = t0;
    /* a blocking call (GT_F_XCORR): CUPTI's records of it will carry its id
     * (ext_corr), the report's exact join.  Pushed last, after its start,
     * so that nothing CUPTI records of the call lies outside it.  Not from
     * a callback: CUPTI's record of that call was begun already. */
    if ((f & GT_F_XCORR) && !from_runtime && gt_cupti_active()) {
        c->r->flags |= GT_RF_XCORR;
        gt_cupti_push_external(GT_XCORR_TAG | ((uint64_t)b->tid << 32) | call_seq);
    }
    return 1;
}

static inline __attribute__((always_inline)) int gt_enter(struct gt_call *c, enum gt_api api)
{
    return gt_enter_mode(c, api, 0);
}

static inline __attribute__((always_inline)) int gt_enter_from_runtime(struct gt_call *c, enum gt_api api)
{
    return gt_enter_mode(c, api, 1);
}

/* The call's id: unique in the process, the external correlation id. */
static inline uint64_t gt_call_id(const struct gt_call *c)
{
    return ((uint64_t)gt_thread.tbuf->tid << 32) | c->r->call_seq;
}

static inline __attribute__((always_inline)) void gt_exit(struct gt_call *c, int result)
{
    if (__builtin_expect(c->r->flags & GT_RF_XCORR, 0)) /* popped before its end, as pushed after its start */
        gt_cupti_pop_external();
    if (c->timed) /* else t_end stays 0: not measured (GT_F_END) */
        c->r->t_end = gt_ticks();
    c->r->result = result;
    struct gt_tbuf *b = gt_thread.tbuf;
    if (__builtin_expect(!(c->r->flags & GT_RF_SCRATCH), 1))
        gt_tbuf_commit_n(b, c->nccl ? 2 : 1);
    if (__builtin_expect(gt_thread.nvtx_pending, 0))
        gt_nvtx_flush_pending(b);
    gt_thread.guard = 0;
    if (__builtin_expect(!atomic_load_explicit(&gt_first_call_done, memory_order_relaxed), 0)) {
        int saved_errno = errno;
        gt_after_first_call();
        errno = saved_errno;
    }
}

#endif
