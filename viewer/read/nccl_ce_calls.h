/* nccl_ce_calls.h: NCCL's copy-engine calls told by its NVTX ranges
 * (nccl_ce_calls.c). */
#ifndef GPUTRACE_NCCL_CE_CALLS_H
#define GPUTRACE_NCCL_CE_CALLS_H

#include "viewer/model/model.h"

#include <stddef.h>

/* Into out, the correlations of the batched copies and stream memory
 * operations CUPTI saw made inside one of NCCL's own NVTX ranges (domain
 * "NCCL", around each of its API calls) on their thread: a copy-engine
 * collective's (docs/nccl-ce.md) where no wrapper saw the NCCL call (a
 * static NCCL) and so no external correlation links it. */
struct cupti_rec;
struct idmap;
void comm_nvtx_calls(const struct proc *p, const struct cupti_rec *r, size_t n, struct idmap *out);

#endif
