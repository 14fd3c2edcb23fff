/* findings.h: what the report finds, with its cost, and the options the
 * analyses take.  Definitions of each kind: ../DESIGN notes, docs/report.md. */
#ifndef GPUTRACE_FINDINGS_H
#define GPUTRACE_FINDINGS_H

#include "viewer/analyse/attribution.h"
#include "viewer/analyse/ledger.h"
#include "viewer/model/model.h"

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#define FINDING_KINDS(X)                                                            \
    X(SYNC_REDUNDANT, "sync.redundant", host_blocked)                               \
    X(SYNC_NO_CONSUMER, "sync.no_consumer", gpu_idle)                               \
    X(SYNC_DEVICE_WIDE, "sync.device_wide", host_blocked)                           \
    X(SYNC_IMPLICIT, "sync.implicit", gpu_idle)                                     \
    X(SYNC_SCALAR_READ, "sync.scalar_read", gpu_idle)                               \
    X(COPY_PAGEABLE, "copy.pageable", host_blocked)                                 \
    X(COPY_SERIALIZED, "copy.serialized", exposed)                                  \
    X(COMM_EXPOSED, "comm.exposed", exposed)                                        \
    X(COMM_SAME_STREAM, "comm.same_stream", exposed)                                \
    X(COMM_STRAGGLER, "comm.straggler", wait)                                       \
    X(COMM_MISMATCH, "comm.mismatch", wait)                                         \
    X(COMM_HANG, "comm.hang", wait)                                                 \
    X(GPU_IDLE, "gpu.idle", gpu_idle)                                              \
    X(COMM_LAZY_CONNECT, "comm.lazy_connect", host_blocked)                         \
    X(GPU_LAUNCH_BOUND, "gpu.launch_bound", gpu_idle)                               \
    X(HOST_SETUP, "host.setup", gpu_idle)                                         \
    X(GPU_STALLED, "gpu.stalled", gpu_idle)                                         \
    X(GPU_PIPELINE_BUBBLE, "gpu.pipeline_bubble", gpu_idle)

enum finding_kind {
#define X(id, name, cost) F_##id,
    FINDING_KINDS(X)
#undef X
    F_KIND_COUNT
};

enum cost_field { COST_host_blocked, COST_gpu_idle, COST_exposed, COST_wait };

extern const char *const finding_names[F_KIND_COUNT];
extern const enum cost_field finding_cost_field[F_KIND_COUNT];

/* Where one occurrence of a finding happened, for the traces
 * (finding_marks.c): its time, thread (-1: none named) and process, and
 * its share of the cost, given when the costs are attributed. */
#define FINDING_MARKS 20
struct finding_mark { int64_t t, cost; int proc, tid; };

/* An NVTX range findings happened in, and the iterations they spanned. */
#define FINDING_RANGES 4
struct range_hit { int name; int64_t hits, iter_min, iter_max; };

/* The facts of a finding's kind beyond its measured fields, set by the
 * analysis that made it and rendered at output time (write/finding_json.c
 * as JSON members): `has` says which are set (FACT_*).  The JSON lists
 * them in this order. */
