/* load_internal.h: what the two halves of loading a run share: load_run.c
 * (the run, its processes and what stays loaded) and load_proc.c (one
 * process's calls and GPU operations). */
#ifndef GPUTRACE_MODEL_INTERNAL_H
#define GPUTRACE_MODEL_INTERNAL_H

#include "viewer/read/load.h"

#include "viewer/read/rowruns.h"

#include <stdlib.h>

/* Appends room for one more element to arr (n used of cap), doubling. */
#define GROW(arr, n, cap) do {                                            \
        if ((n) == (cap)) {                                               \
            (cap) = (cap) ? (cap) * 2 : 256;                              \
            void *p_ = realloc((arr), (cap) * sizeof *(arr));             \
            if (!p_)                                                      \
                model_out_of_memory();                                    \
            (arr) = p_;                                                   \
        }                                                                 \
    } while (0)

/* Notes the first read a damaged file cut short (model.damaged): what was
 * read before it is kept, and the report says what it lacks. */
void load_note_damage(struct model *m, int db, int rc, const char *what);

/* An API id read from a row, or 0 if the api table does not have it: ids
 * index api_names and roles unchecked everywhere else. */
static inline int model_api_id(const struct model *m, int api)
{
    return api < 0 || api >= m->napis ? 0 : api;
}

/* Tolerance of the test that matches a call to the CUPTI API record made
 * inside it (correlate.c), once the offset between the two clocks'
 * conversions is taken out (join_clock.c): what is left of it between two
 * certain matches, and the time between a wrapper's clock read and
 * CUPTI's. */
#define MATCH_SLACK_NS 2000
/* How far the two conversions may have drifted apart (5.8 us seen on a
 * loaded host later in a run; over 100 us in a process's first
 * milliseconds, when the tick rate is known from a 1 ms span only): the
 * records of a call's API within this of it are the ones that may be its
 * (join_clock.c). */
#define MATCH_WIDE_NS 250000

/* What a planning pass sees of each record of a process as it is read
 * (windows.c): each decoded as loading it would decode it, none kept.
 * Calls' sites are made as loading makes them, in the same order. */
struct proc_scan {
    void (*call)(struct proc_scan *s, const struct call *c);
    void (*capi)(struct proc_scan *s, int64_t start, int64_t end, uint32_t corr);
    void (*op)(struct proc_scan *s, const struct gop *g);
};
/* Hands process pi's records of table t within runs r (NULL: all of the
 * process's) to s, in order.  Between load_begin_proc and load_end_proc.
 * With `second`, read on the second connection to its file (model_db),
 * for a pass on another thread: it then hands over no calls' sites.
 * Returns SQLITE_OK or the error that stopped it. */
int model_scan_table(struct model *m, size_t pi, int table, const struct rowruns *r, struct proc_scan *s, int second);
/* The connection to process p's file: the second one (for another
 * thread) when asked and there is one. */
static inline sqlite3 *model_db(const struct model *m, const struct proc *p, int second)
{
    return second && m->dbs2 ? m->dbs2[p->db] : m->dbs[p->db];
}
/* Whether a kernel is NCCL's (one its ext_corr rows point at, or named
 * nccl...), as loading marks it. */
int model_op_is_nccl(const struct proc *p, const struct gop *g);

#endif
