/* symbolize.h: call-site frames that the traced process wrote as
 * "function+0xoff (module+0xoff)" turned into "function (file:line)
 * [module]", from the object files the database's module table names
 * (collector/modules.h) and their debug information, read here with libdw
 * (elfutils) when it is installed.  A frame stays as it was where the file
 * is gone, is not the one traced (another build id), or has no line
 * information.  The traced process never pays for DWARF; the report does,
 * once per object. */
#ifndef GPUTRACE_SYMBOLIZE_H
#define GPUTRACE_SYMBOLIZE_H

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>

/* Rewrites stack (frames one per line, NUL-terminated, at most len bytes
 * with the NUL) in place, for process process_id of db. */
void symbolize_stack(sqlite3 *db, int64_t process_id, char *stack, size_t len);

/* The full path of the source file a frame that symbolize_stack wrote
 * names (the frame shows its base name): 1 and path set, or 0. */
int symbolize_source_path(const char *frame, char *path, size_t len);

/* Whether some frame stayed as the tracer wrote it although its object is
 * here as recorded, because libdw could not be loaded: the text report
 * says so once. */
int symbolize_lines_missed(void);

#endif
