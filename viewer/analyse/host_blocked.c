/* host_blocked.c: the host's blocking calls as a union of intervals
 * (host_blocked.h). */
#include "viewer/analyse/host_blocked.h"

/* Whether a call blocks the host until the GPU (or NCCL) lets it go. */
static int blocks_host(const struct model *m, const struct call *c)
{
    return model_is_explicit_sync(m, c) || model_is_implicit_sync(m, c) || m->roles[c->api] == ROLE_NCCL_OTHER;
}

struct ivals host_blocked_union(const struct model *m, size_t pi, const struct ivals *carry)
{
    const struct proc *p = &m->procs[pi];
    struct ivals_build u = { 0 };
    do {
        for (size_t i = 0; carry && i < carry->n; i++) /* they began before this window's calls */
            ivals_build_add(&u, carry->v[i].a, carry->v[i].b);
        for (size_t i = 0; i < p->ncalls; i++) /* in start order */
            if (p->calls[i].end > p->calls[i].start && blocks_host(m, &p->calls[i]))
                ivals_build_add(&u, p->calls[i].start, p->calls[i].end);
    } while (ivals_build_pass(&u));
    return u.u;
}
