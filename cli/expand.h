/* expand.h: `gputrace expand FILE` (expand.c). */
#ifndef GPUTRACE_EXPAND_H
#define GPUTRACE_EXPAND_H

/* Turns path's blocks into rows (api_call, nvtx_range, cupti_api, gpu_op)
 * and says how many on stdout; 0, or 1 with a line on stderr. */
int gt_expand(const char *path);
/* The same, saying nothing on success and naming gputrace merge in its
 * messages (merge's output, which merge removes on failure). */
int gt_expand_quiet(const char *path);

#endif
