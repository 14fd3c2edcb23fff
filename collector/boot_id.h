/* boot_id.h: which boot of which machine a process ran on (boot_id.c). */
#ifndef GPUTRACE_BOOT_ID_H
#define GPUTRACE_BOOT_ID_H

#include <sqlite3.h>
#include <stdint.h>

/* Stores the kernel's boot id (/proc/sys/kernel/random/boot_id) in
 * process.boot_id of row process_id, adding the column to a file made
 * before it existed.  Best effort: a failure leaves it NULL and touches
 * nothing else of the database; errno is kept. */
void gt_boot_id_store(sqlite3 *db, int64_t process_id);

#endif
