/* metrics.h: `gputrace metrics` (metrics.c). */
#ifndef GPUTRACE_METRICS_H
#define GPUTRACE_METRICS_H

/* argc/argv after "metrics".  Returns the exit status. */
int gt_metrics_main(int argc, char **argv);

#endif
