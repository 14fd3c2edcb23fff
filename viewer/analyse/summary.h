/* summary.h: the figures beside the findings: per rank, and per collective
 * type and size (with bus bandwidth as nccl-tests reports it). */
#ifndef GPUTRACE_SUMMARY_H
#define GPUTRACE_SUMMARY_H

#include "viewer/model/idmap.h"
#include "viewer/model/model.h"

struct rank_summary {
    int rank, pid, proc;
    int64_t wall_ns, gpu_busy_ns, compute_ns, comm_ns, exposed_comm_ns, sync_blocked_ns;
    int64_t gpu_span_ns;      /* first GPU operation's start to the last one's end */
    int64_t api_calls, gpu_ops, collectives;
    int64_t cupti_only_calls; /* of api_calls: made from CUPTI's records, no wrapper saw them (cupti_calls.h) */
    int64_t first_ns;         /* its first call's or GPU operation's start (INT64_MAX: none) */
};

/* A GPU of a process that drives several (ncclCommInitAll, JAX, one
 * process per node): the rank's figures for that GPU alone. */
struct device_summary {
    int rank, proc, device;
    int64_t gpu_busy_ns, compute_ns, comm_ns, exposed_comm_ns;
};

struct coll_summary {
    const char *op;           /* API name, e.g. ncclAllReduce */
    int64_t bytes, count, total_ns;
    int nranks;
    double algbw_gbs, busbw_gbs;
    char algorithm[32];       /* from the kernel's name, where it says */
};

/* A top-level NVTX range name of one rank: the program's phases
 * ("train_step", "eval", "checkpoint"), with what the GPU did inside them. */
struct phase_summary {
    int rank, proc;
    const char *name;
    int64_t count, wall_ns, gpu_busy_ns, comm_ns, exposed_comm_ns;
};

/* A kernel, by name, over all ranks (kernel_summary.c): what the GPUs
 * spent their time on, as `nsys stats` lists it. */
struct kernel_summary {
    char *name;
    int64_t count, total_ns, max_ns;
    int ranks;                /* ranks that ran it */
    int nccl;                 /* a kernel of an NCCL operation */
    int last_proc;            /* the last process counted (for ranks) */
};

/* Calls that returned an error, by API and result, over all ranks
 * (failed_calls.c). */
#define FAILED_KINDS_KEPT 64
struct per_name;
struct failed_summary {
    int api;
    int32_t result;
    int64_t count;
    int ranks;
    int last_proc;            /* the last process counted (for ranks) */
};

struct summary {
    const char *range_filter; /* --range: the kernel and collective tables count only what ran inside such ranges */
    struct rank_summary *ranks; size_t nranks;
    struct device_summary *devices; size_t ndevices, devices_cap; /* by process, then device; only processes with several */
    size_t devices_first;     /* the process's first row */
    struct coll_summary *colls; size_t ncolls, colls_cap;
    struct phase_summary *phases; size_t nphases, phases_cap; /* by rank, then wall time */
    struct kernel_summary *kernels; size_t nkernels, kernels_cap; /* most GPU time first, after summary_end */
    int64_t kernel_ns;        /* GPU time of all kernels (their durations summed, not their union) */
    struct per_name *by_name; size_t nby_name; /* the process's kernels by name id, summed over its windows */
    size_t phase_first;       /* the process's first phase */
    struct idmap kernel_index; /* hash of a name -> index in kernels */
    struct failed_summary failed[FAILED_KINDS_KEPT]; size_t nfailed; /* most often first, after summary_end */
    int64_t failed_total;     /* all failed calls, kinds past FAILED_KINDS_KEPT too */
};

/* Built in steps: begin; each process, while its collectives are loaded
 * (load_begin_proc): begin_proc, add_window for each window of its calls
 * and GPU operations loaded (load_window: one, or several for a
 * process read a window at a time), end_proc; end, for the bandwidths and
 * the tables' order. */
void summary_begin(const struct model *m, struct summary *s);
void summary_begin_proc(const struct model *m, struct summary *s, size_t pi);
void summary_add_window(const struct model *m, struct summary *s, size_t pi);
void summary_end_proc(const struct model *m, struct summary *s, size_t pi);
/* The first n of process pi's collectives loaded, done with (in order). */
void summary_add_colls(const struct model *m, struct summary *s, size_t pi, size_t n);
void summary_end(struct summary *s);
void summary_free(struct summary *s);
/* The kernel table (kernel_summary.c): the steps above call these. */
void kernels_begin_proc(const struct model *m, struct summary *s, size_t pi);
void kernels_add_window(const struct model *m, struct summary *s, size_t pi);
void kernels_end_proc(const struct model *m, struct summary *s, size_t pi);
void kernels_end(struct summary *s);
/* The failed calls (failed_calls.c): likewise. */
void failed_add_proc(const struct model *m, struct summary *s, size_t pi);
void failed_end(struct summary *s);
void kernels_free(struct summary *s);
/* The kernel table's row of `name`, made if new (summary_merge.c). */
struct kernel_summary *kernels_entry(struct summary *s, const char *name);
/* Adds what `from` (begun, then one process, pi, through begin_proc ..
 * end_proc) holds to s, as if that process had gone through s itself
 * after those before it (summary_merge.c: the report's workers, each
 * process into a summary of its own), and frees from. */
void summary_take_proc(struct summary *s, struct summary *from, size_t pi);

#endif
