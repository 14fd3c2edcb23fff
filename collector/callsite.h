/* callsite.h: call stacks of wrapped calls, interned.
 *
 * A stack is captured as return addresses and interned in a fixed, lock-free
 * open-addressing table, so a call stores only a 32-bit id.  The writer
 * thread symbolises new stacks (dladdr: function and module+offset) and
 * stores each once.
 */
#ifndef GPUTRACE_CALLSITE_H
#define GPUTRACE_CALLSITE_H

#include <stddef.h>
#include <stdint.h>

/* Captures the caller's stack (skipping `skip` frames of the tracer) up to
 * `depth` frames and returns its id, or 0 if none could be kept. */
uint32_t gt_callsite_capture(int depth, int skip);
/* Writer side: calls fn(id, text) for every stack not reported before;
 * text is one frame per line. */
void gt_callsite_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx);
/* Forget what was reported (after fork: the child writes its own rows). */
void gt_callsite_reset_reported(void);
/* Loads the unwinder now, so that the first captured call does not. */
void gt_callsite_warm_up(void);

#endif
