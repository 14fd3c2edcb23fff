/* state.h: whether the tracer records, shared by libtrace and the writer.
 *
 *   GT_STATE_INIT -> GT_STATE_ACTIVATING -> GT_STATE_ON -> GT_STATE_OFF
 * Only the first wrapped call moves INIT to ACTIVATING (CAS); GT_STATE_OFF
 * is final for the process image (shutdown, or a failure that turned
 * tracing off), until a fork child or a failed exec starts over.  Read
 * with one relaxed load on every wrapped call.
 *
 * Defined here in the collector (state.c), the lower layer: the writer
 * turns it off when storing fails, libtrace (activate.c) moves it through
 * activation and shutdown; neither reaches up into the other for it.
 */
#ifndef GPUTRACE_STATE_H
#define GPUTRACE_STATE_H

#include "collector/visibility.h"

#include <stdatomic.h>

enum { GT_STATE_INIT = 0, GT_STATE_ACTIVATING = 1, GT_STATE_ON = 2, GT_STATE_OFF = 3 };

extern GT_INTERNAL _Atomic int gt_state;

static inline int gt_tracing(void)
{
    return atomic_load_explicit(&gt_state, memory_order_relaxed) == GT_STATE_ON;
}

/* Turns tracing off for good, printing why (once) unless quiet. */
void gt_turn_off(const char *why);

#endif
