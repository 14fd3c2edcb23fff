/* merge.h: `gputrace merge OUT.db RUN...` (merge.c). */
#ifndef GPUTRACE_MERGE_H
#define GPUTRACE_MERGE_H

/* Writes the processes of every input database into the new file out, one
 * run as the report reads it, process ids renumbered.  0, or 1 after a
 * line on stderr (out is then not left behind). */
int gt_merge(const char *out, char *const *inputs, int n);

#endif