enum {
    FACT_COMM = 1 << 0,      /* comm_id */
    FACT_SEQ = 1 << 1,       /* seq: the collective's (or first unmatched operation's) sequence number */
    FACT_PEER = 1 << 2,      /* comm.lazy_connect: peer_rank, first_call_ns, typical_call_ns */
    FACT_PAIR = 1 << 3,      /* point to point: sender_rank, receiver_rank */
    FACT_RANKS = 1 << 4,     /* a list of ranks (list_of says which) */
    FACT_UNMATCHED = 1 << 5, /* unmatched_sends or unmatched_receives: the count */
    FACT_STOPS = 1 << 6,     /* comm.hang: where each rank stopped inside it (hang_depth.c) */
    FACT_STRAGGLER = 1 << 7, /* straggler_rank, collectives, clearly_last, wait_share */
    FACT_PAGEABLE = 1 << 8,  /* copy.pageable: bytes, gpu_wait_ns (the finding's own fields) */
    FACT_DEVICE = 1 << 9,    /* gpu.idle, gpu.stalled of one of a process's GPUs: device */
    FACT_UNCLAIMED = 1 << 10, /* comm.exposed of what no other finding claimed (ledger.c) */
    FACT_PLACES = 1 << 11,   /* comm.hang: where each missing rank was instead (hang_place.c) */
    FACT_SETUP = 1 << 12,    /* host.setup: its calls by API (setup_calls) */
    FACT_GPUS = 1 << 13,     /* gpu.pipeline_bubble: each GPU's part (gpus) */
};
/* gpu.pipeline_bubble's GPUs, each with its idle, the first FACT_GPUS_MAX
 * (in the order their work was first seen) */
#define FACT_GPUS_MAX 8
struct finding_gpu { int device; int64_t idle_ns; };
/* host.setup's calls by API, those that held the host longest first: of
 * more than FACT_SETUP_MAX APIs, a call longer than the last one's total
 * takes its place (the others are in the totals only). */
#define FACT_SETUP_MAX 5
struct finding_setup { int api; int64_t count, host_ns; };
/* What the list of ranks is: "ranks" (those that disagreed, or a pair's
 * two), "missing_ranks" (that never entered a hung collective) or
 * "stopped_ranks" (that stopped inside it, none missing). */
enum { FACT_LIST_RANKS, FACT_LIST_MISSING, FACT_LIST_STOPPED };
/* A list of ranks is shown in 255 bytes at most, cut there as it always
 * was: of nranks, the first FACT_RANKS are kept, more than those bytes
 * hold (each rank takes at least 3 with its ", "). */
#define FACT_RANKS_MAX 96
/* Where ranks stopped is shown only while it fits 639 bytes of JSON (and
 * 399 of text): FACT_STOPS_MAX entries never fit, so more are not kept. */
#define FACT_STOPS_MAX 64
struct finding_stop { int rank, at; }; /* at: a PD_ (model.h), or -1: it never entered the collective */
/* Where a rank that never entered a hung collective was instead
 * (hang_place.c), the first FACT_PLACES_MAX of them: blocked in a call
 * (PLACE_CALL: api, tid, site, since it began), else in the innermost
 * NVTX range still open (PLACE_RANGE: label, tid, since it opened), else
 * in host code since its last call ended (PLACE_HOST).  since_ns: since
 * the run's start, aligned as the ranks are; proc: its process. */
