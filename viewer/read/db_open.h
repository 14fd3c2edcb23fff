/* db_open.h: opening a database the report was given (db_open.c). */
#ifndef GPUTRACE_DB_OPEN_H
#define GPUTRACE_DB_OPEN_H

#include <sqlite3.h>
#include <stddef.h>

/* Opens path read-only as untrusted input and checks that it is a
 * gputrace database of a schema version this report reads: 0, or -1 with
 * a one-line reason in err (*out is then to be closed by the caller). */
int model_open_db(const char *path, sqlite3 **out, char *err, size_t errlen);
/* A second read-only connection to a file model_open_db accepted, guarded
 * the same way: 0, or -1 (*out closed and NULL). */
int model_open_again(const char *path, sqlite3 **out);
/* Whether path holds no trace at all: an empty file, or an SQLite
 * database without a table (what the tracer leaves of a process whose
 * first write failed, on a full disk): 1 with why ("empty", "no table in
 * it"), else 0 (a database to open, or a file model_open_db refuses). */
int model_db_holds_nothing(const char *path, char *why, size_t whylen);
/* Whether path is a `gputrace merge` output (its meta says 'merged'):
 * the processes of other files in one, which a run directory holding
 * those files too would read twice. */
int model_db_is_merge(const char *path);

#endif
