/* nest_claim.c: the records nested in a record (nest_claim.h), for
 * correlate.c's claims.
 *
 * Per run of NEST_RUN records (in (thread, start) order, moved), the
 * latest start and the earliest end in CUPTI's own clock: a run whose
 * records all began before a record, or all ended after it, holds none
 * nested in it, and claim_nested steps over it at once.  And how far a
 * thread's records reach in CUPTI's clock: back, the latest start in its
 * runs up to this one; fwd, the earliest start in its runs from this one
 * on.  A record's move (join_clock.c: `shift`, its time in CUPTI's clock
 * less its time moved) is its stretch's, a few hundred ns most of the
 * time, but one stretch moved hundreds of us made every call's search
 * window that wide when it was bounded by the rank's largest and smallest
 * moves; these bounds widen it only near such a stretch.  A run that holds the end of
 * one thread and the start of the next counts both (its bounds only
 * looser); a thread's reach does not pass from one thread to the next.
 * 32 bytes per 16 records.
 */
#include "viewer/read/nest_claim.h"
#include "viewer/model/model.h"

#include <stdlib.h>

static int64_t *runs_alloc(size_t nr)
{
    int64_t *v = malloc((nr + 1) * sizeof *v);
    if (!v)
        model_out_of_memory();
    return v;
}

struct nest_runs nest_runs(const struct cupti_rec *a, size_t n)
{
    size_t nr = n / NEST_RUN;
    struct nest_runs r = { runs_alloc(nr), runs_alloc(nr), runs_alloc(nr), runs_alloc(nr), nr };
    for (size_t i = 0; i < nr; i++) {
        int64_t ls = INT64_MIN, fe = INT64_MAX, fs = INT64_MAX;
        for (size_t k = i * NEST_RUN; k < (i + 1) * NEST_RUN; k++) {
            int64_t s = a[k].start + a[k].shift, e = a[k].end + a[k].shift;
            ls = s > ls ? s : ls;
            fs = s < fs ? s : fs;
            fe = e < fe ? e : fe;
        }
        r.last_start[i] = ls;
        r.first_end[i] = fe;
        r.fwd[i] = fs;
        /* the thread runs on from the run before */
        r.back[i] = i > 0 && a[i * NEST_RUN - 1].tid == a[i * NEST_RUN].tid && r.back[i - 1] > ls ? r.back[i - 1] : ls;
    }
    for (size_t i = nr; i-- > 1;)
        if (a[i * NEST_RUN - 1].tid == a[i * NEST_RUN].tid && r.fwd[i] < r.fwd[i - 1])
            r.fwd[i - 1] = r.fwd[i];
    return r;
}

void nest_runs_free(struct nest_runs *r)
{
    free(r->last_start);
    free(r->first_end);
    free(r->back);
    free(r->fwd);
}

/* A call whose own record is known (a[own]): what was made for it is what
 * CUPTI recorded inside that record, on its thread, in CUPTI's own clock
 * (the records' times before the offset moved them), not what lies inside
 * the call's times once moved: a record made just before the call (a
 * cudaEventRecord 179 ns before a static runtime's cudaEventSynchronize
 * that a callback recorded) was moved into the call by an offset 2 us off
 * and claimed, and the sync then waited for an event never recorded. */
void claim_nested(struct cupti_rec *a, size_t n, size_t own, const struct nest_runs *r)
{
    /* records in (thread, start) order, moved; one nested in a[own] begins
     * in CUPTI's clock between os and oe.  Back from own's run while the
     * run before it (of the same thread) reaches os; then on, stepping
     * over runs that hold nothing nested, until no later record of the
     * thread begins by oe (fwd) */
    int tid = a[own].tid;
    int64_t os = a[own].start + a[own].shift, oe = a[own].end + a[own].shift;
    size_t run = own / NEST_RUN; /* r->nr for a record of the short run at the end */
    while (run > 0 && a[run * NEST_RUN - 1].tid == a[run * NEST_RUN].tid && r->back[run - 1] >= os)
        run--;
    size_t k = run * NEST_RUN;
    while (k < own && a[k].tid != tid)
        k++; /* the end of the thread before, in a run the two share */
    while (k < n && a[k].tid == tid) {
        run = k / NEST_RUN;
        if (run < r->nr) {
            if (r->fwd[run] > oe)
                break;
            if (r->last_start[run] < os || r->first_end[run] > oe) {
                k = (run + 1) * NEST_RUN;
                continue;
            }
        }
        if (k != own && nested_in(&a[k], &a[own]))
            a[k].claimed = 1;
        k++;
    }
}
