/* cupti_cbids.h: the CUPTI callback ids of the CUDA APIs the report reads,
 * in both domains (1 runtime, 2 driver), each named as the tracer's api
 * table names it (format/api_ids.h).  Shared by the report, which makes
 * calls of CUPTI's API records (viewer/read/cupti_calls.c), and the
 * importer, which reads other tools' traces by those names
 * (import/kineto_map.c). */
#ifndef GPUTRACE_CUPTI_CBIDS_H
#define GPUTRACE_CUPTI_CBIDS_H

#include <stddef.h>
#include <stdint.h>

struct gt_cbid_name {
    int domain;
    uint32_t cbid;
    const char *name;
};

extern const struct gt_cbid_name gt_cbid_names[];
extern const size_t gt_ncbid_names;

#endif
