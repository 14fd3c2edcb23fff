/* db_guard.c: a database file treated as untrusted input (see db_guard.h). */
#include "format/db_guard.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int gt_guard_regular(const char *path, char *why, size_t len)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        snprintf(why, len, "%s: %s", path, errno == ENOENT ? "no such file" : strerror(errno));
        return -1;
    }
    /* SQLite's open of a FIFO waits for a writer that never comes */
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, len, "%s: not a regular file", path);
        return -1;
    }
    return 0;
}

void gt_guard_connection(sqlite3 *db)
{
    /* each option is left out where this SQLite is older than it: the
     * tables' check (gt_guard_tables) still refuses views in their place */
#ifdef SQLITE_DBCONFIG_DEFENSIVE
    sqlite3_db_config(db, SQLITE_DBCONFIG_DEFENSIVE, 1, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_TRUSTED_SCHEMA
    sqlite3_db_config(db, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_ENABLE_VIEW
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_VIEW, 0, (int *)NULL);
#endif
#ifdef SQLITE_DBCONFIG_ENABLE_TRIGGER
    sqlite3_db_config(db, SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, (int *)NULL);
#endif
}

int gt_guard_tables(sqlite3 *db, const char *const *names, char *why, size_t len)
{
    sqlite3_stmt *s;
    /* a virtual table is a 'table' with no pages of its own: its module's
     * code, not the file, answers what is read from it */
    if (sqlite3_prepare_v2(db, "SELECT type, rootpage, sql LIKE 'create virtual%' FROM sqlite_master WHERE name = ?1"
                               " COLLATE NOCASE", -1, &s, NULL) != SQLITE_OK) {
        snprintf(why, len, "%s", sqlite3_errmsg(db));
        return -1;
    }
    int rc = 0;
    for (size_t i = 0; names[i] && !rc; i++) {
        sqlite3_reset(s);
        sqlite3_bind_text(s, 1, names[i], -1, SQLITE_STATIC);
        int step;
        while (!rc && (step = sqlite3_step(s)) == SQLITE_ROW) {
            const char *type = (const char *)sqlite3_column_text(s, 0);
            if (!type || strcmp(type, "table") != 0) {
                snprintf(why, len, "%s is a%s %s, not a table", names[i], type && strchr("aeiou", type[0]) ? "n" : "",
                         type ? type : "nameless object");
                rc = -1;
            } else if (sqlite3_column_int(s, 1) <= 0 || sqlite3_column_int(s, 2)) {
                snprintf(why, len, "%s is a virtual table, not a table", names[i]);
                rc = -1;
            }
        }
        if (!rc && step != SQLITE_DONE) {
            snprintf(why, len, "%s", sqlite3_errmsg(db));
            rc = -1;
        }
    }
    sqlite3_finalize(s);
    return rc;
}

int gt_guard_triggers(sqlite3 *db, char *names, size_t len)
{
    sqlite3_stmt *s;
    names[0] = 0;
    if (sqlite3_prepare_v2(db, "SELECT name FROM sqlite_master WHERE type = 'trigger' ORDER BY name", -1, &s, NULL) !=
        SQLITE_OK)
        return -1;
    int n = 0, rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
        const char *name = (const char *)sqlite3_column_text(s, 0);
        size_t used = strlen(names);
        if (used + 8 < len)
            snprintf(names + used, len - used, "%s%s", n ? ", " : "", name ? name : "?");
        n++;
    }
    for (unsigned char *c = (unsigned char *)names; *c; c++) /* the names go to a terminal */
        if (*c < 0x20 || *c >= 0x7f)
            *c = '?';
    sqlite3_finalize(s);
    return rc == SQLITE_DONE ? n : -1;
}
