/* stack_text.c: the stacks of a call site as its process's database holds
 * them (callsite and pystack rows), the C frames symbolised
 * (symbolize.h): the model's stack_source, handed in by load_model. */
#define _GNU_SOURCE
#include "viewer/read/load.h"
#include "viewer/read/source_text.h"
#include "viewer/read/symbolize.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *lookup_text(const struct model *m, const struct proc *p, const char *sql, int id, char *buf,
                               size_t len)
{
    sqlite3_stmt *s;
    buf[0] = 0;
    if (id <= 0 || sqlite3_prepare_v2(m->dbs[p->db], sql, -1, &s, NULL) != SQLITE_OK)
        return buf;
    sqlite3_bind_int64(s, 1, p->id);
    sqlite3_bind_int(s, 2, id);
    if (sqlite3_step(s) == SQLITE_ROW)
        snprintf(buf, len, "%s", sqlite3_column_text(s, 0) ? (const char *)sqlite3_column_text(s, 0) : "");
    sqlite3_finalize(s);
    return buf;
}

static const char *c_stack(const struct model *m, const struct proc *p, int callsite, char *buf, size_t len)
{
    lookup_text(m, p, "SELECT frames FROM callsite WHERE process_id = ? AND id = ?", callsite, buf, len);
    symbolize_stack(m->dbs[p->db], p->id, buf, len);
    return buf;
}

static const char *py_stack(const struct model *m, const struct proc *p, int pystack, char *buf, size_t len)
{
    return lookup_text(m, p, "SELECT frames FROM pystack WHERE process_id = ? AND id = ?", pystack, buf, len);
}

/* The source line of a frame as a finding shows it: "function (file:line)"
 * with " [module]" after it for a C frame.  A C frame's file is the full
 * path its debug information named (symbolize_source_path); a Python
 * frame's, the path the interpreter recorded, used only when absolute (a
 * relative one depends on a working directory the report does not know). */
static const char *source_text(const char *frame, char *buf, size_t len)
{
    buf[0] = 0;
    const char *open = strrchr(frame, '(');
    const char *close = open ? strchr(open, ')') : NULL;
    if (!open || !close)
        return buf;
    const char *colon = close;
    while (colon > open && *colon != ':')
        colon--;
    char file[4096], *end;
    size_t n = (size_t)(colon - open - 1);
    if (colon <= open + 1 || n >= sizeof file)
        return buf;
    long line = strtol(colon + 1, &end, 10);
    if (end != close || line <= 0)
        return buf;
    memcpy(file, open + 1, n);
    file[n] = 0;
    char path[4096];
    if (symbolize_source_path(frame, path, sizeof path))
        return source_line_text(path, line, buf, len);
    if (file[0] == '/' && !strchr(close, '['))
        return source_line_text(file, line, buf, len);
    return buf;
}

const struct stack_source load_stacks = { c_stack, py_stack, source_text };
