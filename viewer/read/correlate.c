/* correlate.c: which CUPTI API record is which wrapped call's (see
 * correlate.h): the report's join of the two sources of calls.
 *
 * The wrappers do not know CUPTI's correlation ids; a blocking call pushes
 * its own id as CUPTI's external correlation id around the real call, and
 * is joined by id (join_clock.c).  The rest is joined on one thread's
 * times, once the CUPTI records are moved by the offset between the two
 * clocks' conversions that the certain matches show (join_clock.c).
 * Invariants:
 *   1. a record belongs to one call; a call has one record of its API;
 *   2. what lies inside a wrapped call (the driver calls the runtime made
 *      for it, NCCL's launches) is claimed, so that only what no wrapped
 *      call covers can be a call CUPTI alone saw (cupti_calls.c), and an
 *      unclaimed record of an API the tracer recorded is never made a
 *      second call (cupti_calls_add);
 *   3. records come out in (thread, start) order, in the wrappers' clock
 *      (moved by the offset the certain matches show, where they show one). */
#include "viewer/read/correlate.h"
#include "viewer/read/join_clock.h"
#include "viewer/read/load_internal.h"
#include "viewer/read/nest_claim.h"
#include "viewer/model/sort_by_time.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* The n records at base in order of (thread, start): sorted by start, then
 * stably by thread (each sort is one pass when the records are in that
 * order already: calls come sorted by start, and mostly from one thread). */
static struct sort_key *thread_order(const void *base, size_t n, size_t size, size_t start_off, size_t tid_off)
{
    const char *b = base;
    struct sort_key *k = malloc((n + 1) * sizeof *k);
    if (!k)
        model_out_of_memory();
    for (size_t i = 0; i < n; i++) {
        int64_t t;
        memcpy(&t, b + i * size + start_off, sizeof t);
        k[i] = (struct sort_key){ t, i };
    }
    if (sort_keys(k, n) != 0)
        model_out_of_memory();
    for (size_t j = 0; j < n; j++) {
        int tid;
        memcpy(&tid, b + k[j].i * size + tid_off, sizeof tid);
        k[j].t = tid;
    }
    if (sort_keys(k, n) != 0)
        model_out_of_memory();
    return k;
}

/* The position in co (calls in (thread, start) order) of the first call
 * of thread tid that starts at or after t. */
static size_t first_call_from(const struct proc *p, const struct sort_key *co, int tid, int64_t t)
{
    size_t lo = 0, hi = p->ncalls;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct call *c = &p->calls[co[mid].i];
        if (c->tid < tid || (c->tid == tid && c->start < t))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* A record still unclaimed that coincides with a wrapped call on its
 * thread (they overlap for more than half the longer of the two) is that
 * call's, its ends moved by more than the slack (the two clocks'
 * conversions drift apart on a loaded machine): it is claimed, and gives
 * the call its correlation if the call has none and the record is of the
 * call's API.  A call only CUPTI saw never coincides with a wrapped one:
 * calls on one thread follow each other. */
static void claim_overlapping(struct model *m, struct proc *p, const struct sort_key *co, struct cupti_rec *a,
                              size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (a[k].claimed)
            continue;
        size_t i = first_call_from(p, co, a[k].tid, a[k].end);
        for (size_t back = 0; back < 2 && i > 0; back++) {
            struct call *c = &p->calls[co[--i].i];
            if (c->tid != a[k].tid)
                break;
            int64_t lo = c->start > a[k].start ? c->start : a[k].start;
            int64_t hi = c->end < a[k].end ? c->end : a[k].end;
            int64_t longer = c->end - c->start > a[k].end - a[k].start ? c->end - c->start : a[k].end - a[k].start;
            if (hi - lo > longer / 2) {
                a[k].claimed = CLAIMED_BY_TIME;
                if (!c->corr && cupti_call_api(m, a[k].domain, a[k].cbid) == c->api) {
                    c->corr = a[k].corr;
                    a[k].claimed = 1;
                }
                break;
            }
        }
    }
}

/* Puts the records in (thread, start) order, in place. */
static void order_records(struct cupti_rec *a, size_t n)
{
    struct sort_key *ao = thread_order(a, n, sizeof *a, offsetof(struct cupti_rec, start),
                                       offsetof(struct cupti_rec, tid));
    struct cupti_rec tmp;
    permute_by_keys(a, sizeof *a, ao, n, &tmp);
    free(ao);
}

static int records_ordered(const struct cupti_rec *a, size_t n)
{
    for (size_t k = 1; k < n; k++)
        if (a[k].tid < a[k - 1].tid || (a[k].tid == a[k - 1].tid && a[k].start < a[k - 1].start))
            return 0;
    return 1;
}

/* Matches each wrapped call not joined by id to the CUPTI API record made
 * inside it (same thread, contained in time within the slack), and marks
 * the records nested in a wrapped call as claimed too. */
