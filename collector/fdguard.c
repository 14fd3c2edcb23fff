/* fdguard.c: the tracer's descriptors and their revocation (see fdguard.h).
 *
 * The handshake between a user of our descriptors (U: the writer, or a
 * signal handler asking it to flush) and the program closing one (P):
 *   U: users += 1; if revoked { users -= 1; give up }  ... use ... users -= 1
 *   P: revoked = 1; wait until users == 0; close
 * Both sides use sequentially consistent atomics, so either U sees revoked
 * or P sees U inside: no use of a descriptor can overlap the program's
 * close of it, nor any later reuse of its number.
 */
#define _GNU_SOURCE
#include "collector/fdguard.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 16

enum { FD_FREE = 0, FD_OURS, FD_TAKEN, FD_RELEASING };

static struct entry {
    _Atomic int state;
    int fd;
    int by_sqlite; /* SQLite's: closed by closing the connection, if it is still ours */
    dev_t dev;
    ino_t ino;
} fds[MAX_FDS];

static _Atomic int nregistered; /* entries ever made OURS (a fast "nothing to do" for close) */
static _Atomic int users, revoked, taken;
static _Atomic pid_t owner; /* the process whose descriptors these are */
/* the calling thread is the tracer's own (its closes are SQLite's or ours) */
static _Thread_local __attribute__((tls_model("initial-exec"))) int self;

void gt_fd_set_self(int on)
{
    self = on;
}

static int close_syscall(int fd)
{
    return (int)syscall(SYS_close, fd);
}

/* set once, at activation; read when releasing, maybe in a signal handler */
static int (*_Atomic sys_close)(int) = close_syscall;

void gt_fd_use_close(int (*fn)(int))
{
    atomic_store(&sys_close, fn ? fn : close_syscall);
}

static void pause_a_little(void)
{
    struct timespec t = { 0, 100 * 1000 };
    nanosleep(&t, NULL);
}

static int add(int fd, int by_sqlite)
{
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        return -1;
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        if (atomic_load(&e->state) == FD_OURS && e->fd == fd)
            return 0; /* already known */
    }
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        if (atomic_load(&e->state) != FD_FREE)
            continue;
        e->fd = fd;
        e->by_sqlite = by_sqlite;
        e->dev = st.st_dev;
        e->ino = st.st_ino;
        atomic_store(&owner, getpid());
        atomic_store(&e->state, FD_OURS); /* published last: the wrappers read fd after it */
        atomic_fetch_add(&nregistered, 1);
        return 0;
    }
    return -1;
}

int gt_fd_add(int fd)
{
    return add(fd, 0);
}

int gt_fd_close(int fd)
{
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        int expect = FD_OURS;
        if (e->fd != fd)
            continue;
        if (atomic_compare_exchange_strong(&e->state, &expect, FD_RELEASING)) {
            int was_self = self;
            self = 1;
            atomic_load(&sys_close)(fd);
            self = was_self;
            atomic_store(&e->state, FD_FREE);
            return 0;
        }
        if (expect == FD_TAKEN) {
            atomic_store(&e->state, FD_FREE);
            return -1;
        }
    }
    return -1;
}

void gt_fd_add_file(const char *path)
{
    struct stat want;
    if (stat(path, &want) != 0)
        return;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return;
    int dir_fd = dirfd(d);
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        char *end;
        long fd = strtol(de->d_name, &end, 10);
        struct stat st;
        if (*end || end == de->d_name || fd == dir_fd || fstat((int)fd, &st) != 0)
            continue;
        if (st.st_dev == want.st_dev && st.st_ino == want.st_ino)
            add((int)fd, 1);
    }
    closedir(d);
}

int gt_fd_enter(void)
{
    atomic_fetch_add(&users, 1);
    if (atomic_load(&revoked)) {
        atomic_fetch_sub(&users, 1);
        return 0;
    }
    return 1;
}

void gt_fd_leave(void)
{
    atomic_fetch_sub(&users, 1);
}

int gt_fd_revoked(void)
{
    return atomic_load(&revoked);
}

int gt_fd_taken(void)
{
    return atomic_load(&taken);
}

/* Stops every use of our descriptors and waits for the ones under way.
 * Bounded (5 s), in case a signal handler closes one of ours on a thread
 * that was itself inside a use: the program must not hang on us. */
static void revoke_all(void)
{
    atomic_store(&revoked, 1);
    for (int i = 0; i < 50000 && atomic_load(&users) > 0; i++)
        pause_a_little();
}

