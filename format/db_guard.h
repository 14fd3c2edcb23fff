/* db_guard.h: what reading or changing a database file that came from
 * elsewhere takes (gputrace-report reads any file it is given, `gputrace
 * expand` rewrites one): a file that is a FIFO or a device would block the
 * open, and a schema can hold views and triggers that run whatever SQL its
 * author chose (an endless recursive view named api_call; a trigger that
 * writes on every row expanded).  Used by the report and by expand, never
 * by the tracer. */
#ifndef GPUTRACE_DB_GUARD_H
#define GPUTRACE_DB_GUARD_H

#include <sqlite3.h>
#include <stddef.h>

/* 0 if path is a regular file (symbolic links followed); else -1 with the
 * reason in why ("PATH: not a regular file", "PATH: no such file"). */
int gt_guard_regular(const char *path, char *why, size_t len);
/* Sets what an untrusted file needs on a connection just opened, before
 * its schema is read: defensive mode (no writable schema, no shadow-table
 * writes), schema not trusted (no function with side effects or virtual
 * table reachable from a view, trigger or index of the file), and no view
 * or trigger of the file's own run at all. */
void gt_guard_connection(sqlite3 *db);
/* 0 if every name of names (NULL-terminated) that the file's schema holds
 * is an ordinary table (missing ones are the caller's business: a file of
 * an older schema lacks some); else -1 with what it is in why ("api_call
 * is a view"). */
int gt_guard_tables(sqlite3 *db, const char *const *names, char *why, size_t len);
/* The number of triggers in the file's schema (ours has none), their names
 * listed in names (", " between them, cut to fit); -1 if the schema cannot
 * be read. */
int gt_guard_triggers(sqlite3 *db, char *names, size_t len);

#endif
