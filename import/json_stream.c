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
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* Finding the byte that ends a string's run of text (quote, backslash;
 * the skipper has its own scan, skip_scan).  Two memchr calls lost to a table look per byte on the short strings of a
 * trace (most are keys); sixteen bytes compared at once (SSE2, which every
 * x86-64 has) beat both: a key's end is found by the first compare, and a
 * kernel's name is crossed sixteen bytes a step.  The
 * last bytes of the buffer are looked at one by one: nothing is read past
 * its end. */
static const unsigned char ends_string[256] = { ['"'] = 1, ['\\'] = 1 };
/* JSON's whitespace: Kineto writes each member on a line of its own,
 * indented, so a newline and spaces come before most keys */
static const unsigned char is_ws[256] = { [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1 };

/* The first byte of [p, e) that ends a string's run, or e. */
static inline const unsigned char *string_end(const unsigned char *p, const unsigned char *e)
{
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\');
    for (; e - p >= 16; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)));
        if (m)
            return p + __builtin_ctz(m);
    }
#endif
    while (p < e && !ends_string[*p])
        p++;
    return p;
}

#define BUF_SIZE (1u << 20)
#define MAX_NODES (1u << 20)
#define MAX_CHARS (64u << 20)
#define MAX_DEPTH 64

/* One gzread into slot s, with how it ended if it did. */
static void read_slot(gzFile gz, struct js_slot *s)
{
    s->n = gzread(gz, s->buf, BUF_SIZE);
    s->zerr = Z_OK;
    s->err_no = 0;
    s->msg[0] = 0;
    if (s->n <= 0) {
        s->err_no = errno;
        const char *msg = gzerror(gz, &s->zerr);
        snprintf(s->msg, sizeof s->msg, "%s", msg ? msg : "");
    }
}

/* The reader thread: fills the two slots in turn, each once the parser
 * has let go of it, until the input ends or fails or js_close says stop. */
static void *reader_main(void *arg)
{
    struct jstream *j = arg;
    for (int w = 0;; w ^= 1) {
        pthread_mutex_lock(&j->mu);
        while (j->slot[w].full && !j->stop)
            pthread_cond_wait(&j->freed, &j->mu);
        int stop = j->stop;
        pthread_mutex_unlock(&j->mu);
        if (stop)
            break;
        read_slot(j->gz, &j->slot[w]);
        pthread_mutex_lock(&j->mu);
        j->slot[w].full = 1;
        pthread_cond_signal(&j->filled);
        pthread_mutex_unlock(&j->mu);
        if (j->slot[w].n <= 0)
            break;
    }
    return NULL;
}

/* ---- a plain file, mapped a chunk at a time ----
 *
 * read() copies each byte from the page cache into the slot (a tenth of
 * the import's CPU, the kernel's copy); mapped, the parser reads the page
 * cache where it is.  A chunk at a time, so that the process's resident
 * memory stays bounded whatever the trace's size (the pages of one chunk),
 * and the chunk before is unmapped at the next refill: the parser holds no
 * pointer into a buffer across a refill (the slots' rule already).  gzip'd
 * files, pipes and the like go through zlib as before. */
#define MAP_CHUNK ((size_t)16 << 20)

/* A mapped file that shrinks while it is read (another process truncates
 * it) faults with SIGBUS where the pages are gone: the parse fails with
 * an error, as for a file cut short, instead of the process dying.  The
 * stream being parsed on this thread, for the handler; the fault is ours
 * only inside its chunk. */
static _Thread_local struct jstream *mapped_here;
static struct sigaction bus_before;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_bus(int sig, siginfo_t *si, void *uc)
{
    struct jstream *j = mapped_here;
    const unsigned char *a = si ? si->si_addr : NULL;
    if (j && j->map && a >= j->map && a < j->map + j->map_len && j->on_error) {
        /* no stdio here: the message copied byte by byte */
        static const char msg[] = "cannot read: the file shrank while it was read (truncated by another process?)";
        size_t i = 0;
        for (; msg[i] && i + 1 < sizeof j->err; i++)
            j->err[i] = msg[i];
        j->err[i] = 0;
        mapped_here = NULL;
        longjmp(*j->on_error, 1); /* SA_NODEFER: SIGBUS is not left blocked */
    }
    /* not ours: as it would have been without us */
    if (bus_before.sa_flags & SA_SIGINFO) {
        if (bus_before.sa_sigaction) {
            bus_before.sa_sigaction(sig, si, uc);
            return;
        }
    } else if (bus_before.sa_handler != SIG_DFL && bus_before.sa_handler != SIG_IGN) {
        bus_before.sa_handler(sig);
        return;
    }
    /* SIGBUS's own end (SA_NODEFER: delivered at once), for a fault and
     * for one sent by kill() alike */
    signal(SIGBUS, SIG_DFL);
    raise(sig);
}

