/* analysis_setup.h: host.setup, CUDA set-up holding the host while the
 * GPU idles (analysis_setup.c), called by the sync analysis as it walks
 * each window's calls (analysis_sync.c). */
#ifndef GPUTRACE_ANALYSIS_SETUP_H
#define GPUTRACE_ANALYSIS_SETUP_H

#include "viewer/analyse/findings.h"
#include "viewer/model/timeline.h"

/* Whether a call of role r that neither syncs nor copies can be set-up
 * (launch: it launched a GPU operation). */
int setup_call(enum api_role r, int launched);
/* Whether call c (setup_call's) held the host long enough to be set-up,
 * whatever the GPU did meanwhile: what host.setup's fix takes away
 * (whatif.c), as it is what setup_note counts. */
int setup_held(const struct model *m, const struct call *c);
/* Call c of the window timeline t is, if it held the host long enough
 * while the GPU idled. */
void setup_note(const struct model *m, struct findings *fs, const struct timeline *t, size_t pi, const struct call *c);
/* At a window's start: the idle of earlier windows' calls that ran past
 * their last GPU work, now that GPU work follows (or not). */
void setup_due(const struct model *m, struct findings *fs, const struct timeline *t, size_t pi);
/* At a window's end (what the next one's notes need), and at the
 * process's end (calls after its last GPU work: no GPU time lost). */
void setup_window_end(const struct timeline *t, size_t pi);
void setup_proc_end(const struct model *m, struct findings *fs, size_t pi);

#endif
