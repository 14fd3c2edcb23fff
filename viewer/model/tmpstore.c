/* tmpstore.c: the report's scratch file, or memory (tmpstore.h). */
#define _GNU_SOURCE
#include "viewer/model/tmpstore.h"
#include "viewer/model/model.h"
#include "viewer/model/tmpfiles.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void tmpstore_open(struct tmpstore *t)
{
    memset(t, 0, sizeof *t);
    /* no name ever, or none for longer than two system calls: mode 0600,
     * never opened through a link another user planted, and nothing left
     * in $TMPDIR however the report ends (tmpfiles.h) */
    t->fd = tmpfiles_scratch();
}

static void read_file(int fd, uint64_t at, void *buf, size_t len)
{
    for (char *b = buf; len;) {
        ssize_t r = pread(fd, b, len, (off_t)at);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "gputrace-report: cannot read its temporary file: %s\n", r < 0 ? strerror(errno) : "cut short");
            exit(1);
        }
        b += r;
        len -= (size_t)r;
        at += (uint64_t)r;
    }
}

static int write_file(int fd, uint64_t at, const void *buf, size_t len)
{
    for (const char *b = buf; len;) {
        ssize_t w = pwrite(fd, b, len, (off_t)at);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        b += w;
        len -= (size_t)w;
        at += (uint64_t)w;
    }
    return 0;
}

static void mem_room(struct tmpstore *t, size_t more)
{
    if (t->len + more <= t->cap)
        return;
    uint64_t cap = t->cap ? t->cap : 1 << 16;
    while (cap < t->len + more)
        cap *= 2;
    char *m = realloc(t->mem, cap);
    if (!m)
        model_out_of_memory();
    t->mem = m;
    t->cap = cap;
}

uint64_t tmpstore_append(struct tmpstore *t, const void *data, size_t len)
{
    uint64_t at = t->len;
    if (!len) /* nothing (data may be NULL) */
        return at;
    if (t->fd >= 0 && write_file(t->fd, at, data, len) != 0) {
        /* the file cannot take more (a full disk): what it holds comes
         * back to memory, and the rest stays there */
        mem_room(t, 0);
        if (t->len)
            read_file(t->fd, 0, t->mem, t->len);
        close(t->fd);
        t->fd = -1;
    }
    if (t->fd < 0) {
        mem_room(t, len);
        memcpy(t->mem + at, data, len);
    }
    t->len += len;
    return at;
}

void tmpstore_read(const struct tmpstore *t, uint64_t at, void *buf, size_t len)
{
    if (!len)
        return;
    if (t->fd >= 0)
        read_file(t->fd, at, buf, len);
    else
        memcpy(buf, t->mem + at, len);
}

void tmpstore_close(struct tmpstore *t)
{
    if (t->fd >= 0)
        close(t->fd);
    free(t->mem);
    memset(t, 0, sizeof *t);
    t->fd = -1;
}
