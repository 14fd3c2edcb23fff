/* ask.c: `gputrace dump RUN` and `gputrace capture RUN --seconds N`: a
 * request in a monitored run's directory (collector/requests.h), which
 * every traced process's writer thread sees within a second or two and
 * answers with its window (docs/monitor.md).  No signal, no connection:
 * the run directory is all the processes share. */
#define _GNU_SOURCE
#include "cli/ask.h"
#include "collector/config.h"
#include "collector/requests.h"
#include "common/printable.h"
#include "format/ours.h"
#include "format/rundir.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static const char dump_usage[] =
    "usage: gputrace dump RUN [--wait SECONDS]\n"
    "       gputrace capture RUN --seconds N [--wait SECONDS]\n"
    "\n"
    "Asks every process of a run recorded with `gputrace record --monitor` for\n"
    "its window: dump, the last GPUTRACE_WINDOW_S seconds of full records now;\n"
    "capture, full records from two seconds from now for N seconds, on every\n"
    "rank from the same wall-clock instant.  Each process writes its window as\n"
    "RUN/window-<request>/<host>-<pid>.db, which gputrace-report reads as a run.\n"
    "--wait: wait up to SECONDS for the windows and say how many came.\n";

static int64_t wall_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int count_db(const char *dir)
{
    char **v;
    int n = gt_rundir_list(dir, &v);
    if (n > 0)
        gt_rundir_free(v, n);
    return n < 0 ? 0 : n;
}

/* Waits until the window holds a file per process of the run, or until
 * seconds have passed; says what came. */
static int wait_for(const char *run, const char *dir, int seconds)
{
    int want = count_db(run), got = 0;
    for (int64_t end = wall_ms() + (int64_t)seconds * 1000; wall_ms() < end; ) {
        got = count_db(dir);
        if (got >= want)
            break;
        struct timespec t = { 0, 100 * 1000 * 1000 };
        nanosleep(&t, NULL);
    }
    got = count_db(dir);
    printf("%d of %d process(es) wrote their window in %s\n", got, want, dir);
    return got > 0 ? 0 : 1;
}

int gt_ask_unmonitored(const char *cmd, const char *run)
{
    /* a run recorded in full: no process reads requests or writes metrics,
     * and every record is in its files already (a request there was
     * answered by no one, exit 0); a run none of whose processes has made
     * its file yet may still be a monitored one */
    char **v = NULL;
    int n = gt_rundir_list(run, &v), monitored = 0, ours = 0;
    for (int k = 0; k < n && !monitored; k++) {
        int has = 0;
        ours += gt_ours_db_mark(v[k], "mode", &has);
        monitored = has;
    }
    gt_rundir_free(v, n > 0 ? n : 0);
    if (!ours || monitored)
        return 0;
    char shown[GT_PRINTABLE_LEN];
    fprintf(stderr, "gputrace %s: %s was not recorded with --monitor: no process of it answers a request or writes"
            " metrics, and its files hold every record already (gputrace-report %s)\n", cmd,
            gt_printable(run, shown, sizeof shown), shown);
    return 1;
}

int gt_ask_main(const char *cmd, int argc, char **argv)
{
    int capture = strcmp(cmd, "capture") == 0, seconds = 0, wait = -1;
    const char *run = NULL;
    for (int i = 0; i < argc; i++) {
        char *end;
        if ((strcmp(argv[i], "--seconds") == 0 || strcmp(argv[i], "--wait") == 0) && i + 1 < argc) {
            int is_seconds = strcmp(argv[i], "--seconds") == 0, least = is_seconds ? 1 : 0;
            long v = strtol(argv[i + 1], &end, 10);
            if (*end || v < least || v > 3600) {
                fprintf(stderr, "gputrace %s: %s takes a number of seconds in %d..3600\n", cmd, argv[i], least);
                return 2;
            }
            if (is_seconds)
                seconds = (int)v;
            else
                wait = (int)v;
            i++;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(dump_usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' || run) {
            char shown[GT_PRINTABLE_LEN];
            fprintf(stderr, "gputrace %s: unexpected '%s'\n%s", cmd, gt_printable(argv[i], shown, sizeof shown), dump_usage);
            return 2;
        } else {
            run = argv[i];
        }
    }
    if (!run || (capture && !seconds)) {
        fprintf(stderr, "gputrace %s: %s\n%s", cmd, run ? "--seconds N is needed" : "no run directory given", dump_usage);
        return 2;
    }
    struct stat st;
    char shown[GT_PRINTABLE_LEN];
    if (stat(run, &st) != 0 || !S_ISDIR(st.st_mode)) {
        fprintf(stderr, "gputrace %s: %s is not a run directory (%s)\n", cmd, gt_printable(run, shown, sizeof shown),
                stat(run, &st) != 0 ? strerror(errno) : "not a directory");
        return 1;
    }
    if (gt_ask_unmonitored(cmd, run))
        return 1;
    char host[GT_HOST_MAX + 1], who[GT_HOST_MAX + 40], detail[128], name[GT_REQUEST_NAME_MAX], err[4800];
    gt_config_host(host, sizeof host);
    snprintf(who, sizeof who, "cli-%s-%d", host, (int)getpid());
    int64_t now = wall_ms();
    if (capture)
        snprintf(detail, sizeof detail, "start_ms=%lld seconds=%d", (long long)(now + 2000), seconds);
    if (gt_request_make(run, now, capture ? "capture" : "request", who, capture ? detail : NULL, name, sizeof name,
                        err, sizeof err) != 0) {
        fprintf(stderr, "gputrace %s: %s\n", cmd, err);
        return 1;
    }
    char dir[4400];
    snprintf(dir, sizeof dir, "%s/window-%s", run, name);
    if (capture)
        printf("asked every process of %s to record in full for %d s from 2 s from now: windows in %s\n",
               gt_printable(run, shown, sizeof shown), seconds, dir);
    else
        printf("asked every process of %s for its window: %s\n", gt_printable(run, shown, sizeof shown), dir);
    return wait >= 0 ? wait_for(run, dir, wait + (capture ? seconds + 2 : 0)) : 0;
}
