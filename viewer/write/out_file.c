/* out_file.c: the report's outputs, complete or absent (out_file.h).
 *
 * With $TMPDIR full and two workers, --chrome-trace once left a truncated
 * trace, invalid JSON, where the user's file had been, and said "File
 * exists" (a stale errno) for the reason.  Each output is now a stream of
 * its own kind (fopencookie) over a temporary file beside it: the writers
 * (chrome_trace.c, kineto_export.c, html_report.c) write and fclose it as
 * any stream, the first failed write is kept and is what fclose reports,
 * and the report renames the file into place only once it knows the whole
 * output was written (report_main.c).
 *
 * Outputs are opened by the workers too (a Kineto trace per process): the
 * table of outputs takes a lock.  An entry is never freed: the stream's
 * close may come after the report discarded it (an error path), and there
 * are a few, or one per process. */
#define _GNU_SOURCE
#include "viewer/write/out_file.h"
#include "viewer/model/tmpfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

struct out_entry {
    char *path;   /* as the report names it (the key) */
    char *target; /* where it goes: path, or the file a link of that name leads to */
    char *tmp;    /* the temporary file beside target; NULL: written in place */
    dev_t dev;    /* tmp's identity, to rename or remove only what we made */
    ino_t ino;
    int fd, err; /* err: the first error of a write or of the close */
    int closed;  /* fclose ran (atomic: a worker may close it) */
    int h;       /* tmp's handle in the registry (tmpfiles.h) */
    int done;    /* committed or discarded (under lock) */
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards outs, nouts, cap and each done */
static struct out_entry **outs;
static size_t nouts, cap;

static ssize_t out_write(void *cookie, const char *buf, size_t len)
{
    struct out_entry *e = cookie;
    for (size_t done = 0; done < len;) {
        if (e->err) { /* a file that lost bytes is discarded: no use writing on */
            errno = e->err;
            return -1;
        }
        ssize_t w = write(e->fd, buf + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            e->err = w < 0 ? errno : EIO;
        else
            done += (size_t)w;
    }
    return (ssize_t)len;
}

static int out_close(void *cookie)
{
    struct out_entry *e = cookie;
    /* the mode of a new file, now that it is whole (made 0600); a file
     * system that keeps no modes may refuse, which costs nothing else */
    if (e->tmp)
        (void)fchmod(e->fd, tmpfiles_new_file_mode());
    if (close(e->fd) != 0 && !e->err) /* a network file system says it here */
        e->err = errno;
    e->fd = -1;
    __atomic_store_n(&e->closed, 1, __ATOMIC_RELEASE);
    if (e->err) {
        errno = e->err;
        return -1;
    }
    return 0;
}

/* The file at e->target opened as fopen(, "w") would: a device, a FIFO
 * (/dev/stdout, /dev/null) is never to be replaced by a file. */
static int open_in_place(struct out_entry *e)
{
    e->fd = open(e->target, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOCTTY, 0666);
    return e->fd < 0 ? -1 : 0;
}

/* The temporary file beside e->target, ".NAME.XXXXXX": hidden, and never
 * a name the report reads as an input (*.db, *.json, *.json.gz). */
static int make_beside(struct out_entry *e)
{
    const char *slash = strrchr(e->target, '/');
    const char *base = slash ? slash + 1 : e->target;
    int dirlen = slash ? (int)(slash - e->target) + 1 : 0;
    if (!*base) { /* "dir/": fopen says the same */
        errno = EISDIR;
        return -1;
    }
    if (strlen(base) > NAME_MAX - 8) /* the dot and the six letters must fit */
        base = "gputrace-output";
    if (asprintf(&e->tmp, "%.*s.%s.XXXXXX", dirlen, e->target, base) < 0) {
        e->tmp = NULL;
        errno = ENOMEM;
        return -1;
    }
    /* O_EXCL: never through a link planted at the name */
    if ((e->fd = mkostemp(e->tmp, O_CLOEXEC)) < 0) {
        int er = errno;
        free(e->tmp);
        e->tmp = NULL;
        errno = er;
        return -1;
    }
    e->h = tmpfiles_add(e->tmp, 0);
    struct stat st;
    if (fstat(e->fd, &st) == 0) {
        e->dev = st.st_dev;
        e->ino = st.st_ino;
    }
    return 0;
}

int out_file_is_stdout(const char *path)
{
    struct stat a, b;
    if (path && !strcmp(path, "-")) /* (by name: /dev/stdout needs /proc mounted) */
        return 1;
    return path && stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int place(struct out_entry *e)
{
    struct stat st;
    if (out_file_is_stdout(e->path)) { /* as the shell opened it: `> f` truncated, `>> f` appends */
        if (!(e->target = strdup(e->path)))
            return -1;
        e->fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
        return e->fd < 0 ? -1 : 0;
    }
    if (lstat(e->path, &st) == 0 && S_ISLNK(st.st_mode)) {
        /* written through the link, as fopen would: the link stays a link */
        if (!(e->target = realpath(e->path, NULL))) {
            if (!(e->target = strdup(e->path)))
                return -1;
            return open_in_place(e); /* one that leads nowhere: fopen makes the file it names */
        }
    } else if (!(e->target = strdup(e->path))) {
        return -1;
    }
    if (stat(e->target, &st) == 0 && !S_ISREG(st.st_mode))
        return open_in_place(e);
    if (make_beside(e) == 0)
        return 0;
    /* a file the user may write in a directory the user may not: it can
     * only be written in place */
    if ((errno == EACCES || errno == EPERM) && access(e->target, W_OK) == 0)
        return open_in_place(e);
    return -1;
}

static void entry_free(struct out_entry *e)
{
    free(e->path);
    free(e->target);
    free(e->tmp);
    free(e);
}

FILE *out_file_open(const char *path)
{
    struct out_entry *e = calloc(1, sizeof *e);
    if (!e || !(e->path = strdup(path))) {
        free(e);
        errno = ENOMEM;
        return NULL;
    }
    e->fd = -1;
    e->h = -1;
    if (place(e) != 0) {
        int er = errno;
        entry_free(e);
        errno = er;
        return NULL;
    }
    pthread_mutex_lock(&lock);
    if (nouts == cap) {
        size_t c = cap ? 2 * cap : 8;
        struct out_entry **g = realloc(outs, c * sizeof *g);
        if (g) {
            outs = g;
            cap = c;
        }
    }
    int room = nouts < cap;
    if (room)
        outs[nouts++] = e;
    pthread_mutex_unlock(&lock);
    cookie_io_functions_t io = { .write = out_write, .close = out_close };
    FILE *f = room ? fopencookie(e, "w", io) : NULL;
    if (!f) {
        if (e->tmp)
            unlink(e->tmp);
        tmpfiles_forget(e->h);
        close(e->fd);
        pthread_mutex_lock(&lock);
        e->done = 1; /* left in the table (if it got in): never freed */
        pthread_mutex_unlock(&lock);
        if (!room)
            entry_free(e);
        errno = ENOMEM;
        return NULL;
    }
    return f;
}

/* The output of that name neither committed nor discarded, now marked
 * done; NULL if none. */
static struct out_entry *take(const char *path)
{
    struct out_entry *e = NULL;
    pthread_mutex_lock(&lock);
    for (size_t i = 0; i < nouts && !e; i++)
        if (!outs[i]->done && !strcmp(outs[i]->path, path)) {
            e = outs[i];
            e->done = 1;
        }
    pthread_mutex_unlock(&lock);
    return e;
}

/* Whether e's temporary name still holds the file made for it: in a
 * directory others may write to, another file could have taken the name. */
static int still_ours(const struct out_entry *e)
{
    struct stat st;
    return lstat(e->tmp, &st) == 0 && S_ISREG(st.st_mode) && st.st_dev == e->dev && st.st_ino == e->ino;
}

static void discard(struct out_entry *e)
{
    if (e->tmp && still_ours(e))
        unlink(e->tmp);
    tmpfiles_forget(e->h);
}

int out_file_commit(const char *path)
{
    struct out_entry *e = take(path);
    if (!e) {
        errno = ENOENT;
        return -1;
    }
    int ok = __atomic_load_n(&e->closed, __ATOMIC_ACQUIRE) && !e->err;
    if (!ok) {
        discard(e);
        errno = e->err ? e->err : EIO;
        return -1;
    }
    if (!e->tmp) /* written in place */
        return 0;
    if (!still_ours(e)) {
        tmpfiles_forget(e->h);
        errno = EEXIST;
        return -1;
    }
    if (rename(e->tmp, e->target) != 0) {
        int er = errno;
        discard(e);
        errno = er;
        return -1;
    }
    tmpfiles_forget(e->h);
    return 0;
}

void out_file_discard(const char *path)
{
    struct out_entry *e = take(path);
    if (e)
        discard(e);
}

void out_file_discard_all(void)
{
    for (;;) {
        struct out_entry *e = NULL;
        pthread_mutex_lock(&lock);
        for (size_t i = 0; i < nouts && !e; i++)
            if (!outs[i]->done) {
                e = outs[i];
                e->done = 1;
            }
        pthread_mutex_unlock(&lock);
        if (!e)
            return;
        discard(e);
    }
}
