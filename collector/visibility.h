/* visibility.h: GT_INTERNAL marks the tracer's own globals as not
 * exported.  The library is built with default visibility, since every
 * interposed CUDA and NCCL entry point must be exported; without this, each
 * read of a global on the wrapper fast path went through the GOT (one more
 * dependent load per global). */
#ifndef GPUTRACE_VISIBILITY_H
#define GPUTRACE_VISIBILITY_H

#define GT_INTERNAL __attribute__((visibility("hidden")))

#endif
