/* chrome_part.c: a process's part of the Chrome trace, written apart and
 * joined in process order (chrome_part.h).
 *
 * A part is a writer of its own over an unlinked scratch file in $TMPDIR
 * (else /tmp): its events all start with the separator (the trace's first
 * event loses it when joined), it counts its own slices and moved tracks,
 * and the trace takes them over when the part is joined.  Memory stays a
 * writer's buffer per worker, whatever the process's size; where no
 * scratch file can be made (TMPDIR not writable), the part is kept in
 * memory instead, as the one worker's trace needs no scratch file. */
#define _GNU_SOURCE
#include "viewer/write/chrome_part.h"
#include "viewer/write/chrome_writer.h"

#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static FILE *scratch_file(char *buf, size_t len)
{
    const char *dir = getenv("TMPDIR");
    char path[4096];
    if (!dir || !*dir)
        dir = "/tmp";
    if (snprintf(path, sizeof path, "%s/gputrace-trace-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return NULL;
    }
    int fd = mkstemp(path);
    if (fd < 0)
        return NULL;
    unlink(path); /* gone when closed, however the report ends */
    FILE *f = fdopen(fd, "w+");
    if (!f) {
        int e = errno;
        close(fd);
        errno = e;
        return NULL;
    }
    setvbuf(f, buf, _IOFBF, len);
    __fsetlocking(f, FSETLOCKING_BYCALLER); /* one thread writes it, then one reads it */
    return f;
}

struct chrome_trace *chrome_trace_part(const struct chrome_trace *whole, const struct model *m)
{
    const struct writer *o = (const struct writer *)whole;
    struct writer *w = calloc(1, sizeof *w);
    if (!w)
        model_out_of_memory();
    if (!(w->out = scratch_file(w->buf, sizeof w->buf)) && (w->out = open_memstream(&w->mem, &w->memlen)))
        __fsetlocking(w->out, FSETLOCKING_BYCALLER);
    if (!w->out) {
        int e = errno;
        free(w);
        errno = e;
        return NULL;
    }
    w->events = 1; /* every event of a part follows another */
    w->nprocs = m->nprocs;
    w->rank_width = o->rank_width;
    if (!(w->slices = calloc(m->nprocs + 1, sizeof *w->slices)))
        model_out_of_memory();
    return (struct chrome_trace *)w;
}

void chrome_trace_part_free(struct chrome_trace *part)
{
    struct writer *q = (struct writer *)part;
    if (!q)
        return;
    fclose(q->out);
    free(q->mem);
    free(q->slices);
    free(q->moves);
    free(q);
}

void chrome_trace_join(struct chrome_trace *whole, struct chrome_trace *part, int err)
{
    struct writer *w = (struct writer *)whole, *q = (struct writer *)part;
    if (!q) {
        if (!w->part_failed)
            w->part_failed = err ? err : EIO;
        return;
    }
    long events = q->events - 1;
    int failed = ferror(q->out) || fflush(q->out) != 0 ? (errno ? errno : EIO) : 0;
    if (!failed && events > 0 && q->mem) { /* fflush made mem and memlen what was written */
        size_t skip = w->events ? 0 : 1; /* the trace's first event: no separator */
        if (q->memlen > skip)
            fwrite(q->mem + skip, 1, q->memlen - skip, w->out);
    } else if (!failed && events > 0) {
        if (fseek(q->out, w->events ? 0 : 1, SEEK_SET) != 0) /* the trace's first event: no separator */
            failed = errno;
        char buf[1 << 16];
        size_t n;
        while (!failed && (n = fread(buf, 1, sizeof buf, q->out)) > 0)
            fwrite(buf, 1, n, w->out);
        if (!failed && ferror(q->out))
            failed = errno ? errno : EIO;
    }
    if (failed && !w->part_failed)
        w->part_failed = failed;
    w->events += events > 0 ? events : 0;
    if (w->progress && events > 0)
        fprintf(stderr, "\rgputrace-report: %ld trace events", w->events);
    for (size_t i = 0; i < w->nprocs && i < q->nprocs; i++)
        w->slices[i] += q->slices[i];
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
