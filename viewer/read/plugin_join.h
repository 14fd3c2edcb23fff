/* plugin_join.h: NCCL's own records (the nccl_* tables) joined to the
 * wrappers' collectives, or standing in for them (plugin_join.c). */
#ifndef GPUTRACE_PLUGIN_JOIN_H
#define GPUTRACE_PLUGIN_JOIN_H

#include "viewer/model/model.h"

#include <stddef.h>
#include <stdio.h>

/* After p's wrapped collectives are read into p->colls (cap: its room):
 * counts the plugin's operations the wrappers saw, and adds those on
 * communicators no wrapper saw as collectives of their own, keeping
 * p->colls sorted by start. */
void plugin_join(struct model *m, struct proc *p, size_t *cap);
/* Once p's GPU operations are loaded: the kernel of each collective that
 * only the plugin saw (it overlaps its kernel channels' span). */
void plugin_kernels(struct proc *p);

#endif
