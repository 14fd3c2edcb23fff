/* api_table.h: the api table every database holds, filled from the one
 * list of wrapped APIs (api_ids.h) by the tracer's writer and by the
 * importers alike (api_table.c). */
#ifndef GPUTRACE_API_TABLE_H
#define GPUTRACE_API_TABLE_H

#include <sqlite3.h>

/* Inserts (id, name, class) of every API of GT_API_LIST that db's api
 * table lacks.  Returns SQLITE_OK or the error that stopped it. */
int gt_api_table_fill(sqlite3 *db);
/* An API's name (GT_API_LIST's), or NULL for a number that names none. */
const char *gt_api_table_name(int api);

#endif
