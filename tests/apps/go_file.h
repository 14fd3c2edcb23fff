/* go_file.h: the handshake of the tests of the tracer's writer held up
 * (tests/e2e/hold_lock.py's GO): a program waits for a go-file, created
 * once the database's lock is held, before the calls the hold-up must
 * meet, and says with PATH.done when they are made.  A handshake, not a
 * sleep: a lock taken "N seconds from whenever the process row showed"
 * met a fast run's calls after most of them were made (tracer_stress.sh). */
#ifndef GPUTRACE_TESTS_GO_FILE_H
#define GPUTRACE_TESTS_GO_FILE_H

#include <stdio.h>
#include <unistd.h>

/* Waits (60 s at most) for the file path; none (NULL): no wait. */
static inline void go_wait(const char *path)
{
    for (int i = 0; path && i < 60000 && access(path, F_OK) != 0; i++)
        usleep(1000);
}

/* Creates path.done (none: nothing); 0, or -1 when it could not be made. */
static inline int go_done(const char *path)
{
    if (!path)
        return 0;
    char done[4096];
    snprintf(done, sizeof done, "%s.done", path);
    FILE *f = fopen(done, "w");
    if (!f)
        return -1;
    fclose(f);
    return 0;
}

#endif
