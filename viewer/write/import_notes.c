/* import_notes.c: the end of the text report on imported traces: what
 * their sources lack, by finding kind, as the import wrote it
 * (import_note; docs/import.md). */
#include "viewer/read/import_inputs.h"
#include "viewer/model/model.h"
#include "viewer/write/json.h"
#include "common/term_text.h"
#include "viewer/write/text_wrap.h"

#include <sqlite3.h>
#include <string.h>

void import_notes_each(const struct model *m, void (*fn)(FILE *, const char *, const char *, int), FILE *out)
{
    int n = 0;
    for (size_t d = 0; d < m->ndbs; d++) {
        sqlite3_stmt *s;
        /* a database of the tracer's, or of an older schema, has none; the
         * notes of another run's processes are not this report's (an
         * import of two jobs' traces makes two runs: import/import.c) */
        if (sqlite3_prepare_v2(m->dbs[d], "SELECT kind, note FROM import_note WHERE process_id IS NULL OR NOT EXISTS"
                                          " (SELECT 1 FROM process WHERE id = process_id AND run_id IS NOT ?1)"
                                          " GROUP BY kind, note ORDER BY min(rowid)", -1, &s, NULL) != SQLITE_OK)
            continue;
        sqlite3_bind_text(s, 1, m->run_id, -1, SQLITE_STATIC);
        while (sqlite3_step(s) == SQLITE_ROW) {
            const char *kind = (const char *)sqlite3_column_text(s, 0), *note = (const char *)sqlite3_column_text(s, 1);
            fn(out, kind ? kind : "?", note ? note : "", n++);
        }
        sqlite3_finalize(s);
    }
    if (n && fn)
        fn(out, NULL, NULL, -1); /* the end */
}

/* A note is the file's text (an import writes it made safe, but a file is
 * whatever its author put there): escaped for the terminal, one line,
 * and cut at a few thousand columns (term_text.h). */
static void text_note(FILE *out, const char *kind, const char *note, int i)
{
    char k[256], t[4096];
    if (i == 0)
        fputs("\nNot checked on these imported traces (what the source does not record):\n", out);
    if (kind)
        text_para(out, "  ", 4, "%s: %s", term_cell(kind, 60, TERM_CUT | TERM_ELLIPSIS, k, sizeof k),
                  term_cell(note, 2000, TERM_CUT | TERM_ELLIPSIS, t, sizeof t));
}

static void json_note(FILE *out, const char *kind, const char *note, int i)
{
    if (!kind) {
        fputs("\n]", out);
        return;
    }
    fputs(i ? ",\n  {\"kind\": " : ",\n\"not_checked\": [\n  {\"kind\": ", out);
    json_string(out, kind);
    fputs(", \"note\": ", out);
    json_string(out, note);
    fputc('}', out);
}

void import_notes_text(FILE *out, const struct model *m)
{
    import_notes_each(m, text_note, out);
}

void import_notes_json(FILE *out, const struct model *m)
{
    import_notes_each(m, json_note, out);
}