static void bus_install(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_bus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &bus_before);
}

/* fd open on a regular file that is not gzip'd: read it mapped. */
static int map_open(struct jstream *j, int fd, const struct stat *st)
{
    unsigned char magic[2];
    if (!S_ISREG(st->st_mode) || st->st_size <= 0 || pread(fd, magic, 2, 0) != 2 ||
        (magic[0] == 0x1f && magic[1] == 0x8b))
        return -1;
    pthread_once(&bus_once, bus_install);
    j->fd = fd;
    j->size = (uint64_t)st->st_size;
    posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
    return 0;
}

/* The next chunk as the buffer (the one before unmapped); 0 at the end.
 * MAP_POPULATE: its page tables filled in one call, where faults a few
 * pages at a time cost the parser more than the copy saved (past the
 * file's end, if it shrank, nothing is filled and no fault is taken here:
 * the parser's access takes it).  Not mapped ahead on a thread: the parse
 * is what the clock waits for, and the same wall time was measured with
 * and without one. */
static int map_next(struct jstream *j)
{
    if (j->map) {
        munmap(j->map, j->map_len);
        j->map = NULL;
        j->map_len = 0;
    }
    mapped_here = j;
    if (j->map_off >= j->size)
        return 0;
    size_t len = j->size - j->map_off < MAP_CHUNK ? (size_t)(j->size - j->map_off) : MAP_CHUNK;
    void *m = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, j->fd, (off_t)j->map_off);
    if (m == MAP_FAILED)
        js_fail(j, "cannot read: %s", strerror(errno));
    madvise(m, len, MADV_SEQUENTIAL);
    j->map = j->buf = m;
    j->map_len = len;
    j->map_off += len;
    return (int)len;
}

int js_open(struct jstream *j, const char *path)
{
    memset(j, 0, sizeof *j);
    j->fd = -1;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(j->err, sizeof j->err, "cannot open: %s", strerror(errno));
        return -1;
    }
    struct stat st;
    if (fstat(fd, &st) == 0 && map_open(j, fd, &st) == 0)
        return 0;
    /* zlib reads from the descriptor already open: the file checked is the one read */
    j->gz = gzdopen(fd, "rb");
    if (!j->gz) {
        snprintf(j->err, sizeof j->err, "cannot open: %s", errno ? strerror(errno) : "out of memory");
        close(fd);
        return -1;
    }
    gzbuffer(j->gz, 1u << 18);
    j->slot[0].buf = malloc(BUF_SIZE);
    j->slot[1].buf = malloc(BUF_SIZE);
    if (!j->slot[0].buf || !j->slot[1].buf) {
        snprintf(j->err, sizeof j->err, "out of memory");
        free(j->slot[0].buf);
        free(j->slot[1].buf);
        gzclose(j->gz);
        j->gz = NULL;
        return -1;
    }
    j->buf = j->slot[0].buf;
    j->cur = -1;
    pthread_mutex_init(&j->mu, NULL);
    pthread_cond_init(&j->filled, NULL);
    pthread_cond_init(&j->freed, NULL);
    j->threaded = pthread_create(&j->reader, NULL, reader_main, j) == 0;
    return 0;
}

void js_close(struct jstream *j)
{
    if (j->threaded) {
        pthread_mutex_lock(&j->mu);
        j->stop = 1;
        pthread_cond_signal(&j->freed);
        pthread_mutex_unlock(&j->mu);
        pthread_join(j->reader, NULL); /* at most one gzread of a megabyte to finish */
    }
    if (j->fd >= 0) {
        if (mapped_here == j)
            mapped_here = NULL;
        if (j->map)
            munmap(j->map, j->map_len);
        close(j->fd);
    }
    if (j->gz) {
        pthread_mutex_destroy(&j->mu);
        pthread_cond_destroy(&j->filled);
        pthread_cond_destroy(&j->freed);
        gzclose(j->gz);
    }
    free(j->slot[0].buf);
    free(j->slot[1].buf);
    free(j->nodes);
    free(j->chars);
    memset(j, 0, sizeof *j);
    j->fd = -1;
}

/* The next slot's bytes as the buffer, the one parsed until now handed
 * back to the reader; without the thread, read here. */
