/* charges_out.h: the findings' charged time in the outputs (charges_out.c). */
#ifndef GPUTRACE_CHARGES_OUT_H
#define GPUTRACE_CHARGES_OUT_H

#include "viewer/analyse/findings.h"
#include "viewer/analyse/summary.h"

#include <stdio.h>

/* Ranks, sorted, as "0-3" or "0,2,5-7" (cut with "..." to fit len). */
void rank_list(const int *rv, size_t n, char *buf, size_t len);
/* Text: per rank, what its findings account for of its wall time. */
void charges_text(FILE *out, const struct model *m, const struct summary *s, const struct findings *fs);
/* JSON: a rank's "findings_ns"; a finding's "charged" intervals (with --charges). */
void charges_json_rank(FILE *out, const struct findings *fs, int proc);
void charges_json_finding(FILE *out, const struct model *m, const struct findings *fs, const struct finding *f);

#endif
