/* model_internal.h: what the two halves of loading a run share: model.c
 * (the run, its processes and what stays loaded) and load_proc.c (one
 * process's calls and GPU operations). */
#ifndef GPUTRACE_MODEL_INTERNAL_H
#define GPUTRACE_MODEL_INTERNAL_H

#include "viewer/model.h"

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
void model_note_damage(struct model *m, int db, int rc, const char *what);

/* An API id read from a row, or 0 if the api table does not have it: ids
 * index api_names and roles unchecked everywhere else. */
static inline int model_api_id(const struct model *m, int api)
{
    return api < 0 || api >= m->napis ? 0 : api;
}

#endif
