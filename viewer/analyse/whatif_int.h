/* whatif_int.h: what the what-if replay's files share (whatif.c builds
 * each window's graph and replays it; whatif_paths.c makes a rank's
 * summary for every rank replayed together, whatif_joint.h), private to
 * them. */
#ifndef GPUTRACE_WHATIF_INT_H
#define GPUTRACE_WHATIF_INT_H

#include "viewer/analyse/replay.h"
#include "viewer/analyse/whatif_joint.h"
#include "viewer/model/idmap.h"
#include "viewer/model/model.h"

#include <stddef.h>
#include <stdint.h>

struct state;
struct joins;
struct free_syncs;

/* One window's graph (replay.h), and what it was made of (whatif.c). */
struct build {
    struct state *s;        /* what the graph carries from the window before (whatif_carry) */
    struct joins *jn;       /* where add_fix notes a wait that falls in the next window */
    struct free_syncs *sn;  /* and a stream sync it frees there (read_then_sync) */
    const struct rp_op *ghosts; /* the graph's g.nghost ghosts (replay.h) */
    const struct model *m;
    const struct proc *p;
    const struct timeline *t;
    struct rp_graph g;
    int32_t *rp_of_call;    /* model call -> rp call */
    int32_t *call_of_rp;    /* rp call -> model call, -1: an operation's enqueueing */
    int32_t *op_of_rp;      /* rp op -> model op */
    size_t waits_cap;
    int32_t *next, *prev;   /* each operation's next and previous on its stream, -1: none */
    int32_t *seg;           /* each rp call: how many calls that wait came before it */
    int32_t *op_first;      /* each rp call's first operation (ops are by call), and ncalls' the end */
    int32_t *moved; size_t nmoved; /* the collectives a fix moves, in order (move_collectives) */
    double bw[8];           /* pinned copy bandwidth by copy kind, bytes/ns (< 0: not measured yet) */
    double lat[8];          /* and the shortest pinned copy's time, ns (pinned_bw) */
    const struct rp_carry *wake_in; /* the measured replay's carry into this window (rp_wakes), or NULL */
};

/* calloc of n + 1, or the report's out-of-memory exit */
void *whatif_alloc(size_t n, size_t size);

/* Where time `at` falls in a replay: shifted as the latest call of the
 * range thread that ended by then (idx: its calls in the window), or as
 * its last one in the windows before (shift_in). */
int64_t whatif_map_at(const struct build *b, const struct rp_times *t, const uint32_t *idx, size_t n, int64_t shift_in,
                      int64_t at);

/* ---- whatif_paths.c ---- */

/* The paths to a node of an earlier window: as a probe has them (the
 * longest from the host alone and from each collective before it, to the
 * node's time) and its critical path back (walk); has 0: none known (the
 * node's time stands, as the host's); host_from: where q's path from the
 * host alone starts (a later window's probe leaves that path to crit once
 * it starts before its horizon, as its collectives' paths). */
struct jset { struct wj_probe q; struct wj_pred crit; int has; int64_t host_from; };
/* A host thread's latest call whose end an operation decided, in an
 * earlier window: its replayed end, the host's time in the tracked ranges
 * up to it, the paths to it. */
struct jthr { int tid; int64_t w_end; int64_t cum[WJ_LABELS]; struct jset s; };
/* One replay's (0 as measured, 1 all fixed, 2 the collectives moved too). */
/* The streams with GPU work before the first step that the steps' start
 * follows (whatif.c's pre_s, and each summary's jcarry.pre, which must
 * take the same ones); past them, the others' work is as if not there. */