#define FACT_PLACES_MAX 8
enum { PLACE_CALL = 1, PLACE_RANGE, PLACE_HOST };
struct finding_place { int rank, proc, kind, api, tid, site, label; int64_t since_ns; };
struct finding_facts {
    unsigned has;
    int64_t comm_id, seq;
    int peer_rank;                           /* FACT_PEER */
    int64_t first_call_ns, typical_call_ns;  /* ... the first call's host time, and a later one's (their median) */
    int sender_rank, receiver_rank;          /* FACT_PAIR */
    int64_t unmatched;                       /* FACT_UNMATCHED: how many */
    int unmatched_sends;                     /* ... sends (1) or receives (0) */
    int list_of, nranks;                     /* FACT_RANKS: FACT_LIST_*, and how many there were */
    int ranks[FACT_RANKS_MAX];
    int nstops;                              /* FACT_STOPS: entries, one per rank, in process order */
    struct finding_stop stops[FACT_STOPS_MAX];
    int nplaces;                             /* FACT_PLACES */
    struct finding_place places[FACT_PLACES_MAX];
    int straggler_rank;                      /* FACT_STRAGGLER */
    int64_t collectives, clearly_last;       /* ... the full collectives, and those it was clearly last to */
    double wait_share;                       /* ... its share of all the waiting */
    int device;                              /* FACT_DEVICE */
    int ngpus;                               /* FACT_GPUS */
    struct finding_gpu gpus[FACT_GPUS_MAX];
    int64_t step_ns, busiest_step_ns;        /* ... a steady iteration's time, and its busiest GPU's work
                                              * (medians; 0: no iterations): ledger_gpus.c */
    int nsetup;                              /* FACT_SETUP */
    struct finding_setup setup[FACT_SETUP_MAX];
    char kernel[256];                        /* FACT_UNCLAIMED: the kernel that ran most of it, "" if none named */
    /* for the message alone (write/finding_text.c), by kind: */
    int grouped, shared;       /* comm.lazy_connect: its first call was a group's ncclGroupEnd; one charged above */
    int64_t matched;           /* a point-to-point comm.mismatch: the sends matched to receives */
    /* comm.mismatch: [0] the first mismatched send (the odd ranks' call),
     * [1] its receive (the others' call); an unmatched operation: [0] */
    struct finding_call { int api, dtype; int64_t count; } call[2];
    int64_t entered;           /* comm.hang, some ranks missing: the ranks that entered it */
    double exposed_fraction;   /* comm.exposed: the overlap it fell short of (--exposed-fraction) */
    int64_t margin_ns;         /* comm.straggler: "clearly last" by this much (--straggler-margin-us) */
    /* ... where its time went (straggler_place.c), when placed: before
     * `late` collectives, in its range (the finding's range), `excess` more
     * than the others' mean, `in_calls` of it in traced calls; at call site
     * `site` of its process (0: none), `at_site` more */
    int placed, site;
    int64_t late;
    double excess, in_calls, at_site;
    /* ... low confidence for the hosts' clocks (clock_align.c): 1 when
     * `unaligned` hosts share no collective with rank ref_rank's, 2 when
     * its mean lead is within `factor` x the alignment residual */
    int clock_low, unaligned, ref_rank, factor;
    double lead_ns;
    int64_t residual_ns;
};
/* Adds a rank to the list (FACT_RANKS), as many as are kept. */
void finding_add_rank(struct finding_facts *x, int rank);
/* Adds where a rank stopped (FACT_STOPS). */
void finding_add_stop(struct finding_facts *x, int rank, int at);

struct finding {
    enum finding_kind kind;
    int rank;                 /* -1 when about several ranks */
    int proc;                 /* index into model.procs, -1 if several */
    int callsite_id;          /* its site in that process (model_site), 0 if none */
    int api;                  /* the API of its first occurrence (or the collective's), for the message (0: none) */
    int64_t count;
    int64_t host_blocked_ns, gpu_idle_ns, exposed_ns, wait_ns; /* what was measured (finding_measured) */
    int64_t gpu_idle_steady_ns; /* gpu.idle: of gpu_idle_ns, the part from the first step after the warm-up to
                                 * the last step's end (what a fix saves a steady step: whatif_job.c) */
    int64_t cost_ns;          /* the time charged to it, no interval charged twice (attribution.h) */
    int64_t waste_ns;         /* ... of it, GPU idle or exposed communication (ledger.h): the order of the findings */
    int64_t bytes;            /* copy.pageable: bytes copied */
    int64_t gpu_wait_ns;      /* copy.pageable: of host_blocked_ns, the part spent waiting for earlier GPU work */
    int64_t hideable_ns;      /* comm.same_stream: of exposed_ns, what the compute queued after it could hide */
    int64_t site_colls;       /* comm.exposed: its process's collectives (with a GPU time) at its site */
    const char *confidence;   /* "high", "medium", "low" */
    char callsite[MODEL_CALLSITE_LEN]; /* the frame shown (model_callsite) */
    char waited_for[256];     /* syncs: what the longest one waited for last (a kernel's name, "a copy"), "" if none;
                               * gpu.stalled: what the longest stall's queued work was */
    int waited_other;         /* ... on another stream than the one synchronised (reached through an event) */
    int64_t waited_blocked;   /* ... and how long that one blocked */
    struct finding_facts facts; /* kind-specific facts, for the JSON and the message */
    struct range_hit ranges[FINDING_RANGES]; /* innermost user ranges of the occurrences */
    int64_t unranged;         /* occurrences outside any user range */
    int range;                /* the range most of them were in: 1 + its name's label in its process
                                 (model_label), 0 if none; shown as finding_range (write/finding_out.h) */
    int64_t iter_first, iter_last; /* iterations they spanned there, -1 if unknown */
    struct finding_mark marks[FINDING_MARKS]; /* the first occurrences (finding_marks.c) */
    int nmarks, mark_open;    /* marks made; whether the last one's cost is still being added */
    int marks_charged;        /* the marks are of the first pieces of time charged to it, not occurrences */
    int below_min_cost;       /* its cost is under --min-cost: listed in JSON, not shown, not --fail-on's */
    /* what fixing it would make of its process's steps (whatif.c): over
     * wi_steps iterations, their replayed time as they are and fixed */
    int64_t wi_steps, wi_now_ns, wi_fixed_ns;
    /* its cost per iteration (finding_steps.c): in how many it cost
     * anything, of its process's; over those, the 10th percentile, the
     * median and the 90th */
    int64_t it_costed, it_of, it_p10_ns, it_median_ns, it_p90_ns;
};

