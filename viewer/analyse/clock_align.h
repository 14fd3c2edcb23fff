/* clock_align.h: the hosts' clocks aligned from the collectives.
 *
 * Each process stores CLOCK_REALTIME - CLOCK_MONOTONIC at its start, and
 * that is all that lines hosts up at first: across hosts kept by NTP the
 * error can be a few milliseconds, of the order of the margins the
 * analyses across ranks use, and it drifts over a long run.  The end of a
 * collective's kernel is nearly simultaneous on all its ranks (none can
 * finish before the last one's data arrived), so each (communicator,
 * sequence) shared by the first rank's host (the reference) and another
 * host gives one sample of that host's clock error: its ranks' mean end
 * minus the reference's.  A line (offset, and drift over runs long enough
 * to tell it) is fitted to each host's samples, outliers trimmed, and
 * subtracted from its times (model_aligned) before every analysis across
 * ranks and the Chrome trace; what remains of the samples around the line
 * is the host's residual, reported, and a timing finding across ranks
 * whose margin is within it loses confidence.
 *
 * Ranks on one host share its clock: a host is the process rows' host
 * name.  It streams: the samples come from coll_spill_groups, and each
 * host keeps at most CLOCK_SAMPLES of them (a uniform sample, the same on
 * every run of the report), so memory does not follow the run's length. */
#ifndef GPUTRACE_CLOCK_ALIGN_H
#define GPUTRACE_CLOCK_ALIGN_H

#include "viewer/analyse/findings.h"

#define CLOCK_SAMPLES 4096

struct host_clock {
    const char *host;          /* a process's host name (model.procs) */
    const char *boot_id;       /* ... and its boot id ("" where its file has none): two machines may share a name */
    const struct proc *proc;   /* its first process (model_same_host) */
    int nprocs, first_rank;    /* its processes, the lowest rank among them */
    int reference;             /* the first rank's host: the others are aligned to it */
    int aligned;               /* a line was fitted: its ranks' times are corrected */
    int64_t shared;            /* collectives it shares with the reference host (with GPU times) */
    int64_t used, outliers;    /* samples the line was fitted to, and those trimmed as outliers */
    int64_t offset_ns;         /* its clock minus the reference's, at mid_ns */
    double drift_ppm;          /* how fast that grows (0 when the run is too short to tell) */
    int64_t residual_ns;       /* RMS of the samples used around the line */
    int64_t max_residual_ns;   /* the largest of them */
    int64_t mid_ns, lo_ns, hi_ns; /* the samples' mean time and span (aligned ns) */
};

struct clock_fit {
    struct host_clock *hosts; size_t nhosts;
    int64_t across;            /* collectives that span more than one host */
    int64_t residual_ns;       /* the largest aligned host's residual (0: one host) */
    int unaligned;             /* hosts left on their realtime clocks (no collective with the reference) */
};

/* Fits every host's clock to the reference host's from the spilled
 * collectives (their GPU ends), sets each process's correction
 * (proc.align) and m->clock.  Call after every process was spilled and
 * before the analyses across ranks. */
void clock_align_fit(struct model *m, struct coll_spill *spill);
/* Whether the processes are on more than one host: the fit may move their
 * times, so what writes them (the Chrome trace) waits for it. */
int clock_align_hosts(const struct model *m);
/* Lowers the confidence of timing findings across ranks (comm.straggler)
 * whose margin (the straggler's mean lead over the next rank) is within
 * CLOCK_MARGIN_FACTOR of the hosts' residual, or that span hosts that could
 * not be aligned, and says why in the message. */
#define CLOCK_MARGIN_FACTOR 3
void clock_align_confidence(const struct model *m, struct findings *fs, struct coll_spill *spill);
void clock_align_free(struct model *m);

#endif
