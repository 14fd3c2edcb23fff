/* json_stream.c: the streaming JSON reader (see json_stream.h).
 *
 * Written by hand rather than taken from a library: the packaged JSON
 * libraries (json-c, jansson) build a whole document in memory, and a
 * 2 GB trace does not fit; yajl streams but hands every token to a
 * callback, and a trace event (a dozen members) is easier and no slower
 * to read as one small tree.  Limits: a value of at most 1 Mi nodes and
 * 64 MiB of text, nested at most 64 deep; numbers are kept as text. */
#define _GNU_SOURCE
#include "import/json_stream.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes that end a run: of a string's text (quote, backslash), and of
 * what the skipper jumps over (quote, brackets).  A table look per byte
 * beat two memchr calls on the short strings of a trace (most are keys). */
static const unsigned char ends_string[256] = { ['"'] = 1, ['\\'] = 1 };
static const unsigned char ends_skip[256] = { ['"'] = 1, ['{'] = 1, ['['] = 1, ['}'] = 1, [']'] = 1 };

#define BUF_SIZE (1u << 20)
#define MAX_NODES (1u << 20)
#define MAX_CHARS (64u << 20)
#define MAX_DEPTH 64

int js_open(struct jstream *j, const char *path)
{
    memset(j, 0, sizeof *j);
    j->gz = gzopen(path, "rb");
    if (!j->gz) {
        snprintf(j->err, sizeof j->err, "cannot open: %s", errno ? strerror(errno) : "out of memory");
        return -1;
    }
    gzbuffer(j->gz, 1u << 18);
    j->buf = malloc(BUF_SIZE);
    if (!j->buf) {
        snprintf(j->err, sizeof j->err, "out of memory");
        gzclose(j->gz);
        j->gz = NULL;
        return -1;
    }
    return 0;
}

void js_close(struct jstream *j)
{
    if (j->gz)
        gzclose(j->gz);
    free(j->buf);
    free(j->nodes);
    free(j->chars);
    memset(j, 0, sizeof *j);
}

uint64_t js_offset(const struct jstream *j)
{
    return j->consumed + j->pos;
}

const char *js_shown(int c, char buf[8])
{
    if (c >= 0x20 && c < 0x7f && c != '\\')
        snprintf(buf, 8, "%c", c);
    else
        snprintf(buf, 8, "\\x%02x", c & 0xff);
    return buf;
}

void js_fail(struct jstream *j, const char *fmt, ...)
{
    char what[200];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    snprintf(j->err, sizeof j->err, "%s (at byte %llu)", what, (unsigned long long)js_offset(j));
    longjmp(*j->on_error, 1);
}

/* Refills the buffer; 0 at the end of the input. */
static int refill(struct jstream *j)
{
    if (j->eof)
        return 0;
    j->consumed += j->end;
    j->pos = j->end = 0;
    int n = gzread(j->gz, j->buf, BUF_SIZE);
    if (n < 0) {
        int e;
        const char *msg = gzerror(j->gz, &e);
        js_fail(j, "cannot read: %s", e == Z_ERRNO ? strerror(errno) : msg);
    }
    if (n == 0) {
        int e;
        gzerror(j->gz, &e);
        j->eof = 1;
        /* Z_BUF_ERROR: a gzip stream that ends before its trailer (a copy
         * cut short), whose CRC and length were never checked: what was
         * read stays, as for any trace cut short, and the caller says so */
        if (e == Z_BUF_ERROR)
            js_fail(j, "truncated: the gzip stream ends before its trailer (its checksum unchecked)");
        if (e != Z_OK)
            js_fail(j, "damaged compressed data");
        return 0;
    }
    j->end = (size_t)n;
    return 1;
}

static inline int raw_get(struct jstream *j)
{
    if (j->pos == j->end && !refill(j))
        return -1;
    return j->buf[j->pos++];
}

static inline int raw_peek(struct jstream *j)
{
    if (j->pos == j->end && !refill(j))
        return -1;
    return j->buf[j->pos];
}

static inline int peek_ws(struct jstream *j)
{
    for (;;) {
        if (j->pos == j->end && !refill(j))
            return -1;
        const unsigned char *b = j->buf + j->pos, *e = j->buf + j->end;
        while (b < e && (*b == ' ' || *b == '\n' || *b == '\r' || *b == '\t'))
            b++;
        j->pos = (size_t)(b - j->buf);
        if (b < e)
            return *b;
    }
}

void js_skip_bom(struct jstream *j)
{
    if (j->pos == j->end && !refill(j))
        return;
    /* the first refill reads a megabyte, or the whole file */
    if (j->end - j->pos >= 3 && !memcmp(j->buf + j->pos, "\xef\xbb\xbf", 3))
        j->pos += 3;
}