#define PRE_STREAMS 16
struct jcarry {
    struct jset *ghost; size_t nghost;     /* by the graph's ghost index */
    struct jthr *thr; size_t nthr;
    int32_t *at_op; struct jset *at_set; size_t nat; /* made in this window, by operation */
    struct wj_probe start, end, end_t; int has_start, has_end, has_end_t;
    int64_t end_step, end_t_step;          /* the measured end of the step the end probe is at; end_t:
                                            * of a step no call of its window ended after (a later
                                            * window's call may: whatif_proc_end) */
    /* the GPU work ending last of that enqueued from the first step's
     * start to the last step's end so far (gin), and since (gaft): the
     * paths to its end, and when (INT64_MIN: none) */
    struct wj_probe gin, gaft; int64_t gin_t, gaft_t;
    /* per stream with GPU work enqueued before the first step (the first
     * PRE_STREAMS of them, in the order whatif.c's pre_s takes them): the
     * paths to the end of that work ending last so far, and when */
    struct { int64_t stream, t; struct wj_probe q; } pre[PRE_STREAMS]; int npre;
};
/* Per host thread, as measured: its last call's end, and the host's time
 * in the tracked ranges up to it. */
struct mthr { int tid; int64_t end; int64_t cum[WJ_LABELS]; };

/* Per call of the graph: its thread's previous call (measured order) and
 * the host time between them; the ranges tracked and each call's running
 * sum of the host time in them. */
struct hostside {
    int32_t *tprev;
    int64_t *gap;
    int tracked[WJ_LABELS];
    int64_t (*cum)[WJ_LABELS];
    struct wj_gap *gaps; size_t ngaps;
};

/* What a window's summary is of: the steps' first start (first, the
 * step probe's when start_here), the measured end of the last step whose
 * end it probes (last; INT64_MIN: none), the range thread's calls (idx),
 * how far back paths are followed (span), the range thread's shift coming
 * in (shift_in), and, for a rank read a window at a time, the operations
 * the next window refers to (keep). */
struct jwin {
    int64_t first, last, span, shift_in;
    int64_t nsteps; /* read whole: how many steps it spans */
    int start_here, tent; /* tent: no call here ends after the last step's end */
    const uint32_t *idx; size_t nidx;
    const int32_t *keep; size_t nkeep;
    int32_t *keep_v; /* keep's room (whatif_window's) */
};

/* Each call's thread's previous call, the host's time between them and in
 * the tracked ranges (the steps from first to end; mt: each thread's as
 * the windows before left it, nmt of them; tracked: the ranges to track,
 * chosen before, or NULL: those of the most host time here). */
void whatif_hostside_make(const struct build *b, int64_t first, int64_t end, const struct mthr *mt, size_t nmt,
                          const int *tracked, struct hostside *h);
void whatif_hostside_free(struct hostside *h);
/* Adds the gap of length ns that ends at `end` on thread tid to the host
 * time by range name (h->gaps, *gcap of room; at: label + 1 -> its index). */
void whatif_gaps_add(const struct proc *p, struct hostside *h, size_t *gcap, struct idmap *at, int tid, int64_t end,
                     int64_t ns);
/* Of the host's gap of length ns that ends at `end`, the part after the
 * steps' start `first` (what a fix of the steps' host time can shrink):
 * the first step's tail before the second's first call is no part of the
 * steps timed from its end (a cut sized on it moved collectives before
 * the steps' start: a job's step all fixed shorter than its GPU work). */
int64_t whatif_gap_from(int64_t ns, int64_t end, int64_t first);
/* The ranges with the most host time, of gaps[0, n), into tracked. */
void whatif_choose_tracked(const struct wj_gap *gaps, size_t n, int *tracked);
/* The collective (its number in the process) of each operation of the
 * graph, -1: none. */
int32_t *whatif_colls_of_ops(const struct build *b);
/* Replay t's summary (t with its "decided by" arrays, fix fx) appended to
 * w: its collectives' probes, its steps' start and end probes (into jc),
 * and for a rank read a window at a time what the next window's carries
 * (jc: what this one's carried in, then what it carries on; mt: each
 * thread's host time up to this window). */
void whatif_joint_summary(const struct build *b, const struct jwin *in, const struct rp_times *t,
                          const struct rp_fix *fx, const struct hostside *h, const int32_t *coll_of,
                          struct wj_rank *w, struct jcarry *jc, const struct mthr *mt, size_t nmt);

#endif
