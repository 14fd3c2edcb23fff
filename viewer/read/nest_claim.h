/* nest_claim.h: the CUPTI API records nested in one record on its thread
 * (the driver calls a runtime call made, an NCCL call's launches), found
 * without a scan of every record near it (nest_claim.c); correlate.c
 * claims them for the wrapped call that owns the outer record. */
#ifndef GPUTRACE_NEST_CLAIM_H
#define GPUTRACE_NEST_CLAIM_H

#include "viewer/read/cupti_calls.h"

#include <stddef.h>
#include <stdint.h>

/* Record x lies inside record outer on its thread, in CUPTI's own clock:
 * their times before the clocks' offset moved them (join_clock.c keeps
 * each record's move in `shift`), which differ by records' stretches. */
static inline int nested_in(const struct cupti_rec *x, const struct cupti_rec *outer)
{
    return x->tid == outer->tid && x->start + x->shift >= outer->start + outer->shift &&
           x->end + x->shift <= outer->end + outer->shift;
}

/* What nest_runs knows of records in (thread, start) order, moved: per
 * run of NEST_RUN records, bounds in CUPTI's clock (nest_claim.c). */
#define NEST_RUN 16
struct nest_runs { int64_t *last_start, *first_end, *back, *fwd; size_t nr; };

/* The bounds of the n records a, which are in (thread, start) order. */
struct nest_runs nest_runs(const struct cupti_rec *a, size_t n);
void nest_runs_free(struct nest_runs *r);

/* Marks claimed every record of a (other than a[own]) nested in a[own]. */
void claim_nested(struct cupti_rec *a, size_t n, size_t own, const struct nest_runs *r);

#endif
