/* replay.h: a process's dependency graph replayed (docs/report.md, "What
 * if it were fixed"): host threads' calls in order with the host time
 * between them kept as measured, each stream's operations in order,
 * event waits between streams, and the host waiting in its syncs for the
 * operations in their scope.  Replayed as measured, the graph gives back
 * the measured times where its dependencies explain them; with a
 * finding's fix applied (a sync removed or made not to wait, an operation
 * moved to a stream of its own or made shorter), it predicts the times
 * the fix would give.
 *
 * The graph is built from a window of the process's records by
 * replay_build.c; this file knows nothing of the model, so that it is
 * tested on fixed graphs (tests/unit/test_replay.c).  Collectives keep
 * their measured GPU time: a fix that every rank makes (the same code
 * runs on all) moves every rank alike, and the waits inside them stay. */
#ifndef GPUTRACE_REPLAY_H
#define GPUTRACE_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#define RP_DEPS 4

/* A host call, or an operation's enqueueing when no call is known (tid
 * -1: it moves as the latest call before it moved). */
struct rp_call {
    int64_t start, end;
    int tid;
    uint32_t wait_first, nwait; /* the operations it waits for: waits[wait_first ..] */
};

/* A GPU operation, on its stream in order. */
struct rp_op {
    int64_t start, end;
    int64_t stream;
    int32_t call;             /* the call (or enqueueing) it came from */
    int32_t dep[RP_DEPS];     /* operations on other streams it waits for (event waits) */
    int ndep;
    int to_host;              /* a copy to host memory: what a sync consumes */
};

struct rp_graph {
    struct rp_call *calls; size_t ncalls; /* by start */
    struct rp_op *ops; size_t nops;       /* each after its call's earlier ops */
    int32_t *waits; size_t nwaits;
    int64_t lat_cap;                      /* the most launch latency kept of what is not explained */
    int64_t lat_typical;                  /* the latency of an operation that waited for its stream */
    size_t nghost;                        /* ops[0 .. nghost): operations of an earlier window of the
                                           * process that this one's refer to (a stream's last, an
                                           * event's, what a fix makes wait): not replayed, their
                                           * times given in the rp_times (rp_replay_carry); call -1 */
    int32_t *wake;                        /* NULL, or per call: the call of another thread that woke it
                                           * (rp_wakes; -1: none; -2 - j: the carry's wk[j], a call
                                           * of an earlier window) */
};

struct rp_carry;

/* Which calls a thread made when another thread woke it, into g->wake
 * (the caller frees it): after a gap on its thread, the call of another
 * thread that enqueued GPU work and ended in that gap, the latest to end
 * however long it ran or however many calls came between, if it ended at
 * most RP_WAKE_NS before and within the later half of the gap.  Such a call starts, replayed, when
 * that call ended plus the measured delay (or when its own thread is
 * free, if later), not its own thread's gap later (replay_wake.c: why).
 * 0, or -1 when memory ran out (g->wake NULL). */
#define RP_WAKE_NS 500000
/* in (NULL: none): what an earlier graph's replay carried (rp_carry): its
 * threads' last calls' ends, and the calls that may wake one here, which
 * g->wake then names as -2 - their index in in->wk. */
int rp_wakes(struct rp_graph *g, const struct rp_carry *in);

/* A fix, per call and per operation (NULL arrays: none). */
enum { RP_KEEP = 0, RP_NO_WAIT, RP_REMOVE, RP_NARROW };
struct rp_fix {
    uint8_t *call_mode;     /* RP_*: no wait (the call's own host work stays), gone, or
                             * waiting only for the copies to the host in its scope */
    int64_t *op_stream;     /* INT64_MIN: its own; else the stream it moves to */
    float *op_scale;        /* its duration times this (0: as measured) */
    int32_t *op_extra_dep;  /* -1: none; else an operation it then waits for */
};

