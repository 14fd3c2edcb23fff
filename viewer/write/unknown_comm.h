/* unknown_comm.h: the report's note on collectives whose communicator the
 * tracer did not see made (model_coll_comm_unknown): how many, on which
 * ranks, and which analyses could not run on them; in the text report and
 * in the JSON ("unknown_comm", docs/report-json.md). */
#ifndef GPUTRACE_UNKNOWN_COMM_H
#define GPUTRACE_UNKNOWN_COMM_H

#include "viewer/model/model.h"

#include <stdio.h>

/* "note: ..." lines; nothing when every collective's communicator is known. */
void unknown_comm_text(FILE *out, const struct model *m);
/* `,\n"unknown_comm": {...}`, always (zero collectives, empty lists when none). */
void unknown_comm_json(FILE *out, const struct model *m);

#endif
