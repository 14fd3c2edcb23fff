/* steps.h: a rank's iterations (its training steps) as spans of time,
 * from its NVTX ranges: what the HTML page's step chart draws and the
 * ledger splits each rank's time by. */
#ifndef GPUTRACE_STEPS_H
#define GPUTRACE_STEPS_H

#include "viewer/model/model.h"

#include <stddef.h>
#include <stdint.h>

/* An iteration: its number, from its first range's start to its last
 * one's end. */
struct model_step { int64_t iter, start, end; };

/* Process p's iterations, by number, into *out (free it); how many.  Its
 * ranges must be loaded and indexed (model_ranges_index). */
size_t model_steps(const struct proc *p, struct model_step **out);
/* In steps v[0, n) sorted by start, the last one starting at or before t
 * (0 when none does): where a walk over the steps an interval starting at
 * t overlaps begins. */
size_t model_step_from(const struct model_step *v, size_t n, int64_t t);

/* How many of steps v[0, n) (by number) are warm-up: the leading ones
 * whose period (from their start to the next step's) is more than
 * STEP_WARMUP_FACTOR times the median period (a first step that compiles,
 * autotunes or makes NCCL's connections), at most half of them; none of
 * fewer than STEP_WARMUP_MIN steps.  What a
 * prediction of the steady step leaves out (the what-if: whatif.c). */
#define STEP_WARMUP_FACTOR 4
#define STEP_WARMUP_MIN 4
size_t model_steps_warmup(const struct model_step *v, size_t n);

#endif