int gt_fd_intact(void)
{
    int ok = 1;
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        if (atomic_load(&e->state) != FD_OURS)
            continue;
        struct stat st;
        if (fstat(e->fd, &st) == 0 && st.st_dev == e->dev && st.st_ino == e->ino)
            continue;
        int expect = FD_OURS;
        if (atomic_compare_exchange_strong(&e->state, &expect, FD_TAKEN)) {
            atomic_store(&taken, 1);
            ok = 0;
        }
    }
    if (!ok)
        revoke_all();
    return ok;
}

void gt_fd_before_close(unsigned lo, unsigned hi)
{
    if (atomic_load_explicit(&nregistered, memory_order_relaxed) == 0 || self)
        return;
    int saved = errno;
    int hit = 0, in_range = 0;
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        int s = atomic_load(&e->state);
        if ((s == FD_OURS || s == FD_RELEASING) && (unsigned)e->fd >= lo && (unsigned)e->fd <= hi)
            in_range = 1;
    }
    /* a child (fork, or vfork sharing our memory) closes its own copies:
     * the parent's descriptors are untouched */
    if (!in_range || getpid() != atomic_load(&owner)) {
        errno = saved;
        return;
    }
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        if ((unsigned)e->fd < lo || (unsigned)e->fd > hi)
            continue;
        int expect = FD_OURS;
        if (atomic_compare_exchange_strong(&e->state, &expect, FD_TAKEN)) {
            hit = 1;
        } else if (expect == FD_RELEASING) {
            /* the tracer is closing it now: let it finish first, so that
             * the program's close comes after ours, as if we were not there */
            for (int k = 0; k < 50000 && atomic_load(&e->state) == FD_RELEASING; k++)
                pause_a_little();
        }
    }
    if (hit) {
        atomic_store(&taken, 1);
        revoke_all();
    }
    errno = saved;
}

void gt_fd_release(void (*close_sqlite)(void))
{
    revoke_all();
    for (int i = 0; i < MAX_FDS; i++) {
        int expect = FD_OURS;
        atomic_compare_exchange_strong(&fds[i].state, &expect, FD_RELEASING);
    }
    /* SQLite's descriptors go with its connection, unless the program took
     * one: then SQLite would unlock, and close, numbers that are the
     * program's now, so the connection is left as it is (memory only) and
     * the descriptors still ours are closed here instead */
    int sqlite_closes = close_sqlite && !atomic_load(&taken);
    int was_self = self;
    self = 1; /* SQLite's closes (through the program-facing close) pass our wrapper */
    if (sqlite_closes)
        close_sqlite();
    for (int i = 0; i < MAX_FDS; i++) {
        struct entry *e = &fds[i];
        int s = atomic_load(&e->state);
        if (s == FD_RELEASING && !(e->by_sqlite && sqlite_closes))
            atomic_load(&sys_close)(e->fd);
        if (s == FD_RELEASING || s == FD_TAKEN)
            atomic_store(&e->state, FD_FREE);
    }
    self = was_self;
}

void gt_fd_forget_after_fork(void)
{
    for (int i = 0; i < MAX_FDS; i++)
        atomic_store(&fds[i].state, FD_FREE);
    atomic_store(&nregistered, 0);
    atomic_store(&users, 0);
    atomic_store(&revoked, 0);
    atomic_store(&taken, 0);
}

/* What a held descriptor is: /dev/null, opened O_RDWR | O_CLOEXEC. */
static int is_held_null(int fd, const struct stat *null)
{
    struct stat st;
    int fdfl = fcntl(fd, F_GETFD), fl = fcntl(fd, F_GETFL);
    return fdfl >= 0 && (fdfl & FD_CLOEXEC) && fl >= 0 && (fl & O_ACCMODE) == O_RDWR && fstat(fd, &st) == 0 &&
           st.st_dev == null->st_dev && st.st_ino == null->st_ino && st.st_rdev == null->st_rdev;
}

static struct stat dev_null; /* as the last hold saw it */

int gt_fd_hold_std(void)
{
    int saved = errno, held = 0;
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
            continue;
        int t = open("/dev/null", O_RDWR | O_CLOEXEC);
        if (t == fd && fstat(t, &dev_null) == 0)
            held |= 1 << fd;
        else if (t >= 0 && t != fd)
            /* another thread took fd first: not held (a dup3 onto fd, were
             * it free again, could replace a file the program just opened
             * there) */
            atomic_load(&sys_close)(t);
        else if (t == fd)
            atomic_load(&sys_close)(t);
    }
    errno = saved;
    return held;
}

void gt_fd_release_std(int held)
{
    int saved = errno;
    /* closed only if still ours: the program may have closed it since and
     * opened a file of its own on the number */
    for (int fd = 0; fd < 3; fd++)
        if ((held & 1 << fd) && is_held_null(fd, &dev_null))
            atomic_load(&sys_close)(fd);
    errno = saved;
}