int js_peek(struct jstream *j)
{
    return peek_ws(j);
}

static inline int next_ws(struct jstream *j)
{
    /* the common case first: the byte is there, after spaces if any */
    size_t p = j->pos;
    while (p < j->end && j->buf[p] == ' ')
        p++;
    if (p < j->end && j->buf[p] > ' ') {
        j->pos = p + 1;
        return j->buf[p];
    }
    int c = peek_ws(j);
    if (c >= 0)
        j->pos++;
    return c;
}

int js_next(struct jstream *j)
{
    return next_ws(j);
}

static inline void expect_ws(struct jstream *j, int c)
{
    size_t p = j->pos;
    while (p < j->end && j->buf[p] == ' ') /* ", " and ": " as most traces space them */
        p++;
    if (p < j->end && j->buf[p] == c) {
        j->pos = p + 1;
        return;
    }
    js_expect(j, c);
}

void js_expect(struct jstream *j, int c)
{
    int got = next_ws(j);
    if (got < 0)
        js_fail(j, "truncated: the file ends where '%c' was due", c);
    if (got != c)
        js_fail(j, "not JSON: '%s' where '%c' was due", js_shown(got, (char[8]){ 0 }), c);
}

void js_reset(struct jstream *j)
{
    j->nnodes = j->nchars = 0;
}

static void grow_chars(struct jstream *j, size_t n);

static inline void put_chars(struct jstream *j, const void *p, size_t n)
{
    if (j->nchars + n + 1 > j->chars_cap)
        grow_chars(j, n);
    memcpy(j->chars + j->nchars, p, n);
    j->nchars += n;
}

static void grow_chars(struct jstream *j, size_t n)
{
    {
        if (j->nchars + n + 1 > MAX_CHARS)
            js_fail(j, "a value of more than %u MiB of text", MAX_CHARS >> 20);
        size_t cap = j->chars_cap ? j->chars_cap : 4096;
        while (cap < j->nchars + n + 1)
            cap *= 2;
        char *g = realloc(j->chars, cap);
        if (!g)
            js_fail(j, "out of memory");
        j->chars = g;
        j->chars_cap = cap;
    }
}

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void put_utf8(struct jstream *j, uint32_t u)
{
    unsigned char b[4];
    size_t n;
    if (u < 0x80) {
        b[0] = (unsigned char)u;
        n = 1;
    } else if (u < 0x800) {
        b[0] = (unsigned char)(0xC0 | (u >> 6));
        b[1] = (unsigned char)(0x80 | (u & 0x3F));
        n = 2;
    } else if (u < 0x10000) {
        b[0] = (unsigned char)(0xE0 | (u >> 12));
        b[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
        b[2] = (unsigned char)(0x80 | (u & 0x3F));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xF0 | (u >> 18));
        b[1] = (unsigned char)(0x80 | ((u >> 12) & 0x3F));
        b[2] = (unsigned char)(0x80 | ((u >> 6) & 0x3F));
        b[3] = (unsigned char)(0x80 | (u & 0x3F));
        n = 4;
    }
    put_chars(j, b, n);
}

static uint32_t hex4(struct jstream *j)
{
    uint32_t u = 0;
    for (int k = 0; k < 4; k++) {
        int h = hexval(raw_get(j));
        if (h < 0)
            js_fail(j, "not JSON: a bad \\u escape");
        u = u << 4 | (uint32_t)h;
    }
    return u;
}

/* The string's text appended to the arena (NUL-terminated); its offset. */
static size_t read_string(struct jstream *j, uint32_t *len)
{
    size_t start = j->nchars;
    for (;;) {
        if (j->pos == j->end && !refill(j))
            js_fail(j, "truncated: the file ends inside a string");
        /* the run of plain bytes up to a quote, a backslash or the buffer's end */
        const unsigned char *b = j->buf + j->pos, *e = j->buf + j->end, *q = b;
        while (q < e && !ends_string[*q])
            q++;
        if (q > b)
            put_chars(j, b, (size_t)(q - b));
        j->pos += (size_t)(q - b);
        if (q == e)
            continue;
        j->pos++;
        if (*q == '"')
            break;
        int c = raw_get(j);
        char out;
        switch (c) {
        case '"': out = '"'; break;
        case '\\': out = '\\'; break;
        case '/': out = '/'; break;
        case 'b': out = '\b'; break;
        case 'f': out = '\f'; break;
        case 'n': out = '\n'; break;
        case 'r': out = '\r'; break;
        case 't': out = '\t'; break;
        case 'u': {
            uint32_t u = hex4(j);
            if (u >= 0xD800 && u < 0xDC00 && raw_peek(j) == '\\') { /* a surrogate pair */
                j->pos++;
                if (raw_get(j) != 'u')
                    js_fail(j, "not JSON: a bad \\u escape");
                uint32_t lo = hex4(j);
                u = lo >= 0xDC00 && lo < 0xE000 ? 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00) : 0xFFFD;
            } else if (u >= 0xD800 && u < 0xE000) {
                u = 0xFFFD;
            }
            put_utf8(j, u ? u : 0xFFFD); /* no NUL inside our strings */
            continue;
        }
        case -1: js_fail(j, "truncated: the file ends inside a string");
        default: js_fail(j, "not JSON: a bad escape '\\%s'", js_shown(c, (char[8]){ 0 }));
        }
        put_chars(j, &out, 1);
    }
    *len = (uint32_t)(j->nchars - start);
    put_chars(j, "", 1);
    return start;
}

