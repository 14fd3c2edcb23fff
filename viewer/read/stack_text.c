/* stack_text.c: the stacks of a call site as its process's database holds
 * them (callsite and pystack rows), the C frames symbolised
 * (symbolize.h): the model's stack_source, handed in by load_model. */
#define _GNU_SOURCE
#include "viewer/read/load.h"
#include "viewer/read/symbolize.h"

#include <stdio.h>

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

const struct stack_source load_stacks = { c_stack, py_stack };
