/* output.h: the report's outputs: text for a person, JSON for programs
 * (docs/report-json.md), and the Chrome trace (docs/chrome-trace.md). */
#ifndef GPUTRACE_OUTPUT_H
#define GPUTRACE_OUTPUT_H

#include "viewer/findings.h"
#include "viewer/summary.h"

#include <stdio.h>

/* Kernels listed, most GPU time first: in the text report, and in JSON. */
#define KERNELS_SHOWN 10
#define KERNELS_JSON 100

void output_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
void output_json(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* Streams the Chrome trace to path in three steps: open (NULL with errno
 * set when the file cannot be made); each process while its calls and GPU
 * operations are loaded (model_load_proc); close, with the collectives
 * across ranks (every rank's, from spill: coll_spill.h) and the findings: the number of events written, or -1 when
 * the file could not be written. */
struct chrome_trace;
struct chrome_trace *chrome_trace_open(const char *path, const struct model *m, int progress);
void chrome_trace_proc(struct chrome_trace *w, const struct model *m, size_t pi);
struct coll_spill;
long chrome_trace_close(struct chrome_trace *w, const struct model *m, const struct findings *fs,
                        struct coll_spill *spill);
/* One Kineto-style trace per rank in dir, as docs/kineto.md describes:
 * kineto_begin makes dir if missing; kineto_write_rank writes process pi's
 * file while it is loaded.  Both return 0, or -1 with a reason in err. */
int kineto_begin(const char *dir, char *err, size_t errlen);
int kineto_write_rank(const char *dir, const struct model *m, size_t pi, char *err, size_t errlen);

#endif
