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

#endif
