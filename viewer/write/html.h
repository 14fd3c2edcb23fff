/* html.h: the HTML report (gputrace-report --html FILE): one page, no
 * script and nothing fetched, its charts inline SVG drawn here.
 * html_report.c lays out the page; html_charts.c draws the charts. */
#ifndef GPUTRACE_HTML_H
#define GPUTRACE_HTML_H

#include "viewer/analyse/findings.h"
#include "viewer/analyse/summary.h"

#include <stdio.h>

struct coll_spill;

/* Writes the page to path: 0, or -1 with a reason in err. */
int html_report_write(const char *path, const struct model *m, const struct summary *s, const struct findings *fs,
                      struct coll_spill *spill, char *err, size_t errlen);

/* Text with <, >, & and quotes escaped, control bytes dropped, and each
 * byte of invalid UTF-8 (the page is UTF-8) as U+FFFD. */
void html_text(FILE *out, const char *s);

/* The tables of collectives, kernels and phases the text report prints
 * (html_tables.c); none that would be empty. */
void html_tables(FILE *out, const struct model *m, const struct summary *s);

/* The charts, each an <svg> element (html_charts.c). */
void html_rank_bars(FILE *out, const struct model *m, const struct summary *s);
void html_step_lines(FILE *out, const struct model *m);
void html_lateness_map(FILE *out, const struct model *m, struct coll_spill *spill);
/* A cost as a bar, a share of `whole` (ns), which `what` names in words
 * (its tooltip). */
void html_cost_bar(FILE *out, int64_t cost, int64_t whole, const char *what);

#endif
