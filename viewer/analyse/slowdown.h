/* slowdown.h: a slowdown window's slow steps against the ones before
 * them.  A monitor writes a window when a rank's steps became slower
 * (docs/monitor.md, "slowdown"); the window holds the steps before the
 * slowdown too, so a finding made over the whole window mixes the two: a
 * rank a little late in every step before can outweigh the one that
 * became late when the steps slowed down.  Split at the moment the slow
 * steps began (the requesting rank's words: model.h, monitor_window),
 * each rank's steps and its lateness at the collectives before and
 * after say which rank changed. */
#ifndef GPUTRACE_SLOWDOWN_H
#define GPUTRACE_SLOWDOWN_H

#include "viewer/analyse/findings.h"
#include "viewer/analyse/coll_spill.h"

/* One rank, before the onset and from it on ([0] and [1]). */
struct slowdown_rank {
    int proc;                  /* index into model.procs */
    int64_t steps[2];          /* its iterations that began before the onset, and from it */
    int64_t step_ns[2];        /* ... the median time of each (0: none) */
    int64_t first_slow_iter;   /* the number of its first iteration from the onset, -1 if none */
    int64_t last[2];           /* the collectives it arrived at last */
    double caused_ns[2];       /* the others' waits at those */
};

struct slowdown_split {
    int64_t onset;             /* aligned time the slow steps began */
    int requester;             /* the process that asked for the window, -1 if not among them */
    int64_t colls[2];          /* collectives of every member, before and from the onset */
    struct slowdown_rank *ranks; size_t nranks; /* by rank, those with a window */
    int changed;               /* index into ranks: whose others' wait per collective grew most, -1 none */
    int grew_rank;             /* index into ranks: changed, else the rank standing for all (-1: none) */
    struct range_growth grew;  /* ... the NVTX range its steps' time grew most in (label -1: none) */
};

/* Made into fs->slowdown when the inputs are a slowdown's windows with
 * their onset; once every process's ledger is made. */
void analyse_slowdown(const struct model *m, struct findings *fs, struct coll_spill *spill);
void slowdown_free(struct slowdown_split *s);

#endif
