/* sync_records.h: CUPTI's synchronisation records of a process, read from
 * its file when an output wants them (sync_records.c). */
#ifndef GPUTRACE_SYNC_RECORDS_H
#define GPUTRACE_SYNC_RECORDS_H

#include "viewer/model/model.h"

#include <stdint.h>

/* Hands each of process p's SYNCHRONIZATION records (CUpti_Activity-
 * SynchronizationType in type) to each, in the order `gputrace expand`
 * gives them: rows, then those stored in bulk.  Only the Kineto export
 * shows them, so the model does not keep them. */
void load_sync_records(const struct model *m, const struct proc *p,
                       void (*each)(void *ctx, int64_t start, int64_t end, int stream, int type, int64_t corr),
                       void *ctx);

#endif
