/* plugin_notes.h: what NCCL's profiler plugin saw, as the report says it
 * (plugin_notes.c). */
#ifndef GPUTRACE_PLUGIN_NOTES_H
#define GPUTRACE_PLUGIN_NOTES_H

#include "viewer/model/model.h"

#include <stdio.h>

/* The report's note on what the plugin saw (text), if anything: among the
 * notes at the top (at_end 0) only when some operation did not join a
 * wrapped call (NCCL ran what no wrapper saw: the figures rest on it);
 * else at the end (at_end 1), where a user reading for what to fix does
 * not meet it first. */
void plugin_note_text(FILE *out, const struct model *m, int at_end);
/* ... as the JSON member `, "nccl_plugin": {"ops": N, "joined": N, "alone": N}` (always). */
void plugin_note_json(FILE *out, const struct model *m);

#endif
