/* attribution.h: one charge per lost millisecond (docs/report.md, "How
 * costs are attributed").
 *
 * While the analyses run, each occurrence of a finding notes the interval
 * of a rank's time it claims (the host blocked in a call, the GPU idle
 * after a sync, a collective's exposed time, a rank's wait for a
 * straggler).  Once every finding is known, each rank's claims are
 * resolved in order of cause: an interval goes to the first finding, by
 * kind (attribution_rank), that claims it, and no other; claims are
 * clipped to the rank's life.  A finding's cost is then what it was given,
 * so a rank's findings never add up to more than its wall time.
 */
#ifndef GPUTRACE_ATTRIBUTION_H
#define GPUTRACE_ATTRIBUTION_H

#include <stddef.h>
#include <stdint.h>

struct model;
struct findings;
struct finding;
struct report_opts;

/* A claim (or, once resolved, a piece given): [a, b) of process `tl`'s
 * time (its own clock), for the finding (kind, proc, site), made by its
 * occurrence marked `occ` (finding_marks.c; -1: one not marked), whose
 * cost the piece adds to. */
struct charge {
    int64_t a, b;
    int tl, proc, site;
    int8_t kind, occ;
    /* the GPU it is about, of a process that drives several (device + 1;
     * 0: every GPU, or the one; gpu.idle's and gpu.stalled's say theirs
     * in their site: charge_device, findings.h) */
    int16_t gpu;
};

struct charges {
    struct charge *v; size_t n, cap;           /* claims, as the analyses note them */
    struct charge *given; size_t ngiven;       /* resolved pieces (attribute_costs) */
    int64_t *by_proc; size_t nprocs;           /* per process: the time its findings account for */
};

/* Finding f claims [a, b) of process tl's time. */
void charge_add(struct findings *fs, const struct finding *f, int tl, int64_t a, int64_t b);
/* Finding f claims the parts of [a, b) that the union busy does not cover
 * (the GPU idle; for gpu.idle, the host not blocked); returns their
 * length. */
struct ivals;
int64_t charge_gaps(struct findings *fs, const struct finding *f, int tl, const struct ivals *busy, int64_t a, int64_t b);
/* The same, but for the parts in process p's stretches without GPU records
 * (model.h, gpu_gaps: not idle, not known), whichever window they lie in
 * (busy: this window's work). */
struct proc;
int64_t charge_idle(struct findings *fs, const struct finding *f, int tl, const struct proc *p, const struct ivals *busy,
                    int64_t a, int64_t b);
/* Drops process proc's claims for its own findings of kinds first..last
 * (the syncs analysed again: proc_report.c). */
void charges_drop(struct findings *fs, int proc, int first, int last);
/* The order claims are resolved in (qsort's comparison): by timeline,
 * then cause (the earlier cause wins), then start, end, kind, process and
 * call site. */
int charge_cmp(const void *x, const void *y);
/* v[0, n) in charge_cmp's order, stably (equal claims stay as noted: the
 * order decides which occurrence a piece goes to); every tl in [0, nprocs). */
void charges_sort(struct charge *v, size_t n, size_t nprocs);
/* Resolves the claims of the findings kept (findings_kept) into each
 * finding's cost_ns and each process's total. */
void attribute_costs(struct findings *fs, const struct model *m, const struct report_opts *o);
/* The pieces that claims v[0, n) (one process's, in the order
 * attribute_costs leaves them) give to those of them keep() accepts,
 * resolved as attribute_costs resolves them, into *out (free it), *nout:
 * one GPU's of a process that drives several (ledger.c), whose claims are
 * those about every GPU and its own. */
void charges_resolve_some(const struct charge *v, size_t n, int (*keep)(const struct charge *, void *), void *arg,
                          struct charge **out, size_t *nout);
/* The pieces given to finding f, for --charges (NULL-terminated walk:
 * returns the next index after `from` whose piece is f's, or ngiven). */
size_t charges_next(const struct findings *fs, const struct finding *f, size_t from);
void charges_free(struct charges *c);
/* Where the cost of findings fs->v[i] with pick(i) lay: per process, the
 * time given to them on its timeline into per_proc[nprocs] (zeroed here);
 * returns how many processes were given any.  A cost on several ranks is
 * a sum (a straggler's: the others' wait; a group's: its ranks'), which
 * the outputs say, lest it read as more than a rank's wall time.  group
 * NULL: finding `leader` alone; else every i with group[i] == leader. */
size_t charges_spread(const struct findings *fs, const int *group, size_t leader, int64_t *per_proc, size_t nprocs);

#endif
