/* correlate.h: matching a window's wrapped calls to CUPTI's API records
 * (correlate.c). */
#ifndef GPUTRACE_CORRELATE_H
#define GPUTRACE_CORRELATE_H

#include "viewer/read/cupti_calls.h"
#include "viewer/model/model.h"

#include <stddef.h>

/* Gives each wrapped call of p the correlation id of the CUPTI record made
 * inside it (same thread, contained in time, of its API), and marks
 * claimed every record that is a call's or was made for one (nested in it,
 * or mostly coinciding with it when the clocks drifted), and the records
 * nested in an unclaimed one: what stays unclaimed is a call CUPTI alone
 * saw (cupti_calls_add).  Puts the n records at a in (thread, start) order. */
void correlate_calls(struct model *m, struct proc *p, struct cupti_rec *a, size_t n);

#endif
