/* json_tree.c: looking into a value json_stream.c parsed (members by key,
 * numbers and times read exactly from their text; see json_stream.h). */
#define _GNU_SOURCE
#include "import/json_stream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct jnode *js_get_n(const struct jstream *j, const struct jnode *obj, const char *key, size_t n)
{
    if (!obj || obj->type != J_OBJ)
        return NULL;
    for (int32_t c = obj->child; c >= 0; c = j->nodes[c].next)
        if (j->nodes[c].klen == n && j->nodes[c].key && j->nodes[c].key[0] == key[0] &&
            !memcmp(j->nodes[c].key, key, n))
            return &j->nodes[c];
    return NULL;
}

int64_t js_int(const struct jstream *j, const struct jnode *obj, const char *key, int *ok)
{
    const struct jnode *n = js_get(j, obj, key);
    if (ok)
        *ok = 0;
    if (!n || (n->type != J_NUM && n->type != J_STR) || !n->len)
        return 0;
    /* plain integers (nearly all) without strtoll */
    const char *p = n->s;
    int neg = *p == '-';
    p += neg;
    if (*p >= '0' && *p <= '9' && n->len - (uint32_t)neg <= 18) {
        long long v = 0;
        while (*p >= '0' && *p <= '9')
            v = v * 10 + (*p++ - '0');
        if (!*p) {
            if (ok)
                *ok = 1;
            return neg ? -v : v;
        }
    }
    char *end;
    errno = 0;
    long long v = strtoll(n->s, &end, 10);
    if (end == n->s || errno)
        return 0;
    if (*end == '.' || *end == 'e' || *end == 'E') { /* a real: its integer part */
        double d = strtod(n->s, &end);
        if (d != d || d > 9.2e18 || d < -9.2e18)
            return 0;
        v = (long long)d;
    } else if (*end) {
        return 0;
    }
    if (ok)
        *ok = 1;
    return v;
}

const char *js_str(const struct jstream *j, const struct jnode *obj, const char *key)
{
    const struct jnode *n = js_get(j, obj, key);
    return n && n->type == J_STR ? n->s : NULL;
}

int js_us_to_ns(const struct jnode *n, int64_t *ns)
{
    if (!n || n->type != J_NUM)
        return -1;
    const char *s = n->s;
    int neg = *s == '-';
    s += neg;
    int64_t whole = 0, frac = 0;
    int digits = 0;
    while (*s >= '0' && *s <= '9') {
        if (whole > (INT64_MAX / 1000 - 9) / 10)
            return -1;
        whole = whole * 10 + (*s++ - '0');
    }
    if (*s == '.') {
        s++;
        while (*s >= '0' && *s <= '9') {
            if (digits < 3) {
                frac = frac * 10 + (*s - '0');
                digits++;
            }
            s++;
        }
    }
    if (*s) { /* an exponent: through a double */
        double d = strtod(n->s, NULL) * 1000.0;
        if (d != d || d > 9.2e18 || d < -9.2e18)
            return -1;
        *ns = (int64_t)d;
        return 0;
    }
    while (digits < 3) {
        frac *= 10;
        digits++;
    }
    *ns = (whole * 1000 + frac) * (neg ? -1 : 1);
    return 0;
}
