/* sync_records.c: CUPTI's synchronisation records of a process, from its
 * gpu_op rows and from the blocks stored in bulk (format/gpu_block.h). */
#include "viewer/read/sync_records.h"
#include "viewer/read/rowruns.h"
#include "format/gpu_block.h"

#include <sqlite3.h>

void load_sync_records(const struct model *m, const struct proc *p,
                       void (*each)(void *ctx, int64_t start, int64_t end, int stream, int type, int64_t corr),
                       void *ctx)
{
    sqlite3 *db = m->dbs[p->db];
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT start_ns, end_ns, stream_id, sync_type, correlation"
                               " FROM gpu_op WHERE process_id = ? AND kind = 4", -1, &s, NULL) == SQLITE_OK) {
        sqlite3_bind_int64(s, 1, p->id);
        while (sqlite3_step(s) == SQLITE_ROW)
            each(ctx, sqlite3_column_int64(s, 0), sqlite3_column_int64(s, 1), sqlite3_column_int(s, 2),
                 sqlite3_column_int(s, 3), sqlite3_column_int64(s, 4));
        sqlite3_finalize(s);
    }
    if (sqlite3_prepare_v2(db, "SELECT format, n, data FROM gpu_op_block WHERE process_id = ?", -1, &s, NULL) != SQLITE_OK)
        return; /* a file of an older schema */
    sqlite3_bind_int64(s, 1, p->id);
    while (sqlite3_step(s) == SQLITE_ROW) {
        struct gt_block_cur c;
        int n = rowruns_block(s, 0, &gt_gpu_layout, &c);
        for (int i = 0; i < n; i++) {
            struct gt_gpu_packed r;
            gt_block_next(&c, &r);
            if (r.kind == 4) /* each value as sqlite3_column_int takes the row's column */
                each(ctx, r.start_ns, r.end_ns, (int)r.stream_id, r.sync_type, r.correlation);
        }
    }
    sqlite3_finalize(s);
}
