/* activate.c: start-up and shutdown of the tracer inside the program.
 *
 * Nothing happens at load time: the first wrapped CUDA or NCCL call
 * activates (config, database, CUPTI, writer thread), once; a launcher that
 * never touches a GPU pays nothing and leaves no file.  If activation fails
 * (unwritable output, ...) one line says why and the program runs on
 * untraced.  The end (gt_finish) is asked of the writer thread, so that it
 * can be asked from a signal handler; signals.c chains to the program's
 * handlers, exec_exit.c wraps exit, _exit and exec.  After fork the child
 * starts over.
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "collector/say.h"
#include "libtrace/trace.h"
#include "collector/config.h"
#include "collector/monitor.h"
#include "collector/cupti_sub.h"
#include "common/printable.h"
#include "collector/fdguard.h"
#include "collector/pyframes.h"
#include "collector/writer.h"
#include "libtrace/lifecycle.h"
#include "libtrace/nvtx_inject.h"
#include "libtrace/nccl_profiler.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

_Atomic int gt_first_call_done;
GT_TLS struct gt_record gt_scratch[2];
int gt_stack_depth;

static struct gt_config cfg;
static _Atomic int exit_code_known, exit_code;

/* the pid of the image that activated: another pid with tracing on is a
 * vfork child, running in this image's memory */
static _Atomic int image_pid;

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

void gt_note_exit_code(int status)
{
    atomic_store(&exit_code, status);
    atomic_store(&exit_code_known, 1);
}

int gt_in_vfork_child(void)
{
    int owner = atomic_load(&image_pid);
    return owner != 0 && owner != (int)getpid();
}

/* 0: tracing not ended; 1: a thread is ending it; 2: ended; 3: the end
 * was not waited for to its close (a stuck writer, or a signal).  The first
 * thread to set it does the end; any other (exit from two threads at once)
 * waits for that end, so that none ends the process before it is stored. */
static _Atomic int finishing;

int gt_finish(const char *reason, int timeout_ms)
{
    if (gt_in_vfork_child())
        return -1; /* the parent's tracer, in the parent's memory: not ours to end */
    int in_signal = gt_in_signal_handler();
    if (in_signal && timeout_ms > GT_SIGNAL_END_WAIT_MS)
        timeout_ms = GT_SIGNAL_END_WAIT_MS;
    int f = 0;
    if (!atomic_compare_exchange_strong(&finishing, &f, 1)) {
        struct timespec pause = { 0, 1000 * 1000 };
        for (int i = 0; i < timeout_ms && atomic_load(&finishing) == 1; i++)
            nanosleep(&pause, NULL);
        return atomic_load(&finishing) == 2 ? 0 : -1;
    }
    int saved = errno;
    gt_thread.guard = 1;
    int s = GT_STATE_ON;
    struct gt_end_info end = { atomic_load(&exit_code), 0, reason, gt_nvtx_status() };
    int rc = atomic_compare_exchange_strong(&gt_state, &s, GT_STATE_OFF)
                 ? gt_writer_stop(&end, timeout_ms, in_signal)
                 : gt_writer_stop(NULL, timeout_ms, in_signal); /* off after a failure: what is left of it */
    gt_thread.guard = 0;
    atomic_store(&finishing, rc == 0 ? 2 : 3);
    errno = saved;
    return rc;
}

static void shutdown_tracer(void)
{
    gt_finish(atomic_load(&exit_code_known) ? "exit" : "exit (code unknown)", GT_END_WAIT_MS);
}

static void after_fork_child(void)
{
    atomic_store(&image_pid, 0);
    atomic_store(&finishing, 0);
    gt_signals_after_fork();
    gt_tbuf_forget_all_after_fork();
    gt_writer_forget_after_fork();
    gt_tbuf_recount_after_fork(); /* the queue let go: the budget is the rings' */
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
    atomic_store(&image_pid, (int)getpid());
    gt_config_load(&cfg, rank);
    gt_say_quiet(cfg.quiet);
    gt_clock_init(cfg.force_mono_clock);
    gt_tbuf_configure(cfg.buffer_bytes);
    gt_stack_depth = cfg.callstack_depth;
    if (gt_stack_depth)
        gt_callsite_warm_up();

    char host[GT_HOST_MAX + 1], cmdline[4096], run_id[160];
    gt_config_host(host, sizeof host); /* as the file names have it */
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
        .output_layout = cfg.layout, .packed_blocks = cfg.packed_blocks,
    };
    char err[512], why[5200];
    struct gt_mon_cfg mon;
    gt_mon_config_load(&mon, cfg.output);
    mon.quiet = cfg.quiet;
    gt_mon_configure(&mon);
    p.monitor = mon.on;
    if (gt_writer_open(cfg.output, &p, err, sizeof err) != 0) {
        char shown[4096];
        snprintf(why, sizeof why, "cannot write %s: %s; tracing is off, the program runs on",
                 gt_printable(cfg.output, shown, sizeof shown), err);
        gt_turn_off(why);
        return 0;
    }
    if (!cfg.cupti) {
        gt_writer_set_cupti_status("off (GPUTRACE_CUPTI=0)", 0);
    } else if (gt_cupti_start(cfg.cupti_lib, why, sizeof why) != 0) {
        if (!cfg.quiet)
            gt_say("%s; recording host-side records only", why);
        gt_writer_set_cupti_status(why, gt_cupti_version());
    } else {
        gt_writer_set_cupti_status("active", gt_cupti_version());
        if (gt_cupti_stamps_ours()) { /* one clock map for both: the report needs no offset between them */
            char cs[64];
            snprintf(cs, sizeof cs, "%s+cupti", gt_clock_source());
            gt_writer_set_status("clock_source", cs);
        }
    }
    gt_writer_set_status("python_status", gt_pyframes_init(cfg.pystack_depth));
    gt_writer_set_status("nvtx_status", gt_nvtx_status());
    gt_writer_set_status("nccl_plugin_status", gt_nccl_plugin_status());
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
        gt_signals_install();
        pthread_atfork(gt_writer_fork_prepare, gt_writer_fork_parent, after_fork_child);
    }
    return 1;
}

/* The collector's own closes and dl look-ups go to the C library's
 * functions, handed down from here, not to the program-facing ones (our
 * wrappers, or the program's): the collector sits below the wrappers. */
/* CUPTI's entry points as the tracer looks them up: a name the program's
 * scope resolves to our own wrapper (wrap_cupti.c) is CUPTI's next
 * definition, not ours. */
static void *cupti_sym(void *handle, const char *name)
{
    void *p = gt_sys_dlsym(handle, name);
    if (p && handle == RTLD_DEFAULT && gt_is_ours(p))
        p = gt_sys_dlsym(RTLD_NEXT, name);
    return p;
}

static void hand_down_system_calls(void)
{
    gt_fd_use_close(gt_sys_close_lookup());
    gt_cupti_use_dl(cupti_sym, gt_sys_dlclose);
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
    gt_dlerror_keep(); /* the program's pending dlerror() survives what activation looks up */
    hand_down_system_calls();
    int ok = activate_once();
    gt_dlerror_clear();
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

void gt_restart_after_failed_exec(void)
{
    /* the same image goes on: tracing starts over, as a process row of its
     * own, at the next call (the writer's final pass ended, so nothing of
     * the old one runs).  The rings stay: unlike after fork, their threads
     * live on and keep writing them (marked free, a new thread could take
     * one that another still writes); the final pass drained them. */
    gt_writer_forget_after_fork();
    atomic_store(&finishing, 0);
    atomic_store(&gt_state, GT_STATE_INIT);
}
