/* import_notes.c: the end of the text report on imported traces: what
 * their sources lack, by finding kind, as the import wrote it
 * (import_note; docs/import.md). */
#include "viewer/read/import_inputs.h"
#include "viewer/model/model.h"

#include <sqlite3.h>
#include <string.h>

void import_notes_text(FILE *out, const struct model *m)
{
    int header = 0;
    for (size_t d = 0; d < m->ndbs; d++) {
        sqlite3_stmt *s;
        /* a database of the tracer's, or of an older schema, has none */
        if (sqlite3_prepare_v2(m->dbs[d], "SELECT kind, note FROM import_note GROUP BY kind, note"
                                          " ORDER BY min(rowid)", -1, &s, NULL) != SQLITE_OK)
            continue;
        while (sqlite3_step(s) == SQLITE_ROW) {
            const char *kind = (const char *)sqlite3_column_text(s, 0), *note = (const char *)sqlite3_column_text(s, 1);
            if (!header++)
                fputs("\nNot checked on these imported traces (what the source does not record):\n", out);
            fprintf(out, "  %s: %s\n", kind ? kind : "?", note ? note : "");
        }
        sqlite3_finalize(s);
    }
}
