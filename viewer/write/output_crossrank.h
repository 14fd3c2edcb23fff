/* output_crossrank.h: the report's sections about how ranks line up with
 * each other: the hosts' clock alignment (clock_align.h) and the
 * point-to-point pairs (analysis_p2p.h), as text and as JSON members. */
#ifndef GPUTRACE_OUTPUT_CROSSRANK_H
#define GPUTRACE_OUTPUT_CROSSRANK_H

#include "viewer/model/model.h"

#include <stdio.h>

/* The clock alignment table (nothing for a run on one host). */
void output_clock_text(FILE *out, const struct model *m);
/* ",\n\"clock_alignment\": {...}" (docs/report-json.md). */
void output_clock_json(FILE *out, const struct model *m);

/* The point-to-point pairs and the stages' bubbles (nothing without any). */
void output_p2p_text(FILE *out, const struct model *m);
/* ",\n\"p2p\": {\"pairs\": [...], \"stages\": [...]}" (docs/report-json.md). */
void output_p2p_json(FILE *out, const struct model *m);

#endif
