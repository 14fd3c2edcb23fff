/* load_colls.h: a process's collectives as its windows are read
 * (load_colls.c): parked ones brought in, each matched to the kernel that
 * ran it through ext_corr, and which GPU work is NCCL's.  Internal to
 * viewer/read/. */
#ifndef GPUTRACE_LOAD_COLLS_H
#define GPUTRACE_LOAD_COLLS_H

#include "viewer/read/load_internal.h"
#include "viewer/model/idmap.h"
#include "viewer/read/join_clock.h"

#include <stddef.h>
#include <stdint.h>

/* ext_corr rows (struct ext, join_clock.h): the external id (a call's or a
 * group's) and CUPTI's correlation of a call made under it */
struct ext_list { struct ext *v; size_t n, cap; };
/* A process's ext_corr rows, read once for all its windows: sorted by
 * external id, and the set of correlations they point at (NCCL's kernels),
 * made when the first GPU operation needs it. */
struct proc_exts { struct ext_list list; struct idmap nccl; int nccl_built; };

/* qsort order of ext rows: by external id. */
int load_cmp_ext(const void *a, const void *b);
/* Each collective's kernel (see load_colls.c). */
void load_collective_kernels(struct proc *p, const struct ext_list *x);
/* The parked collectives that start before hi, appended to those loaded. */
void load_colls_before(struct model *m, struct proc *p, int64_t hi);

#endif
