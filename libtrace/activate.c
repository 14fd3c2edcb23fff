/* activate.c: start-up and shutdown of the tracer inside the program.
 *
 * Nothing happens at load time: the first wrapped CUDA or NCCL call
 * activates (config, database, CUPTI, writer thread), once; a launcher that
 * never touches a GPU pays nothing and leaves no file.  If activation fails
 * (unwritable output, ...) one line says why and the program runs on
 * untraced.  At exit, on SIGTERM/SIGINT and on fatal signals, what can be
 * flushed is flushed, then the program's own handler or default action
 * runs, so its exit status is unchanged.  After fork the child starts over.
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "libtrace/trace.h"
#include "collector/config.h"
#include "collector/cupti_sub.h"
#include "collector/pyframes.h"
#include "collector/writer.h"
#include "libtrace/nvtx_inject.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Atomic int gt_state;
_Atomic int gt_first_call_done;
GT_TLS struct gt_record gt_scratch[2];
int gt_stack_depth;

static struct gt_config cfg;
static _Atomic int exit_code_known, exit_code;
static _Atomic int said_off;

static const int handled_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NSIG_HANDLED (sizeof handled_signals / sizeof *handled_signals)
static struct sigaction old_actions[NSIG_HANDLED];

void gt_turn_off(const char *why)
{
    atomic_store(&gt_state, GT_STATE_OFF);
    if (why && !atomic_exchange(&said_off, 1))
        fprintf(stderr, "gputrace: %s\n", why);
}

static int env_rank(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v)
            return atoi(v);
    }
    return -1;
}

static void read_cmdline(char *out, size_t len)
{
    out[0] = 0;
    int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n = read(fd, out, len - 1);
    close(fd);
    if (n <= 0)
        return;
    for (ssize_t i = 0; i < n; i++)
        if (out[i] == 0)
            out[i] = ' ';
    out[n > 0 && out[n - 1] == ' ' ? n - 1 : n] = 0;
}

static int runtime_version(const char *sym)
{
    int (*f)(int *) = (int (*)(int *))dlsym(RTLD_DEFAULT, sym);
    int v = 0;
    if (f && f(&v) != 0)
        v = 0;
    return v;
}

static void finish(const char *reason)
{
    if (atomic_load(&gt_state) != GT_STATE_ON)
        return;
    gt_thread.guard = 1;
    atomic_store(&gt_state, GT_STATE_OFF);
    gt_cupti_flush();
    struct gt_end_info end = { atomic_load(&exit_code), 0, reason, gt_nvtx_status() };
    gt_writer_stop(&end);
    gt_thread.guard = 0;
}

static void shutdown_tracer(void)
{
    finish(atomic_load(&exit_code_known) ? "exit" : "exit (code unknown)");
}

static int is_fatal(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGABRT;
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved = errno;
    size_t i;
    for (i = 0; i < NSIG_HANDLED && handled_signals[i] != sig; i++)
        ;
    if (i == NSIG_HANDLED)
        return;
    struct sigaction *old = &old_actions[i];
    int dies = !(old->sa_flags & SA_SIGINFO) && old->sa_handler == SIG_DFL;
    if (atomic_load(&gt_state) == GT_STATE_ON && !gt_writer_is_self()) {
        if (dies)
            gt_writer_note_signal(sig);
        gt_writer_flush_from_signal(is_fatal(sig) ? 1000 : 3000);
    }
    if (old->sa_flags & SA_SIGINFO) {
        if (old->sa_sigaction)
            old->sa_sigaction(sig, si, uc);
    } else if (old->sa_handler == SIG_DFL) {
        /* the default action, exactly as without the tracer */
        sigaction(sig, old, NULL);
        if (!is_fatal(sig) || si->si_code <= 0)
            raise(sig);
    } else if (old->sa_handler != SIG_IGN) {
        old->sa_handler(sig);
    }
    errno = saved;
}

static void install_signal_handlers(void)
{
    for (size_t i = 0; i < NSIG_HANDLED; i++) {
        struct sigaction sa, cur;
        if (sigaction(handled_signals[i], NULL, &cur) != 0)
            continue;
        if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_IGN)
            continue; /* an ignored signal stays ignored */
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART | (cur.sa_flags & SA_ONSTACK);
        sigemptyset(&sa.sa_mask);
        old_actions[i] = cur;
        sigaction(handled_signals[i], &sa, NULL);
    }
}

