/* record_end.c: the line `gputrace record` owes its user when a run wrote
 * nothing, said by the command itself.  The launcher execs the command (it
 * becomes it: the same pid for the caller to wait for and signal, every
 * signal straight to the program, the program's own exit status), so no
 * process of ours is left to look afterwards; the launcher's process, as
 * the command, looks when it ends instead (exit, _exit, main's return:
 * libtrace/exec_exit.c; not when a signal kills it).  The launcher names that
 * pid and the line in GPUTRACE_RECORD_PID and GPUTRACE_RECORD_NOTHING;
 * every other process (a child, whatever it inherits) has another pid and
 * says nothing.  A process still running then (one the command left
 * behind) may write later: the line speaks of the command's end. */
#define _GNU_SOURCE
#include "libtrace/lifecycle.h"
#include "collector/config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

/* Whether the output holds no database: the file is missing, or the run
 * directory has no *.db file (one is made at a process's first CUDA call).
 * A pattern's expansions are not looked for.  Async-signal-safe (a
 * program's signal handler may call exit): system calls only, the
 * directory read with getdents64 into a buffer on the stack, no malloc. */
static int nothing_there(const char *path, enum gt_layout layout)
{
    struct stat st;
    if (layout == GT_LAYOUT_FILE)
        return stat(path, &st) != 0;
    if (layout != GT_LAYOUT_DIR)
        return 0;
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    int none = 1;
    _Alignas(8) char buf[4096];
    long n;
    while (none && (n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
        for (long off = 0; none && off < n;) {
            /* struct linux_dirent64: inode, offset, record length, type, name */
            unsigned short reclen;
            memcpy(&reclen, buf + off + 16, sizeof reclen);
            const char *name = buf + off + 19;
            size_t len = strnlen(name, (size_t)(n - off - 19));
            none = !(len > 3 && memcmp(name + len - 3, ".db", 3) == 0);
            off += reclen ? reclen : n;
        }
    }
    close(fd);
    return none;
}

void gt_record_end(void)
{
    static _Atomic int said;
    const char *pid = getenv("GPUTRACE_RECORD_PID");
    long mine = (long)getpid(), named = 0;
    for (const char *c = pid; c && *c >= '0' && *c <= '9' && named <= mine; c++)
        named = named * 10 + (*c - '0');
    if (!pid || named != mine || atomic_exchange(&said, 1))
        return;
    const char *line = getenv("GPUTRACE_RECORD_NOTHING"), *out = getenv("GPUTRACE_OUTPUT");
    if (!line || !out || out[0] != '/')
        return;
    int saved = errno;
    const char *one = getenv("GPUTRACE_ONE_FILE"); /* set to 1 or unset by the launcher */
    if (nothing_there(out, gt_config_layout(out, one && strcmp(one, "1") == 0))) {
        struct iovec v[2] = { { (void *)line, strlen(line) }, { (void *)"\n", 1 } };
        (void)!writev(STDERR_FILENO, v, 2);
    }
    errno = saved;
}
