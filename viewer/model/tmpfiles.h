/* tmpfiles.h: every file the report makes besides what it prints, and
 * their removal however it ends (tmpfiles.c).
 *
 * The report makes three kinds: scratch files in $TMPDIR (else /tmp) that
 * never have a name (tmpfiles_scratch), a private directory in $TMPDIR for
 * the database foreign traces are imported into (tmpfiles_private_dir), and
 * each output written under a temporary name beside it, renamed into place
 * when complete (out_file.h).  Named ones are registered here: removed at
 * exit and on SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (the signal is
 * then raised again, with its default action, so that the report still
 * dies of it), unless forgotten first (renamed into place, or removed). */
#ifndef GPUTRACE_TMPFILES_H
#define GPUTRACE_TMPFILES_H

#include <sys/types.h>

/* Installs the signal handlers (for the signals listed above that are not
 * ignored: `nohup` keeps SIGHUP ignored) and the removal at exit, and
 * reads the umask.  Once, in main, before any thread starts. */
void tmpfiles_init(void);
/* Registers path to be removed at exit or at a signal: a directory
 * (rmdir, after every file) when dir, else a file (unlink).  A handle for
 * tmpfiles_forget, or -1 when out of memory (the path is then not
 * registered).  Any thread. */
int tmpfiles_add(const char *path, int dir);
/* Forgets handle h (-1: nothing); its path is left alone.  Any thread. */
void tmpfiles_forget(int h);
/* Removes every registered path now, and forgets them (at exit). */
void tmpfiles_remove_all(void);
/* The directory for scratch files: $TMPDIR, else /tmp. */
const char *tmpfiles_dir(void);
/* A scratch file in tmpfiles_dir() that never outlives the report: made
 * without a name (O_TMPFILE), or where the file system cannot, made by
 * mkostemp (mode 0600, O_EXCL: never through a link planted at its name)
 * and unlinked at once, registered until then.  Open for reading and
 * writing, close-on-exec: a descriptor, or -1 with errno set. */
int tmpfiles_scratch(void);
/* A directory of the report's own in tmpfiles_dir(), mode 0700 (mkdtemp),
 * registered (*handle, for tmpfiles_forget): its path (free it), or NULL
 * with errno set.  What is made in it cannot be seen, replaced or planted
 * by another user. */
char *tmpfiles_private_dir(const char *prefix, int *handle);
/* The mode of a new file, 0666 less the umask read by tmpfiles_init. */
mode_t tmpfiles_new_file_mode(void);

#endif