static void after_fork_child(void)
{
    gt_tbuf_forget_all_after_fork();
    gt_writer_forget_after_fork();
    gt_cupti_forget_after_fork();
    atomic_store(&gt_first_call_done, 0);
    atomic_store(&gt_state, GT_STATE_INIT);
}

static int activate_once(void)
{
    static const char *const rank_vars[] = { "RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID", NULL };
    static const char *const local_vars[] = { "LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID", NULL };
    static const char *const world_vars[] = { "WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS", NULL };
    int rank = env_rank(rank_vars);
    gt_config_load(&cfg, rank);
    gt_clock_init(cfg.force_mono_clock);
    gt_tbuf_configure(cfg.buffer_bytes);
    gt_stack_depth = cfg.callstack_depth;
    if (gt_stack_depth)
        gt_callsite_warm_up();

    char host[256], cmdline[4096], run_id[160];
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "unknown");
    host[sizeof host - 1] = 0;
    read_cmdline(cmdline, sizeof cmdline);
    if (cfg.run_id[0])
        snprintf(run_id, sizeof run_id, "%s", cfg.run_id);
    else /* ranks started by one launcher share its pid */
        snprintf(run_id, sizeof run_id, "%s:%d", host, (int)getppid());
    const char *launcher = getenv("GPUTRACE_LAUNCHER");
    struct gt_process_info p = {
        .run_id = run_id, .launcher = launcher ? launcher : "", .host = host, .cmdline = cmdline,
        .clock_source = gt_clock_source(), .pid = (int)getpid(), .rank = rank,
        .local_rank = env_rank(local_vars), .world_size = env_rank(world_vars), .device = -1,
        .cuda_runtime_version = runtime_version("cudaRuntimeGetVersion"),
        .nccl_version = runtime_version("ncclGetVersion"),
        .clock_offset_ns = gt_clock_realtime_offset(), .start_ns = (int64_t)gt_mono_ns(),
    };
    char err[512], why[5200];
    if (gt_writer_open(cfg.output, &p, err, sizeof err) != 0) {
        snprintf(why, sizeof why, "cannot write %s: %s; tracing is off, the program runs on", cfg.output, err);
        gt_turn_off(why);
        return 0;
    }
    if (!cfg.cupti) {
        gt_writer_set_cupti_status("off (GPUTRACE_CUPTI=0)", 0);
    } else if (gt_cupti_start(cfg.cupti_lib, why, sizeof why) != 0) {
        if (!cfg.quiet)
            fprintf(stderr, "gputrace: %s; recording host-side records only\n", why);
        gt_writer_set_cupti_status(why, gt_cupti_version());
    } else {
        gt_writer_set_cupti_status("active", gt_cupti_version());
    }
    gt_writer_set_status("python_status", gt_pyframes_init(cfg.pystack_depth));
    gt_writer_set_status("nvtx_status", gt_nvtx_status());
    if (gt_writer_run(cfg.flush_ms, cfg.bulk_after, err, sizeof err) != 0) {
        snprintf(why, sizeof why, "%s; tracing is off", err);
        gt_turn_off(why);
        return 0;
    }
    /* Once per process image: a forked child inherits both, and installing
     * our handler again would make it its own "previous" handler. */
    static int hooks_installed;
    if (!hooks_installed) {
        hooks_installed = 1;
        install_signal_handlers();
        pthread_atfork(gt_writer_fork_prepare, gt_writer_fork_parent, after_fork_child);
    }
    return 1;
}

/* Another thread is activating: wait for it (a few ms, once), so that no
 * call of this thread is lost.  This thread holds no CUDA lock yet, so the
 * activating thread cannot be waiting for it.  Bounded, in case it never
 * finishes. */
static int wait_for_activation(void)
{
    struct timespec pause = { 0, 50 * 1000 };
    for (int i = 0; i < 200000 && atomic_load(&gt_state) == GT_STATE_ACTIVATING; i++)
        nanosleep(&pause, NULL);
    return atomic_load(&gt_state) == GT_STATE_ON;
}