/* The replayed times: each call's start and end, each operation's; and,
 * where the caller gives the arrays, what decided each: the operation
 * whose end started an operation (-1: its launch), the operation whose end
 * ended a call (-1: the host), the thread's previous call, or the call of
 * another thread that woke it, where that decided its start (-1: none);
 * and each operation's predecessor on the stream it ran on in the replay. */
struct rp_times {
    int64_t *call_start, *call_end, *op_start, *op_end;
    int32_t *op_by, *call_by, *call_prev;
    int32_t *op_prev; /* (optional) the operation before it on its replayed stream, -1: none */
    /* (optional) what the replay could not explain of each operation's
     * measured start: where its launch decided its start, its delay past
     * the launch beyond lat_cap, else 0 (the GPU busy with what the graph
     * does not see: another stream's kernels holding the SMs, another
     * process).  Why a replay as measured comes out shorter than
     * measured, said beside a rough one */
    int64_t *op_unexpl;
};

/* Replays g with fix (NULL: as measured) into t (arrays of g's sizes,
 * the caller's).  0, or -1 when memory ran out. */
int rp_replay(const struct rp_graph *g, const struct rp_fix *fix, struct rp_times *t);

/* What a replay of one window of a process leaves to the replay of the
 * next, so that a process read a window at a time is replayed as if read
 * whole: each host thread's measured and replayed end, each stream's
 * replayed end (by the stream it ran on in the replay), and the shift of
 * the latest call (what moves an enqueueing with no call).  The ghosts'
 * times are the caller's to carry (t's first nghost). */
struct rp_lane {
    int64_t id, m_end, r_end;
    int32_t last; /* a stream's: its last operation (exported: of the graph replayed; seeded: of the next
                   * graph, a ghost, the caller's to renumber; -1: none known), so that its next
                   * operation's start is said to be decided by it */
};
struct rp_carry {
    struct rp_lane *thr, *str; size_t nthr, nstr;
    int64_t shift;
    /* the calls that may wake a thread of the next graph (rp_wakes): each
     * thread's two latest that enqueued GPU work, as lanes (id: its
     * thread, m_end and r_end: the call's), in an order that depends on
     * the measured calls only, so that every replay of the same graphs
     * carries them at the same places (last: unused) */
    struct rp_lane *wk; size_t nwk;
};

/* rp_replay starting from c's state (empty: the process's start), which
 * it then replaces by the state after g; g's ghosts' times must be in
 * t->op_start, t->op_end.  0, or -1 when memory ran out. */
int rp_replay_carry(const struct rp_graph *g, const struct rp_fix *fix, struct rp_times *t, struct rp_carry *c);
/* A copy of from into to (to's own arrays freed first); -1 when memory
 * ran out. */
int rp_carry_copy(struct rp_carry *to, const struct rp_carry *from);
void rp_carry_free(struct rp_carry *c);

/* Where time `at` of thread tid falls in a replay: shifted as the latest
 * call of that thread that ended by then (calls of the thread in order:
 * idx, n of them). */
int64_t rp_map_time(const struct rp_graph *g, const struct rp_times *t, const uint32_t *idx, size_t n, int64_t at);

/* The critical path back from the end of a call (from_kind RP_PATH_CALL)
 * or an operation (RP_PATH_OP), index `from`, to time t0: each
 * element handed to fn, latest first, with its span [a, b) on the path
 * (from t0 on): a call's own time (RP_PATH_CALL: the time since what ended its
 * wait, or its whole length), the host's time before a call since its
 * thread's previous one, or the other thread's call that woke it
 * (RP_PATH_HOST: index is the call), an operation
 * (RP_PATH_OP), the gap before it after what it waited for (RP_PATH_GAP),
 * its launch latency (RP_PATH_LAUNCH).  t must hold the "decided by"
 * arrays. */
enum { RP_PATH_CALL, RP_PATH_HOST, RP_PATH_OP, RP_PATH_GAP, RP_PATH_LAUNCH };
void rp_critical(const struct rp_graph *g, const struct rp_times *t, int from_kind, int32_t from, int64_t t0,
                 void (*fn)(void *ctx, int kind, int32_t index, int64_t a, int64_t b), void *ctx);

#endif
