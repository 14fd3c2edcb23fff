/* report_cli.h: gputrace-report's command line, read into one struct
 * (report_cli.c: the options as one table, from which --help is written). */
#ifndef GPUTRACE_REPORT_CLI_H
#define GPUTRACE_REPORT_CLI_H

#include "viewer/analyse/findings.h"

struct report_cli {
    struct report_opts o;          /* the analyses' thresholds */
    const char *format;            /* "text" or "json" */
    const char *trace, *kineto, *html; /* the outputs asked for, or NULL */
    const char *run, *range;       /* --run, --range, or NULL */
    int charges;                   /* --charges */
    int force;                     /* --force: replace outputs gputrace did not write */
    int jobs;                      /* --jobs, 0: report_jobs' default */
    int fail_on[F_KIND_COUNT], any_fail_on;
    const char **args;             /* the inputs as given (argc entries; free it) */
    int npaths;
};

/* Reads argv into c.  Returns -1 when the report is to go on, else the
 * exit status: 0 after --help or --version (printed), 2 after one line on
 * stderr (a bad option or value), or the usage on stderr when no input
 * is named. */
int report_cli_parse(int argc, char **argv, struct report_cli *c);

#endif
