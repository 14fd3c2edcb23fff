/* api.c: what each wrapped API is to the analyses (its role: a sync, a
 * copy, a launch, an NCCL operation...) and which of its results are
 * answers rather than errors, told from the API's name as the file's api
 * table has it.  The names, not the ids, are the contract: ids differ
 * between files of different tracer versions and imported traces. */
#define _GNU_SOURCE
#include "viewer/model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static enum api_role role_of(const char *n)
{
    /* per-thread (_ptsz) and versioned (_v2) entry points share their base
     * name's role */
    if (!strcmp(n, "cudaDeviceSynchronize") || !strncmp(n, "cuCtxSynchronize", 16))
        return ROLE_SYNC_DEVICE;
    if (!strncmp(n, "cudaStreamSynchronize", 21) || !strncmp(n, "cuStreamSynchronize", 19))
        return ROLE_SYNC_STREAM;
    if (!strcmp(n, "cudaEventSynchronize") || !strcmp(n, "cuEventSynchronize"))
        return ROLE_SYNC_EVENT;
    if (!strcmp(n, "cudaFree") || !strcmp(n, "cudaFreeHost"))
        return ROLE_FREE;
    if (strstr(n, "Memcpy") && strstr(n, "Async"))
        return ROLE_COPY_ASYNC;
    if (strstr(n, "Memcpy"))
        return ROLE_COPY_SYNC;
    if (!strcmp(n, "cudaMemset") || !strcmp(n, "cudaMemset_ptds"))
        return ROLE_MEMSET_SYNC;
    if (!strncmp(n, "cudaEventRecord", 15) || !strncmp(n, "cuEventRecord", 13))
        return ROLE_EVENT_RECORD;
    if (!strncmp(n, "cudaStreamWaitEvent", 19) || !strncmp(n, "cuStreamWaitEvent", 17))
        return ROLE_STREAM_WAIT;
    if (!strncmp(n, "cudaStreamCreate", 16) || !strncmp(n, "cuStreamCreate", 14))
        return ROLE_STREAM_CREATE;
    if (strstr(n, "Launch"))
        return ROLE_LAUNCH;
    if (!strncmp(n, "nccl", 4)) {
        static const char *const ops[] = { "ncclAllReduce", "ncclBroadcast", "ncclBcast", "ncclReduce",
                                           "ncclAllGather", "ncclReduceScatter", "ncclAlltoAll", "ncclGather",
                                           "ncclScatter", "ncclSend", "ncclRecv" };
        for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
            if (!strcmp(n, ops[i]))
                return ROLE_NCCL_OP;
        return ROLE_NCCL_OTHER;
    }
    return ROLE_OTHER;
}

/* A result of the API that is an answer, not an error, besides 0: a stream
 * or event query's "not ready" (600 in both the runtime's and the driver's
 * numbering), ncclInProgress (7) from a non-blocking communicator. */
static int32_t answer_of(const char *n, enum api_role r)
{
    if (r == ROLE_NCCL_OP || r == ROLE_NCCL_OTHER)
        return 7;
    return strstr(n, "Query") ? 600 : 0;
}

int model_result_failed(const struct model *m, int api, int32_t result)
{
    return result != 0 && result != m->answers[api];
}

int model_is_explicit_sync(const struct model *m, const struct call *c)
{
    enum api_role r = m->roles[c->api];
    return r == ROLE_SYNC_DEVICE || r == ROLE_SYNC_STREAM || r == ROLE_SYNC_EVENT;
}

int model_is_implicit_sync(const struct model *m, const struct call *c)
{
    enum api_role r = m->roles[c->api];
    if (r == ROLE_COPY_SYNC || r == ROLE_MEMSET_SYNC || r == ROLE_FREE)
        return 1;
    /* copy_kind 1 and 2: host to device and back (record.h) */
    return r == ROLE_COPY_ASYNC && c->mem_kind == 1 && (c->copy_kind == 1 || c->copy_kind == 2);
}

int model_plugin_depth(const struct proc *p, int64_t index)
{
    for (size_t i = 0; i < p->nplugin_depth; i++)
        if (p->plugin_depth[i].index == index)
            return p->plugin_depth[i].depth;
    return PD_NONE;
}

void model_set_api(struct model *m, int id, const char *name)
{
    if (id < 0 || id > 4096)
        return;
    if (id >= m->napis) {
        char **names = realloc(m->api_names, (size_t)(id + 1) * sizeof *names);
        if (names)
            m->api_names = names;
        enum api_role *roles = realloc(m->roles, (size_t)(id + 1) * sizeof *roles);
        if (roles)
            m->roles = roles;
        int32_t *answers = realloc(m->answers, (size_t)(id + 1) * sizeof *answers);
        if (answers)
            m->answers = answers;
        if (!names || !roles || !answers)
            model_out_of_memory();
        for (int i = m->napis; i <= id; i++) {
            m->api_names[i] = NULL;
            m->roles[i] = ROLE_OTHER;
            m->answers[i] = 0;
        }
        m->napis = id + 1;
    }
    if (!name)
        return;
    free(m->api_names[id]);
    m->api_names[id] = strdup(name);
    if (!m->api_names[id])
        model_out_of_memory();
    m->roles[id] = role_of(name);
    m->answers[id] = answer_of(name, m->roles[id]);
}

const char *model_api_name(const struct model *m, int api)
{
    const char *n = api >= 0 && api < m->napis ? m->api_names[api] : NULL;
    return n ? n : "?";
}

int model_api_per_thread(const struct model *m, int api)
{
    const char *n = model_api_name(m, api);
    size_t l = strlen(n);
    return l > 5 && (!strcmp(n + l - 5, "_ptsz") || !strcmp(n + l - 5, "_ptds"));
}

int model_api_named(const struct model *m, const char *name)
{
    for (int i = 1; i < m->napis; i++) /* (id 0 is no API's) */
        if (m->api_names[i] && !strcmp(m->api_names[i], name))
            return i;
    return -1;
}

const char *model_kernel_name(const struct proc *p, int name_id)
{
    const char *n = name_id > 0 && name_id < p->nnames ? p->names[name_id] : NULL;
    return n && *n ? n : "?";
}

const char *model_op_name(const struct proc *p, const struct gop *g)
{
    return g->kind == GOP_KERNEL ? model_kernel_name(p, g->name)
           : g->nccl ? "an NCCL copy-engine collective" /* its copies (docs/nccl-ce.md) */
           : g->kind == GOP_MEMCPY ? "a copy" : "a memset";
}

void model_out_of_memory(void)
{
    fprintf(stderr, "gputrace-report: out of memory\n");
    exit(1);
}
