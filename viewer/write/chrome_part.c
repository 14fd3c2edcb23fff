/* chrome_part.c: a process's part of the Chrome trace, written apart and
 * joined in process order (chrome_part.h).
 *
 * A part is a writer of its own over a scratch stream: its events all
 * start with the separator (the trace's first event loses it when joined),
 * it counts its own moved tracks, and the trace takes them over
 * when the part is joined.  The stream (fopencookie) writes to a file
 * without a name in $TMPDIR (else /tmp; tmpfiles_scratch: mode 0600,
 * never a name another user could plant a link at, gone however the
 * report ends), so that memory stays a writer's buffer per worker,
 * whatever the process's size.  Where no such file can be made (TMPDIR not
 * writable), or once the file cannot take more (TMPDIR full), the part is
 * kept in memory instead, what the file held read back first: the trace
 * of several workers is then still the one worker's, byte for byte, as
 * the one worker's needs no scratch at all (it once failed with a stale
 * errno, "File exists", and left a trace cut short).  The stream keeps its
 * first error, which is what the join reports. */
#define _GNU_SOURCE
#include "viewer/write/chrome_part.h"
#include "viewer/write/chrome_writer.h"
#include "viewer/model/tmpfiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A part's bytes: in the file while fd >= 0, else in mem. */
struct scratch {
    int fd;
    char *mem;
    size_t len, cap, pos; /* bytes written, mem's size, the stream's position */
    int err;              /* the first error: the stream failed */
};

struct part {
    struct writer w; /* first: a part is handed around as the writer (chrome_trace) */
    struct scratch sc;
};

static int mem_room(struct scratch *s, size_t need)
{
    if (need <= s->cap)
        return 0;
    size_t c = s->cap ? s->cap : 1 << 16;
    while (c < need)
        c *= 2;
    char *m = realloc(s->mem, c);
    if (!m) {
        errno = ENOMEM;
        return -1;
    }
    s->mem = m;
    s->cap = c;
    return 0;
}

/* The file cannot take more: what it holds comes back to memory. */
static int to_memory(struct scratch *s)
{
    if (mem_room(s, s->len + 1) != 0)
        return -1;
    for (size_t got = 0; got < s->len;) {
        ssize_t r = pread(s->fd, s->mem + got, s->len - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            if (r == 0)
                errno = EIO;
            return -1;
        }
        got += (size_t)r;
    }
    close(s->fd);
    s->fd = -1;
    return 0;
}

