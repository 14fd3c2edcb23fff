/* requests.h: how the processes of a monitored run ask each other for
 * windows (docs/monitor.md): a file in the run directory's requests/
 * folder, no network service and no signal of ours.  A request's name is
 * <unix ms>-<reason>-<who>; its text, one line, the detail (a capture's
 * "start_ms=M seconds=N").  The name is the window's id: every process
 * writes its window for it into window-<name>/ in the run directory.
 * `gputrace dump` and `gputrace capture` (cli/) make them the same way.
 * Plain C, no state: the monitor (monitor.c) keeps what it has handled. */
#ifndef GPUTRACE_REQUESTS_H
#define GPUTRACE_REQUESTS_H

#include <stddef.h>
#include <stdint.h>

#define GT_REQUESTS_DIR "requests"
#define GT_REQUEST_NAME_MAX 160

struct gt_request {
    char name[GT_REQUEST_NAME_MAX];
    int64_t at_ms;   /* when it was made (CLOCK_REALTIME, ms): the name's first field */
    char reason[32]; /* the name's second field */
    char detail[256];
};

/* Makes a request in rundir: reason (letters only), who (the maker, as a
 * file name has it), detail (one line or NULL).  Returns 0 with its name
 * in out (may be NULL), or -1 with a one-line reason in err. */
int gt_request_make(const char *rundir, int64_t at_ms, const char *reason, const char *who, const char *detail,
                    char *out, size_t outlen, char *err, size_t errlen);
/* The earliest request made after after_ms, into *r: 1 if there is one,
 * 0 if none, -1 if the folder cannot be read. */
int gt_request_next(const char *rundir, int64_t after_ms, struct gt_request *r);
/* The latest request of reason (made by anyone) in rundir: its time, or
 * 0 if none. */
int64_t gt_request_latest(const char *rundir, const char *reason);
/* Parses a request's name; 0 if it is one. */
int gt_request_parse(const char *name, struct gt_request *r);

#endif
