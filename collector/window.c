/* window.c: monitor mode's window of full records in memory, and its
 * writing as a file (see window.h). */
#define _GNU_SOURCE
#include "collector/window.h"
#include "collector/ownfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The tables of records, in the order of their rowids' notes.  nvtx_range
 * keeps the rows of ranges not ended yet (a start/end range's row is
 * updated by its end, and must still be there). */
static const char *const tables[] = {
    "api_call", "api_call_block", "collective", "gpu_op", "gpu_op_block", "cupti_api", "cupti_api_block",
    "ext_corr", "nvtx_range", "nvtx_range_block", "nccl_op", "nccl_kernel_ch", "nccl_proxy_op",
};
#define NTABLES ((int)(sizeof tables / sizeof tables[0]))
/* notes kept: a window of up to an hour at one note per 14 s at worst */
#define NOTES 256

struct note { int64_t at_ns; int64_t rowid[NTABLES]; };

static struct {
    struct gt_db *mem;
    int64_t window_ns, limit, from_ns, last_note_ns, tick_ns;
    struct note notes[NOTES];
    int first, count; /* a ring */
    sqlite3_stmt *max_rowid[NTABLES], *drop[NTABLES];
    uint64_t cut_rows;
    /* nvtx_range's largest rowid before the caller added the ranges still
     * open for the window being written (gt_window_adding); -1: none */
    int64_t added_after;
    int64_t onset_ns; /* the next window row's onset_ns (gt_window_onset); 0: none */
} w;

void gt_window_begin(struct gt_db *mem, int64_t window_ns, int64_t limit, int64_t from_ns)
{
    memset(&w, 0, sizeof w);
    w.mem = mem;
    w.window_ns = window_ns;
    w.limit = limit;
    w.from_ns = from_ns;
    w.added_after = -1;
    /* notes GT_WINDOW_TICK_MS apart, or further for a long window, so the
     * ring spans it: a note older than the window is always there */
    w.tick_ns = (int64_t)GT_WINDOW_TICK_MS * 1000000;
    if (w.tick_ns < window_ns / (NOTES / 2))
        w.tick_ns = window_ns / (NOTES / 2);
    for (int i = 0; i < NTABLES; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT coalesce(max(rowid), 0) FROM %s", tables[i]);
        sqlite3_prepare_v3(mem->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &w.max_rowid[i], NULL);
        snprintf(sql, sizeof sql, "DELETE FROM %s WHERE rowid <= ?%s", tables[i],
                 strcmp(tables[i], "nvtx_range") == 0 ? " AND end_ns IS NOT NULL" : "");
        sqlite3_prepare_v3(mem->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &w.drop[i], NULL);
    }
}

