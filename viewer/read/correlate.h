/* correlate.h: matching a window's wrapped calls to CUPTI's API records
 * (correlate.c). */
#ifndef GPUTRACE_CORRELATE_H
#define GPUTRACE_CORRELATE_H

#include "viewer/read/cupti_calls.h"
#include "viewer/read/join_clock.h"
#include "viewer/model/model.h"

#include <stddef.h>

/* Gives each wrapped call of p the correlation id of the CUPTI record made
 * inside it: the one of its API that ext_corr rows (x, nx, sorted by id)
 * tie to the call's id, else the one of its API on its thread contained in
 * it in time, once the offset between the two clocks' conversions is taken
 * out.  Marks claimed every record that is a call's or was made for one
 * (tied to its id, nested in it, or mostly coinciding with it), and the
 * records nested in an unclaimed one: what stays unclaimed is a call CUPTI
 * alone saw (cupti_calls_add).  Puts the n records at a in (thread, start)
 * order, moved into the wrappers' clock by that offset. */
void correlate_calls(struct model *m, struct proc *p, struct cupti_rec *a, size_t n, const struct ext *x, size_t nx);

#endif