/* A process's steps replayed (whatif.c): how many, their measured and
 * replayed time as they are (from the first one's start to the end of the
 * last one and of the GPU work enqueued by then), and with every
 * predicted finding fixed; and the replay's error, replayed against
 * measured, window by window, summed. */
/* A part of a step's critical path (whatif.c): what, and its time. */
#define WHATIF_PARTS 6
enum { CP_HOST, CP_CALL, CP_KERNEL, CP_COLLECTIVE, CP_COPY, CP_GPU_GAP, CP_LAUNCH, CP_OTHER };
struct cp_part { int kind; char name[160]; int64_t ns; };
/* The most of a GPU operation's delay after its launch that the replay
 * keeps where the graph does not explain it (replay.h: lat_cap): a delay
 * the graph does not know is not carried along by a host that gets there
 * sooner. */
#define WHATIF_LAT_CAP_NS 200000

struct whatif_proc {
    int64_t steps, measured_ns, replayed_ns, abs_err_ns, all_fixed_ns;
    int64_t unexplained_ns;    /* the replay as measured's delays of the steps' GPU starts it could not
                                * explain (rp_times.op_unexpl): why it comes out short */
    /* the critical path of a typical step (the median of its window's):
     * its iteration, length, and the parts that take most of it */
    int64_t cp_iter, cp_ns;
    struct cp_part parts[WHATIF_PARTS + 1]; int nparts;
    /* ... and its elements' spans, in the process's time, latest first
     * (the Chrome trace draws them): part, an index into parts (or the
     * last, "the rest"); the first CP_SPANS, the others merged into
     * neighbours of the same part */
#define CP_SPANS 96
    struct cp_span { int64_t a, b; int part; } spans[CP_SPANS]; int nspans;
    int64_t all_fixed_comm_ns; /* ... with the collectives on a compute stream moved too */
    int comm_found;            /* ... which are a finding (comm.same_stream): all_fixed_ns is that */
    int windowed;              /* read in several windows and its summary for every rank together
                                * not made (a replay failed): its measured arrivals stand */
    struct whatif_carry *carry; /* its replays carried from window to window (whatif.c) */
    int64_t nccl_ns;           /* its NCCL kernels' time in those steps: the rank that waits least
                                * for the others sets the job's pace (whatif_out.c) */
    int64_t warmup_steps, warmup_ns; /* its first steps left out as warm-up (model_steps_warmup), their time */
    int64_t unrecorded_ns;     /* its stretches without GPU records (model.h, gpu_gaps) within its life: the
                                * graph has the host's time there, not the GPU's work: rough */
    int64_t lead_steps;              /* then the step whose end starts the steps' clock (0 or 1) */
    struct wj_rank *joint;     /* its summaries for the replay of every rank together, as measured,
                                * all fixed, and with the collectives moved too (whatif_joint.h);
                                * freed by whatif_across */
};
/* A prediction made for a finding's key (finding_key) while its process
 * was analysed, given to the finding once every rank is (whatif_across). */
