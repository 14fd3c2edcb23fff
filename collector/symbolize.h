/* symbolize.h: return addresses to "function (file:line) [module]" through libdw
 * (elfutils), loaded at run time when it is there, for binaries with debug
 * information; otherwise the caller falls back to dladdr's
 * "function+0xoff (module+0xoff)".  Writer thread only. */
#ifndef GPUTRACE_SYMBOLIZE_H
#define GPUTRACE_SYMBOLIZE_H

#include <stddef.h>

/* Starts a symbolization batch (reads the process's current mappings). */
void gt_symbolize_begin(void);
/* Writes "function (file:line) [module]" for the call made just before return
 * address pc; returns 0, or -1 when no line information is known. */
int gt_symbolize(void *pc, char *out, size_t len);
void gt_symbolize_end(void);

#endif
