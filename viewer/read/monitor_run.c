/* monitor_run.c: a monitored run's own files (docs/monitor.md): each holds
 * its process's row, names and aggregates (mon_step, mon_callsite,
 * mon_comm), and no records: the full records are in the windows written
 * beside them, RUN/window-<request>/.  A report of such a run would show a
 * run of nothing; it says instead what the aggregates hold, rank by rank
 * (its steps, the last collective it entered, where the host blocked
 * longest), and which windows there are to read (write/monitor_notes.c).
 * Files without the tables (older ones, imports, full recordings) or
 * with no row in them: nothing is read. */
#include "viewer/read/load_internal.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The median of the rows' time per step, its steps, the longest, its name. */
static void read_steps(sqlite3 *db, int64_t id, struct monitor_agg *a)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT (end_ns - start_ns) / n, n, max_ns, (SELECT value FROM label l"
                               " WHERE l.process_id = mon_step.process_id AND l.id = mon_step.name)"
                               " FROM mon_step WHERE process_id = ? AND n > 0", -1, &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, id);
    int64_t *v = NULL;
    size_t n = 0, cap = 0;
    while (sqlite3_step(s) == SQLITE_ROW) {
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            if (!(v = realloc(v, cap * sizeof *v)))
                model_out_of_memory();
        }
        v[n++] = sqlite3_column_int64(s, 0);
        a->steps += sqlite3_column_int64(s, 1);
        if (sqlite3_column_int64(s, 2) > a->max_step_ns)
            a->max_step_ns = sqlite3_column_int64(s, 2);
        const unsigned char *name = sqlite3_column_text(s, 3);
        if (name && !a->step[0])
            snprintf(a->step, sizeof a->step, "%s", (const char *)name);
    }
    sqlite3_finalize(s);
    if (n) {
        qsort(v, n, sizeof *v, cmp_i64);
        a->step_ns = v[n / 2];
    }
    free(v);
}

static void read_comm(sqlite3 *db, int64_t id, struct monitor_agg *a)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT comm_id, last_seq, last_ns, (SELECT sum(calls) FROM mon_comm c"
                               " WHERE c.process_id = mon_comm.process_id) FROM mon_comm"
                               " WHERE process_id = ? ORDER BY last_ns DESC LIMIT 1", -1, &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW) {
        a->last_comm = (uint64_t)sqlite3_column_int64(s, 0);
        a->last_seq = sqlite3_column_int64(s, 1);
        a->last_coll_ns = model_ns(sqlite3_column_int64(s, 2));
        a->colls = sqlite3_column_int64(s, 3);
    }
    sqlite3_finalize(s);
}

/* Its call site's first frame, as stored (escaped where shown). */
static void read_blocked(sqlite3 *db, int64_t id, struct monitor_agg *a)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT m.total_ns, m.calls, (SELECT frames FROM callsite c WHERE c.process_id ="
                               " m.process_id AND c.id = m.callsite), (SELECT name FROM api WHERE id = m.api)"
                               " FROM mon_callsite m WHERE process_id = ? ORDER BY total_ns DESC LIMIT 1",
                           -1, &s, NULL) != SQLITE_OK)
        return;
    sqlite3_bind_int64(s, 1, id);
    if (sqlite3_step(s) == SQLITE_ROW) {
        a->blocked_ns = sqlite3_column_int64(s, 0);
        a->blocked_calls = sqlite3_column_int64(s, 1);
        const char *frames = (const char *)sqlite3_column_text(s, 2), *api = (const char *)sqlite3_column_text(s, 3);
        size_t line = frames ? strcspn(frames, "\n") : 0;
        snprintf(a->blocked_site, sizeof a->blocked_site, "%s%s%.*s", api ? api : "a call", line ? " at " : "",
                 (int)(line < 120 ? line : 120), frames ? frames : "");
    }
    sqlite3_finalize(s);
}

/* Whether file d holds a monitor's aggregates for process id. */
static int has_aggregates(sqlite3 *db, int64_t id)
{
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "SELECT EXISTS(SELECT 1 FROM mon_step WHERE process_id = ?1) OR"
                               " EXISTS(SELECT 1 FROM mon_comm WHERE process_id = ?1) OR"
                               " EXISTS(SELECT 1 FROM mon_callsite WHERE process_id = ?1)", -1, &s, NULL) != SQLITE_OK)
        return 0;
    sqlite3_bind_int64(s, 1, id);
    int yes = sqlite3_step(s) == SQLITE_ROW && sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
    return yes;
}

/* The window directories beside a file: its folder's window-<request>/. */
static void list_windows(struct model *m, const char *file)
{
    char dir[600];
    const char *slash = strrchr(file, '/');
    snprintf(dir, sizeof dir, "%.*s", slash ? (int)(slash - file) : 1, slash ? file : ".");
    for (size_t i = 0; i < m->nmdirs; i++) /* the run directory's other files: listed once */
        if (strncmp(m->mdirs[i].path, dir, strlen(dir)) == 0 && m->mdirs[i].path[strlen(dir)] == '/')
            return;
    DIR *d = opendir(dir);
    if (!d)
        return;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const char *name = e->d_name, *reason = strchr(name, '-') ? strchr(strchr(name, '-') + 1, '-') : NULL;
        if (strncmp(name, "window-", 7) != 0 || !reason)
            continue;
        struct monitor_dir *v = realloc(m->mdirs, (m->nmdirs + 1) * sizeof *v);
        if (!v)
            model_out_of_memory();
        m->mdirs = v;
        struct monitor_dir *w = &v[m->nmdirs++];
        memset(w, 0, sizeof *w);
        snprintf(w->path, sizeof w->path, "%s/%s", dir, name);
        snprintf(w->reason, sizeof w->reason, "%.*s", (int)strcspn(reason + 1, "-"), reason + 1);
        DIR *in = opendir(w->path);
        for (struct dirent *f; in && (f = readdir(in)) != NULL;) {
            size_t len = strlen(f->d_name);
            w->files += len > 3 && strcmp(f->d_name + len - 3, ".db") == 0;
        }
        if (in)
            closedir(in);
    }
    closedir(d);
}

static int cmp_dir(const void *a, const void *b)
{
    return strcmp(((const struct monitor_dir *)a)->path, ((const struct monitor_dir *)b)->path);
}

void load_monitor_run(struct model *m)
{
    if (m->nwindows)
        return; /* windows: their own notes (monitor_windows.c) */
    for (size_t i = 0; i < m->nprocs; i++) {
        const struct proc *p = &m->procs[i];
        sqlite3 *db = m->dbs[p->db];
        if (!has_aggregates(db, p->id))
            continue;
        struct monitor_agg *v = realloc(m->magg, (m->nmagg + 1) * sizeof *v);
        if (!v)
            model_out_of_memory();
        m->magg = v;
        struct monitor_agg *a = &v[m->nmagg++];
        memset(a, 0, sizeof *a);
        a->proc = (int)i;
        read_steps(db, p->id, a);
        read_comm(db, p->id, a);
        read_blocked(db, p->id, a);
        if (m->paths)
            list_windows(m, m->paths[p->db]);
    }
    if (m->nmdirs)
        qsort(m->mdirs, m->nmdirs, sizeof *m->mdirs, cmp_dir); /* by request: by time */
}
