/* signals.c: the tracer's signal handler in front of the program's own.
 *
 * From activation on, for each signal that can end the process (SIGTERM,
 * SIGINT, SIGHUP, SIGQUIT and the fatal ones), the kernel runs on_signal,
 * which flushes what the process recorded when the signal may end it and
 * then does what the program asked for.  The program must see no
 * difference, so:
 *   - sigaction/signal are wrapped for these signals: the program's action
 *     is kept here (`prog`), sigaction(sig, NULL, &old) reports it, and the
 *     kernel gets on_signal with the program's own sa_mask and flags
 *     (SA_RESTART, SA_NODEFER, SA_ONSTACK): a read() the program wants
 *     interrupted is interrupted, the handler runs with the mask it asked for;
 *   - SA_RESETHAND is done here, on entry, as the kernel would (the
 *     program's action becomes SIG_DFL), so that the next delivery still
 *     passes through on_signal and is recorded before it kills;
 *   - SIG_IGN goes to the kernel as is: an ignored signal interrupts
 *     nothing and stays ignored across exec;
 *   - a fault the program handles itself (guard pages, JIT runtimes) is
 *     chained to its handler with no flush: only a fault on its way to the
 *     default action (death) is flushed.
 * All of it is async-signal-safe: the flush is a byte in the writer's pipe
 * and a bounded wait, the tables are guarded by a spinlock taken with every
 * signal blocked.
 */
#define _GNU_SOURCE
#include "libtrace/trace.h"
#include "collector/writer.h"
#include "libtrace/lifecycle.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>

static const int handled_signals[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NSIG_HANDLED (sizeof handled_signals / sizeof *handled_signals)

/* The program's actions, as it set them (or as they were at activation).
 * Guarded by `lock`, which is taken only with every signal blocked, so a
 * handler never spins on a lock its own thread holds. */
static struct sigaction prog[NSIG_HANDLED];
/* the kernel's flag for the C library's signal return (not in the
 * program-facing headers: glibc sets it itself) */
#define GT_SA_RESTORER 0x04000000
static atomic_flag lock = ATOMIC_FLAG_INIT;
static _Atomic int hooked; /* on_signal is installed; sigaction goes through prog */

int __sigaction(int sig, const struct sigaction *act, struct sigaction *old); /* glibc's, exported */

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
typedef sighandler_t (*signal_fn)(int, sighandler_t);
static sigaction_fn real_sigaction_p;
static signal_fn real_signal_p, real_sysv_signal_p, real_bsd_signal_p;

/* Resolved at load time: dlsym is not async-signal-safe, and sigaction may
 * be called from a handler (or in a vfork child) before anything else. */
GT_CONSTRUCTOR(resolve_real)
{
    real_sigaction_p = (sigaction_fn)dlsym(RTLD_NEXT, "sigaction");
    real_signal_p = (signal_fn)dlsym(RTLD_NEXT, "signal");
    real_sysv_signal_p = (signal_fn)dlsym(RTLD_NEXT, "sysv_signal");
    real_bsd_signal_p = (signal_fn)dlsym(RTLD_NEXT, "bsd_signal");
}

/* Before our constructor ran (another library's constructor), resolved
 * then. */
static void resolve_late(void)
{
    if (!real_sigaction_p)
        resolve_real();
}

static int real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    resolve_late();
    if (!real_sigaction_p)
        return __sigaction(sig, act, old);
    return real_sigaction_p(sig, act, old);
}

static int slot_of(int sig)
{
    for (size_t i = 0; i < NSIG_HANDLED; i++)
        if (handled_signals[i] == sig)
            return (int)i;
    return -1;
}

static int is_fault(int sig)
{
    return sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL;
}

static int is_fatal(int sig)
{
    return is_fault(sig) || sig == SIGABRT;
}

static int is_dfl(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_DFL;
}

static int is_ign(const struct sigaction *a)
{
    return !(a->sa_flags & SA_SIGINFO) && a->sa_handler == SIG_IGN;
}

static void lock_tables(sigset_t *saved)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, saved);
    while (atomic_flag_test_and_set_explicit(&lock, memory_order_acquire))
        ;
}

static void unlock_tables(const sigset_t *saved)
{
    atomic_flag_clear_explicit(&lock, memory_order_release);
    pthread_sigmask(SIG_SETMASK, saved, NULL);
}

static void on_signal(int sig, siginfo_t *si, void *uc);

/* Program handlers on_signal is running on this thread: _exit, exit and
 * exec called from one wait less for the writer (lifecycle.h).  A handler
 * that leaves by siglongjmp leaves it counted: that thread's end then
 * waits less, as if in a handler, which loses at most CUPTI's last
 * records. */
static GT_TLS int handler_depth;

int gt_in_signal_handler(void)
{
    return handler_depth > 0;
}

/* What the kernel gets for the program's action A (tables locked). */
static int apply(int i, const struct sigaction *a)
{
    struct sigaction k;
    if (is_ign(a)) {
        k = *a;
    } else {
        memset(&k, 0, sizeof k);
        k.sa_sigaction = on_signal;
        k.sa_mask = a->sa_mask;
        k.sa_flags = SA_SIGINFO | (a->sa_flags & (SA_RESTART | SA_NODEFER | SA_ONSTACK));
    }
    if (real_sigaction(handled_signals[i], &k, NULL) != 0)
        return -1;
    prog[i] = *a;
    /* as the kernel would keep the program's action, for sigaction to
     * read back: the C library's restorer among its flags, and no SIGKILL
     * or SIGSTOP in its mask (read back as passed, a program comparing
     * flags or masks saw them differ, traced only) */
    struct sigaction seen;
    if (real_sigaction(handled_signals[i], NULL, &seen) == 0) {
        prog[i].sa_flags = (a->sa_flags & ~GT_SA_RESTORER) | (seen.sa_flags & GT_SA_RESTORER);
#if defined(__x86_64__) || defined(__i386__)
        prog[i].sa_restorer = seen.sa_restorer;
#endif
        sigdelset(&prog[i].sa_mask, SIGKILL);
        sigdelset(&prog[i].sa_mask, SIGSTOP);
    }
    return 0;
}

