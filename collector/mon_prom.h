/* mon_prom.h: monitor mode's aggregates as Prometheus metrics
 * (docs/monitor.md, "Metrics"): each process rewrites its own
 * RUN/metrics/<host>-<pid>.prom every GPUTRACE_METRICS_MS, atomically (a
 * temporary file renamed over it), in the text format node_exporter's
 * textfile collector reads; nothing listens on a port in the traced
 * process.  The series are bounded whatever the program does: the call
 * sites that blocked longest (GT_PROM_SITES, the rest as site="other"),
 * the first GT_PROM_COMMS communicator and operation pairs.  Writer
 * thread only; the file is removed when the process ends (its metrics
 * would otherwise be scraped for ever), if it is still the one it wrote
 * (told by identity, not by name). */
#ifndef GPUTRACE_MON_PROM_H
#define GPUTRACE_MON_PROM_H

#include "collector/db.h"

#include <stddef.h>
#include <stdint.h>

#define GT_PROM_SITES 10
#define GT_PROM_COMMS 32
#define GT_PROM_COMM_HISTS 8 /* the collective latency histograms of the busiest pairs */
#define GT_PROM_DIR "metrics"

/* What the monitor knows besides the aggregates. */
enum { GT_WIN_HANG, GT_WIN_SLOWDOWN, GT_WIN_REQUEST, GT_WIN_CAPTURE, GT_WIN_KINDS };
struct gt_prom_state {
    int64_t inflight_ns;  /* the blocking call in flight longest (the hang gauge), 0 if none */
    int inflight_api;
    uint64_t windows[GT_WIN_KINDS];
    uint64_t dropped;
};

/* disk: the process's file (its row and call sites). */
void gt_mon_prom_start(struct gt_db *disk, const char *rundir, const char *file);
/* The metrics text into buf (at most len bytes, cut at a line): its length. */
size_t gt_mon_prom_format(char *buf, size_t len, const struct gt_prom_state *st);
/* Rewrites the file; 0, or -1 with a one-line reason in err. */
int gt_mon_prom_write(const struct gt_prom_state *st, char *err, size_t errlen);
/* Removes the file (the process ends). */
void gt_mon_prom_remove(void);
/* The same from the handler of a signal that ends the process: unlink
 * only (async-signal-safe), and no file is written again (a write under
 * way when it came removes what it wrote). */
void gt_mon_prom_remove_now(void);

#endif
