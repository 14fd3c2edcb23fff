/* pyframes.h: the Python frames of a wrapped call, when the calling thread
 * runs Python, whether it holds the GIL or released it (as PyTorch's
 * bindings do before they call CUDA or NCCL).
 *
 * The interpreter is found in the process at activation (no link-time
 * dependency on libpython; CPython 3.9 and newer).  The tracer runs no
 * Python and never takes the GIL: it reads the calling thread's own frames
 * from its thread state (pylayout.h), or, for a version without a known
 * layout, through the C API while the thread holds the GIL.  A process
 * without Python simply has no Python frames.  Stacks are interned like C
 * stacks; a record carries a 32-bit id.
 */
#ifndef GPUTRACE_PYFRAMES_H
#define GPUTRACE_PYFRAMES_H

#include "collector/visibility.h"

#include <stdint.h>

#define GT_MAX_PY_DEPTH 32

/* Frames to capture (GPUTRACE_PYSTACKS); 0 until Python is found. */
extern GT_INTERNAL int gt_py_depth;

/* Finds the interpreter in the process; with depth > 0 and CPython 3.9+
 * there, sets gt_py_depth.  Returns a one-word status for the process row. */
const char *gt_pyframes_init(int depth);
/* The calling thread's Python stack, innermost first, up to gt_py_depth
 * frames, interned; 0 if it has no frames (or none that can be read:
 * pyframes.c says when). */
uint32_t gt_pystack_capture(void);
/* Writer side: a new python_status for the process row once something
 * seen since activation changes it (subinterpreters), else NULL. */
const char *gt_pyframes_status_news(void);
/* Writer side: fn(id, text) for each stack not reported before; text is
 * one frame per line, "function (file:line)". */
void gt_pystack_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx);
void gt_pystack_reset_reported(void);

#endif
