/* host_blocked.h: when the host was blocked waiting for the GPU, in one
 * window of a process's calls: the union of its blocking calls (syncs,
 * blocking copies and memsets, cudaFree's implicit sync, NCCL's
 * communicator calls), on any thread.  GPU idle while the host is blocked
 * is the block's, not the host's slowness: gpu.idle leaves it to the
 * syncs' findings, and the ledger calls what no finding claimed of it the
 * host blocked in a needed sync. */
#ifndef GPUTRACE_HOST_BLOCKED_H
#define GPUTRACE_HOST_BLOCKED_H

#include "viewer/model/timeline.h"

#include <stddef.h>

/* The union, for the window of process pi loaded, with `carry` (an
 * earlier window's blocks that reach into this one's first gap; NULL:
 * none) before it (free its v). */
struct ivals host_blocked_union(const struct model *m, size_t pi, const struct ivals *carry);
/* The parts of [a, b) that the union u covers (want 1) or not (want 0),
 * each handed to fn with arg. */
void ivals_split(const struct ivals *u, int64_t a, int64_t b, int want,
                 void (*fn)(void *arg, int64_t a, int64_t b), void *arg);

#endif
