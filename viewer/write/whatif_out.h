/* whatif_out.h: what fixing each finding would make of the step time
 * (analyse/whatif.c), written: per finding, and per rank the replay's
 * own check (its steps as they are, replayed against measured). */
#ifndef GPUTRACE_WHATIF_OUT_H
#define GPUTRACE_WHATIF_OUT_H

#include "viewer/analyse/findings.h"

#include <stdio.h>

/* A replay whose steps differ from the measured ones by more than this
 * share (their mean absolute error) is not to be trusted for that rank. */
#define WHATIF_RELIABLE 0.02

/* The critical path's part kinds (CP_*, findings.h), as JSON names them. */
extern const char *const cp_kind_names[];
/* Whether a rank's replay is within WHATIF_RELIABLE. */
int whatif_reliable(const struct whatif_proc *w);
/* The process whose steps set the job's pace: of those replayed, the one
 * with the least of its step time in NCCL kernels (it waits least for the
 * others); -1 if none.  Every rank runs the same fix, so its prediction
 * is the job's. */
int whatif_reference(const struct model *m, const struct findings *fs);
/* ", \"whatif\": {...}" of a finding with a prediction, else nothing. */
void whatif_json_finding(FILE *out, const struct findings *fs, const struct finding *f);
/* ",\n\"whatif\": [...]": per rank with steps replayed. */
void whatif_json(FILE *out, const struct model *m, const struct findings *fs);
/* The text's line for a finding: "if fixed: ..." into buf ("" if none). */
const char *whatif_text_finding(const struct findings *fs, const struct finding *f, char *buf, size_t len);
/* The HTML page's section (whatif_html.c), and a finding's line on its card. */
void whatif_html(FILE *out, const struct model *m, const struct findings *fs);
void whatif_html_finding(FILE *out, const struct findings *fs, const struct finding *f);
/* The sentence saying which ranks' first steps were left out as warm-up
 * (model_steps_warmup) into buf ("" if none). */
const char *whatif_warmup_text(const struct model *m, const struct findings *fs, char *buf, size_t len);
/* Why rank w's replay as measured is rough (not whatif_reliable), into
 * buf: what its GPU's starts that the graph cannot explain account for
 * ("" where it is not rough). */
const char *whatif_rough_text(const struct whatif_proc *w, char *buf, size_t len);
/* The text's section: per rank, its steps now, replayed, all fixed. */
void whatif_text(FILE *out, const struct model *m, const struct findings *fs);

#endif
