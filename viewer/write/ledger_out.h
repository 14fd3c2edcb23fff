/* ledger_out.h: each rank's time accounted for (analyse/ledger.h), in the
 * text report, the JSON and the HTML page. */
#ifndef GPUTRACE_LEDGER_OUT_H
#define GPUTRACE_LEDGER_OUT_H

#include "viewer/analyse/findings.h"
#include "viewer/analyse/summary.h"

#include <stdio.h>

/* Text: a row per rank of its buckets, then the GPU time lost by cause
 * over all ranks, the largest first (the findings' order). */
void ledger_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* JSON: the top-level "ledger" member (docs/report-json.md). */
void ledger_json(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* HTML: the same table as the text, and the causes. */
void ledger_html(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* The finding a row's time was charged to, NULL if none. */
const struct finding *ledger_row_finding(const struct findings *fs, const struct ledger_row *r);

#endif
