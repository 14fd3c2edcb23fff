/* visibility.h: GT_INTERNAL marks the tracer's own globals as not
 * exported, for the compiler's sake.
 *
 * What the library exports is decided at link time by
 * libtrace/exports.map: the wrapped entry points only; every gt_* symbol
 * is local there.  But the sources are compiled with default visibility
 * (the wrappers must be exported, and they are not marked one by one), so
 * the compiler must assume that any extern global could be interposed and
 * addresses it through the GOT: one more dependent load, or at best (the
 * linker relaxing it for a local symbol) one more instruction, per global
 * on the wrapper fast path.  A global declared GT_INTERNAL is read with
 * one load, relative to the instruction pointer. */
#ifndef GPUTRACE_VISIBILITY_H
#define GPUTRACE_VISIBILITY_H

#define GT_INTERNAL __attribute__((visibility("hidden")))

#endif
