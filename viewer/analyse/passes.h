/* passes.h: the analyses as passes, run in the order of one table
 * (passes.c), which is the order that matters: change it there.
 *
 * Each pass owns its state (a process's: proc_pass.h; the run's: its own,
 * such as analysis_p2p's) and puts what it finds into the findings store
 * (findings.h).  The driver calls each point's hooks of every pass, in the
 * table's order:
 *   window      a window of one process's records is loaded (read/load.h);
 *   final_window  the same, once the process's own findings are all made:
 *               read whole, right after every pass's `window`; read a
 *               window at a time, its windows are read again, in order,
 *               after its last, for the passes that want it (final_wanted)
 *               and only for those (the what-if's replay: it fixes the
 *               findings the process has, not those made so far);
 *   colls_done  the first n of its loaded collectives are done with (then
 *               released);
 *   proc_end    every window of the process was analysed;
 *   across      every process was: what looks across ranks (collectives
 *               matched by communicator and sequence, pairs of sends and
 *               receives).
 * The first three run on a worker's own findings (proc_jobs.h), the last
 * on the run's.  Then passes_finish charges each interval of a rank's time
 * to one finding (attribution.h), sets the confidences and writes the
 * messages, which quote the costs. */
#ifndef GPUTRACE_PASSES_H
#define GPUTRACE_PASSES_H

#include "viewer/analyse/findings.h"

#include <stddef.h>

struct coll_spill;

/* What every hook is handed. */
struct pass_ctx {
    struct model *m;
    const struct report_opts *o;
    struct findings *fs;
    struct coll_spill *spill; /* every rank's collectives (coll_spill.h): for `across` */
};

struct analysis_pass {
    const char *name;
    void (*window)(const struct pass_ctx *c, size_t pi);
    void (*final_window)(const struct pass_ctx *c, size_t pi);
    int (*final_wanted)(const struct pass_ctx *c); /* NULL: whenever it has a final_window */
    void (*colls_done)(const struct pass_ctx *c, size_t pi, size_t n);
    void (*proc_end)(const struct pass_ctx *c, size_t pi);
    void (*across)(const struct pass_ctx *c);
};

void passes_window(const struct pass_ctx *c, size_t pi);
/* Whether a process read a window at a time has its windows read again
 * for the final_window hooks; and those hooks, on one such window. */
int passes_final_wanted(const struct pass_ctx *c);
void passes_final_window(const struct pass_ctx *c, size_t pi);
void passes_colls_done(const struct pass_ctx *c, size_t pi, size_t n);
void passes_proc_end(const struct pass_ctx *c, size_t pi);
/* Every pass's `across`, then what finishes the findings (above). */
void passes_across(const struct pass_ctx *c);

#endif
