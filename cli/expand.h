/* expand.h: `gputrace expand FILE` (expand.c). */
#ifndef GPUTRACE_EXPAND_H
#define GPUTRACE_EXPAND_H

/* Turns path's call blocks into api_call rows; 0, or 1 with a line on stderr. */
int gt_expand(const char *path);

#endif
