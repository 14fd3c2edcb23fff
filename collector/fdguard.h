/* fdguard.h: the tracer's own descriptors inside the program (the
 * database, its -wal and -shm files, the writer's pipes), and what keeps
 * the tracer from ever using one of them once the program took its number.
 *
 * A program may close every descriptor >= 3 (closefrom, close_range, a
 * close loop) or dup2 over ours, and then open files of its own, which get
 * our numbers.  Writing through a number after that would write into the
 * program's file.  So:
 *   - every descriptor of ours is registered with its identity (st_dev,
 *     st_ino);
 *   - the wrappers of close, close_range, closefrom, dup2 and dup3
 *     (libtrace/wrap_fd.c) call gt_fd_before_close first: when the range
 *     holds one of ours, the descriptors are revoked (gt_fd_enter fails from
 *     then on) and the wrapper waits until no thread of the tracer is
 *     inside a use of them, and only then does the program's close happen;
 *   - every use of our descriptors (SQLite work, a pipe read or write) sits
 *     between gt_fd_enter and gt_fd_leave;
 *   - the writer also compares each one's identity with fstat before each
 *     pass (gt_fd_intact), for a number replaced some way no wrapper sees
 *     (a raw system call).
 * Then the writer says one line, turns tracing off and releases the
 * descriptors that are still ours (gt_fd_release), never the others.
 *
 * Entry states: FREE -> OURS (registered) -> TAKEN (the program closed or
 * replaced it) or RELEASING (the tracer closes it) -> FREE.  Lock-free and
 * async-signal-safe: close may be called from a signal handler.
 */
#ifndef GPUTRACE_FDGUARD_H
#define GPUTRACE_FDGUARD_H

/* The close the tracer's own descriptors are closed with: libtrace hands
 * in the C library's own (at activation, before any descriptor is ours).
 * Not the program-facing close: that is libtrace's wrapper, or a
 * definition before or after it (the program's, a preloaded descriptor
 * tracker's), which would see the tracer close a descriptor the program
 * never had.  Until one is handed in, or if NULL, the close system call. */
void gt_fd_use_close(int (*sys_close)(int));
/* A program started with fd 0, 1 or 2 closed (a batch system's, a
 * daemon's) keeps them closed traced: a descriptor of ours made while
 * they are free would take their numbers (read(0) returned EAGAIN from
 * our pipe where it was EBADF, the program's next open got fd 9 where it
 * got 0), and SQLite puts /dev/null on a free one for good rather than
 * open its file there.  Around the making of ours, the free ones are held
 * on /dev/null, then closed again.  Returns which were held; keeps errno. */
int gt_fd_hold_std(void);
void gt_fd_release_std(int held);
/* Registers fd as ours.  Returns 0, or -1 if the table is full. */
int gt_fd_add(int fd);
/* Closes fd, registered by gt_fd_add, unless the program took it (then
 * it is forgotten, not closed, and -1 is returned). */
int gt_fd_close(int fd);
/* Registers every descriptor of the process open on the file at path
 * (the files SQLite opened for it); a missing file is no error. */
void gt_fd_add_file(const char *path);
/* Around every use of our descriptors: enter returns 1 (use them, then
 * leave) or 0 (they are revoked: do not touch them). */
int gt_fd_enter(void);
void gt_fd_leave(void);
/* Whether our descriptors were revoked (the program took one). */
int gt_fd_revoked(void);
/* Whether the program took one of ours (not: the tracer released them). */
int gt_fd_taken(void);
/* Writer side, outside enter/leave: 1 if every registered descriptor still
 * is the file it was; otherwise marks the changed ones taken, revokes, and
 * returns 0. */
int gt_fd_intact(void);
/* The wrappers' side: the program is about to close (or dup over) the
 * descriptors in [lo, hi].  Keeps errno. */
void gt_fd_before_close(unsigned lo, unsigned hi);
/* Revokes (waiting for users to leave), then calls close_sqlite (which
 * closes the database, if the program took none of ours: NULL otherwise),
 * then closes every descriptor still registered as ours.  Idempotent. */
void gt_fd_release(void (*close_sqlite)(void));
/* Marks the calling thread as the tracer's (the writer; the activating or
 * exiting thread while it runs SQLite): its closes are not the program's. */
void gt_fd_set_self(int on);
/* In a forked child: the parent's descriptors are not ours to guard. */
void gt_fd_forget_after_fork(void);

#endif
