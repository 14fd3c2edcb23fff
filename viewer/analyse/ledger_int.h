/* ledger_int.h: what the ledger's three files share (ledger.c builds each
 * process's ledger window by window, ledger_resolve.c splits it by the
 * findings once the claims are resolved, ledger_gpus.c does both for a
 * process that drives several GPUs, a ledger per GPU). */
#ifndef GPUTRACE_LEDGER_INT_H
#define GPUTRACE_LEDGER_INT_H

#include "viewer/analyse/ledger.h"
#include "viewer/analyse/attribution.h"
#include "viewer/model/idmap.h"

#include <stddef.h>
#include <stdint.h>

/* A finding made of what no finding claimed: its site, never a real one
 * (>= 0) nor gpu.idle's (analysis_gpu.c: -2^30 and above). */
#define UNCLAIMED_SITE (-(1 << 30) - 1)
/* gpu.launch_bound's site, never a real one, nor another whole process's */
#define LAUNCH_SITE (-(1 << 30) - 2)
/* gpu.pipeline_bubble's */
#define BUBBLE_SITE (-(1 << 30) - 3)
/* The short gaps make gpu.launch_bound from this much on, and this share
 * of the process's GPU span (1/20). */
#define LAUNCH_MIN_NS 1000000
#define LAUNCH_SHARE 20
/* What no finding claimed becomes one from this much on; and gpu.idle
 * of one range, or gpu.pipeline_bubble, is kept from this much on, or 1%
 * of its process's GPU span (below both it is noise: the host paused a
 * little in a range). */
#define UNCLAIMED_MIN_NS 1000000
#define IDLE_MIN_NS 1000000

struct findings;
struct model;
struct proc;

/* ledger.c: [a, b) appended to the intervals v (joined to the last when
 * it ends at a); [a, b) of a bucket added to the iterations it falls in;
 * a process's intervals read back from the scratch store; and let go. */
void lg_push_ival(struct interval **v, size_t *n, size_t *cap, int64_t a, int64_t b);
/* ... and [a, b) tallied by the host range around its middle (a
 * finding's place: gpu.launch_bound's, gpu.pipeline_bubble's). */
void lg_tally_range(struct launch_tally **v, size_t *n, const struct proc *p, int64_t a, int64_t b);
void lg_add_span(struct ledger *l, int bucket, int64_t a, int64_t b);
void lg_take_back(const struct findings *fs, struct ledger *l);
void lg_intervals_free(struct ledger *l);

/* ledger_resolve.c: ns of a bucket charged to c's finding (NULL: none),
 * in its row (lg_note_row) and its bucket too (lg_add_row); a piece
 * given to a finding, for --charges and the marks. */
void lg_note_row(struct ledger *l, size_t *cap, int bucket, const struct charge *c, int64_t ns);
void lg_add_row(struct ledger *l, size_t *cap, int bucket, const struct charge *c, int64_t ns);
void lg_push_given(struct charges *c, struct charge g);

/* ledger_gpus.c, in the order ledger_resolve calls them: each GPU's pieces
 * (the claims resolved for it alone, but those of dropped findings); the
 * findings about one GPU given their GPU's pieces; a GPU's idle beside
 * another's work that no piece took, as gpu.pipeline_bubble; the
 * process's ledger their sum; what each process's findings account for,
 * the union of its pieces. */
void lg_gpu_pieces(struct findings *fs, const struct idmap *dropped);
void lg_gpus_own(struct findings *fs);
void lg_bubble(struct findings *fs, const struct model *m, size_t pi, struct ledger *l);
void lg_sum_gpus(struct ledger *l, size_t *cap);
void lg_by_proc_union(struct findings *fs);

#endif
