/* wrap_cupti.c: the CUPTI calls by which a program starts a profiler of its
 * own (torch.profiler's Kineto), wrapped so that the tracer steps aside
 * before the program's call happens (collector/cupti_sub.h,
 * gt_cupti_hand_over).
 *
 * CUPTI is one per process: one set of buffer callbacks, one timestamp
 * callback, one callback subscriber.  Kineto registers its own of each at
 * a profiling session's start (its clock: raw TSC ticks) and disables its
 * kinds at the stop, so, untouched, a traced program's profiler would get
 * our buffers and kinds too and we its clock, silently.  Wrapped: before
 * the program registers buffer callbacks or a timestamp callback, enables a
 * kind or finalizes CUPTI, our records are flushed and our kinds turned
 * off, and the file says where our GPU records pause (what it asks for,
 * and its disables, are kept for a hand-over that comes after its calls);
 * after a forced flush of its with none of its kinds on (its stop), CUPTI
 * is taken back; before it subscribes to callbacks, the subscriber we hold
 * (injected, static runtime) is let go.  Around the real call, its result
 * and errno as they were.  The
 * tracer's own CUPTI calls go through the pointers it looked up in CUPTI
 * itself (cupti_sub.c), never through these.  Kineto in PyTorch's wheels
 * links libcupti dynamically, so its calls bind here; a CUPTI linked
 * statically into the program is out of reach (docs/loading.md).
 */
#define _GNU_SOURCE
#include "collector/cupti_sub.h"
#include "collector/say.h"
#include "libtrace/real.h"

#include <cupti.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>

/* The definition the caller would have bound to (real.h,
 * gt_next_definition): the global scope's is kept; a CUPTI that only the
 * caller's own scope holds (a plugin opened RTLD_LOCAL with its runtime and
 * CUPTI: its references now bind to our global definitions first), or
 * another loaded object's, is looked up each time. */
static void *next_of(void *_Atomic *slot, const char *name, const void *caller)
{
    void *p = atomic_load_explicit(slot, memory_order_acquire);
    if (p)
        return p;
    void *global = gt_sys_dlsym(RTLD_NEXT, name);
    if (global && !gt_is_ours(global)) {
        atomic_store_explicit(slot, global, memory_order_release);
        return global;
    }
    return gt_next_definition(name, caller);
}

#define NEXT(name)                                                                                   \
    static void *_Atomic next_##name;                                                                \
    __typeof__(&name) real =                                                                         \
        (__typeof__(&name))next_of(&next_##name, #name, __builtin_return_address(0));                \
    if (!real)                                                                                       \
        return CUPTI_ERROR_NOT_INITIALIZED

/* Steps aside, saying so the first time; errno as the program left it. */
static void step_aside(const char *what)
{
    static _Atomic int said;
    int saved = errno;
    if (gt_cupti_hand_over() && !atomic_exchange(&said, 1))
        gt_tell("the program called %s (a profiler of its own, such as torch.profiler): its profiler "
                "gets CUPTI, and this process's GPU records pause until it stops", what);
    errno = saved;
}

CUptiResult CUPTIAPI cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc requested,
                                                    CUpti_BuffersCallbackCompleteFunc completed)
{
    NEXT(cuptiActivityRegisterCallbacks);
    gt_cupti_program_asks(requested, completed, NULL, 0);
    step_aside("cuptiActivityRegisterCallbacks");
    return real(requested, completed);
}

CUptiResult CUPTIAPI cuptiActivityRegisterTimestampCallback(CUpti_TimestampCallbackFunc stamp)
{
    NEXT(cuptiActivityRegisterTimestampCallback);
    gt_cupti_program_asks(NULL, NULL, stamp, 0);
    step_aside("cuptiActivityRegisterTimestampCallback");
    return real(stamp);
}

CUptiResult CUPTIAPI cuptiActivityEnable(CUpti_ActivityKind kind)
{
    NEXT(cuptiActivityEnable);
    gt_cupti_program_asks(NULL, NULL, NULL, (int)kind);
    step_aside("cuptiActivityEnable");
    return real(kind);
}

