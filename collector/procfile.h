/* procfile.h: the file a traced process writes, made so that nobody else
 * can choose where it goes (procfile.c). */
#ifndef GPUTRACE_PROCFILE_H
#define GPUTRACE_PROCFILE_H

#include <stddef.h>
#include <sys/types.h>

struct gt_procfile {
    char path[4200]; /* what SQLite is to open: the directory resolved */
    dev_t dev;       /* the file made or found there */
    ino_t ino;
};

/* Makes ready path, the output of a process (layout: enum gt_layout of
 * config.h, which says which parts of the path the user named): the file
 * is created with O_CREAT|O_EXCL|O_NOFOLLOW, or, when there already (the
 * same pid's image before an exec; processes sharing a pattern's file),
 * must be a regular file with no other name, reached through no link;
 * its -wal, -shm and -journal the same.  A run directory may be a symbolic
 * link only if the user who runs the program owns it; the one file of
 * GPUTRACE_ONE_FILE too.  Returns 0, or -1 with the reason in err.
 * Opens no descriptor that outlives the call. */
int gt_procfile_open(struct gt_procfile *pf, const char *path, int layout, char *err, size_t errlen);
/* After SQLite opened pf->path: 0 while the name is still the file
 * gt_procfile_open made or found (a link swapped in between is refused),
 * or -1 with the reason in err. */
int gt_procfile_check(const struct gt_procfile *pf, char *err, size_t errlen);

#endif
