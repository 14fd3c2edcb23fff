/* plugin_ce.h: the wrapped collectives NCCL ran on the copy engines, for
 * the join of NCCL's plugin records (plugin_ce.c, plugin_join.c). */
#ifndef GPUTRACE_PLUGIN_CE_H
#define GPUTRACE_PLUGIN_CE_H

#include "viewer/model/idmap.h"

#include <sqlite3.h>
#include <stdint.h>

/* The external ids (a call's, or a group's) of process proc_id under which
 * CUPTI recorded NCCL's copy-engine driver calls (cuStreamBatchMemOp,
 * cuMemcpyBatchAsync): value 1 when no kernel was launched under the same
 * id (every CE-capable collective of that call or group ran on the copy
 * engines), 2 when one was too (a group mixing both: which ran how cannot
 * be told).  Returns how many ids it found (0: no CUPTI records, or none). */
size_t plugin_ce_ids(sqlite3 *db, int64_t proc_id, struct idmap *out);

#endif
