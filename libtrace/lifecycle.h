/* lifecycle.h: what activate.c, signals.c and exec_exit.c share about the
 * life of the traced process: its end, its exit code, and whether this
 * code runs in a vfork child (in the parent's memory, where nothing of the
 * tracer may change).  Everything here is async-signal-safe.
 */
#ifndef GPUTRACE_LIFECYCLE_H
#define GPUTRACE_LIFECYCLE_H

#include "collector/visibility.h"

#include <errno.h>

/* A constructor of the tracer's: NAME's body runs with errno kept, so that
 * the program finds at main what it finds untraced (realpath's readlink
 * of a load-time constructor left EINVAL there: `if (errno) perror()`
 * after a call that succeeded said "Invalid argument", traced only). */
#define GT_CONSTRUCTOR(name)                                                                                           \
    static void name##_body(void);                                                                                     \
    __attribute__((constructor)) static void name(void)                                                                \
    {                                                                                                                  \
        int saved = errno;                                                                                             \
        name##_body();                                                                                                 \
        errno = saved;                                                                                                 \
    }                                                                                                                  \
    static void name##_body(void)

/* How long the end waits for the writer's final pass (it takes
 * milliseconds; the bound is for a writer that is stuck), and from a
 * signal handler, where the writer may wait for a lock the interrupted
 * code holds (malloc's): then the end of the process is late by that. */
#define GT_END_WAIT_MS 10000
#define GT_SIGNAL_END_WAIT_MS 2000

/* Ends tracing for this image with REASON ("exit", "exec"), or waits for an
 * end already under way, up to timeout_ms.  Returns 0 once the database is
 * closed or there was none, -1 otherwise (vfork child, stuck writer). */
GT_INTERNAL int gt_finish(const char *reason, int timeout_ms);
/* The status exit/_exit/main gave, for the process row. */
GT_INTERNAL void gt_note_exit_code(int status);
/* `gputrace record`'s line when its run wrote nothing, from the command's
 * own process as it ends (record_end.c); nothing in any other process. */
GT_INTERNAL void gt_record_end(void);
/* Whether this runs in a vfork child of the traced image. */
GT_INTERNAL int gt_in_vfork_child(void);
/* After an exec that failed (and an end that completed): start over at
 * the next call. */
GT_INTERNAL void gt_restart_after_failed_exec(void);

/* signals.c: our handlers in front of the program's (at activation), and
 * their state in a fork child. */
GT_INTERNAL void gt_signals_install(void);
GT_INTERNAL void gt_signals_after_fork(void);
/* Whether this thread runs a program's handler that on_signal called. */
GT_INTERNAL int gt_in_signal_handler(void);

#endif
