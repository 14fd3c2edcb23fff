/* finding_out.h: a finding's facts rendered for the outputs: its
 * kind-specific JSON members (finding_json.c), and its message and fix,
 * the same in every output (finding_text.c).  The analyses set facts only
 * (findings.h); the words are here. */
#ifndef GPUTRACE_FINDING_OUT_H
#define GPUTRACE_FINDING_OUT_H

#include "viewer/analyse/findings.h"

#include <stddef.h>
#include <stdio.h>

/* The members of its facts (", \"comm_id\": ...", after those every
 * finding has), nothing when it has none. */
void finding_facts_json(FILE *out, const struct model *m, const struct finding *f);
/* Its list of ranks, "0, 2, 3", cut at len - 1 bytes (len 256 as shown). */
const char *finding_rank_list(const struct finding_facts *x, char *buf, size_t len);
/* Its message and its fix, in words (finding_text.c): into buf, cut at
 * len - 1 bytes and at FINDING_TEXT_LEN - 1, where they always were. */
#define FINDING_TEXT_LEN 512
const char *finding_message(const struct model *m, const struct finding *f, char *buf, size_t len);
const char *finding_suggestion(const struct model *m, const struct finding *f, char *buf, size_t len);
/* The name of the range most of its occurrences were in ("" if none),
 * cut at len - 1 bytes (FINDING_RANGE_LEN - 1 as shown). */
#define FINDING_RANGE_LEN 4096
/* "iteration on rank 3: 4.12 ms median (3.79-4.69 ms, 10th-90th
 * percentile), in 12 of 12" (named_rank: say whose, a group's worst
 * member): how steady f's cost is from one iteration to the next
 * (finding_steps.c), so that a total from one bad step is not read as a
 * cost every step pays; "" when its rank has no iterations. */
/* What its cost is, in words after "12.00 ms": "host blocked", "GPU
 * idle", "not overlapped" (communication), "the others waited" (a
 * straggler's), "waited". */
const char *finding_cost_words(const struct finding *f);
/* "1.51 ms of GPU time over its 2 GPUs": where the processes of the
 * group led by fs->v[leader] (group[i] == leader: its members) drive
 * several GPUs, their GPU time lost, which orders the findings (waste_ns),
 * each GPU's counted, beside the time charged (process time) that the
 * header shows; "" where they drive one GPU each or the two agree. */
const char *finding_gpu_time(const struct findings *fs, const int *group, size_t leader, char *buf, size_t len);
const char *finding_steady(const struct model *m, const struct finding *f, int named_rank, char *buf, size_t len);
const char *finding_range(const struct model *m, const struct finding *f, char *buf, size_t len);
/* How far a rank got in a hung collective (struct finding_stop.at). */
const char *finding_stop_text(int at);

#endif
