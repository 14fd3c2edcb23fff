/* modules.h: the objects (executable, shared libraries) that call-site
 * frames point into, with what the report needs to find their line
 * information later: the file's full path and its GNU build id.
 *
 * The traced process writes frames as "function+0xoff (module+0xoff)",
 * offsets from the object's load bias (its link-time addresses), and never
 * reads debug information itself: unpacking DWARF at exit cost a short run
 * most of a second.  gputrace-report turns such frames into "function
 * (file:line) [module]" from these rows (viewer/read/symbolize.c), on the
 * machine that traced, where the same files are.  Writer thread only. */
#ifndef GPUTRACE_MODULES_H
#define GPUTRACE_MODULES_H

#include <stdint.h>

/* Notes the object that dladdr named fname, loaded with bias l_addr;
 * main is whether it is the executable (whose dladdr name may be
 * relative).  Returns the name that frames use for it (its base name). */
const char *gt_module_note(const char *fname, uintptr_t l_addr, int main);
/* Calls fn(id, name, path, build_id) for every object noted and not
 * reported before; build_id is lower-case hex, "" when the object has none. */
void gt_modules_flush_new(void (*fn)(uint32_t id, const char *name, const char *path, const char *build_id, void *ctx),
                          void *ctx);
/* Forget what was reported (after fork: the child writes its own rows). */
void gt_modules_reset_reported(void);

#endif
