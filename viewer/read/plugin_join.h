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
/* How far NCCL got in one of a process's collectives (by its place among
 * them, coll_rec.index), as the plugin recorded it: PD_NONE when it did
 * not, or the collective finished. */
enum { PD_NONE = 0, PD_ENQUEUED, PD_KERNEL, PD_PEER, PD_NETWORK, PD_DONE };
int plugin_depth_at(const struct proc *p, int64_t index);
/* The report's note on what the plugin saw (text), if anything. */
void plugin_note_text(FILE *out, const struct model *m);
/* ... as the JSON member `, "nccl_plugin": {"ops": N, "joined": N, "alone": N}` (always). */
void plugin_note_json(FILE *out, const struct model *m);

#endif
