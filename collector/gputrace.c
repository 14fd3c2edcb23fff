/* gputrace.c: the `gputrace` command.
 *
 *   gputrace record [-o FILE] [-f] [--] command args...
 *   gputrace expand FILE
 *
 * Runs the command with libgputrace.so preloaded (LD_PRELOAD reaches every
 * process it starts: torchrun, mpirun, bash...), a run id shared by all of
 * them, and the output path; waits for it; and exits with its status (or
 * dies of the same signal).  An existing output is kept unless -f.
 * `expand` turns calls, NVTX ranges and CUPTI records stored in bulk into
 * rows (expand.c).
 */
#include "collector/expand.h"

#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_LIBDIR
#define GT_LIBDIR "/usr/local/lib"
#endif

static const char usage_text[] =
    "usage: gputrace record [-o FILE] [-f] [--] command [args...]\n"
    "       gputrace expand FILE      calls, NVTX ranges and CUPTI records stored in bulk under load -> rows (SQL)\n"
    "       gputrace --help | --version\n"
    "\n"
    "Traces every CUDA/NCCL process that `command` starts into FILE (SQLite).\n"
    "\n"
    "options:\n"
    "  -o FILE   output database (default gputrace.db); %h host, %p pid, %r rank\n"
    "            give one file per host, process or rank\n"
    "  -f        overwrite FILE if it exists\n"
    "\n"
    "environment (read by the traced processes):\n"
    "  GPUTRACE_CUPTI=0|1       GPU activity through CUPTI (default 1)\n"
    "  GPUTRACE_CALLSTACKS=N    call-stack depth for syncs, copies, frees, NCCL (default 8, 0 = off)\n"
    "  GPUTRACE_PYSTACKS=N      Python frames with each call stack, when the thread holds the GIL (default 16, 0 = off)\n"
    "  GPUTRACE_FLUSH_MS=N      commit interval of the writer (default 200)\n"
    "  GPUTRACE_BUFFER_MB=N     most a thread's record buffer grows to (default 2)\n"
    "  GPUTRACE_QUIET=1         no messages except errors\n"
    "  GPUTRACE_BULK_AFTER=N    records waiting before calls, NVTX ranges and CUPTI records go in bulk (default 4096, 0 = always)\n"
    "  GPUTRACE_CUPTI_LIB=PATH  libcupti to load\n"
    "  GPUTRACE_CLOCK=monotonic read clock_gettime instead of the invariant TSC\n"
    "  (GPUTRACE_OUTPUT, GPUTRACE_RUN_ID and GPUTRACE_LAUNCHER are set by this command; see README.md)\n"
    "  GPUTRACE_LIB=PATH        libgputrace.so to preload (default: the installed one)\n";

static pid_t child;

static void forward(int sig)
{
    if (child > 0)
        kill(child, sig);
}

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

/* The tracer library: $GPUTRACE_LIB, next to this program once installed,
 * the configured libdir, or the build tree's .libs/. */
static int find_library(char *out, size_t len)
{
    const char *env = getenv("GPUTRACE_LIB");
    if (env && *env) {
        snprintf(out, len, "%s", env);
        return exists(out) ? 0 : -1;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = 0;
        char *dir = dirname(exe);
        const char *cands[] = { "%s/../lib/libgputrace.so", "%s/.libs/libgputrace.so", "%s/../.libs/libgputrace.so" };
        for (size_t i = 0; i < sizeof cands / sizeof *cands; i++) {
            snprintf(out, len, cands[i], dir);
            if (exists(out)) {
                char real[PATH_MAX];
                if (realpath(out, real))
                    snprintf(out, len, "%s", real);
                return 0;
            }
        }
    }
    snprintf(out, len, "%s/libgputrace.so", GT_LIBDIR);
    return exists(out) ? 0 : -1;
}

static int record(int argc, char **argv)
{
    const char *output = "gputrace.db";
    int force = 0, i;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
        } else if (strcmp(argv[i], "-f") == 0) {
            force = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage_text, stdout);
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "gputrace record: unknown option '%s'\n%s", argv[i], usage_text);
            return 2;
        } else {
            break;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "gputrace record: no command given\n%s", usage_text);
        return 2;
    }
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib) != 0) {
        fprintf(stderr, "gputrace record: libgputrace.so not found (looked for %s); set GPUTRACE_LIB\n", lib);
        return 2;
    }
    char abs_out[2 * PATH_MAX];
    if (output[0] == '/') {
        snprintf(abs_out, sizeof abs_out, "%s", output);
    } else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            perror("gputrace record: getcwd");
            return 2;
        }
        snprintf(abs_out, sizeof abs_out, "%s/%s", cwd, output);
    }
    if (exists(abs_out)) {
        if (!force) {
            fprintf(stderr, "gputrace record: %s exists; use -f to overwrite it\n", output);
            return 2;
        }
        const char *sfx[] = { "", "-wal", "-shm" };
        for (size_t k = 0; k < 3; k++) {
            char p[2 * PATH_MAX + 8];
            snprintf(p, sizeof p, "%s%s", abs_out, sfx[k]);
            if (unlink(p) != 0 && errno != ENOENT) {
                fprintf(stderr, "gputrace record: cannot remove %s: %s\n", p, strerror(errno));
                return 2;
            }
        }
    }
    char preload[4 * PATH_MAX];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? " " : "", old && *old ? old : "");
    char host[128], run_id[256];
    if (gethostname(host, sizeof host) != 0)
        strcpy(host, "host");
    host[sizeof host - 1] = 0;
    snprintf(run_id, sizeof run_id, "%s-%d-%ld", host, (int)getpid(), (long)time(NULL));
    setenv("LD_PRELOAD", preload, 1);
    setenv("GPUTRACE_OUTPUT", abs_out, 1);
    setenv("GPUTRACE_RUN_ID", run_id, 1);
    setenv("GPUTRACE_LAUNCHER", "gputrace record", 1);
    /* NVTX finds the tracer from the first NVTX call on, even one made by a
     * library's constructor before the tracer's own has run; a tool the
     * user named is kept (overwrite 0) */
    char abs_lib[PATH_MAX];
    if (realpath(lib, abs_lib))
        setenv("NVTX_INJECTION64_PATH", abs_lib, 0);

    struct sigaction sa = { .sa_handler = forward };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    child = fork();
    if (child < 0) {
        perror("gputrace record: fork");
        return 2;
    }
    if (child == 0) {
        execvp(argv[i], argv + i);
        fprintf(stderr, "gputrace record: cannot run %s: %s\n", argv[i], strerror(errno));
        _exit(127);
    }
    int st;
    while (waitpid(child, &st, 0) < 0 && errno == EINTR)
        ;
    if (WIFSIGNALED(st)) {
        /* die of the same signal, as the command did */
        signal(WTERMSIG(st), SIG_DFL);
        raise(WTERMSIG(st));
        return 128 + WTERMSIG(st);
    }
    return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        fputs(usage_text, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gputrace %s\n", GT_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "record") == 0)
        return record(argc - 2, argv + 2);
    if (strcmp(argv[1], "expand") == 0) {
        if (argc != 3 || argv[2][0] == '-') {
            fprintf(stderr, "usage: gputrace expand FILE\n");
            return 2;
        }
        return gt_expand(argv[2]);
    }
    fprintf(stderr, "gputrace: unknown command '%s'\n%s", argv[1], usage_text);
    return 2;
}