struct whatif_site { uint64_t key; int proc; int64_t steps, now_ns, fixed_ns; };
/* Every rank's steps replayed together (whatif_joint.h): the job's step,
 * the mean of its ranks', as it is and with every finding fixed. */
struct whatif_job { int made; int64_t steps; double now_ns, all_fixed_ns; };
struct wj_rank;

struct tmpstore;
struct slowdown_split;

struct findings {
    struct finding *v; size_t n, cap;
    const char *range_filter; /* --range: only occurrences inside a range of this name */
    struct charges charges;   /* the intervals each finding claims, and those it was given */
    int show_charges;         /* --charges: the JSON lists each finding's intervals */
    struct host_time *host_times; /* per process: its calls' time by range and call site (straggler_place.c) */
    struct ledger *ledgers; size_t nledgers; /* per process: its time accounted for (ledger.h) */
    struct whatif_proc *whatif; size_t nwhatif; /* per process: its steps replayed (whatif.c) */
    struct whatif_site *wsites; size_t nwsites, wsites_cap; /* the predictions by finding key */
    struct whatif_job wjob;   /* the ranks replayed together (whatif_across) */
    struct slowdown_split *slowdown; /* a slowdown window's slow steps against those before (slowdown.h), or NULL */
    /* where a process's ledger puts its intervals aside until every rank
     * is analysed (the run's, shared by the workers under the lock; NULL:
     * kept in memory) */
    struct tmpstore *aside;
    pthread_mutex_t *aside_lock;
    int64_t min_cost_ns;      /* --min-cost as applied (findings_finish); below_min_cost findings: how many */
    size_t below_min_cost;
};

struct report_opts {
    double exposed_fraction;      /* comm.exposed below this overlap fraction (0.2) */
    int64_t idle_gap_ns;          /* gpu.idle gaps at least this long (100 us) */
    int64_t scalar_bytes;         /* sync.scalar_read consumes at most this (1024) */
    int64_t implicit_min_ns;      /* sync.implicit blocked at least this long (20 us) */
    int min_repeats;              /* repeated = at least this many at one call site (2) */
    double exposed_share;         /* ... in at least this share of a call site's collectives (0.25) */
    double straggler_fraction;    /* caused more than this share of all waiting (0.5) */
    int64_t straggler_margin_ns;  /* "clearly last": by at least this much (2 ms) */
    double straggler_clear_fraction; /* clearly last in at least this share of collectives (0.15) */
    int64_t pageable_min_bytes;   /* a single pageable copy this big is reported (1 MiB) */
    int no_whatif;                /* --no-whatif: no replay (whatif.c) */
    double min_cost_ms;           /* findings costing less are not shown (-1: the default, findings_finish) */
};

void report_opts_default(struct report_opts *o);

/* The finding of (kind, proc, site) that an occurrence at time t on thread
 * tid (-1: the process's main range thread) adds to, created if new, with
 * the NVTX range of the occurrence noted; NULL when --range leaves the
 * occurrence out (the caller then adds nothing). */
struct finding *findings_at(struct findings *fs, const struct model *m, enum finding_kind kind, int proc, int site,
                            int tid, int64_t t);
/* The finding of (kind, proc, site) made already, or NULL: one more fact
 * of an occurrence findings_at noted, without a new occurrence. */
