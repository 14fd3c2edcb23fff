/* comm_kernels.c: see comm_kernels.h. */
#include "viewer/model/comm_kernels.h"
#include "viewer/model/model.h"


#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATTERNS 64

static char *patterns[MAX_PATTERNS];
static int npatterns = -1; /* -1: the default, not parsed yet */

static int add_list(const char *list, char *err, size_t errlen)
{
    const char *p = list;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == 0) {
            snprintf(err, errlen, "an empty pattern in '%s'", list);
            return -1;
        }
        if (npatterns == MAX_PATTERNS) {
            snprintf(err, errlen, "more than %d patterns", MAX_PATTERNS);
            return -1;
        }
        patterns[npatterns] = strndup(p, n);
        if (!patterns[npatterns]) {
            snprintf(err, errlen, "out of memory");
            return -1;
        }
        npatterns++;
        p += n;
        if (*p == ',')
            p++;
    }
    return 0;
}

static void clear(void)
{
    for (int i = 0; i < npatterns; i++)
        free(patterns[i]);
    npatterns = 0;
}

static void ensure_default(void)
{
    char err[128];
    if (npatterns < 0) {
        npatterns = 0;
        add_list(COMM_KERNELS_DEFAULT, err, sizeof err);
    }
}

int comm_kernels_set(const char *spec, char *err, size_t errlen)
{
    if (spec[0] == '+') {
        ensure_default();
        return add_list(spec + 1, err, errlen);
    }
    if (npatterns > 0)
        clear();
    npatterns = 0;
    return add_list(spec, err, errlen);
}

int comm_kernel_name(const char *name)
{
    if (!name)
        return 0;
    if (!strncmp(name, "nccl", 4))
        return 1;
    ensure_default();
    for (int i = 0; i < npatterns; i++)
        if (fnmatch(patterns[i], name, 0) == 0)
            return 1;
    return 0;
}

unsigned char *comm_kernels_mark(char *const *names, int n)
{
    unsigned char *v = n > 0 ? calloc((size_t)n, 1) : NULL;
    for (int i = 0; v && i < n; i++)
        v[i] = (unsigned char)comm_kernel_name(names[i]);
    return v;
}

const struct coll *comm_op_collective(const struct proc *p, const struct gop *g)
{
    if (!g->nccl || g->kind == GOP_KERNEL || !p->ncolls)
        return NULL;
    size_t lo = 0, hi = p->ncolls; /* the first collective whose call started after the copy's call */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->colls[mid].start <= g->enq)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* the latest call around it on the copy's stream: grouped calls end
     * together, at ncclGroupEnd, which is where NCCL issues the copies */
    for (size_t i = lo; i-- > 0 && lo - i <= 64;) {
        const struct coll *c = &p->colls[i];
        if (c->gstream == g->stream && c->end >= g->enq && c->gstart <= g->start && g->end <= c->gend)
            return c;
    }
    return NULL;
}

const char *comm_op_name(const struct model *m, const struct proc *p, const struct gop *g, const char *what,
                         char *buf, size_t len)
{
    const struct coll *c = comm_op_collective(p, g);
    if (!g->nccl || g->kind == GOP_KERNEL)
        return what;
    snprintf(buf, len, "%s (copy engine) %s", c ? model_api_name(m, c->api) : "nccl", what);
    return buf;
}
