/* record_end.c: the line `gputrace record` owes its user when a run wrote
 * nothing, said by the command itself.  The launcher execs the command (it
 * becomes it: the same pid for the caller to wait for and signal, every
 * signal straight to the program, the program's own exit status), so no
 * process of ours is left to look afterwards; the launcher's process, as
 * the command, looks when it ends instead: after the program's own atexit
 * handlers and destructors (ours is registered first, at load, so it runs
 * last), or at _exit (libtrace/exec_exit.c); not when a signal kills it,
 * nor at a raw exit_group.  The launcher names that pid, the line and the
 * stderr it was given in GPUTRACE_RECORD_PID, GPUTRACE_RECORD_NOTHING and
 * GPUTRACE_RECORD_STDERR; every other process (a child, whatever it
 * inherits) has another pid and says nothing (a pid the kernel hands out
 * again later, to a process still running under the same variables, could
 * say it once more).
 *
 * What it may not do to the program: the line goes to fd 2 only if that
 * is still the stderr the launcher was given (same device and inode: not
 * a file the program opened on 2 after closing it); SIGPIPE (no reader
 * left) and SIGXFSZ (a file-size limit) from that write are taken back,
 * not left to kill the program or reach its handlers; errno is kept; the
 * directory is read with its own descriptor, closed with the system call
 * itself (not our close wrapper, fdguard.h).  Async-signal-safe, since a
 * signal handler may call _exit: system calls only, nothing allocated. */
#define _GNU_SOURCE
#include "libtrace/lifecycle.h"
#include "collector/say.h"
#include "collector/config.h"

#include <dirent.h> /* DT_REG, DT_UNKNOWN only: the directory is read with getdents64 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

/* What the launcher named, read at load: the program may change or clear
 * its environment before it ends (the strings of the initial environment
 * stay where they are whatever it does). */
static const char *line, *out;
/* A pattern's directory, its %h made this host (empty: not known, a pid
 * or a rank in it), and its last part, which names each process's file */
static char pat_dir[4096];
static const char *pat_base;
static int one_file;
static unsigned long long err_dev, err_ino;
static _Atomic int said;
static _Atomic long armed_pid; /* the launcher's pid, once every variable is read; 0: never */

/* The decimal number at s, or -1 (no digits, or past max). */
static long long number(const char **s, unsigned long long max)
{
    unsigned long long v = 0;
    const char *c = *s;
    if (*c < '0' || *c > '9')
        return -1;
    for (; *c >= '0' && *c <= '9'; c++) {
        v = v * 10 + (unsigned long long)(*c - '0');
        if (v > max)
            return -1;
    }
    *s = c;
    return (long long)v;
}

/* Whether the output holds no database: the file is missing, or the run
 * directory has no regular file named as a process names its own
 * (<host>-<pid>.db, the host as gt_config_host makes it: the same match
 * as `gputrace record` uses, config.h), made at a process's first CUDA
 * call; for a pattern, its directory (pat_dir) has no file its last part
 * names (`gputrace record` refused to start over one already there).  A
 * pattern whose directory part names a pid or a rank, or a directory that
 * cannot be read, says nothing either way (0).  getdents64 into a buffer
 * on the stack: no malloc. */
static int nothing_there(const char *path, enum gt_layout layout)
{
    struct stat st;
    if (layout == GT_LAYOUT_FILE)
        return stat(path, &st) != 0 && errno == ENOENT;
    const char *dir = path, *name = GT_RUN_DIR_FILE;
    if (layout == GT_LAYOUT_PATTERN) {
        if (!pat_dir[0])
            return 0;
        dir = pat_dir;
        name = pat_base;
    } else if (layout != GT_LAYOUT_DIR) {
        return 0;
    }
    int fd = (int)syscall(SYS_openat, AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    int none = 1;
    _Alignas(8) char buf[1024];
    long n;
    while (none && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) != 0) {
        if (n < 0) {
            none = 0;
            break;
        }
        /* struct linux_dirent64: inode (8), offset (8), record length (2),
         * type (1), the name, NUL-terminated, within the record */
        for (long off = 0; none && off + 19 < n;) {
            unsigned short reclen;
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            if (reclen < 20 || reclen > n - off)
                break;
            unsigned char type = (unsigned char)buf[off + 18];
            const char *ent = buf + off + 19;
            size_t len = strnlen(ent, (size_t)reclen - 19);
            if ((type == DT_REG || type == DT_UNKNOWN) && len < (size_t)reclen - 19 && /* NUL-terminated */
                gt_config_name_matches(name, ent))
                none = 0;
            off += reclen;
        }
    }
    syscall(SYS_close, fd);
    return none;
}

/* The line on fd 2, SIGPIPE and SIGXFSZ of that write kept from the
 * program (one pending for it before is left alone). */
static void say(void)
{
    gt_say_line(line);
}

void gt_record_end(void)
{
    long pid = atomic_load(&armed_pid);
    if (!pid || pid != (long)getpid() || atomic_exchange(&said, 1)) /* a forked child inherits armed_pid */
        return;
    int saved = errno;
    struct stat st;
    if (fstat(STDERR_FILENO, &st) == 0 && (unsigned long long)st.st_dev == err_dev &&
        (unsigned long long)st.st_ino == err_ino && nothing_there(out, gt_config_layout(out, one_file)))
        say();
    errno = saved;
}

static void at_exit(void)
{
    gt_record_end();
}

/* At load: armed only in the process the launcher became (its pid), with
 * every variable there and well formed.  Registered first, so that the
 * check runs after the program's own atexit handlers. */
GT_CONSTRUCTOR(record_end_init)
{
    const char *pid = getenv("GPUTRACE_RECORD_PID"), *err = getenv("GPUTRACE_RECORD_STDERR");
    line = getenv("GPUTRACE_RECORD_NOTHING");
    out = getenv("GPUTRACE_OUTPUT");
    if (!pid || !err || !line || !out || out[0] != '/')
        return;
    if (number(&pid, INT64_MAX) != (long long)getpid() || *pid)
        return;
    long long dev = number(&err, UINT64_MAX >> 1), ino = -1;
    if (dev >= 0 && *err == ':') {
        err++;
        ino = number(&err, UINT64_MAX >> 1);
    }
    if (ino < 0 || *err)
        return;
    err_dev = (unsigned long long)dev;
    err_ino = (unsigned long long)ino;
    const char *one = getenv("GPUTRACE_ONE_FILE"); /* 1, or unset, by the launcher */
    one_file = one && strcmp(one, "1") == 0;
    if (gt_config_layout(out, one_file) == GT_LAYOUT_PATTERN && gt_config_pattern_dir(out, pat_dir, sizeof pat_dir) == 0)
        pat_base = strrchr(out, '/') + 1; /* absolute: the launcher's */
    atomic_store(&armed_pid, (long)getpid());
    atexit(at_exit);
}