struct finding *findings_find(struct findings *fs, const struct model *m, enum finding_kind kind, int proc, int site);
/* Always a new finding. */
struct finding *findings_new(struct findings *fs, const struct model *m, enum finding_kind kind, int proc, int callsite_id);
/* A finding's identity, (kind, process, site), as a map key (never 0):
 * each in bits of its own (sites of whole-process findings are negative) */
static inline uint64_t finding_key(int kind, int proc, int site)
{
    return (uint64_t)(uint8_t)(kind + 1) << 56 | (uint64_t)((uint32_t)(proc + 2) & 0xffffff) << 32 |
           (uint64_t)(uint32_t)site;
}
/* Each finding's cost per iteration (finding_steps.c), once the costs
 * are attributed and the ledgers resolved. */
void finding_steps(struct findings *fs, const struct model *m);
/* Its cost: the time charged to it (attribute_costs); what was measured
 * of its kind's cost field (host blocked, GPU idle, exposed, wait). */
int64_t finding_cost(const struct finding *f);
/* Notes an occurrence at time t on thread tid (-1: none) of process proc
 * (finding_marks.c); findings_at does it itself.  What the finding claims
 * until the next occurrence is this one's (attribution.c gives it). */
void finding_mark(struct finding *f, int proc, int tid, int64_t t);
/* Marks a finding that has none, a figure of a whole process or run
 * (gpu.idle, comm.straggler), at the first pieces of time charged to it,
 * once the costs are attributed, so that a trace shows where it cost. */
void finding_marks_from_charges(struct findings *fs);
/* Mark k's cost: what its occurrence's claims were given. */
int64_t finding_mark_cost(const struct finding *f, int k);
int64_t finding_measured(const struct finding *f);
/* Whether its call was made from PyTorch (a torch frame in its Python
 * stack): its advice then speaks PyTorch. */
int finding_from_torch(const struct model *m, const struct finding *f);
/* Whether it passes its kind's repetition rule (findings_finish keeps it). */
int finding_kept(const struct finding *f, const struct report_opts *o);
/* Drops findings below their kind's repetition rule; names each one's
 * range; sorts by cost; marks those under --min-cost (below_min_cost);
 * a finding whose cost is nothing (under 5 us, "0.00 ms") is never high
 * confidence, whatever its kind's rule says. */
void findings_finish(struct findings *fs, const struct report_opts *o, const struct model *m);
void findings_free(struct findings *fs);
/* The findings as one entry per problem (the text report's): the same kind
 * at the same call site in a range of the same name on several ranks is
 * one group; one not shown (finding_shown) is in none, group[i] == -1.
 * Else group[i] is the index of finding i's group's first member
 * (its leader, group[i] == i); returns how many groups.  fs->v is in the
 * order every output lists findings (findings_finish: what to fix first,
 * by the GPU time lost, then all charged), and a group takes the place of
 * its leader, the member first in that order: groups listed by their
 * leaders' indexes are in that one order too. */
size_t findings_group(const struct model *m, const struct findings *fs, int *group);
/* Whether the outputs show it (and --fail-on counts it): its cost at
 * least --min-cost; a hang or a mismatch, whatever it cost. */
int finding_shown(const struct finding *f);
/* --min-cost's default for a run: 1 ms, or 0.5% of its longest process's
 * life where that is less (a short run, a test's). */
int64_t findings_min_cost_default(const struct model *m);
/* Whether some process has an NVTX range named `name` (for --range). */
int findings_range_known(const struct model *m, const char *name);

/* Drops process proc's findings of kinds first..last (in their order
 * above). */
void findings_drop(struct findings *fs, int proc, enum finding_kind first, enum finding_kind last);

/* The analyses, each called by its pass (passes.h).  Those of one
 * process run while its calls and GPU operations are loaded, window by
 * window when it is read so (proc_pass.h). */
struct coll_spill;
void analyse_syncs(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi);
/* A rank read a window at a time, first reading: its host time by range,
 * for the ranges the replay's summary tracks (whatif.c). */
