/* tmpfiles.c: the report's own files, and their removal however it ends
 * (tmpfiles.h).
 *
 * A report interrupted by Ctrl-C, a batch system's SIGTERM or a closed
 * terminal used to leave its import database (116-170 MB for a big nsys
 * export) in $TMPDIR, and half-written outputs.  Every named file of the
 * report is registered here, and the handler of those signals removes them
 * before the signal, raised again with its default action, ends the
 * report as it would have without it.
 *
 * The registry is read from a signal handler, which may run on any thread
 * at any moment: it is a list of fixed chunks of slots, each slot's path
 * written before its state says it is there (release/acquire), and never
 * freed nor reused once forgotten, so that the handler never follows a
 * pointer another thread is changing.  A slot is a few bytes and its path:
 * the report registers a handful of files, or one per process for the
 * Kineto traces, so nothing needs giving back before exit.  Adding and
 * forgetting take a lock (never taken by the handler). */
#define _GNU_SOURCE
#include "viewer/model/tmpfiles.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum slot_state { SLOT_FREE, SLOT_FILE, SLOT_DIR, SLOT_FORGOTTEN };

#define CHUNK_SLOTS 64

struct slot {
    int state;        /* enum slot_state, read by the handler (acquire) */
    const char *path; /* set before state, never freed */
};

struct chunk {
    struct slot s[CHUNK_SLOTS];
    struct chunk *next; /* read by the handler (acquire) */
};

static struct chunk first; /* most reports never need a second */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER; /* guards adding and forgetting */
static mode_t new_mode = 0644;                          /* 0666 & ~umask, once tmpfiles_init ran */

/* unlink and rmdir only: async-signal-safe */
static void remove_registered(void)
{
    for (int pass = 0; pass < 2; pass++) /* the files, then their directories */
        for (struct chunk *c = &first; c; c = __atomic_load_n(&c->next, __ATOMIC_ACQUIRE))
            for (int i = 0; i < CHUNK_SLOTS; i++) {
                int st = __atomic_load_n(&c->s[i].state, __ATOMIC_ACQUIRE);
                if (pass == 0 && st == SLOT_FILE)
                    unlink(c->s[i].path);
                else if (pass == 1 && st == SLOT_DIR)
                    rmdir(c->s[i].path);
            }
}

static void on_signal(int sig)
{
    int e = errno;
    remove_registered();
    /* the handler was reset to the default on entry (SA_RESETHAND), and the
     * signal is not blocked in here (SA_NODEFER): the report ends of it now,
     * with the status its parent expects of that signal */
    raise(sig);
    errno = e;
}

void tmpfiles_init(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
    mode_t u = umask(022);
    umask(u);
    new_mode = 0666 & ~u;
    for (size_t i = 0; i < sizeof sigs / sizeof *sigs; i++) {
        struct sigaction old, sa;
        if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler == SIG_IGN)
            continue; /* ignored by whoever started the report (nohup): left so */
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sa.sa_flags = SA_RESETHAND | SA_NODEFER;
        sigaction(sigs[i], &sa, NULL);
    }
    atexit(tmpfiles_remove_all);
}

int tmpfiles_add(const char *path, int dir)
{
    char *copy = strdup(path);
    if (!copy)
        return -1;
    pthread_mutex_lock(&lock);
    int h = 0;
    for (struct chunk *c = &first;; c = c->next, h += CHUNK_SLOTS) {
        for (int i = 0; i < CHUNK_SLOTS; i++)
            if (c->s[i].state == SLOT_FREE) {
                c->s[i].path = copy;
                __atomic_store_n(&c->s[i].state, dir ? SLOT_DIR : SLOT_FILE, __ATOMIC_RELEASE);
                pthread_mutex_unlock(&lock);
                return h + i;
            }
        if (!c->next) {
            struct chunk *n = calloc(1, sizeof *n);
            if (!n) {
                pthread_mutex_unlock(&lock);
                free(copy);
                return -1;
            }
            __atomic_store_n(&c->next, n, __ATOMIC_RELEASE);
        }
    }
}

void tmpfiles_forget(int h)
{
    if (h < 0)
        return;
    pthread_mutex_lock(&lock);
    struct chunk *c = &first;
    for (; c && h >= CHUNK_SLOTS; h -= CHUNK_SLOTS)
        c = c->next;
    if (c && c->s[h].state != SLOT_FREE)
        __atomic_store_n(&c->s[h].state, SLOT_FORGOTTEN, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

void tmpfiles_remove_all(void)
{
    pthread_mutex_lock(&lock);
    remove_registered();
    for (struct chunk *c = &first; c; c = c->next)
        for (int i = 0; i < CHUNK_SLOTS; i++)
            if (c->s[i].state != SLOT_FREE)
                __atomic_store_n(&c->s[i].state, SLOT_FORGOTTEN, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

const char *tmpfiles_dir(void)
{
    const char *dir = getenv("TMPDIR");
    return dir && *dir ? dir : "/tmp";
}

int tmpfiles_scratch(void)
{
    const char *dir = tmpfiles_dir();
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
    /* a file system without unnamed files says so in one of these ways;
     * anything else (no such directory, no permission) mkostemp meets too */
    if (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)
        return -1;
#endif
    char path[4096];
    if (snprintf(path, sizeof path, "%s/gputrace-report-XXXXXX", dir) >= (int)sizeof path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int tmp = mkostemp(path, O_CLOEXEC);
    if (tmp < 0)
        return -1;
    int h = tmpfiles_add(path, 0); /* for the two system calls until it has no name */
    unlink(path);
    tmpfiles_forget(h);
    return tmp;
}

char *tmpfiles_private_dir(const char *prefix, int *handle)
{
    char *path;
    if (asprintf(&path, "%s/%s-XXXXXX", tmpfiles_dir(), prefix) < 0) {
        errno = ENOMEM;
        return NULL;
    }
    if (!mkdtemp(path)) { /* mode 0700, and a name nobody had */
        int e = errno;
        free(path);
        errno = e;
        return NULL;
    }
    if ((*handle = tmpfiles_add(path, 1)) < 0) {
        rmdir(path);
        free(path);
        errno = ENOMEM;
        return NULL;
    }
    return path;
}

mode_t tmpfiles_new_file_mode(void)
{
    return new_mode;
}