/* The flush before the process may end (async-signal-safe). */
static void flush_before_end(int sig, int dies)
{
    if (atomic_load(&gt_state) != GT_STATE_ON || gt_writer_is_self() || gt_in_vfork_child())
        return;
    if (dies)
        gt_writer_note_signal(sig);
    gt_writer_flush_from_signal(is_fatal(sig) ? 1000 : 3000, dies);
}

static void on_signal(int sig, siginfo_t *si, void *uc)
{
    int saved_errno = errno;
    int i = slot_of(sig);
    if (i < 0)
        return;
    sigset_t saved;
    lock_tables(&saved);
    struct sigaction a = prog[i];
    if ((a.sa_flags & SA_RESETHAND) && !is_dfl(&a) && !is_ign(&a)) {
        /* on entry, as the kernel does: the next one gets the default */
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        apply(i, &dfl);
    }
    unlock_tables(&saved);

    if (is_dfl(&a)) {
        /* the default action, exactly as without the tracer: death */
        flush_before_end(sig, 1);
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigemptyset(&dfl.sa_mask);
        real_sigaction(sig, &dfl, NULL);
        /* a fault comes back when the handler returns; a sent one is sent again */
        if (!is_fault(sig) || si->si_code <= 0)
            raise(sig);
    } else if (!is_ign(&a)) {
        /* the program's handler may end the process (exit, _exit, return
         * to abort()'s default): flush first, except for a fault, which
         * runtimes take by the thousand for their own work */
        if (!is_fault(sig))
            flush_before_end(sig, 0);
        errno = saved_errno;
        handler_depth++;
        if (!(a.sa_flags & SA_SIGINFO))
            a.sa_handler(sig);
        else if (a.sa_sigaction)
            a.sa_sigaction(sig, si, uc);
        handler_depth--;
    }
    errno = saved_errno;
}

void gt_signals_install(void)
{
    atomic_store(&hooked, 1);
    for (size_t i = 0; i < NSIG_HANDLED; i++) {
        struct sigaction cur;
        sigset_t saved;
        lock_tables(&saved);
        /* (one the program set meanwhile, through sigaction, is in already) */
        if (real_sigaction(handled_signals[i], NULL, &cur) == 0 &&
            !((cur.sa_flags & SA_SIGINFO) && cur.sa_sigaction == on_signal)) {
            prog[i] = cur;
            if (!is_ign(&cur)) /* an ignored signal stays ignored, in the kernel */
                apply((int)i, &cur);
        }
        unlock_tables(&saved);
    }
}

void gt_signals_after_fork(void)
{
    /* a thread of the parent may have held it at the fork */
    atomic_flag_clear(&lock);
}

int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
    int i = slot_of(sig);
    if (i < 0 || !atomic_load(&hooked))
        return real_sigaction(sig, act, old);
    struct sigaction a;
    if (act)
        a = *act; /* act and old may be the same struct */
    if (gt_in_vfork_child()) {
        /* the parent's memory: the child (about to exec) sets its own
         * kernel action, and the parent's record of the program's stays */
        struct sigaction prev = prog[i];
        int rc = act ? real_sigaction(sig, &a, NULL) : 0;
        if (rc == 0 && old)
            *old = prev;
        return rc;
    }
    sigset_t saved;
    lock_tables(&saved);
    struct sigaction prev = prog[i];
    int rc = act ? apply(i, &a) : 0;
    int err = errno;
    unlock_tables(&saved);
    if (rc == 0 && old)
        *old = prev;
    errno = err;
    return rc;
}

/* signal() and its variants, with the flags glibc gives each. */
static sighandler_t signal_with(int sig, sighandler_t handler, int flags, int mask_self)
{
    struct sigaction sa, old;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = handler;
    sa.sa_flags = flags;
    sigemptyset(&sa.sa_mask);
    if (mask_self)
        sigaddset(&sa.sa_mask, sig);
    if (sigaction(sig, &sa, &old) != 0)
        return SIG_ERR;
    return (old.sa_flags & SA_SIGINFO) ? (sighandler_t)(void (*)(void))old.sa_sigaction : old.sa_handler;
}

sighandler_t signal(int sig, sighandler_t handler)
{
    if (slot_of(sig) < 0 || !atomic_load(&hooked) || handler == SIG_ERR)
    {
        resolve_late();
        return real_signal_p ? real_signal_p(sig, handler) : SIG_ERR;
    }
    return signal_with(sig, handler, SA_RESTART, 1);
}

/* glibc declares it only for older standards' feature macros. */
sighandler_t bsd_signal(int sig, sighandler_t handler);
sighandler_t bsd_signal(int sig, sighandler_t handler)
{
    if (slot_of(sig) < 0 || !atomic_load(&hooked) || handler == SIG_ERR)
    {
        resolve_late();
        return real_bsd_signal_p ? real_bsd_signal_p(sig, handler) : SIG_ERR;
    }
    return signal_with(sig, handler, SA_RESTART, 1);
}

sighandler_t sysv_signal(int sig, sighandler_t handler)
{
    if (slot_of(sig) < 0 || !atomic_load(&hooked) || handler == SIG_ERR)
    {
        resolve_late();
        return real_sysv_signal_p ? real_sysv_signal_p(sig, handler) : SIG_ERR;
    }
    return signal_with(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}
