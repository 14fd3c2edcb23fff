/* ivals.c: unions of intervals, sorted and disjoint (timeline.h): built,
 * measured, subtracted and split.  Apart from the timelines so that what
 * only needs the arithmetic (attribution.c, its unit test) needs no more. */
#include "viewer/model/timeline.h"

#include <stdlib.h>

void ivals_build_add(struct ivals_build *u, int64_t a, int64_t b)
{
    if (u->n && a <= u->end) {
        if (b > u->end)
            u->end = b;
        if (u->u.v)
            u->u.v[u->n - 1].b = u->end;
        return;
    }
    if (u->u.v)
        u->u.v[u->n] = (struct interval){ a, b };
    u->n++;
    u->end = b;
}

int ivals_build_pass(struct ivals_build *u)
{
    if (u->u.v || !u->n) { /* stored (or nothing to store): done */
        u->u.n = u->n;
        return 0;
    }
    u->u.v = malloc(u->n * sizeof *u->u.v);
    if (!u->u.v)
        model_out_of_memory();
    u->n = 0;
    u->end = 0;
    return 1;
}

int64_t ivals_total(const struct ivals *s)
{
    int64_t t = 0;
    for (size_t i = 0; i < s->n; i++)
        model_add(&t, s->v[i].b - s->v[i].a);
    return t;
}

int64_t ivals_cover(const struct ivals *s, int64_t a, int64_t b)
{
    /* binary search the first interval ending after a */
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (s->v[mid].b <= a)
            lo = mid + 1;
        else
            hi = mid;
    }
    int64_t t = 0;
    for (size_t i = lo; i < s->n && s->v[i].a < b; i++) {
        int64_t x = s->v[i].a > a ? s->v[i].a : a, y = s->v[i].b < b ? s->v[i].b : b;
        if (y > x)
            model_add(&t, y - x);
    }
    return t;
}

int64_t ivals_intersection(const struct ivals *x, const struct ivals *y)
{
    int64_t t = 0;
    size_t i = 0, j = 0;
    while (i < x->n && j < y->n) {
        int64_t a = x->v[i].a > y->v[j].a ? x->v[i].a : y->v[j].a;
        int64_t b = x->v[i].b < y->v[j].b ? x->v[i].b : y->v[j].b;
        if (b > a)
            model_add(&t, b - a);
        if (x->v[i].b < y->v[j].b)
            i++;
        else
            j++;
    }
    return t;
}

/* x minus y (both sorted and disjoint). */
struct ivals ivals_minus(const struct ivals *x, const struct ivals *y)
{
    struct ivals r = { malloc((x->n + y->n + 1) * sizeof *r.v), 0 };
    size_t j = 0;
    for (size_t i = 0; i < x->n; i++) {
        int64_t a = x->v[i].a, b = x->v[i].b;
        while (j < y->n && y->v[j].b <= a)
            j++;
        for (size_t k = j; k < y->n && y->v[k].a < b; k++) {
            if (y->v[k].a > a)
                r.v[r.n++] = (struct interval){ a, y->v[k].a };
            if (y->v[k].b > a)
                a = y->v[k].b;
        }
        if (a < b)
            r.v[r.n++] = (struct interval){ a, b };
    }
    return r;
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
