/* outputs.h: what `gputrace record` finds where its output goes (outputs.c). */
#ifndef GPUTRACE_OUTPUTS_H
#define GPUTRACE_OUTPUTS_H

#include "collector/config.h"

/* Anything the output path (absolute; layout as gt_config_layout says)
 * could have made exists: refused (one line on stderr naming it, as
 * `shown`), or with force removed, but only gputrace databases and their
 * side files (ours.h): a run directory holding anything else is refused
 * even with force, a single file that is not ours too, and a pattern's
 * files that are not ours are left alone.  Returns 0 when the way is
 * clear, -1 after the line. */
int gt_outputs_clear(const char *path, const char *shown, enum gt_layout layout, int force);

#endif
