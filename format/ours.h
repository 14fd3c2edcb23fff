/* ours.h: whether a file is ours to remove (ours.c).  `gputrace record -f`
 * and `gputrace import -f` remove only what these say is ours. */
#ifndef GPUTRACE_OURS_H
#define GPUTRACE_OURS_H

#include <stddef.h>

/* The side files SQLite keeps next to a database, "" first (the database
 * itself): -wal, -shm, -journal. */
extern const char *const gt_ours_sidecars[4];
#define GT_OURS_NSIDECARS 4

/* 1 when path (not followed if a symbolic link) is a regular file holding
 * a gputrace database: an SQLite file whose meta table has a schema_version
 * and a writer 'gputrace ...' (every writer of ours fills both: the tracer,
 * merge, import).  0 for anything else, an unreadable file included.  Told
 * by content, never by name; reading leaves the file and its side files
 * as they were. */
int gt_ours_db(const char *path);
/* The same, and whether it is a `gputrace merge` output (its meta says
 * 'merged'; or, made before merge marked it, it holds several processes
 * and no block of records), which no record writes. */
int gt_ours_db_merged(const char *path, int *merged);
/* The same for any key of its meta: 'mode' is set by a monitored run's
 * processes (collector/monitor.c). */
int gt_ours_db_mark(const char *path, const char *key, int *has);
/* The length of name without its -wal, -shm or -journal, or 0 when it
 * ends in none of them. */
size_t gt_ours_sidecar_base(const char *name);
/* 1 when path is a gputrace database (gt_ours_db), or the -wal, -shm or
 * -journal (a regular file) of one. */
int gt_ours_file(const char *path);

#endif