static void join_by_time(struct model *m, struct proc *p, const struct sort_key *co, struct cupti_rec *a, size_t n)
{
    /* correlation -> its first record: the records' (correlation, index)
     * sorted, stably, and searched; the correlations rise with the
     * records' times on each thread, so the sort is a pass or a few.  A
     * hash map of them (twice their number of slots, touched at random)
     * cost a third of the join in page faults and cache misses */
    struct sort_key *at = malloc((n + 1) * sizeof *at);
    if (!at)
        model_out_of_memory();
    for (size_t k = 0; k < n; k++)
        at[k] = (struct sort_key){ a[k].corr, k };
    if (sort_keys(at, n) != 0)
        model_out_of_memory();
    struct nest_runs runs = nest_runs(a, n);
    size_t j = 0, hint = 0;
    for (size_t i = 0; i < p->ncalls; i++) {
        struct call *c = &p->calls[co[i].i];
        /* a call whose end is unknown (join_clock.h) ended before `bound`,
         * the next call's start: the first record of its API that begins
         * after it and ends by then (within the slack) is its own, and gives
         * it its length.  (Not "within the slack of its start": on a loaded
         * machine the wrapper is preempted between its clock read and the
         * real call, 2 to 5 us seen.) */
        int untimed = call_end_unknown(c);
        int64_t bound = call_end_bound(p, co, i), last_start = bound + MATCH_SLACK_NS;
        while (j < n && (a[j].tid < c->tid || (a[j].tid == c->tid && a[j].start < c->start - MATCH_SLACK_NS)))
            j++;
        /* skip records of unwrapped calls made before this one */
        while (j < n && a[j].tid == c->tid && a[j].end > bound + MATCH_SLACK_NS &&
               a[j].start < c->start + MATCH_SLACK_NS)
            j++;
        /* its own record: the first inside it that is of its API (an NCCL
         * call, of which CUPTI makes no record, takes the first that began
         * inside it: its launch, whose kernel names its stream; not the
         * next call's, which began within the slack after it); none for a
         * call that has its correlation already (joined by id) */
        int of_cuda = cupti_api_has_records(m, c->api);
        for (size_t k = j; !c->corr && k < n && a[k].tid == c->tid && a[k].start <= last_start; k++) {
            if (a[k].claimed || a[k].end > bound + MATCH_SLACK_NS || a[k].end < c->start ||
                (of_cuda ? cupti_call_api(m, a[k].domain, a[k].cbid) != c->api : a[k].start >= c->end))
                continue;
            c->corr = a[k].corr;
            a[k].claimed = 1; /* a record belongs to one call */
            if (untimed) /* its length (join_clock.h) */
                c->end = untimed_end(c, a[k].start, a[k].end, bound);
            break;
        }
        /* what else lies inside it was made for it: the driver's records
         * that began inside it (ending within the slack after it), and any
         * record strictly inside it; a runtime record only within the slack
         * of its ends is the call before or after it, which no wrapper saw,
         * and so is a driver record that began after it ended (the launch
         * of an NCCL call made right after a stream wait was claimed by the
         * wait, and the NCCL call took the next launch's record) */
        int64_t own = of_cuda && c->corr ? sort_keys_first_near(at, n, c->corr, &hint) : -1;
        if (own >= 0 && a[own].tid == c->tid) {
            claim_nested(a, n, (size_t)own, &runs);
            continue;
        }
        for (size_t k = j; k < n && a[k].tid == c->tid && a[k].start <= c->end + MATCH_SLACK_NS; k++)
            if (!a[k].claimed && a[k].end <= c->end + MATCH_SLACK_NS && a[k].end > c->start &&
                ((a[k].domain == 2 && a[k].start < c->end) || (a[k].start >= c->start && a[k].end <= c->end)))
                a[k].claimed = CLAIMED_BY_TIME;
    }
    free(at);
    nest_runs_free(&runs);
    claim_overlapping(m, p, co, a, n);
    /* and what lies inside a record no call claimed: the driver calls of a
     * runtime call only CUPTI saw.  Inside in CUPTI's own clock: records of
     * two stretches were moved by different offsets (a cudaEventRecord
     * 1 us after a cudaMemcpyAsync's record ended was moved into it, 1,044
     * ns further than the copy's, and taken for a call the copy made) */
    for (size_t k = 0, outer = SIZE_MAX; k < n; k++) {
        if (outer != SIZE_MAX && nested_in(&a[k], &a[outer])) {
            if (!a[k].claimed)
                a[k].claimed = 1;
            continue;
        }
        outer = k;
    }
}

/* Joins the wrapped calls to CUPTI's records: by id where the call pushed
 * it (x, nx: the process's ext_corr rows, sorted by id), then by time with
 * the clocks' offset taken out.  The CUPTI records are put in (thread,
 * start) order in place, and their sort keys freed before the calls' are
 * made: both key arrays at once were the report's peak on a big rank. */
void correlate_calls(struct model *m, struct proc *p, struct cupti_rec *a, size_t n, const struct ext *x, size_t nx)
{
    order_records(a, n);
    uint8_t *exact = calloc(p->ncalls + 1, 1);
    if (!exact)
        model_out_of_memory();
    join_by_ext(m, p, a, n, x, nx, exact);
    struct sort_key *co = thread_order(p->calls, p->ncalls, sizeof *p->calls, offsetof(struct call, start),
                                       offsetof(struct call, tid));
    /* in the wrappers' clock from here on: the time join compares them
     * with calls, and so do the enqueue times of GPU work and the calls
     * only CUPTI saw, which are made from them.  Already so where the two
     * are one clock: the offset is 0, and its votes, fooled by a loaded
     * run's late records, could only move it off (6 launches of 132
     * without their record in a CI run) */
    struct join_offsets off = { 0 };
    if (!p->one_clock && join_shift_records(m, p, co, exact, a, n, &off) && !records_ordered(a, n))
        order_records(a, n); /* moved by different offsets: the sweeps need them in order */
    free(exact);
    join_by_time(m, p, co, a, n);
    join_second_chance(m, p, co, a, n, &off);
    free(co);
}
