/* db_batch.h: the rows of the tables the writer fills one by one at the
 * highest rates (api_call, gpu_op, cupti_api, ext_corr), stored
 * GT_BATCH_ROWS at a time by one multi-row INSERT.  A statement's fixed cost
 * (its transaction and cursor set up, its halt) and SQLite's per-call
 * mutexes were most of a row's cost: a gpu_op row took 3.3 us stored alone
 * with its two indexes, 0.5 us in batches of 16 or 64 without them (SQLite
 * alone; bench/row_cost.sh measures the tracer's cost per row).  Rows
 * queued here are stored, in the order they came, by gt_db_flush_rows,
 * which gt_db_commit calls first: a commit holds every row queued before
 * it. */
#ifndef GPUTRACE_DB_BATCH_H
#define GPUTRACE_DB_BATCH_H

#include <sqlite3.h>
#include <stdint.h>

#define GT_BATCH_ROWS 64 /* rows per INSERT: 64 of gpu_op's 15 columns stay under SQLite's oldest limit of 999 variables */
#define GT_BATCH_COLS 14 /* the widest batched table's columns after process_id (gpu_op) */

enum gt_batch_kind { GT_BATCH_CALL, GT_BATCH_GPU, GT_BATCH_CUPTI_API, GT_BATCH_EXT, GT_BATCH_COUNT };

struct gt_row_batch {
    sqlite3_stmt *multi; /* the INSERT of GT_BATCH_ROWS rows */
    int cols;            /* columns after process_id */
    int n;               /* rows queued */
    int64_t v[GT_BATCH_ROWS][GT_BATCH_COLS];
};

#endif
