/* cupti_order.h: the calls only CUPTI saw moved into their place, by
 * CUPTI's correlation order, among the joined calls of their thread. */
#ifndef GPUTRACE_CUPTI_ORDER_H
#define GPUTRACE_CUPTI_ORDER_H

#include "viewer/model/model.h"

#include <stddef.h>

/* p->calls[0 .. recorded) are the recorded calls (joined to CUPTI's
 * records where they have a correlation id), the rest those only CUPTI
 * saw, appended by cupti_calls_add: each of the latter that begins before
 * the joined call before it by correlation on its thread has ended, or
 * after the one after it began, is moved to that edge, as a point.  The calls'
 * time order is to be restored afterwards. */
void cupti_calls_order(struct proc *p, size_t recorded);

#endif
