/* rundir.h: the files of a run directory (rundir.c), for the tools that
 * read a run: gputrace-report, gputrace expand and merge.  Never used
 * inside the traced program. */
#ifndef GPUTRACE_RUNDIR_H
#define GPUTRACE_RUNDIR_H

/* The databases in dir (its *.db regular files), sorted by name, as
 * "dir/name" paths in *out (free with gt_rundir_free).  Returns how many,
 * or -1 with errno set when dir cannot be read. */
int gt_rundir_list(const char *dir, char ***out);
void gt_rundir_free(char **v, int n);

#endif
