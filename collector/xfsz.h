/* xfsz.h: SQLite work for the tracer on a program thread, with SIGXFSZ
 * kept from the program.
 *
 * A file-size limit (RLIMIT_FSIZE) reached by the tracer is a full disk:
 * SIGXFSZ goes to the thread that wrote.  The writer thread blocks every
 * signal; a program thread running SQLite for us (activation, the end)
 * blocks SIGXFSZ between begin and end, and takes back a SIGXFSZ of ours
 * left pending, so that the program neither dies of it nor sees it (one
 * that was pending for the program before is left alone).
 */
#ifndef GPUTRACE_XFSZ_H
#define GPUTRACE_XFSZ_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>

struct xfsz_quiet { sigset_t old; int was_pending; };

static inline void xfsz_quiet_begin(struct xfsz_quiet *q)
{
    sigset_t x, pending;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    pthread_sigmask(SIG_BLOCK, &x, &q->old);
    q->was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ);
}

static inline void xfsz_quiet_end(struct xfsz_quiet *q)
{
    sigset_t x, pending;
    sigemptyset(&x);
    sigaddset(&x, SIGXFSZ);
    if (!q->was_pending && sigpending(&pending) == 0 && sigismember(&pending, SIGXFSZ)) {
        struct timespec zero = { 0, 0 };
        int saved = errno;
        (void)sigtimedwait(&x, NULL, &zero);
        errno = saved;
    }
    pthread_sigmask(SIG_SETMASK, &q->old, NULL);
}

#endif