static int file_write(int fd, const char *buf, size_t len, size_t at)
{
    while (len) {
        ssize_t w = pwrite(fd, buf, len, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        buf += w;
        len -= (size_t)w;
        at += (size_t)w;
    }
    return 0;
}

static ssize_t scratch_write(void *cookie, const char *buf, size_t len)
{
    struct scratch *s = cookie;
    if (!s->err && s->fd >= 0 && file_write(s->fd, buf, len, s->pos) != 0 && to_memory(s) != 0)
        s->err = errno;
    if (!s->err && s->fd < 0) {
        if (mem_room(s, s->pos + len) != 0) {
            s->err = errno;
        } else {
            if (s->pos > s->len) /* (never: parts are written from start to end) */
                memset(s->mem + s->len, 0, s->pos - s->len);
            memcpy(s->mem + s->pos, buf, len);
        }
    }
    if (s->err) {
        errno = s->err;
        return -1;
    }
    s->pos += len;
    if (s->pos > s->len)
        s->len = s->pos;
    return (ssize_t)len;
}

static ssize_t scratch_read(void *cookie, char *buf, size_t len)
{
    struct scratch *s = cookie;
    if (s->pos >= s->len)
        return 0;
    if (len > s->len - s->pos)
        len = s->len - s->pos;
    if (s->fd < 0) {
        memcpy(buf, s->mem + s->pos, len);
    } else {
        ssize_t r;
        while ((r = pread(s->fd, buf, len, (off_t)s->pos)) < 0 && errno == EINTR)
            ;
        if (r <= 0) {
            if (!s->err)
                s->err = r < 0 ? errno : EIO;
            errno = s->err;
            return -1;
        }
        len = (size_t)r;
    }
    s->pos += len;
    return (ssize_t)len;
}

static int scratch_seek(void *cookie, off64_t *at, int whence)
{
    struct scratch *s = cookie;
    off64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? (off64_t)s->pos : (off64_t)s->len;
    if (base + *at < 0) {
        errno = EINVAL;
        return -1;
    }
    s->pos = (size_t)(base + *at);
    *at = (off64_t)s->pos;
    return 0;
}

static int scratch_close(void *cookie)
{
    struct scratch *s = cookie;
    if (s->fd >= 0)
        close(s->fd);
    s->fd = -1;
    free(s->mem);
    s->mem = NULL;
    return 0;
}

static FILE *scratch_open(struct scratch *s, char *buf, size_t len)
{
    s->fd = tmpfiles_scratch(); /* -1: in memory from the start */
    cookie_io_functions_t io = { scratch_read, scratch_write, scratch_seek, scratch_close };
    FILE *f = fopencookie(s, "w+", io);
    if (!f) {
        int e = errno;
        scratch_close(s);
        errno = e;
        return NULL;
    }
    setvbuf(f, buf, _IOFBF, len);
    __fsetlocking(f, FSETLOCKING_BYCALLER); /* one thread writes it, then one reads it */
    return f;
}

/* Why a part failed: its stream's first error. */
static int part_errno(const struct part *p)
{
    return p->sc.err ? p->sc.err : EIO;
}

struct chrome_trace *chrome_trace_part(const struct chrome_trace *whole, const struct model *m)
{
    const struct writer *o = (const struct writer *)whole;
    struct part *p = calloc(1, sizeof *p);
    if (!p)
        model_out_of_memory();
    struct writer *w = &p->w;
    if (!(w->out = scratch_open(&p->sc, w->buf, sizeof w->buf))) {
        int e = errno;
        free(p);
        errno = e;
        return NULL;
    }
    w->events = 1; /* every event of a part follows another */
    w->nprocs = m->nprocs;
    w->rank_width = o->rank_width;
    return (struct chrome_trace *)w;
}

void chrome_trace_part_free(struct chrome_trace *part)
{
    struct part *p = (struct part *)part;
    if (!p)
        return;
    fclose(p->w.out);
    free(p->w.moves);
    free(p);
}

void chrome_trace_join(struct chrome_trace *whole, struct chrome_trace *part, int err)
{
    struct writer *w = (struct writer *)whole, *q = (struct writer *)part;
    if (!q) {
        if (!w->part_failed)
            w->part_failed = err ? err : EIO;
        return;
    }
    const struct part *p = (const struct part *)part;
    long events = q->events - 1;
    int failed = ferror(q->out) || fflush(q->out) != 0 ? part_errno(p) : 0;
    if (!failed && events > 0) {
        if (fseek(q->out, w->events ? 0 : 1, SEEK_SET) != 0) /* the trace's first event: no separator */
            failed = part_errno(p);
        char buf[1 << 16];
        size_t n;
        while (!failed && (n = fread(buf, 1, sizeof buf, q->out)) > 0)
            fwrite(buf, 1, n, w->out);
        if (!failed && ferror(q->out))
            failed = part_errno(p);
    }
    if (failed && !w->part_failed)
        w->part_failed = failed;
    w->events += events > 0 ? events : 0;
    if (w->progress && events > 0)
        fprintf(stderr, "\rgputrace-report: %ld trace events", w->events);
    for (int k = 0; k < q->nmoves; k++) {
        if (w->nmoves == w->moves_cap) {
            w->moves_cap = w->moves_cap ? 2 * w->moves_cap : 16;
            if (!(w->moves = realloc(w->moves, (size_t)w->moves_cap * sizeof *w->moves)))
                model_out_of_memory();
        }
        w->moves[w->nmoves++] = q->moves[k];
    }
    chrome_trace_part_free(part);
}
