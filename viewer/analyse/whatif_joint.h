/* whatif_joint.h: every rank's steps replayed together (docs/report.md,
 * "What if it were fixed"): what a fix on one rank makes of the others'
 * waits in their collectives (comm.straggler).
 *
 * The report holds one process at a time, so each rank's replay
 * (whatif.c) leaves a summary of itself, its probes: each collective's
 * kernel as the rank reached it (its arrival), and the steps' start and
 * end; and for each, the longest path to it in the replay from the end of
 * each earlier collective of the rank within two steps of it (the paths
 * that did not set its time as measured included: a fix that shortens one
 * makes another the longest) and from the host alone, each with the
 * host's own time outside calls on it in the rank's busiest ranges (what
 * a fix of host time shrinks).  Across ranks, a collective's kernels end
 * when the last member arrived plus each member's transfer time (its
 * measured time less its wait); each member's later probes move with it.
 * Memory: a probe per collective of each rank, put aside in the report's
 * scratch store (a window's at once in memory for a rank read a window at
 * a time), and its end (8 bytes) in memory. */
#ifndef GPUTRACE_WHATIF_JOINT_H
#define GPUTRACE_WHATIF_JOINT_H

#include <stddef.h>
#include <stdint.h>

#define WJ_LABELS 2 /* the ranges whose host time each probe keeps */
#define WJ_PREDS 6  /* the collectives a probe keeps as what it may follow */

/* A path to a probe: from the end of collective p (or, p < 0, from the
 * host alone), its length (or, from the host, the time it gives), and the
 * host's own time outside calls on it, by tracked range. */
struct wj_pred { int64_t d; int64_t host[WJ_LABELS]; int32_t p; };

struct wj_probe {
    int64_t at;              /* its replayed time, on its rank's clock */
    int64_t dur;             /* a collective's measured kernel time */
    struct wj_pred host;     /* the longest path from the host alone (host.p 0: none; d: the time it gives) */
    struct wj_pred pred[WJ_PREDS]; /* the longest paths from earlier collectives (index into the rank's probes) */
    int32_t npred;
    int32_t coll;            /* its collective's index in its process; -1: a step probe */
};

/* A rank's host time outside calls in the steps, by range name. */
struct wj_gap { int label; int64_t ns; };

/* Probes put aside: n of them, from index first on, at offset `at` of the
 * store. */
struct wj_chunk { uint64_t at; size_t first, n; };

/* A rank's summary, of one replay (as measured, or with its fixes):
 * ncoll collective probes by replayed start, then the steps' start and
 * end; those from nspilled on in v (from 0 unless put aside: the first
 * nspilled in chunks of store), read through wj_probe_at; each collective
 * probe's replayed end (at + dur) in ends (NULL: from the probes). */
struct tmpstore;
struct wj_rank {
    struct wj_probe *v; size_t ncoll, nspilled;
    struct wj_chunk *chunks; size_t nchunks;
    const struct tmpstore *store;
    int64_t *ends;
    int label[WJ_LABELS];    /* the tracked ranges (labels of the process), -1: none */
    struct wj_gap *gaps; size_t ngaps; /* every range's (variant 0's only) */
    int64_t gap_steps;       /* the steps those were summed over (0: steps) */
    int64_t steps;
};

/* A member of a collective across ranks: its rank's summary (rank < 0:
 * not replayed, its measured arrival, aligned, stands) and probe, its
 * transfer (its measured kernel time less its wait: from the last
 * member's arrival to its end), and its clock's offset to the aligned one
 * at its arrival. */
struct wj_member { int32_t rank, probe; int64_t xfer, off, arrived; };
struct wj_group { size_t first, n; int64_t order; }; /* members [first, first + n); order: its measured end */

/* The steps of each rank replayed together, rank r's host time in its
 * tracked range s cut by the share cut[r * WJ_LABELS + s] (cut NULL: no
 * cut): each rank's time a step into step_ns[r] (-1: no summary).  0, or
 * -1 when memory ran out. */
int wj_solve(const struct wj_rank *const *ranks, size_t nranks, const struct wj_member *mem,
             const struct wj_group *groups, size_t ngroups, const double *cut, double *step_ns);

void wj_rank_free(struct wj_rank *r);

/* What wj_probe_at reads probes put aside into (zeroed at first; freed by
 * wj_cache_free). */
struct wj_cache { const struct wj_rank *of; struct wj_probe *buf; size_t first, n, cap; };
/* Probe k of w (k <= ncoll + 1); valid until the next call with c (which
 * may be another rank's: the cache knows whose probes it holds). */
const struct wj_probe *wj_probe_at(const struct wj_rank *w, struct wj_cache *c, size_t k);
void wj_cache_free(struct wj_cache *c);
/* The probes in v put aside in store (one chunk); kept in v when memory
 * for the chunk's entry ran out. */
void wj_spill(struct wj_rank *w, struct tmpstore *store);

/* Once every rank is analysed (whatif.c's whatif_across): the ranks'
 * summaries replayed together into fs->wjob and comm.straggler's
 * prediction, then freed (whatif_job.c). */
struct model;
struct findings;
struct coll_spill;
void whatif_job(const struct model *m, struct findings *fs, struct coll_spill *spill);

#endif
