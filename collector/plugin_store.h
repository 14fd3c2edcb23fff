/* plugin_store.h: the writer's side of the NCCL plugin's records
 * (plugin_ring.h): each into its row of the nccl_* tables. */
#ifndef GPUTRACE_PLUGIN_STORE_H
#define GPUTRACE_PLUGIN_STORE_H

#include "collector/db.h"

/* Stores every record waiting in the ring; returns how many (writer thread). */
unsigned long gt_plug_store(struct gt_db *d);
/* After fork: the child's process row has not been told yet. */
void gt_plug_store_forget_after_fork(void);

#endif
