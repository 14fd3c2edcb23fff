/* devices_out.h: per-GPU rows of a process that drives several (devices_out.c). */
#ifndef GPUTRACE_DEVICES_OUT_H
#define GPUTRACE_DEVICES_OUT_H

#include "viewer/analyse/summary.h"

#include <stdio.h>

void devices_text(FILE *out, const struct summary *s, const struct rank_summary *r);
void devices_json(FILE *out, const struct summary *s, const struct rank_summary *r);

#endif
