/* monitor_windows.c: the window table of a monitor's window (docs/schema.md,
 * "window"): a file that holds only the last seconds of a process's
 * records, written because of a hang, a slowdown or a request.  The
 * report says so at its top (write/window_notes.c), and what span each
 * file covers: a report of a window that looked like a whole run would
 * misread its first records as the run's start.  Older files and imports
 * have no such table: nothing is read. */
#include "viewer/read/load_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* As the file has it, cut to fit; escaped where it is shown. */
static void text_into(char *dst, size_t len, const unsigned char *src)
{
    snprintf(dst, len, "%s", src ? (const char *)src : "");
}

/* A slowdown's onset, realtime ns: the request's moment (the whole
 * milliseconds its name begins with) less what its words say the slow
 * steps began before it; 0 if they say nothing usable (older files,
 * other reasons, damaged words). */
static int64_t slow_from(const struct monitor_window *w)
{
    static const char key[] = "; the slow steps began ";
    const char *k = strcmp(w->reason, "slowdown") == 0 ? strstr(w->detail, key) : NULL;
    if (!k)
        return 0;
    char *end;
    long long at_ms = strtoll(w->request, &end, 10);
    double before_ms = -1;
    int n = 0;
    if (end == w->request || *end != '-' || at_ms <= 0 || at_ms > 9000000000000LL || /* past 2255: damaged */
        sscanf(k + sizeof key - 1, "%lf ms before the request%n", &before_ms, &n) != 1 || n == 0 ||
        !(before_ms >= 0 && before_ms < 1e9))
        return 0;
    return (int64_t)at_ms * 1000000 - (int64_t)(before_ms * 1e6 + 0.5);
}

static void add_window(struct model *m, size_t *cap, sqlite3_stmt *s, int proc)
{
    if (m->nwindows == *cap) {
        *cap = *cap ? *cap * 2 : 8;
        if (!(m->windows = realloc(m->windows, *cap * sizeof *m->windows)))
            model_out_of_memory();
    }
    struct monitor_window *w = &m->windows[m->nwindows++];
    w->proc = proc;
    text_into(w->request, sizeof w->request, sqlite3_column_text(s, 1));
    text_into(w->reason, sizeof w->reason, sqlite3_column_text(s, 2));
    w->at_ns = model_ns(sqlite3_column_int64(s, 3));
    w->from_ns = model_ns(sqlite3_column_int64(s, 4));
    model_span(&w->from_ns, &w->at_ns);
    w->cut_rows = sqlite3_column_int64(s, 5);
    text_into(w->detail, sizeof w->detail, sqlite3_column_text(s, 6));
    /* gpu_flushed: files of before the column had CUPTI flushed for a
     * hang's window only */
    w->gpu_flushed = sqlite3_column_count(s) > 7 && sqlite3_column_type(s, 7) != SQLITE_NULL
                         ? sqlite3_column_int(s, 7) != 0
                         : strcmp(w->reason, "hang") == 0;
    w->slow_from = slow_from(w);
    /* onset_ns: files of before the column lack it */
    w->onset_own = w->slow_from && sqlite3_column_count(s) > 8 && sqlite3_column_type(s, 8) != SQLITE_NULL
                       ? model_ns(sqlite3_column_int64(s, 8))
                       : 0;
}

void load_monitor_windows(struct model *m)
{
    size_t cap = 0;
    for (size_t d = 0; d < m->ndbs; d++) {
        sqlite3_stmt *s;
        if (sqlite3_prepare_v2(m->dbs[d], "SELECT process_id, request, reason, at_ns, from_ns, cut_rows, detail,"
                                          " gpu_flushed, onset_ns FROM window ORDER BY process_id, at_ns", -1, &s,
                               NULL) != SQLITE_OK &&
            sqlite3_prepare_v2(m->dbs[d], "SELECT process_id, request, reason, at_ns, from_ns, cut_rows, detail,"
                                          " gpu_flushed FROM window ORDER BY process_id, at_ns", -1, &s, NULL) != SQLITE_OK &&
            sqlite3_prepare_v2(m->dbs[d], "SELECT process_id, request, reason, at_ns, from_ns, cut_rows, detail"
                                          " FROM window ORDER BY process_id, at_ns", -1, &s, NULL) != SQLITE_OK)
            continue; /* not a window */
        while (sqlite3_step(s) == SQLITE_ROW) {
            int64_t id = sqlite3_column_int64(s, 0);
            for (size_t i = 0; i < m->nprocs; i++)
                if (m->procs[i].db == (int)d && m->procs[i].id == id) {
                    add_window(m, &cap, s, (int)i);
                    break;
                }
        }
        sqlite3_finalize(s);
    }
}
