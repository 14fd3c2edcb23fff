/* rowruns.h: where each process's rows lie in the big tables, so that the
 * report can read one process at a time.
 *
 * Holding every record of every rank at once made the report's memory grow
 * past the database's size.  Reading one process at a time needs its rows
 * without an index walk (a seek per row: 2-3x slower than a scan).  The
 * writers of one host append to one file in transactions, so a process's
 * rows come in long runs of consecutive rowids: one cheap pass over
 * (rowid, process_id) finds them, and each process is then read run by run
 * in rowid order, as fast as a plain scan.  Runs closer than RUN_GAP rows
 * are merged (the rows of others in between are skipped by a filter), so
 * finely interleaved rows cost a filtered scan, never a query per row.
 */
#ifndef GPUTRACE_ROWRUNS_H
#define GPUTRACE_ROWRUNS_H

#include "format/block_codec.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* The tables read per process, in the order load_proc.c reads them. */
enum row_table {
    RT_API_CALL, RT_CALL_BLOCK, RT_GPU_OP, RT_CUPTI_API, RT_EXT_CORR, RT_CAPI_BLOCK, RT_GPU_BLOCK, RT_TABLES
};

struct rowrun { int64_t first, last; };
/* count: the process's rows in the table (for blocks, the records they
 * hold), so that the report allocates its arrays once; an upper bound when
 * the pass was skipped; -1 if unknown. */
struct rowruns { struct rowrun *v; size_t n, cap; int64_t count; };

/* Where one process's rows are, table by table. */
struct proc_rows { struct rowruns t[RT_TABLES]; };

/* What rowruns_find learns of one process of the database. */
struct rows_of {
    int64_t id;                /* process.id */
    int want_end;              /* the process has no end: note its last record's end */
    int64_t last_end;          /* ... here (0 if none) */
    struct proc_rows rows;
};

/* One pass over (rowid, process_id) of each table of db, for the n
 * processes in v; with db2 (a second connection to the same file, or
 * NULL), CUPTI's and the GPU's tables are passed over on another thread
 * meanwhile (where rowruns_threads() says so, or `spare` says a CPU is
 * spare: more workers than files).  When the database holds nothing but these processes'
 * rows and no end is wanted, the pass is skipped: each process then scans
 * its tables whole with the filter.  Returns SQLITE_OK; SQLITE_NOMEM; or
 * the error that stopped a table's pass early (a damaged file: what was
 * read before it is kept). */
int rowruns_find(sqlite3 *db, sqlite3 *db2, struct rows_of *v, size_t n, int spare);

/* Steps through the rows of process `id` in table t: `sql` selects
 * process_id first and has "rowid BETWEEN ?1 AND ?2" in its WHERE; fn gets
 * each row of that process.  Returns SQLITE_OK, or the error that stopped
 * it early (the rows before it were handed over). */
int rowruns_each(sqlite3 *db, const char *sql, const struct rowruns *r, int64_t id,
                 void (*fn)(sqlite3_stmt *s, void *ctx), void *ctx);

/* rowruns_each in two threads, when the runs hold at least
 * ROWRUNS_SPLIT_MIN rows and db2 (a second connection to the same file) is
 * given: the first half of the rows, by rowid, goes to fn with ctx on this
 * thread, the second to fn with ctx2 on another thread reading db2, so
 * fn(ctx2) must touch nothing that fn(ctx) does.  Decoding rows is most of
 * the report's time, and it halves.  Returns 1 when it split (ctx2 got the
 * rows after ctx's, in order), 0 when all went to ctx on this thread; *rc
 * and *rc2 are each half's result, as rowruns_each's.  Without a second
 * thread (rowruns_set_threads(0), or none to be had), runs of that many
 * rows are still read as the two halves, one after the other, the second
 * on db2 (db without it), each to its own first error: a damaged table
 * gives the same rows and errors on one thread as on two. */
#define ROWRUNS_SPLIT_MIN 256
int rowruns_each_split(sqlite3 *db, sqlite3 *db2, enum row_table t, const char *sql, const struct rowruns *r,
                       int64_t id, void (*fn)(sqlite3_stmt *s, void *ctx), void *ctx, void *ctx2, int *rc, int *rc2);

/* Whether rowruns_find and rowruns_each_split may start a thread for
 * db2's share (1, the default), or do it in turn on the caller's thread
 * (0: GPUTRACE_REPORT_THREADS=1).  Either way each connection is asked the
 * same questions in the same order: SQLite's answers on a damaged file
 * depend on what its connection read before (a page read whole once is
 * not checked again), so that is what keeps them the same.  Set once,
 * before any read. */
void rowruns_set_threads(int on);
int rowruns_threads(void);

/* Opens the block of a row (row_block.h) whose format, n and data are
 * columns col, col + 1 and col + 2 of s, as records of layout l: returns
 * how many gt_block_next reads from c, 0 when the row is damaged or of
 * another layout (format/block_codec.h). */
int rowruns_block(sqlite3_stmt *s, int col, const struct gt_block_layout *l, struct gt_block_cur *c);

/* r cut into runs of at most `piece` rowids each (a run standing for the
 * whole table first bounded by its rowids), for a pass that notes where in
 * the file each piece's records lie (windows.c).  Returns -1 if memory
 * runs out. */
int rowruns_pieces(sqlite3 *db, enum row_table t, const struct rowruns *r, int64_t piece, struct rowruns *out);

/* Whether table t holds blocks (row_block.h): a row holds n records,
 * counted as n. */
int rowruns_is_block(int t);

/* Appends the run [first, last] to r; -1 if memory runs out. */
int rowruns_push(struct rowruns *r, int64_t first, int64_t last);

void rowruns_free(struct proc_rows *r);

#endif
