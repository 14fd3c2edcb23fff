/* output.h: the report's outputs: text for a person, JSON for programs
 * (docs/report-json.md), and the Chrome trace (docs/chrome-trace.md). */
#ifndef GPUTRACE_OUTPUT_H
#define GPUTRACE_OUTPUT_H

#include "viewer/findings.h"
#include "viewer/summary.h"

#include <stdio.h>

void output_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
void output_json(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* Streams the trace to path; returns the number of events written, -1 on error. */
long chrome_trace_write(const char *path, const struct model *m, const struct findings *fs, int progress);
/* Writes one Kineto-style trace per rank into dir (made if missing), as
 * docs/kineto.md describes; returns the number of files, -1 with a reason
 * in err. */
int kineto_export(const char *dir, const struct model *m, char *err, size_t errlen);

#endif
