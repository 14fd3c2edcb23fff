/* hang_place.h: where a rank that never entered a hung collective was
 * instead (hang_place.c). */
#ifndef GPUTRACE_HANG_PLACE_H
#define GPUTRACE_HANG_PLACE_H

#include "viewer/analyse/findings.h"
#include "viewer/model/model.h"

#include <stddef.h>

/* Adds to comm.hang finding f where process pi was (FACT_PLACES): the
 * call it was blocked in, else its innermost open NVTX range, else host
 * code since its last call. */
void hang_place_facts(const struct model *m, size_t pi, struct finding *f);

#endif
