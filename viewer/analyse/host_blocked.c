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

void ivals_split(const struct ivals *u, int64_t a, int64_t b, int want,
                 void (*fn)(void *arg, int64_t a, int64_t b), void *arg)
{
    size_t lo = 0, hi = u->n;
    while (lo < hi) { /* the first interval ending after a */
        size_t mid = (lo + hi) / 2;
        if (u->v[mid].b <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; a < b; i++) {
        int64_t next = i < u->n && u->v[i].a < b ? u->v[i].a : b; /* the uncovered part ends here */
        if (next > a && !want)
            fn(arg, a, next);
        if (i >= u->n || u->v[i].a >= b)
            break;
        int64_t s = u->v[i].a > a ? u->v[i].a : a, e = u->v[i].b < b ? u->v[i].b : b;
        if (e > s && want)
            fn(arg, s, e);
        a = u->v[i].b > a ? u->v[i].b : a;
    }
}