static struct js_slot *next_slot(struct jstream *j)
{
    if (!j->threaded) {
        read_slot(j->gz, &j->slot[0]);
        j->buf = j->slot[0].buf;
        return &j->slot[0];
    }
    if (j->cur >= 0 && j->slot[j->cur].n <= 0)
        return &j->slot[j->cur]; /* the input ended there: the reader has stopped, and says so again */
    pthread_mutex_lock(&j->mu);
    if (j->cur >= 0) {
        j->slot[j->cur].full = 0;
        pthread_cond_signal(&j->freed);
    }
    while (!j->slot[j->next].full)
        pthread_cond_wait(&j->filled, &j->mu);
    pthread_mutex_unlock(&j->mu);
    j->cur = j->next;
    j->next ^= 1;
    j->buf = j->slot[j->cur].buf;
    return &j->slot[j->cur];
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
    if (j->fd >= 0) {
        int n = map_next(j);
        if (n == 0) {
            j->eof = 1;
            return 0;
        }
        j->end = (size_t)n;
        return 1;
    }
    const struct js_slot *s = next_slot(j);
    int n = s->n;
    if (n < 0)
        js_fail(j, "cannot read: %s", s->zerr == Z_ERRNO ? strerror(s->err_no) : s->msg);
    if (n == 0) {
        int e = s->zerr;
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
    /* the common case first: the byte is there, after whitespace if any */
    size_t p = j->pos;
    while (p < j->end && is_ws[j->buf[p]])
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
    while (p < j->end && is_ws[j->buf[p]]) /* ", " and ": ", or a newline and an indent */
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
        /* the text moved: the nodes' pointers follow (rare: the arena keeps
         * its size from one value to the next, so once per larger value) */
        for (size_t i = 0; i < j->nnodes; i++) {
            struct jnode *x = &j->nodes[i];
            x->s = x->soff != UINT32_MAX ? g + x->soff : NULL;
            x->key = x->koff != UINT32_MAX ? g + x->koff : NULL;
        }
    }
}

/* A node's text and its key, by offset and pointer: the pointer is right
 * from here on, grow_chars moving it with the arena; no pass over the
 * nodes once a value or a member is read. */
static inline void set_s(struct jstream *j, int32_t n, size_t off, uint32_t len)
{
    j->nodes[n].soff = (uint32_t)off;
    j->nodes[n].s = j->chars + off;
    j->nodes[n].len = len;
}

static inline void set_key(struct jstream *j, int32_t n, uint32_t koff, uint32_t klen)
{
    j->nodes[n].koff = koff;
    j->nodes[n].key = koff != UINT32_MAX ? j->chars + koff : NULL;
    j->nodes[n].klen = klen;
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
        const unsigned char *b = j->buf + j->pos, *e = j->buf + j->end, *q = string_end(b, e);
#ifdef __SSE2__
        /* a short run (a key, most strings) as the sixteen bytes it was
         * found in, when they and the arena's room are there: no memcpy call */
        if (q - b <= 16 && e - b >= 16 && j->chars_cap - j->nchars >= 17) {
            _mm_storeu_si128((__m128i *)(j->chars + j->nchars), _mm_loadu_si128((const __m128i *)b));
            j->nchars += (size_t)(q - b);
        } else
#endif
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
        set_s(j, n, off, len);
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
            set_key(j, v, koff, klen);
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
            uint32_t len = (uint32_t)(j->nchars - off);
            put_chars(j, "", 1);
            set_s(j, n, off, len);
            return n;
        }
        js_fail(j, "not JSON: '%s' where a value was due", js_shown(c, (char[8]){ 0 }));
    }
}

int32_t js_value(struct jstream *j, int keep)
{
    if (!keep)
        js_reset(j);
    j->depth = 0;
    return parse(j);
}

/* Where the skipper is inside the value it skips, carried from one
 * buffer to the next: its depth of brackets, and whether it is inside a
 * string, right after a backslash there. */
struct skip_state {
    int depth, in_str, escaped;
};

/* Scans [*pp, e) for the end of the value being skipped: 1 with *pp just
 * past its closing bracket; 0 at e, the state kept for the next buffer;
 * -1 nested past MAX_DEPTH, *pp just past that bracket.  Brackets are
 * counted outside strings, a string ends at its quote, a backslash in it
 * takes the next byte with it; nothing else is checked (the importer does
 * not read what it skips).  Sixteen bytes are classified at once and only
 * the bytes that matter (quotes, backslashes, brackets) are looked at one
 * by one, from the mask: a skipped CPU operator's args (many short
 * strings) cost one compare per sixteen bytes, not two scans a string. */
