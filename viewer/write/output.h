/* output.h: the report's outputs: text for a person, JSON for programs
 * (docs/report-json.md), and the Chrome trace (docs/chrome-trace.md). */
#ifndef GPUTRACE_OUTPUT_H
#define GPUTRACE_OUTPUT_H

#include "viewer/analyse/findings.h"
#include "viewer/analyse/summary.h"

#include <stdio.h>

/* Kernels listed, most GPU time first: in the text report, and in JSON. */
#define KERNELS_SHOWN 10
#define KERNELS_JSON 100

/* How a process is named: "rank 3", or "pid 5741" for one that no launcher
 * gave a rank (a single process: never "rank -1"); and its cell of a
 * table's rank column: "3", or "-" (its pid is beside it). */
const char *proc_label(int rank, int pid, char *buf, size_t len);
const char *rank_cell(int rank, char *buf, size_t len);

void output_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
void output_json(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* Streams the Chrome trace to path in steps: open (NULL with errno set
 * when the file cannot be made); for each process, each window of its
 * calls and GPU operations while it is loaded (load_window), then
 * proc_end (its tracks' names, its NVTX ranges); close, with the
 * collectives across ranks (every rank's, from spill: coll_spill.h) and
 * the findings: the number of events written, or -1 when the file could
 * not be written. */
struct chrome_trace;
struct chrome_trace *chrome_trace_open(const char *path, const struct model *m, int progress);
void chrome_trace_window(struct chrome_trace *w, const struct model *m, size_t pi);
void chrome_trace_proc_end(struct chrome_trace *w, const struct model *m, size_t pi);
struct coll_spill;
long chrome_trace_close(struct chrome_trace *w, const struct model *m, const struct findings *fs,
                        struct coll_spill *spill);
/* One Kineto-style trace per rank in dir, as docs/kineto.md describes:
 * kineto_paths names each process's file in dir (rank-R.json, pid-P.json
 * without a rank; a process with the rank of another, rank-R-pidP.json,
 * which a line for the user in note says, else note is ""): an array of
 * m->nprocs, freed by kineto_paths_free;
 * kineto_begin makes dir if missing (0, or -1 with a reason in err);
 * kineto_open_rank starts process pi's file, path (NULL with a reason in err),
 * kineto_rank_window writes each window of it while it is loaded
 * (load_window), and kineto_close_rank ends it (0, or -1 with a
 * reason in err). */
struct kineto_rank;
char **kineto_paths(const char *dir, const struct model *m, char *note, size_t notelen);
void kineto_paths_free(char **v, size_t n);
int kineto_begin(const char *dir, char *err, size_t errlen);
struct kineto_rank *kineto_open_rank(const char *path, const struct model *m, size_t pi, char *err, size_t errlen);
void kineto_rank_window(struct kineto_rank *k, const struct model *m, size_t pi);
int kineto_close_rank(struct kineto_rank *k, const struct model *m, size_t pi, char *err, size_t errlen);

#endif
