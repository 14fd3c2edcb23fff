/* boot_ids.c: each process's boot id (process.boot_id, docs/schema.md),
 * which tells two machines of one host name apart (model_same_host).
 * Files written before the column existed have none: their processes are
 * told apart by host name alone, as they always were. */
#include "viewer/read/load_internal.h"

#include <string.h>

void load_boot_ids(struct model *m)
{
    for (size_t d = 0; d < m->ndbs; d++) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(m->dbs[d], "SELECT id, boot_id FROM process WHERE run_id = ?", -1, &s, NULL) != SQLITE_OK)
            continue; /* no such column: an older file */
        sqlite3_bind_text(s, 1, m->run_id, -1, SQLITE_STATIC);
        while (sqlite3_step(s) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(s, 0);
            const unsigned char *v = sqlite3_column_text(s, 1);
            for (size_t i = 0; v && i < m->nprocs; i++) {
                struct proc *p = &m->procs[i];
                if (p->db != (int)d || p->id != id)
                    continue;
                /* as the file has it, cut to fit, control characters dropped */
                size_t k = 0;
                for (const unsigned char *c = v; *c && k + 1 < sizeof p->boot_id; c++)
                    if (*c >= 0x20 && *c != 0x7f)
                        p->boot_id[k++] = (char)*c;
                p->boot_id[k] = 0;
                break;
            }
        }
        sqlite3_finalize(s);
    }
}
