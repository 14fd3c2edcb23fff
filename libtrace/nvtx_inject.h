/* nvtx_inject.h: what the rest of the tracer needs of the NVTX injection. */
#ifndef GPUTRACE_NVTX_INJECT_H
#define GPUTRACE_NVTX_INJECT_H

/* "active", "no NVTX calls seen", or why ranges are not recorded. */
const char *gt_nvtx_status(void);

#endif