/* Not a hand-over: the program's kinds as they stand, for one that comes
 * after (gt_cupti_program_asks).  While CUPTI is the tracer's, the
 * program has no kind on (its first enable hands CUPTI over): a disable
 * of one of the tracer's kinds, a no-op untraced, would turn the tracer's
 * off, so it is not passed on (CUPTI's answer to it: success). */
CUptiResult CUPTIAPI cuptiActivityDisable(CUpti_ActivityKind kind)
{
    NEXT(cuptiActivityDisable);
    gt_cupti_program_asks(NULL, NULL, NULL, -(int)kind);
    if (gt_cupti_ours_on((int)kind))
        return CUPTI_SUCCESS;
    return real(kind);
}

/* Per context: a hand-over as an enable is; the (context, kind) pairs
 * kept apart from the kinds enabled for all (a forced flush takes CUPTI
 * back only with none on for any context either).  A disable of a pair
 * the program did not enable, of a kind the tracer has on, is not passed
 * on, as cuptiActivityDisable's (a context's setting overrides the global
 * one: it would turn the tracer's records of that context off). */
CUptiResult CUPTIAPI cuptiActivityEnableContext(CUcontext context, CUpti_ActivityKind kind)
{
    NEXT(cuptiActivityEnableContext);
    int had = gt_cupti_program_context(context, (int)kind, 1);
    step_aside("cuptiActivityEnableContext");
    CUptiResult r = real(context, kind);
    if (r != CUPTI_SUCCESS && !had) {
        int saved = errno;
        gt_cupti_program_context(context, (int)kind, 0);
        errno = saved;
    }
    return r;
}

CUptiResult CUPTIAPI cuptiActivityDisableContext(CUcontext context, CUpti_ActivityKind kind)
{
    NEXT(cuptiActivityDisableContext);
    if (!gt_cupti_program_context(context, (int)kind, -1) && gt_cupti_ours_on((int)kind))
        return CUPTI_SUCCESS;
    CUptiResult r = real(context, kind);
    if (r == CUPTI_SUCCESS) {
        int saved = errno;
        gt_cupti_program_context(context, (int)kind, 0);
        errno = saved;
    }
    return r;
}

/* The program's profiler stops with a forced flush, its kinds off
 * (Kineto: disable, then the flush that hands it its buffers): the tracer
 * takes CUPTI back after it (gt_cupti_take_back), until the next session
 * hands it over again. */
CUptiResult CUPTIAPI cuptiActivityFlushAll(uint32_t flag)
{
    NEXT(cuptiActivityFlushAll);
    CUptiResult r = real(flag);
    if (r == CUPTI_SUCCESS && (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED)) {
        static _Atomic int said;
        int saved = errno;
        if (gt_cupti_take_back() && !atomic_exchange(&said, 1))
            gt_tell("the program's own profiler stopped (its activity kinds off, its buffers flushed): the "
                    "tracer takes CUPTI back, and this process's GPU records go on");
        errno = saved;
    }
    return r;
}

/* Marked first: the hand-over then calls CUPTI for nothing (CUPTI's
 * header has a client call it from a CUDA call's exit callback, where a
 * flush of ours could deadlock; Kineto's teardown does so, after a forced
 * flush that may have given CUPTI back to us), and its records of ours
 * then are CUPTI's to flush or drop. */
CUptiResult CUPTIAPI cuptiFinalize(void)
{
    NEXT(cuptiFinalize);
    gt_cupti_program_finalizes();
    step_aside("cuptiFinalize");
    return real();
}

CUptiResult CUPTIAPI cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata)
{
    NEXT(cuptiSubscribe);
    int saved = errno;
    if (gt_cupti_let_go_callbacks())
        gt_tell("the program subscribed to CUPTI's callbacks (a profiler of its own): the tracer lets its "
                "subscriber go, and the syncs and copies no wrapper sees have no call site from here");
    errno = saved;
    return real(subscriber, callback, userdata);
}
