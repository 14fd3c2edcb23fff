/* monitor.h: monitor mode, always on (docs/monitor.md, GPUTRACE_MODE=monitor).
 *
 * The probes record as in a full recording; the writer stores the records
 * into a window in memory (window.h) instead of the file, and the file of
 * the process in the run directory gets its row, its names, a heartbeat
 * and the aggregates of the whole job (mon_agg.h).  Once a second the
 * writer looks for triggers:
 *   - hang: a call that may block (a sync, a blocking copy, an NCCL call
 *     that blocks) in flight for GPUTRACE_HANG_S;
 *   - slowdown: a step (mon_agg.h) longer than GPUTRACE_SLOWDOWN times the
 *     median of the steps before it;
 *   - a request in the run directory (requests.h), made by another
 *     process's trigger or by `gputrace dump` / `gputrace capture`.
 * At its commits it also rewrites its metrics file (mon_prom.h).
 * A trigger of its own makes a request (unless one was made within
 * GPUTRACE_COOLDOWN_S), so that every process, the one nobody waits for
 * included, writes its window for it: each takes the earliest request it
 * has not handled once it is a second old (racing triggers of one event
 * are made within it), and requests made within two seconds of it count
 * as the same.  Writer thread only: no signal, no thread of the program's
 * is ever held up by it. */
#ifndef GPUTRACE_MONITOR_H
#define GPUTRACE_MONITOR_H

#include "collector/db.h"

#include <stdint.h>

struct gt_mon_cfg {
    int on;             /* GPUTRACE_MODE=monitor */
    int window_s;       /* GPUTRACE_WINDOW_S: seconds of full records kept (60) */
    int window_mb;      /* GPUTRACE_WINDOW_MB: their memory bound (24) */
    int hang_s;         /* GPUTRACE_HANG_S: a blocking call in flight this long is a hang (30) */
    int cooldown_s;     /* GPUTRACE_COOLDOWN_S: between triggers of one process (120) */
    double slowdown;    /* GPUTRACE_SLOWDOWN: a step this many times the median is a slowdown (1.5; 0 = off) */
    int metrics_ms;     /* GPUTRACE_METRICS_MS: how often the metrics file is rewritten (5000; 0 = none) */
    int quiet;          /* GPUTRACE_QUIET (gt_config's): no lines of its own on stderr */
    char rundir[4096];  /* where requests and windows go */
    char file[300];     /* this process's file name, as in the run directory */
};

/* Reads the settings above from the environment (bad values: a line and
 * the default); rundir and file from the process's output path. */
void gt_mon_config_load(struct gt_mon_cfg *c, const char *output);
/* Set before the writer opens its files (activate.c). */
void gt_mon_configure(const struct gt_mon_cfg *c);
const struct gt_mon_cfg *gt_mon_cfg(void);
/* Writer side: the window begins (mem is the database in memory). */
void gt_mon_start(struct gt_db *mem, struct gt_db *disk, int64_t start_ns);
/* Each writer pass, after its commit (commit: whether it committed):
 * keeps the window, and once a second looks for triggers and requests. */
void gt_mon_pass(int commit);
/* An API's name, for triggers' words and metrics' labels. */
const char *gt_mon_api_name(int64_t api);
/* At the end of the process (the final pass): a request not taken yet,
 * or a capture, is answered now, with what the window holds. */
void gt_mon_final(void);
/* Later in the final pass, once CUPTI's last records are stored: the
 * windows gt_mon_final wrote, written again with them.  gt_mon_final
 * writes first, so that a CUPTI flush that never returns (the waiter
 * gives up on it: writer_int.h) costs those records, not the window. */
void gt_mon_final_gpu(void);

#endif