static int skip_scan(struct skip_state *s, const unsigned char **pp, const unsigned char *e)
{
    const unsigned char *p = *pp;
#ifdef __SSE2__
    /* '[' and ']' are '{' and '}' with bit 5 clear: one compare each, bit 5 set */
    const __m128i quote = _mm_set1_epi8('"'), bslash = _mm_set1_epi8('\\'), open = _mm_set1_epi8('{'),
                  close = _mm_set1_epi8('}'), bit5 = _mm_set1_epi8(0x20);
    for (; e - p >= 16; p += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)p), y = _mm_or_si128(x, bit5);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(x, quote), _mm_cmpeq_epi8(x, bslash)),
                                                              _mm_or_si128(_mm_cmpeq_epi8(y, open), _mm_cmpeq_epi8(y, close))));
        if (s->escaped) { /* the byte after a backslash that ended the last sixteen */
            m &= ~1u;
            s->escaped = 0;
        }
        while (m) {
            unsigned i = (unsigned)__builtin_ctz(m);
            m &= m - 1;
            unsigned char c = p[i];
            if (s->in_str) {
                if (c == '"')
                    s->in_str = 0;
                else if (c == '\\' && i == 15)
                    s->escaped = 1;
                else if (c == '\\')
                    m &= ~(1u << (i + 1));
            } else if (c == '"') {
                s->in_str = 1;
            } else if (c == '{' || c == '[') {
                if (++s->depth > MAX_DEPTH) {
                    *pp = p + i + 1;
                    return -1;
                }
            } else if (c == '}' || c == ']') {
                if (--s->depth == 0) {
                    *pp = p + i + 1;
                    return 1;
                }
            }
        }
    }
#endif
    for (; p < e; p++) {
        unsigned char c = *p;
        if (s->escaped)
            s->escaped = 0;
        else if (s->in_str)
            s->in_str = c != '"', s->escaped = c == '\\';
        else if (c == '"')
            s->in_str = 1;
        else if ((c == '{' || c == '[') && ++s->depth > MAX_DEPTH) {
            *pp = p + 1;
            return -1;
        } else if ((c == '}' || c == ']') && --s->depth == 0) {
            *pp = p + 1;
            return 1;
        }
    }
    *pp = e;
    return 0;
}

/* Skips the rest of an object or array whose opening bracket is read,
 * across buffers. */
static void skip_rest(struct jstream *j)
{
    struct skip_state s = { .depth = 1 };
    for (;;) {
        if (j->pos == j->end && !refill(j))
            js_fail(j, s.in_str ? "truncated: the file ends inside a string" : "truncated: the file ends inside a value");
        const unsigned char *b = j->buf + j->pos;
        int r = skip_scan(&s, &b, j->buf + j->end);
        j->pos = (size_t)(b - j->buf);
        if (r > 0)
            return;
        if (r < 0)
            js_fail(j, "nested more than %d deep", MAX_DEPTH);
    }
}

/* skip_rest, if the rest of the value lies in the buffer: 1 and skipped,
 * else 0 and nothing consumed (nor where it is nested past the limit):
 * the caller then reads on, and where the file ends or goes wrong inside
 * the value says so as it would have said without the skip. */
static int skip_rest_here(struct jstream *j)
{
    struct skip_state s = { .depth = 1 };
    const unsigned char *b = j->buf + j->pos;
    if (skip_scan(&s, &b, j->buf + j->end) <= 0)
        return 0;
    j->pos = (size_t)(b - j->buf);
    return 1;
}

int32_t js_object(struct jstream *j, int (*more)(void *ctx, struct jstream *j, int32_t member), void *ctx)
{
    js_reset(j);
    j->depth = 0;
    j->skipped_here = 0;
    int c = next_ws(j);
    if (c != '{') { /* not an object: as a value */
        if (c >= 0)
            j->pos--;
        return js_value(j, 0);
    }
    int32_t n = new_node(j, J_OBJ), last = -1;
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
        j->depth = 1;
        int32_t v = parse(j);
        set_key(j, v, koff, klen);
        if (last < 0)
            j->nodes[n].child = v;
        else
            j->nodes[last].next = v;
        last = v;
        j->nodes[n].len++;
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
        if (m == 2) {
            if ((j->skipped_here = skip_rest_here(j)))
                return n;
            m = -1;
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
