/* exec_exit.c: the ends of a process image: exit, _exit, _Exit, the exec
 * family, and the value main returns.
 *
 * Each ends tracing for the image (gt_finish: the writer's final pass, the
 * caller waiting a bounded time) and then does exactly what the program
 * asked.  All of it is async-signal-safe, since a signal handler may call
 * _exit or execve: the real functions are resolved at load time, not with
 * dlsym at the call.  In a vfork child, which runs in the parent's memory
 * until it execs or _exits, none of it runs: gt_finish refuses, and nothing
 * else here writes shared state first.
 */
#define _GNU_SOURCE
#include "libtrace/trace.h"
#include "libtrace/lifecycle.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef void (*exit_fn)(int);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*main_fn)(int, char **, char **);
typedef int (*start_fn)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *);

static exit_fn real_exit, real__exit, real__Exit;
static execv_fn real_execv, real_execvp;
static execve_fn real_execve, real_execvpe;
static fexecve_fn real_fexecve;

GT_CONSTRUCTOR(resolve_real)
{
    real_exit = (exit_fn)dlsym(RTLD_NEXT, "exit");
    real__exit = (exit_fn)dlsym(RTLD_NEXT, "_exit");
    real__Exit = (exit_fn)dlsym(RTLD_NEXT, "_Exit");
    real_execv = (execv_fn)dlsym(RTLD_NEXT, "execv");
    real_execvp = (execv_fn)dlsym(RTLD_NEXT, "execvp");
    real_execve = (execve_fn)dlsym(RTLD_NEXT, "execve");
    real_execvpe = (execve_fn)dlsym(RTLD_NEXT, "execvpe");
    real_fexecve = (fexecve_fn)dlsym(RTLD_NEXT, "fexecve");
}

/* ---- exit ------------------------------------------------------------------ */

/* Threads that called exit, or returned from main.  The first runs the
 * atexit handlers, ours among them; glibc lets any later one end the
 * process at once, before that end is stored, so a later one stores it
 * itself or waits for it first. */
static _Atomic int exiting;

__attribute__((noreturn)) void exit(int status)
{
    if (!gt_in_vfork_child()) {
        gt_note_exit_code(status);
        if (atomic_fetch_add(&exiting, 1) > 0)
            gt_finish("exit", GT_END_WAIT_MS);
    }
    if (!real_exit)
        resolve_real();
    real_exit(status);
    __builtin_unreachable();
}

/* _exit and _Exit skip atexit handlers; a forked child usually ends with
 * one, and so may a signal handler. */
static __attribute__((noreturn)) void quick_exit_path(exit_fn real, int status)
{
    if (!gt_in_vfork_child()) {
        gt_note_exit_code(status);
        gt_record_end(); /* exit's atexit handlers do not run: said here */
        gt_finish("exit", GT_END_WAIT_MS);
    }
    if (real)
        real(status);
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}

__attribute__((noreturn)) void _exit(int status)
{
    quick_exit_path(real__exit, status);
}

__attribute__((noreturn)) void _Exit(int status)
{
    quick_exit_path(real__Exit, status);
}

/* ---- exec ------------------------------------------------------------------ */

/* exec replaces the image: what this one recorded is stored first (the new
 * image starts over, with a process row of its own, when it uses CUDA).  If
 * exec fails the program goes on, and so does tracing, from its next call. */
enum exec_kind { EXEC_V, EXEC_VP, EXEC_VE, EXEC_VPE, EXEC_F };

static int exec_path(enum exec_kind kind, const char *path, int fd, char *const argv[], char *const envp[])
{
    if (!real_execve) /* before our constructor ran */
        resolve_real();
    int ended = 0;
    if (atomic_load(&gt_state) == GT_STATE_ON && !gt_in_vfork_child())
        ended = gt_finish("exec", GT_END_WAIT_MS) == 0;
    int rc = -1;
    errno = ENOSYS;
    switch (kind) {
    case EXEC_V: if (real_execv) rc = real_execv(path, argv); break;
    case EXEC_VP: if (real_execvp) rc = real_execvp(path, argv); break;
    case EXEC_VE: if (real_execve) rc = real_execve(path, argv, envp); break;
    case EXEC_VPE: if (real_execvpe) rc = real_execvpe(path, argv, envp); break;
    case EXEC_F: if (real_fexecve) rc = real_fexecve(fd, argv, envp); break;
    }
    int saved = errno;
    if (ended) /* still here: exec failed; start over at the next call */
        gt_restart_after_failed_exec();
    errno = saved;
    return rc;
}

int execve(const char *path, char *const argv[], char *const envp[]) { return exec_path(EXEC_VE, path, -1, argv, envp); }
int execvpe(const char *file, char *const argv[], char *const envp[]) { return exec_path(EXEC_VPE, file, -1, argv, envp); }
int execv(const char *path, char *const argv[]) { return exec_path(EXEC_V, path, -1, argv, NULL); }
int execvp(const char *file, char *const argv[]) { return exec_path(EXEC_VP, file, -1, argv, NULL); }
int fexecve(int fd, char *const argv[], char *const envp[]) { return exec_path(EXEC_F, NULL, fd, argv, envp); }

/* The list forms: glibc's own call its execve from inside libc, past our
 * wrapper, so they are wrapped too.  The arguments are gathered on the
 * stack, as glibc does (no malloc: they may be called in a vfork child). */
static size_t count_args(const char *arg, va_list ap)
{
    size_t n = 1;
    for (const char *a = arg; a; a = va_arg(ap, const char *))
        n++;
    return n;
}

/* argv[0] = arg, then the rest up to and with the NULL (n in all) */
static void fill_args(char **argv, size_t n, const char *arg, va_list *ap)
{
    argv[0] = (char *)arg;
    for (size_t i = 1; i < n; i++)
        argv[i] = va_arg(*ap, char *);
}

int execl(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    char *argv[n];
    va_start(ap, arg);
    fill_args(argv, n, arg, &ap);
    va_end(ap);
    return exec_path(EXEC_V, path, -1, argv, NULL);
}

int execlp(const char *file, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    char *argv[n];
    va_start(ap, arg);
    fill_args(argv, n, arg, &ap);
    va_end(ap);
    return exec_path(EXEC_VP, file, -1, argv, NULL);
}

int execle(const char *path, const char *arg, ...)
{
    va_list ap;
    va_start(ap, arg);
    size_t n = count_args(arg, ap);
    va_end(ap);
    char *argv[n];
    va_start(ap, arg);
    fill_args(argv, n, arg, &ap);
    char *const *envp = va_arg(ap, char *const *); /* after the NULL */
    va_end(ap);
    return exec_path(EXEC_VE, path, -1, argv, envp);
}

/* ---- main ------------------------------------------------------------------ */

static main_fn real_main;

static int traced_main(int argc, char **argv, char **envp)
{
    int rc = real_main(argc, argv, envp);
    gt_note_exit_code(rc);
    /* glibc's exit from here does not pass through our exit(): count this
     * one, so that a thread calling exit meanwhile waits for our end */
    atomic_fetch_add(&exiting, 1);
    return rc;
}

/* Interposed so that the value main returns is known at exit.  glibc's
 * headers do not declare it: declared here, as glibc defines it. */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end);
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    start_fn real = (start_fn)dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(traced_main, argc, argv, init, fini, rtld_fini, stack_end);
}
