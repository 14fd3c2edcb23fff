/* plugin_notes.h: what NCCL's profiler plugin saw, as the report says it
 * (plugin_notes.c). */
#ifndef GPUTRACE_PLUGIN_NOTES_H
#define GPUTRACE_PLUGIN_NOTES_H

#include "viewer/model/model.h"

#include <stdio.h>

/* The report's note on what the plugin saw (text), if anything. */
void plugin_note_text(FILE *out, const struct model *m);
/* ... as the JSON member `, "nccl_plugin": {"ops": N, "joined": N, "alone": N}` (always). */
void plugin_note_json(FILE *out, const struct model *m);

#endif