void whatif_pre_window(const struct model *m, struct findings *fs, size_t pi);
/* Each finding's fix replayed on the window's dependency graph (whatif.c). */
void whatif_window(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi);
/* ... and once the process's last window is done, its steps' times. */
void whatif_proc_end(const struct model *m, struct findings *fs, size_t pi);
/* ... given to the findings they are for, once every process's are made. */
void whatif_across(const struct model *m, struct findings *fs, struct coll_spill *spill);
void analyse_copies(const struct model *m, struct findings *fs, size_t pi);
/* A copy to or from pageable host memory (analysis_gpu.c), and its
 * copy.pageable finding noted, with the host time it spent waiting for
 * earlier GPU work and the union of compute kernels (NULL without GPU
 * records) that its cost is the idle of; NULL when --range leaves it out. */
int copy_is_pageable(const struct model *m, const struct call *c);
struct ivals;
struct finding *note_pageable(struct findings *fs, const struct model *m, size_t pi, const struct call *c,
                              int64_t waited_ns, const struct ivals *busy);
void analyse_comm(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi);
void analyse_idle(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi);
void analyse_colls_done(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi, size_t n);
void analyse_comm_end(const struct model *m, struct findings *fs, size_t pi);
void analyse_idle_end(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi);
/* The GPU that a claim or piece is about: its own (gpu), or of gpu.idle
 * or gpu.stalled, theirs (their call site encodes it, with the host
 * range: analysis_gpu.c); -1 for one about the process's every GPU.
 * GPUs 0 to CHARGE_DEVICES - 1 are told apart (a device number is CUDA's
 * ordinal, a few; of more, modulo CHARGE_DEVICES): of 64 once, where GPU
 * 64's gpu.idle was GPU 0's, and GPU 0's claims taken for GPU 64's. */
#define CHARGE_DEVICES 256
int charge_device(const struct charge *c);
/* Across ranks: a sync site that waited for work at some calls is not redundant at the others. */
void filter_syncs(struct findings *fs);
/* Drops the one-off small pageable copies (before costs are attributed). */
void filter_copies(const struct report_opts *o, struct findings *fs);
/* Where a straggler's time went (straggler_place.c): note_host_time runs
 * with each window of a process's calls; place_straggler names, in
 * finding fi (process pi's comm.straggler), the NVTX range and call site
 * where it spent more than the other ranks. */
struct host_time;
void note_host_time(const struct model *m, struct findings *fs, size_t pi);
struct ivals;
/* wins: per process, the stretches before the collectives the straggler
 * was clearly last to (NULL: the whole run); late: how many */
void place_straggler(const struct model *m, struct findings *fs, size_t fi, size_t pi, const struct ivals *wins,
                     int64_t late);
/* The NVTX range name of process pi whose exclusive time per iteration
 * grew most from the iterations `was` (a union of their spans, its own
 * clock) to those of `now`, nwas and nnow of them: its label in g->label
 * (-1: none grew), the time a step in each, and of that the time in
 * traced calls. */
struct range_growth { int label; double before_ns, after_ns, calls_before_ns, calls_after_ns; };
void range_growth(const struct model *m, const struct findings *fs, size_t pi, const struct ivals *was, int64_t nwas,
                  const struct ivals *now, int64_t nnow, struct range_growth *g);
void host_times_free(struct findings *fs, size_t nprocs);
/* Process pi's host times, from the findings `from` it was analysed into,
 * to fs (findings_take_proc). */
void host_times_take(struct findings *fs, struct findings *from, size_t pi, size_t nprocs);
/* Appends what process pi's analyses put into findings of its own
 * (`from`: a worker's, viewer/proc_jobs.h) to fs, as if they had run on fs
 * after every process before it (findings_merge.c), and frees from. */
void findings_take_proc(struct findings *fs, struct findings *from, size_t pi, size_t nprocs);
void analyse_comm_across(struct model *m, const struct report_opts *o, struct findings *fs,
                         struct coll_spill *spill);

#endif
