/* coll_spill.h: every rank's collectives, for what looks across ranks
 * (comm.straggler, comm.mismatch, comm.hang, the trace's flows from rank
 * to rank), without holding them all.
 *
 * A process's collectives are loaded with its calls (load_begin_proc) and
 * freed with them; before that, coll_spill_add writes what the analyses
 * across ranks read of each, sorted by (communicator, sequence), to a
 * temporary file (tmpstore.h).  At the end coll_spill_groups merges the processes' runs
 * and hands over one (communicator, sequence) group at a time, in that
 * order, its members in process order: what sorting all of them did,
 * with memory for one record per process.  A run of many ranks and
 * collectives (FSDP issues some for every layer) held 180 bytes a
 * collective of every rank before. */
#ifndef GPUTRACE_COLL_SPILL_H
#define GPUTRACE_COLL_SPILL_H

#include "viewer/model/model.h"
#include "viewer/model/tmpstore.h"

/* A collective as the analyses across ranks read it. */
struct coll_rec {
    int64_t comm, seq, start, gstart, gend, count, bytes, call_id;
    int32_t api, dtype, op, peer, rank, nranks, gstream, site;
    int32_t proc;   /* index into model.procs */
    int32_t index;  /* in its process's collectives (by start) */
    int32_t kname;  /* its kernel's name (model_kernel_name), 0 if none */
    int32_t spare;  /* 0: no padding, so that records compare byte for byte */
};

/* Whether a group's arrivals are its members' GPU starts: only where every
 * member has its kernel's times; else every member's host call.  A kernel
 * starts behind its call by what its stream had queued, so one member's
 * GPU start against another's call makes the one whose GPU ran behind
 * look last (a rank whose window was cut before CUPTI handed over its
 * last records, a rank recorded without CUPTI). */
static inline int coll_group_on_gpu(const struct coll_rec *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!(v[k].gend > v[k].gstart))
            return 0;
    return 1;
}

/* Whether a member has no kernel times because its process's own profiler
 * held CUPTI then (model.h, gpu_gaps: in a stretch, or entered just before
 * one): its group's arrivals would fall back to the host's calls on every
 * rank; such groups are left out wherever arrivals are compared. */
static inline int coll_group_unrecorded(const struct model *m, const struct coll_rec *v, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!(v[k].gend > v[k].gstart) &&
            model_proc_gpu_gap_soon(&m->procs[v[k].proc], v[k].start, MODEL_GAP_INFLIGHT_NS))
            return 1;
    return 0;
}

/* A member's arrival on the aligned clock, of the kind its group uses. */
static inline int64_t coll_arrival(const struct model *m, const struct coll_rec *c, int on_gpu)
{
    return model_aligned(m, &m->procs[c->proc], on_gpu ? c->gstart : c->start);
}

struct coll_batch { uint64_t first, n; };

struct coll_run {
    uint64_t first, n;    /* its records: [first, first + n) */
    int64_t *comms;       /* the communicators it used, sorted */
    int64_t *last_seqs;   /* ... and the highest collective number of each (model_seq_collective), -1 for none */
    size_t ncomms;
    struct coll_batch *batches; size_t nbatches, batches_cap; /* written so far, merged at its end */
};

struct coll_spill {
    struct tmpstore store;            /* the records, process after process */
    struct coll_run *runs; size_t nruns; /* by process index */
    /* communicators whose groups coll_spill_groups hands no one, sorted:
     * kinds of collectives whose match by kernel order was refused
     * (order_match.h); NULL for none */
    const int64_t *skip; size_t nskip;
};

/* Starts empty, for nprocs processes. */
void coll_spill_open(struct coll_spill *s, size_t nprocs);
/* Writes process pi's collectives (loaded, with their kernels' times). */
void coll_spill_add(struct coll_spill *s, const struct model *m, size_t pi);
/* The same a batch at a time, for a process whose collectives are loaded
 * a window at a time: n of them, the first being its collective number
 * `first` (in start order); then coll_spill_end_proc, which merges the
 * batches into the process's run. */
void coll_spill_add_batch(struct coll_spill *s, size_t pi, const struct coll *v, size_t n, size_t first);
void coll_spill_end_proc(struct coll_spill *s, size_t pi);
/* Calls fn with each (comm, seq) group, in (comm, seq) order, its n
 * members in process order (a process's own duplicates in load order);
 * not with those of the communicators in s->skip. */
typedef void coll_group_fn(const struct coll_rec *v, size_t n, void *ctx);
void coll_spill_groups(struct coll_spill *s, coll_group_fn *fn, void *ctx);
/* Whether process pi made any collective on communicator comm. */
int coll_spill_used(const struct coll_spill *s, size_t pi, int64_t comm);
/* Whether process pi made a collective on communicator comm numbered
 * after seq (so it went past collective seq, whatever its records hold
 * of that one: a rank's collectives on a communicator come in order). */
int coll_spill_went_past(const struct coll_spill *s, size_t pi, int64_t comm, int64_t seq);
void coll_spill_close(struct coll_spill *s);

#endif
