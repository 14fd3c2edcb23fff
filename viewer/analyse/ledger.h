/* ledger.h: each rank's time accounted for (docs/report.md, "The
 * ledger").  A process's life, from its start to its end, is partitioned
 * with nothing left over and nothing counted twice: before its first GPU
 * work and after its last; within, what the GPU did (compute, communication
 * hidden by compute, communication exposed, copies alone) and why it
 * idled.  The waste (exposed communication, idle) is then split by the
 * finding each interval was charged to (attribution.h), so that the
 * findings are ranked by the GPU time they cost and a waste no finding
 * claimed is seen, and made one where it is large (comm.exposed of a
 * process's communication kernels that no call site's collectives
 * explain).
 *
 * Built while the process's windows are analysed (ledger_window, its
 * pass), finished when every finding's claims are resolved
 * (ledger_resolve). */
#ifndef GPUTRACE_LEDGER_H
#define GPUTRACE_LEDGER_H

#include "viewer/model/idmap.h"
#include "viewer/model/steps.h"

#include <stddef.h>
#include <stdint.h>

struct model;
struct findings;
struct report_opts;
struct interval;

/* The buckets, in the order every output lists them (their names:
 * ledger_bucket_names). */
enum ledger_bucket {
    LB_COMPUTE,       /* compute kernels running (copies beside them too), no communication kernel */
    LB_COMM_HIDDEN,   /* a communication kernel with compute beside it */
    LB_COMM_WAIT,     /* exposed communication charged to waiting for a late peer */
    LB_COMM_TRANSFER, /* the rest of exposed communication */
    LB_COPY,          /* copies or memsets alone */
    LB_IDLE_BLOCKED,  /* GPU idle charged to a host sync or copy (or NCCL's set-up), or the host blocked in one no finding names */
    LB_IDLE_HOST,     /* GPU idle charged to gpu.idle: the host elsewhere, in a range */
    LB_IDLE_PEER,     /* GPU idle charged to waiting for another rank */
    LB_IDLE_LAUNCH,   /* gaps shorter than --idle-gap-us: launch latency between kernels */
    LB_IDLE_OTHER,    /* GPU idle that no finding claimed, the host not blocked; or charged to gpu.stalled */
    LB_BEFORE,        /* before the first GPU work */
    LB_AFTER,         /* after the last */
    LB_NOT_RECORDED,  /* within the span, no GPU records: the program's own profiler held CUPTI (model.h,
                       * gpu_gaps); last, and listed only where some is (a run without it lists the
                       * buckets it always did) */
    LB_COUNT
};

extern const char *const ledger_bucket_names[LB_COUNT];
/* Whether a bucket is waste: exposed communication or GPU idle within the
 * GPU's span. */
int ledger_waste(int bucket);

/* Time of a bucket charged to one finding, (kind, proc, site) as the
 * charges name it; kind -1: to none. */
struct ledger_row { int bucket, kind, proc, site; int64_t ns; };

struct ledger {
    int on;                   /* the process has GPU work: a ledger */
    int64_t life_ns, span_ns; /* its life; its first GPU work's start to its last one's end */
    int64_t first, last;      /* those two times */
    int64_t ns[LB_COUNT];
    struct ledger_row *rows; size_t nrows; /* the waste by finding, most first */
    /* the same buckets per iteration (model/steps.h), in time order: each
     * iteration's add up to its span within the life */
    struct model_step *steps; size_t nsteps;
    int64_t (*step_ns)[LB_COUNT];
    int64_t *step_len;        /* each one's time within the life, not an earlier one's */
    int steps_known;
    /* while built: the exposed communication and the idle gaps of
     * --idle-gap-us or more, in time order (the finding each part was
     * charged to is known only once every rank is analysed) */
    struct interval *exposed, *idle, *blocked; /* blocked: the host's blocking calls within those gaps */
    size_t nexposed, nidle, nblocked, exposed_cap, idle_cap, blocked_cap;
    uint64_t aside_at;        /* once the process is done, the three put aside there (findings.aside), in turn */
    int aside;
    /* the communication kernel, by name, that ran most of the exposed
     * communication (names the finding of what no finding claimed) */
    struct idmap comm_by_name; /* name id + 1 -> exposed ns */
    /* the short gaps by the host range around them (label, -1: none):
     * gpu.launch_bound's place */
    struct launch_tally { int label; int64_t ns, n; } *launch; size_t nlaunch;
    char *comm_kernel;
    int64_t comm_kernel_ns;
    /* A process that drives several GPUs has a ledger for each (gpus,
     * each with its device), and its own is their sum: GPU time, each
     * GPU's life counted once per GPU, so that one GPU idle while another
     * works is waste (a pipeline's bubble), not hidden in their union.
     * Until a second GPU's work is seen the process's ledger is its one
     * GPU's (device). */
    int device;
    struct ledger *gpus; size_t ngpus;
    /* a stream of one GPU waited for another's events (proc_pass.h), from
     * waits_from on: a GPU's gap ending later is split beside the others'
     * work (peer), as gpu.pipeline_bubble's */
    int waits;
    int64_t waits_from;
    /* while built, of a GPU's ledger: its idle gaps' parts while another
     * GPU of the process worked, and of those the host's blocked time */
    struct interval *peer; size_t npeer, peer_cap;
    int64_t peer_blocked_ns;
    /* ... once the claims are resolved: the pieces of the process's time
     * given on this GPU (those about every GPU and its own gpu.idle's and
     * gpu.stalled's: charges_resolve_some) */
    struct charge *pieces; size_t npieces;
    /* ... of the process's: every GPU's work from the earliest of their
     * last ends on, carried into the next window (a gap across a cut) */
    struct interval *carry; size_t ncarry, carry_cap;
};

/* The ledger pass's hooks (passes.c). */
void ledger_window(const struct model *m, const struct report_opts *o, struct findings *fs, size_t pi);
void ledger_proc_end(const struct model *m, struct findings *fs, size_t pi);
/* Once the costs are attributed: each waste interval to the finding that
 * was charged it, rows made, the findings' GPU waste (finding.waste_ns)
 * set, and a process's exposed communication that no finding claimed,
 * 1 ms or more, made a finding. */
void ledger_resolve(struct findings *fs, const struct model *m);
/* Process pi's ledger, NULL if none. */
const struct ledger *ledger_of(const struct findings *fs, size_t pi);
/* How many GPUs' time its buckets sum (1 for a process that drives one);
 * the k-th of them, NULL past the last (each GPU's ledger, of a process
 * that drives several: its buckets, life and span). */
size_t ledger_ngpus(const struct ledger *l);
const struct ledger *ledger_gpu(const struct ledger *l, size_t k);
/* Its waste, and the part of it charged to a finding. */
int64_t ledger_waste_ns(const struct ledger *l);
int64_t ledger_found_ns(const struct ledger *l);
/* Process pi's ledger moved from a worker's findings to fs (findings_take_proc). */
void ledgers_take(struct findings *fs, struct findings *from, size_t pi, size_t nprocs);
void ledgers_free(struct findings *fs);

#endif
