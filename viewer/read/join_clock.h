/* join_clock.h: what correlate.c's join of wrapped calls to CUPTI's API
 * records does beyond times (join_clock.c): the exact join by external
 * correlation id, and the clocks' offset taken out before the time join. */
#ifndef GPUTRACE_JOIN_CLOCK_H
#define GPUTRACE_JOIN_CLOCK_H

#include "viewer/read/cupti_calls.h"
#include "viewer/model/sort_by_time.h"
#include "viewer/model/model.h"

#include <stddef.h>
#include <stdint.h>

/* An ext_corr row: the external id pushed (a call's, or an NCCL group's)
 * and the correlation of a CUPTI API record made while it was. */
struct ext { int64_t id; uint32_t corr; };
/* The first of the ext rows (x, nx: sorted by id) with this id, or NULL. */
const struct ext *ext_first(const struct ext *x, size_t nx, int64_t id);

/* Joins each wrapped call of a CUDA API whose id has ext rows (x, nx:
 * sorted by id) to the records those rows name: every one is claimed, the
 * first of the call's own API and thread gives it its correlation (and is
 * marked claimed = 2).  exact[i] is set for each call i so joined.
 * Returns how many calls were.  An ungrouped NCCL operation's records,
 * and a group's (pushed under its ncclGroupStart's id, made in the
 * ncclGroupEnd that closes it: theirs), are claimed too, the first on the
 * call's thread giving it its correlation; not counted: no record is of
 * the call itself. */
size_t join_by_ext(struct model *m, struct proc *p, struct cupti_rec *a, size_t n, const struct ext *x, size_t nx,
                   uint8_t *exact);

/* A wrapped call whose end the tracer did not read (a call that does not
 * block: libtrace/trace.h, GT_F_END), stored ending where it starts
 * (docs/tracer-guarantees.md): the time join finds its record by its start
 * alone, within call_end_bound, and gives it the record's length. */
static inline int call_end_unknown(const struct call *c)
{
    return c->end == c->start;
}
/* The latest the call at co[i] can have ended: when the next call on its
 * thread began (it began after this one returned), or MATCH_WIDE_NS after
 * its start for the last one of its thread.  Its own end if known. */
int64_t call_end_bound(const struct proc *p, const struct sort_key *co, size_t i);
/* The end such a call takes from its record (from rs to re): its start
 * plus the record's length.  Never later than its true end, whatever the
 * two clocks' offset (CUPTI's record is made inside the real call, the
 * wrapper's start read before it), and so never past the next record of its
 * thread (its next call, an NVTX pop right after it: slices nest); nor past
 * `bound`, nor back to "unknown". */
static inline int64_t untimed_end(const struct call *c, int64_t rs, int64_t re, int64_t bound)
{
    int64_t e = c->start + (re > rs ? re - rs : 0);
    if (e > bound)
        e = bound;
    return e > c->start ? e : c->start + 1;
}

/* The offsets found per stretch of each thread's calls (join_clock.c). */
struct stretch { int64_t from; int64_t d; int tid; };
struct join_offsets { struct stretch *st; size_t n; };

/* Moves each of the n records (in (thread, start) order; co: the calls'
 * keys in that order) into the wrappers' clock: by the offset between the
 * two clocks' conversions over the stretch of its thread's calls it falls
 * in, the one most pairs of a call and a record of its API nearby agree
 * on (the exact joins' above all); none where 0 is one of those, or no two
 * pairs agree on any.  Notes each record's move in its shift, and the
 * stretches' offsets in out (for join_second_chance).  Returns whether any
 * record moved. */
int join_shift_records(struct model *m, const struct proc *p, const struct sort_key *co, const uint8_t *exact,
                       struct cupti_rec *a, size_t n, struct join_offsets *out);

/* After the time join: each call of a CUDA API still without its record
 * takes the first unclaimed one of its API on its thread that lies inside
 * it (within the slack) moved by the offset of the stretch before or after
 * its own instead, or by none: the offset changed within its stretch.
 * Frees o. */
void join_second_chance(struct model *m, struct proc *p, const struct sort_key *co, struct cupti_rec *a, size_t n,
                        struct join_offsets *o);

#endif