int gt_activate(void)
{
    int s = atomic_load(&gt_state);
    if (s == GT_STATE_ON)
        return 1;
    if (!gt_in_base_namespace()) /* a second copy, in a dlmopen namespace */
        return 0;
    if (s == GT_STATE_ACTIVATING)
        return wait_for_activation();
    if (s != GT_STATE_INIT)
        return 0;
    if (!atomic_compare_exchange_strong(&gt_state, &s, GT_STATE_ACTIVATING))
        return s == GT_STATE_ACTIVATING ? wait_for_activation() : atomic_load(&gt_state) == GT_STATE_ON;
    int saved = errno;
    gt_thread.guard = 1;
    int ok = activate_once();
    gt_thread.guard = 0;
    if (ok)
        atomic_store(&gt_state, GT_STATE_ON);
    else
        atomic_store(&gt_state, GT_STATE_OFF);
    errno = saved;
    return ok;
}

void gt_after_first_call(void)
{
    /* Registered after the first real call returned, so that it runs before
     * the CUDA runtime's own exit-time teardown (atexit is LIFO). */
    static int atexit_registered; /* once per image; a fork child shares it */
    if (!atomic_exchange(&gt_first_call_done, 1) && !atexit_registered) {
        atexit_registered = 1;
        atexit(shutdown_tracer);
    }
}

/* ---- exit status --------------------------------------------------------- */

__attribute__((noreturn)) void exit(int status)
{
    atomic_store(&exit_code, status);
    atomic_store(&exit_code_known, 1);
    void (*real_exit)(int) = (void (*)(int))dlsym(RTLD_NEXT, "exit");
    real_exit(status);
    __builtin_unreachable();
}

/* _exit and _Exit skip atexit handlers; a forked child usually ends with
 * one.  Flush what this process recorded, then end exactly as asked. */
static __attribute__((noreturn)) void quick_exit_path(const char *name, int status)
{
    atomic_store(&exit_code, status);
    atomic_store(&exit_code_known, 1);
    shutdown_tracer();
    void (*real)(int) = (void (*)(int))dlsym(RTLD_NEXT, name);
    real(status);
    __builtin_unreachable();
}

__attribute__((noreturn)) void _exit(int status)
{
    quick_exit_path("_exit", status);
}

__attribute__((noreturn)) void _Exit(int status)
{
    quick_exit_path("_Exit", status);
}

/* exec replaces the image: what this one recorded is flushed first (the new
 * image starts over, with a process row of its own, when it uses CUDA).  If
 * exec fails the program goes on, and so does tracing, from its next call. */
static int exec_path(const char *name, const char *path, char *const argv[], char *const envp[], int with_env)
{
    int traced = atomic_load(&gt_state) == GT_STATE_ON;
    if (traced)
        finish("exec");
    int saved;
    int rc;
    if (with_env) {
        int (*real)(const char *, char *const[], char *const[]) =
            (int (*)(const char *, char *const[], char *const[]))dlsym(RTLD_NEXT, name);
        rc = real(path, argv, envp);
    } else {
        int (*real)(const char *, char *const[]) = (int (*)(const char *, char *const[]))dlsym(RTLD_NEXT, name);
        rc = real(path, argv);
    }
    saved = errno;
    if (traced) { /* still here: exec failed; start over at the next call */
        gt_writer_forget_after_fork();
        gt_tbuf_forget_all_after_fork();
        atomic_store(&gt_state, GT_STATE_INIT);
    }
    errno = saved;
    return rc;
}

int execve(const char *path, char *const argv[], char *const envp[]) { return exec_path("execve", path, argv, envp, 1); }
int execvpe(const char *file, char *const argv[], char *const envp[]) { return exec_path("execvpe", file, argv, envp, 1); }
int execv(const char *path, char *const argv[]) { return exec_path("execv", path, argv, NULL, 0); }
int execvp(const char *file, char *const argv[]) { return exec_path("execvp", file, argv, NULL, 0); }

typedef int (*main_fn)(int, char **, char **);
static main_fn real_main;

static int traced_main(int argc, char **argv, char **envp)
{
    int rc = real_main(argc, argv, envp);
    atomic_store(&exit_code, rc);
    atomic_store(&exit_code_known, 1);
    return rc;
}

/* Interposed so that the value main returns is known at exit. */
int __libc_start_main(main_fn main, int argc, char **argv, void (*init)(void), void (*fini)(void),
                      void (*rtld_fini)(void), void *stack_end)
{
    int (*real)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *) =
        (int (*)(main_fn, int, char **, void (*)(void), void (*)(void), void (*)(void), void *))
            dlsym(RTLD_NEXT, "__libc_start_main");
    real_main = main;
    return real(traced_main, argc, argv, init, fini, rtld_fini, stack_end);
}
