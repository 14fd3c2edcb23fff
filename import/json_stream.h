/* json_stream.h: a streaming JSON reader for traces too big to hold.
 *
 * The file (plain or gzip: zlib reads both) is read a megabyte at a time;
 * the caller walks the outer structure token by token and has one value
 * at a time (one trace event) parsed into a small tree, kept in an arena
 * that is reset for the next: memory stays bounded by the largest single
 * value, not the file.  Errors (a truncated file, bad syntax, a value
 * past the limits) jump back to the caller's js_try point with a one-line
 * reason and the byte offset.
 */
#ifndef GPUTRACE_JSON_STREAM_H
#define GPUTRACE_JSON_STREAM_H

#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

enum jtype { J_NULL, J_FALSE, J_TRUE, J_NUM, J_STR, J_ARR, J_OBJ };

/* A node of a parsed value: strings unescaped (NUL-terminated), numbers
 * as their text; children of arrays and objects linked by index. */
struct jnode {
    uint8_t type;
    uint32_t len;          /* bytes of s */
    const char *s;         /* J_STR: the text; J_NUM: the number's text */
    const char *key;       /* as a member of an object: its name, else NULL */
    int32_t child, next;   /* first child, next sibling; -1 for none */
    uint32_t soff, koff;   /* where s and key are in the arena while parsing (it may move) */
    uint32_t klen;         /* bytes of key */
};

/* A buffer the reader thread fills (json_stream.c): what gzread gave, and
 * how the input ended if it did. */
struct js_slot {
    unsigned char *buf;
    int n;            /* gzread's: bytes, 0 at the end, -1 failed */
    int zerr, err_no; /* gzerror's code where n <= 0, and errno for Z_ERRNO */
    char msg[128];    /* gzerror's message where n < 0 */
    int full;
};

struct jstream {
    gzFile gz;
    unsigned char *buf;    /* the bytes being parsed: a slot's buffer */
    size_t pos, end;
    uint64_t consumed;     /* bytes before buf[0] */
    int eof;
    jmp_buf *on_error;
    char err[256];
    /* the arena of the value being parsed */
    struct jnode *nodes;
    size_t nnodes, nodes_cap;
    char *chars;
    size_t nchars, chars_cap;
    int depth;
    int skipped_here;      /* js_object skipped the rest of its object on more()'s 2 */
    /* The input is read (and inflated) a megabyte ahead on a thread of its
     * own while the parser works on the megabyte before, so that the
     * parse never waits for zlib or the disk; without the thread (it could
     * not start) refill reads in turn. */
    struct js_slot slot[2];
    int threaded, cur, next;   /* the slot being parsed (-1: none yet), the one to take next */
    /* A plain file is mapped instead, a chunk at a time (fd >= 0 then, gz
     * NULL): the parser reads the page cache itself, no copy made */
    int fd;
    uint64_t size, map_off;    /* the file's size; where the next chunk starts */
    unsigned char *map;        /* the chunk mapped now (buf), NULL before the first */
    size_t map_len;
    int stop;                  /* js_close: the reader ends (guarded by mu) */
    pthread_t reader;
    pthread_mutex_t mu;
    pthread_cond_t filled, freed;
};

/* 0, or -1 with err set (cannot open). */
int js_open(struct jstream *j, const char *path);
void js_close(struct jstream *j);

/* Skips a UTF-8 byte order mark at the start of the input, if there is one
 * (JSON may not hold one, but editors on Windows write it). */
void js_skip_bom(struct jstream *j);
/* The next non-space byte, consumed (js_peek: not consumed); -1 at the end. */
int js_next(struct jstream *j);
int js_peek(struct jstream *j);
/* Consumes the byte c (after spaces), or fails. */
void js_expect(struct jstream *j, int c);
/* Reads a string (the opening quote already consumed) into the arena. */
const char *js_string(struct jstream *j, uint32_t *len);
/* Parses the next value into the arena (reset first unless keep): its root. */
int32_t js_value(struct jstream *j, int keep);
/* Parses the next value, an object as an event is, member by member:
 * after each member (but the last) more(), given that member, says whether the rest is
 * wanted: 0 no (the rest of the object is then skipped unparsed, brackets
 * and strings only: it is not checked), 1 yes (it is not asked again),
 * -1 not known yet, 2 no if the rest lies in the buffer (skipped as for
 * 0), else as -1 (read on: where the file ends inside it, the error is
 * where the parse finds it, not the skipper).  The root; a value that is no
 * object is parsed as js_value does. */
int32_t js_object(struct jstream *j, int (*more)(void *ctx, struct jstream *j, int32_t member), void *ctx);
/* Skips the next value without keeping it. */
void js_skip(struct jstream *j);
/* Resets the arena. */
void js_reset(struct jstream *j);
/* Fails with a message (printf-like), jumping to on_error. */
void js_fail(struct jstream *j, const char *fmt, ...) __attribute__((noreturn, format(printf, 2, 3)));
uint64_t js_offset(const struct jstream *j);
/* A byte as an error message shows it: itself if printable ASCII, else \xNN. */
const char *js_shown(int c, char buf[8]);

/* Tree helpers. */
static inline const struct jnode *js_node(const struct jstream *j, int32_t i)
{
    return i >= 0 ? &j->nodes[i] : NULL;
}
const struct jnode *js_get_n(const struct jstream *j, const struct jnode *obj, const char *key, size_t len);
/* The member key of obj, or NULL (inline: a literal key's length is known) */
static inline const struct jnode *js_get(const struct jstream *j, const struct jnode *obj, const char *key)
{
    return js_get_n(j, obj, key, __builtin_strlen(key));
}
/* A number member as int64 (0 and *ok = 0 if absent or not a number);
 * strings holding a number count too. */
int64_t js_int(const struct jstream *j, const struct jnode *obj, const char *key, int *ok);
/* A string member, or NULL. */
const char *js_str(const struct jstream *j, const struct jnode *obj, const char *key);
/* A time in microseconds (integer or decimal) as nanoseconds, exactly. */
int js_us_to_ns(const struct jnode *n, int64_t *ns);

#endif