const char *js_string(struct jstream *j, uint32_t *len)
{
    size_t off = read_string(j, len);
    return j->chars + off;
}

static int32_t new_node(struct jstream *j, uint8_t type)
{
    if (j->nnodes == j->nodes_cap) {
        if (j->nnodes >= MAX_NODES)
            js_fail(j, "a value of more than %u nodes", MAX_NODES);
        size_t cap = j->nodes_cap ? 2 * j->nodes_cap : 256;
        struct jnode *g = realloc(j->nodes, cap * sizeof *g);
        if (!g)
            js_fail(j, "out of memory");
        j->nodes = g;
        j->nodes_cap = cap;
    }
    j->nodes[j->nnodes] = (struct jnode){ .type = type, .child = -1, .next = -1, .koff = UINT32_MAX,
                                          .soff = UINT32_MAX };
    return (int32_t)j->nnodes++;
}

static void literal(struct jstream *j, const char *rest)
{
    for (const char *r = rest; *r; r++) {
        int c = raw_get(j);
        if (c < 0)
            js_fail(j, "truncated: the file ends inside a value");
        if (c != *r)
            js_fail(j, "not JSON: a bad literal");
    }
}

static int32_t parse(struct jstream *j)
{
    int c = next_ws(j);
    if (c < 0)
        js_fail(j, "truncated: the file ends where a value was due");
    int32_t n;
    switch (c) {
    case '"': {
        n = new_node(j, J_STR);
        uint32_t len;
        size_t off = read_string(j, &len);
        j->nodes[n].soff = (uint32_t)off;
        j->nodes[n].len = len;
        return n;
    }
    case '{':
    case '[': {
        if (++j->depth > MAX_DEPTH)
            js_fail(j, "nested more than %d deep", MAX_DEPTH);
        int obj = c == '{';
        n = new_node(j, obj ? J_OBJ : J_ARR);
        int32_t last = -1;
        if (peek_ws(j) == (obj ? '}' : ']')) {
            j->pos++;
            j->depth--;
            return n;
        }
        for (;;) {
            uint32_t koff = UINT32_MAX, klen = 0;
            if (obj) {
                expect_ws(j, '"');
                koff = (uint32_t)read_string(j, &klen);
                expect_ws(j, ':');
            }
            int32_t v = parse(j);
            j->nodes[v].koff = koff;
            j->nodes[v].klen = klen;
            if (last < 0)
                j->nodes[n].child = v;
            else
                j->nodes[last].next = v;
            last = v;
            j->nodes[n].len++;
            int d = next_ws(j);
            if (d == ',')
                continue;
            if (d == (obj ? '}' : ']'))
                break;
            if (d < 0)
                js_fail(j, "truncated: the file ends inside %s", obj ? "an object" : "an array");
            js_fail(j, "not JSON: '%s' inside %s", js_shown(d, (char[8]){ 0 }), obj ? "an object" : "an array");
        }
        j->depth--;
        return n;
    }
    case 't': literal(j, "rue"); return new_node(j, J_TRUE);
    case 'f': literal(j, "alse"); return new_node(j, J_FALSE);
    case 'n': literal(j, "ull"); return new_node(j, J_NULL);
    default:
        if (c == '-' || (c >= '0' && c <= '9')) {
            n = new_node(j, J_NUM);
            size_t off = j->nchars;
            char ch = (char)c;
            put_chars(j, &ch, 1);
            for (;;) { /* the run of number bytes in the buffer, then the next buffer's */
                const unsigned char *b = j->buf + j->pos, *e = j->buf + j->end, *q = b;
                while (q < e && ((*q >= '0' && *q <= '9') || *q == '.' || *q == 'e' || *q == 'E' || *q == '+' ||
                                 *q == '-'))
                    q++;
                if (q > b)
                    put_chars(j, b, (size_t)(q - b));
                j->pos += (size_t)(q - b);
                if (j->nchars - off > 64)
                    js_fail(j, "not JSON: a number of more than 64 characters");
                if (q < e || !refill(j))
                    break;
            }
            j->nodes[n].soff = (uint32_t)off;
            j->nodes[n].len = (uint32_t)(j->nchars - off);
            put_chars(j, "", 1);
            return n;
        }
        js_fail(j, "not JSON: '%s' where a value was due", js_shown(c, (char[8]){ 0 }));
    }
}

