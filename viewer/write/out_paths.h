/* out_paths.h: whether an output of the report would overwrite one of its
 * inputs or another of its outputs (out_paths.c). */
#ifndef GPUTRACE_OUT_PATHS_H
#define GPUTRACE_OUT_PATHS_H

#include <stddef.h>

/* 0 if none of the nouts outputs is one of the nins input files, a file
 * SQLite keeps beside one (-wal, -shm, -journal), or another output; else
 * -1 with one line in err naming both (what[i] says what outs[i] is:
 * "--chrome-trace", "the Kineto trace of rank 0"; in_what[i] what ins[i]
 * is, "the input trace", all "the input database" where in_what is NULL).
 * ins are files, not directories: the caller lists the files it reads of
 * each directory.  Files are the same when
 * both exist and have the same device and inode (a hard link, a symbolic
 * link, another spelling), or when their resolved paths are equal (a file
 * not made yet). */
int out_paths_check(char *const *ins, const char *const *in_what, size_t nins, char *const *outs,
                    char *const *what, size_t nouts, char *err, size_t errlen);
/* What an output of this kind is when gputrace wrote it (the first bytes
 * every such file of ours starts with). */
enum out_kind { OUT_CHROME, OUT_HTML, OUT_KINETO };
/* Refuses an output that exists and is no file of ours of its kind (a
 * user's page, another tool's trace or database: `--html mine.html`,
 * `--chrome-trace user.sqlite` were replaced, exit 0), unless force:
 * 0, or -1 with err set.  A missing or empty file is no loss. */
int out_paths_foreign(const char *path, const char *what, enum out_kind kind, int force, char *err, size_t errlen);

#endif
