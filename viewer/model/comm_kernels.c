/* comm_kernels.c: see comm_kernels.h. */
#include "viewer/model/comm_kernels.h"
#include "viewer/model/model.h"


#include <fnmatch.h>
#include <pthread.h>
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

static void make_default(void)
{
    char err[128];
    if (npatterns < 0) {
        npatterns = 0;
        add_list(COMM_KERNELS_DEFAULT, err, sizeof err);
    }
}

/* The default list is made at the first name asked about, which without
 * --comm-kernels is in the workers' loading of the processes, several at
 * once: unguarded, one worker read the list while another was filling it
 * (a DeepEP kernel read as compute on one rank, the report then not the
 * same on -j 2 as on one worker) and both filled it (leaked, or past its
 * end).  The options, which set it, are read before the workers start. */
static void ensure_default(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, make_default);
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

/* Appends n bytes of s to the name being made in buf (len bytes, *at
 * used), cut to fit. */
static void put(char *buf, size_t len, size_t *at, const char *s, size_t n)
{
    while (n-- && *at + 1 < len)
        buf[(*at)++] = *s++;
    buf[*at] = 0;
}

#define ANON "(anonymous namespace)"

/* An Itanium-mangled name (_Z...): the source names of its nested name,
 * joined by "::", up to its template arguments or its end (a kernel is no
 * member: what follows is its signature).  0, or -1 if it reads none. */
static int mangled(const char *name, char *buf, size_t len)
{
    const char *p = name + 2, *end = name + strlen(name);
    size_t at = 0;
    int parts = 0, nested = 0;
    buf[0] = 0;
    if (*p == 'L') /* internal linkage */
        p++;
    if (*p == 'N') {
        nested = 1;
        for (p++; *p == 'r' || *p == 'V' || *p == 'K'; p++)
            ;
    }
    for (;;) {
        if (*p == 'L') {
            p++;
            continue;
        }
        if (p[0] == 'S' && p[1] == 't') { /* std:: */
            if (parts++)
                put(buf, len, &at, "::", 2);
            put(buf, len, &at, "std", 3);
            p += 2;
            continue;
        }
        if (*p < '0' || *p > '9')
            break;
        char *q;
        unsigned long n = strtoul(p, &q, 10);
        if (n == 0 || n > (unsigned long)(end - q))
            return -1;
        if (parts++)
            put(buf, len, &at, "::", 2);
        if (n >= 10 && !strncmp(q, "_GLOBAL__N", 10))
            put(buf, len, &at, ANON, strlen(ANON));
        else
            put(buf, len, &at, q, n);
        p = q + n;
        if (!nested)
            break;
    }
    return parts ? 0 : -1;
}

/* A demangled name: its namespaces and identifier at the outer level,
 * past a return type (the text before a space there), without template
 * arguments, up to its parameters. */
static void demangled(const char *name, char *buf, size_t len)
{
    size_t at = 0, alen = strlen(ANON);
    int depth = 0;
    buf[0] = 0;
    for (const char *p = name; *p; p++) {
        if (!depth && !strncmp(p, ANON, alen)) {
            put(buf, len, &at, p, alen);
            p += alen - 1;
        } else if (*p == '<' || *p == '(') {
            if (!depth && *p == '(' && at)
                return; /* its parameters */
            depth++;
        } else if (*p == '>' || *p == ')') {
            depth -= depth > 0;
        } else if (!depth && *p == ' ') {
            at = 0; /* what came before was its return type */
            buf[0] = 0;
        } else if (!depth) {
            put(buf, len, &at, p, 1);
        }
    }
}

char *comm_kernel_function(const char *name, char *buf, size_t len)
{
    if (!len)
        return buf;
    if (strncmp(name, "_Z", 2) || mangled(name, buf, len) != 0)
        demangled(name, buf, len);
    if (!buf[0])
        snprintf(buf, len, "%s", name);
    return buf;
}

/* Whether the pattern matches the function name or a tail of it that
 * follows a "::". */
static int matches(const char *pattern, const char *fn)
{
    if (fnmatch(pattern, fn, 0) == 0)
        return 1;
    for (const char *p = strstr(fn, "::"); p; p = strstr(p, "::"))
        if (fnmatch(pattern, p += 2, 0) == 0)
            return 1;
    return 0;
}

int comm_kernel_name(const char *name)
{
    if (!name)
        return 0;
    char fn[512];
    comm_kernel_function(name, fn, sizeof fn);
    if (!strncmp(name, "nccl", 4) || !strncmp(fn, "nccl", 4))
        return 1;
    ensure_default();
    for (int i = 0; i < npatterns; i++)
        if (matches(patterns[i], fn))
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