int32_t js_value(struct jstream *j, int keep)
{
    if (!keep)
        js_reset(j);
    size_t first = j->nnodes;
    j->depth = 0;
    int32_t root = parse(j);
    for (size_t i = first; i < j->nnodes; i++) { /* the arena has stopped moving */
        struct jnode *x = &j->nodes[i];
        x->s = x->soff != UINT32_MAX ? j->chars + x->soff : NULL;
        x->key = x->koff != UINT32_MAX ? j->chars + x->koff : NULL;
    }
    return root;
}

/* Skips the rest of an object or array whose opening bracket is read:
 * brackets counted, strings jumped over, nothing kept or checked beyond
 * that (the importer does not read what it skips). */
static void skip_rest(struct jstream *j)
{
    int depth = 1;
    for (;;) {
        if (j->pos == j->end && !refill(j))
            js_fail(j, "truncated: the file ends inside a value");
        const unsigned char *b = j->buf + j->pos, *e = j->buf + j->end;
        while (b < e && !ends_skip[*b])
            b++;
        j->pos = (size_t)(b - j->buf);
        if (b == e)
            continue;
        j->pos++;
        if (*b == '"') {
            for (;;) { /* to the closing quote; a backslash takes the next byte with it */
                if (j->pos == j->end && !refill(j))
                    js_fail(j, "truncated: the file ends inside a string");
                const unsigned char *q = j->buf + j->pos, *qe = j->buf + j->end;
                while (q < qe && !ends_string[*q])
                    q++;
                if (q == qe) {
                    j->pos = j->end;
                    continue;
                }
                j->pos = (size_t)(q - j->buf) + 1;
                if (*q == '"')
                    break;
                if (j->pos == j->end && !refill(j)) /* a backslash: the next byte goes with it */
                    js_fail(j, "truncated: the file ends inside a string");
                j->pos++;
            }
        } else if (*b == '{' || *b == '[') {
            if (++depth > MAX_DEPTH)
                js_fail(j, "nested more than %d deep", MAX_DEPTH);
        } else if (--depth == 0) {
            return;
        }
    }
}

int32_t js_object(struct jstream *j, int (*more)(void *ctx, struct jstream *j, int32_t member), void *ctx)
{
    js_reset(j);
    j->depth = 0;
    int c = next_ws(j);
    if (c != '{') { /* not an object: as a value */
        if (c >= 0)
            j->pos--;
        return js_value(j, 0);
    }
    int32_t n = new_node(j, J_OBJ), last = -1;
    const char *fixed_at = j->chars;
    int asking = 1;
    if (peek_ws(j) == '}') {
        j->pos++;
        return n;
    }
    for (;;) {
        uint32_t klen;
        expect_ws(j, '"');
        uint32_t koff = (uint32_t)read_string(j, &klen);
        expect_ws(j, ':');
        size_t first = j->nnodes;
        j->depth = 1;
        int32_t v = parse(j);
        j->nodes[v].koff = koff;
        j->nodes[v].klen = klen;
        if (last < 0)
            j->nodes[n].child = v;
        else
            j->nodes[last].next = v;
        last = v;
        j->nodes[n].len++;
        /* pointers for the caller's look: the new nodes', or all of them
         * if the text arena moved */
        for (size_t i = j->chars == fixed_at ? first : 0; i < j->nnodes; i++) {
            struct jnode *x = &j->nodes[i];
            x->s = x->soff != UINT32_MAX ? j->chars + x->soff : NULL;
            x->key = x->koff != UINT32_MAX ? j->chars + x->koff : NULL;
        }
        fixed_at = j->chars;
        int d = next_ws(j);
        if (d == '}')
            return n;
        if (d != ',')
            js_fail(j, d < 0 ? "truncated: the file ends inside an object%s" : "not JSON: '%s' inside an object",
                    d < 0 ? "" : js_shown(d, (char[8]){ 0 }));
        int m = asking ? more(ctx, j, v) : 1;
        if (m == 0) {
            skip_rest(j);
            return n;
        }
        asking = m < 0;
    }
}

void js_skip(struct jstream *j)
{
    size_t nodes = j->nnodes, chars = j->nchars;
    j->depth = 0;
    parse(j);
    j->nnodes = nodes;
    j->nchars = chars;
}