static int64_t one_i64(sqlite3_stmt *st)
{
    int64_t v = 0;
    if (st && sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    if (st)
        sqlite3_reset(st);
    return v;
}

static int64_t pragma_i64(const char *sql)
{
    sqlite3_stmt *st;
    if (sqlite3_prepare_v2(w.mem->db, sql, -1, &st, NULL) != SQLITE_OK)
        return 0;
    int64_t v = one_i64(st);
    sqlite3_finalize(st);
    return v;
}

/* Bytes the database's pages hold, its free pages left out (they are
 * used again before it grows). */
static int64_t used_bytes(void)
{
    return (pragma_i64("PRAGMA page_count") - pragma_i64("PRAGMA freelist_count")) * pragma_i64("PRAGMA page_size");
}

static void take_note(int64_t now_ns)
{
    if (w.count == NOTES) { /* cannot happen with tick_ns as chosen; keep the newest anyway */
        w.first = (w.first + 1) % NOTES;
        w.count--;
    }
    struct note *n = &w.notes[(w.first + w.count) % NOTES];
    n->at_ns = now_ns;
    for (int i = 0; i < NTABLES; i++)
        n->rowid[i] = one_i64(w.max_rowid[i]);
    w.count++;
    w.last_note_ns = now_ns;
}

/* Lets go of the rows older than the oldest note, which goes too;
 * returns the rows let go of. */
static uint64_t drop_oldest(void)
{
    struct note *n = &w.notes[w.first];
    uint64_t gone = 0;
    for (int i = 0; i < NTABLES; i++) {
        sqlite3_stmt *st = w.drop[i];
        if (!st)
            continue;
        sqlite3_bind_int64(st, 1, n->rowid[i]);
        if (sqlite3_step(st) == SQLITE_DONE)
            gone += (uint64_t)sqlite3_changes(w.mem->db);
        sqlite3_reset(st);
        /* where that took the table's newest rows (no row came since the
         * note), SQLite numbers the next ones from the largest rowid left
         * plus one: below the marks of the later notes, which would let
         * go of them while young.  Those marks come down to what is left */
        int64_t top = one_i64(w.max_rowid[i]);
        for (int k = 1; k < w.count; k++) {
            struct note *later = &w.notes[(w.first + k) % NOTES];
            if (later->rowid[i] > top)
                later->rowid[i] = top;
        }
    }
    w.from_ns = n->at_ns;
    w.first = (w.first + 1) % NOTES;
    w.count--;
    return gone;
}

void gt_window_keep(int64_t now_ns, int64_t keep_from_ns)
{
    if (!w.mem || w.mem->failed)
        return;
    if (now_ns - w.last_note_ns >= w.tick_ns)
        take_note(now_ns);
    /* older than the window: every row below a note taken before it began */
    int64_t edge = now_ns - w.window_ns;
    if (keep_from_ns && keep_from_ns < edge)
        edge = keep_from_ns;
    while (w.count >= 2 && w.notes[(w.first + 1) % NOTES].at_ns <= edge)
        drop_oldest();
    if (w.count >= 2 && w.notes[w.first].at_ns <= edge)
        drop_oldest();
    /* the memory bound: three quarters of it, so that a pass's rows fit in
     * the rest before the next look (past the bound, SQLite refuses) */
    while (w.count >= 2 && used_bytes() > w.limit / 4 * 3)
        w.cut_rows += drop_oldest();
}

uint64_t gt_window_cut_rows(void)
{
    return w.cut_rows;
}

static int fail_line(char *err, size_t errlen, const char *what, const char *path, int e)
{
    snprintf(err, errlen, "%s %s: %s", what, path, strerror(e));
    return -1;
}

static int exec_window_row(const char *request, const char *reason, const char *detail, int gpu_flushed,
                           int64_t now_ns)
{
    sqlite3_stmt *st;
    int64_t onset = w.onset_ns; /* let go of by forget_added, on every path */
    if (sqlite3_prepare_v2(w.mem->db, "INSERT INTO window(process_id, request, reason, at_ns, from_ns, cut_rows, detail,"
                           " gpu_flushed, onset_ns) VALUES(?,?,?,?,?,?,?,?,?)", -1, &st, NULL) != SQLITE_OK)
        return -1;
    sqlite3_bind_int64(st, 1, w.mem->process_id);
    sqlite3_bind_text(st, 2, request, -1, SQLITE_STATIC);
    sqlite3_bind_text(st, 3, reason, -1, SQLITE_STATIC);
    sqlite3_bind_int64(st, 4, now_ns);
    sqlite3_bind_int64(st, 5, w.from_ns);
    sqlite3_bind_int64(st, 6, (int64_t)w.cut_rows);
    sqlite3_bind_text(st, 7, detail ? detail : "", -1, SQLITE_STATIC);
    sqlite3_bind_int(st, 8, gpu_flushed != 0);
    if (onset)
        sqlite3_bind_int64(st, 9, onset);
    int rc = sqlite3_step(st);
    sqlite3_finalize(st);
    return rc == SQLITE_DONE ? 0 : -1;
}

void gt_window_onset(int64_t onset_ns)
{
    w.onset_ns = onset_ns;
}

void gt_window_adding(void)
{
    w.added_after = -1;
    if (!w.mem || !w.mem->db)
        return;
    for (int i = 0; i < NTABLES; i++)
        if (strcmp(tables[i], "nvtx_range") == 0)
            w.added_after = one_i64(w.max_rowid[i]);
}

/* The window row, and the push/pop ranges still open that the caller
 * added for this window (gt_window_adding; they are stored when they
 * end): whether the window was written or not.  Only those: the open
 * ranges the final pass stored for good stay, for the windows it writes
 * again (gt_window_rewrite), each of which must hold them. */
static void forget_added(void)
{
    if (!w.mem || !w.mem->db)
        return;
    w.onset_ns = 0; /* a window not written leaves it to no other */
    sqlite3_exec(w.mem->db, "DELETE FROM window", NULL, NULL, NULL);
    if (w.added_after >= 0) {
        sqlite3_stmt *st;
        if (sqlite3_prepare_v2(w.mem->db, "DELETE FROM nvtx_range WHERE rowid > ? AND kind = 1 AND end_ns IS NULL", -1,
                               &st, NULL) == SQLITE_OK) {
            sqlite3_bind_int64(st, 1, w.added_after);
            sqlite3_step(st);
            sqlite3_finalize(st);
        }
    }
    w.added_after = -1;
}

/* Writes the window, with its window row, to path (a new file). */
static int write_image(const char *path, const char *request, const char *reason, const char *detail,
                       int gpu_flushed, int64_t now_ns, char *err, size_t errlen)
{
    /* the window row is in the image only: added, written, taken away */
    if (exec_window_row(request, reason, detail, gpu_flushed, now_ns) != 0) {
        snprintf(err, errlen, "cannot note the window: %s", sqlite3_errmsg(w.mem->db));
        forget_added();
        return -1;
    }
    sqlite3_int64 size = 0;
    unsigned char *image = sqlite3_serialize(w.mem->db, "main", &size, SQLITE_SERIALIZE_NOCOPY);
    int copied = 0;
    if (!image) { /* not one block (cannot happen with memdb): a copy */
        image = sqlite3_serialize(w.mem->db, "main", &size, 0);
        copied = 1;
    }
    int rc = image ? gt_ownfile_write(path, image, (size_t)size, err, errlen) : (snprintf(err, errlen, "out of memory"), -1);
    if (copied)
        sqlite3_free(image);
    forget_added();
    return rc;
}

/* Whether a window is kept to write (else a line in err); its records
 * committed. */
static int window_ready(char *err, size_t errlen)
{
    if (!w.mem || w.mem->failed) {
        snprintf(err, errlen, "no window is kept (writing to memory failed)");
        return 0;
    }
    gt_db_commit(w.mem);
    return 1;
}

int gt_window_write(const char *dir, const char *name, const char *request, const char *reason,
                    const char *detail, int gpu_flushed, int64_t now_ns, char *err, size_t errlen)
{
    if (!window_ready(err, errlen)) {
        forget_added();
        return -1;
    }
    char path[4400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
        int e = errno;
        forget_added();
        return fail_line(err, errlen, "cannot make", dir, e);
    }
    return write_image(path, request, reason, detail, gpu_flushed, now_ns, err, errlen);
}

int gt_window_rewrite(const char *dir, const char *name, const char *request, const char *reason,
                      const char *detail, int gpu_flushed, int64_t now_ns, char *err, size_t errlen)
{
    if (!window_ready(err, errlen)) {
        forget_added();
        return -1;
    }
    char path[4400], tmp[4500];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    /* hidden, and not *.db: what a reader of the directory passes over
     * (a temporary file there already is nobody's to remove: refused) */
    snprintf(tmp, sizeof tmp, "%s/.%s.tmp", dir, name);
    if (write_image(tmp, request, reason, detail, gpu_flushed, now_ns, err, errlen) != 0)
        return -1;
    if (rename(tmp, path) != 0) {
        fail_line(err, errlen, "cannot replace", path, errno);
        unlink(tmp);
        return -1;
    }
    return 0;
}
