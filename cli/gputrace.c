/* gputrace.c: the `gputrace` command.
 *
 *   gputrace record [-o RUN] [-f] [--one-file] [--] command args...
 *   gputrace expand RUN
 *   gputrace dump RUN | capture RUN --seconds N   (ask.c)
 *   gputrace metrics RUN [--listen ADDR:PORT]     (metrics.c)
 *
 * Runs the command with libgputrace.so preloaded (LD_PRELOAD reaches every
 * process it starts: torchrun, mpirun, bash...), a run id shared by all of
 * them, and the output path, in this process's place (exec: the caller's
 * process is the program's, for its signals and its exit status; a line
 * if it wrote nothing comes from that process's end, libtrace/record_end.c).
 * The output is a run directory, one SQLite file
 * per traced process (config.h says why; --one-file or a %h/%p/%r pattern
 * for other layouts).  Whatever an earlier run left there is refused
 * unless -f, which removes it (outputs.c).  `expand` turns calls, NVTX
 * ranges and CUPTI records stored in bulk into rows (expand.c), in one
 * database or in each of a run directory's.
 */
#include "collector/config.h"
#include "cli/ask.h"
#include "cli/expand.h"
#include "cli/metrics.h"
#include "cli/merge.h"
#include "import/import.h"
#include "cli/outputs.h"
#include "common/printable.h"
#include "format/rundir.h"

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef GT_LIBDIR
#define GT_LIBDIR "/usr/local/lib"
#endif

/* `gputrace --help` is record's line, the other commands', then record's
 * text; `gputrace record --help` leaves the other commands out. */
static const char record_line[] =
    "usage: gputrace record [-o RUN] [-f] [--one-file] [--monitor] [--] command [args...]\n";
static const char other_commands[] =
    "       gputrace dump RUN [--wait S]      every process of a monitored run writes its window now\n"
    "       gputrace capture RUN --seconds N  every process records in full for N s from one instant\n"
    "       gputrace metrics RUN [--listen ADDR:PORT]  a monitored run's metrics, for Prometheus\n"
    "       gputrace expand RUN       calls, NVTX ranges and CUPTI records stored in blocks -> rows, in place (SQL)\n"
    "       gputrace merge OUT.db RUN [RUN...]   a run's databases in one new file, every record a row (for sqlite3, pandas)\n"
    "       gputrace import [-o OUT.db] [-f] TRACE...   Kineto JSON / nsys SQLite traces -> a database (docs/import.md)\n"
    "       gputrace --help | --version\n";
static const char record_text[] =
    "\n"
    "Traces every CUDA/NCCL process that `command` starts into RUN, a directory\n"
    "holding one SQLite file per process (<host>-<pid>.db); gputrace-report RUN\n"
    "reads them as one run.  Calls and GPU records are stored in compact blocks; for\n"
    "SQL, `gputrace merge all.db RUN` writes the run as one file, a row each.\n"
    "Sets LD_PRELOAD, and CUDA_INJECTION64_PATH (kept if it names another tool)\n"
    "so that programs with a static CUDA runtime are traced,\n"
    "and NCCL_PROFILER_PLUGIN (kept if set; GPUTRACE_NCCL_PLUGIN=0: not set) so\n"
    "that NCCL's own record of every operation is kept however NCCL is called.\n"
    "Then runs the command in its own place (exec): the process you started is the\n"
    "program, with its signals and its exit status.\n"
    "\n"
    "options:\n"
    "  -o RUN      the run directory (default gputrace.db); with %h host, %p pid\n"
    "              or %r rank in it, a file name pattern instead: each process\n"
    "              writes the file it names (e.g. run-%r.db)\n"
    "  -f          remove what an earlier run left at RUN first: gputrace databases\n"
    "              only (told by content), with their -wal, -shm and -journal; a run\n"
    "              directory holding any other file is refused, and so is a database\n"
    "              a process may still be writing (README.md)\n"
    "  --monitor   always on, for a whole job (GPUTRACE_MODE=monitor, docs/monitor.md):\n"
    "              each process keeps the last GPUTRACE_WINDOW_S seconds of full records\n"
    "              in memory and its aggregates in RUN; a hang, a slowdown or\n"
    "              `gputrace dump RUN` makes every process write its window to\n"
    "              RUN/window-<request>/\n"
    "  --one-file  RUN is one SQLite file that every process appends to; the\n"
    "              processes then wait for each other's locks, and a killed one\n"
    "              may lose more than GPUTRACE_FLUSH_MS of records\n"
    "\n"
    "environment (read by the traced processes):\n"
    "  GPUTRACE_CUPTI=0|1       GPU activity through CUPTI (default 1)\n"
    "  GPUTRACE_CALLSTACKS=N    call-stack depth for syncs, copies, frees, allocations, NCCL (default 8, 0 = off)\n"
    "  GPUTRACE_PYSTACKS=N      Python frames with each call stack, when the thread holds the GIL (default 16, 0 = off)\n"
    "  GPUTRACE_FLUSH_MS=N      commit interval of the writer (default 200)\n"
    "  GPUTRACE_BUFFER_MB=N     record buffer a thread keeps, about twice in a burst (default 8)\n"
    "  GPUTRACE_QUIET=1         no messages except errors\n"
    "  GPUTRACE_BULK_AFTER=N    records waiting before calls, NVTX ranges and CUPTI records go in bulk (default 0 = always;\n"
    "                           the merge and expand commands make rows of them)\n"
    "  GPUTRACE_BLOCK_FORMAT=1  blocks as packed structs, not compact (default 2: a few bytes a record)\n"
    "  GPUTRACE_CUPTI_LIB=PATH  libcupti to load\n"
    "  GPUTRACE_CLOCK=monotonic read clock_gettime instead of the invariant TSC\n"
    "  GPUTRACE_MODE=monitor    as --monitor; with it: GPUTRACE_WINDOW_S (60), GPUTRACE_WINDOW_MB (24),\n"
    "                           GPUTRACE_HANG_S (30), GPUTRACE_SLOWDOWN (1.5, 0 = off), GPUTRACE_COOLDOWN_S (120),\n"
    "                           GPUTRACE_METRICS_MS (5000, 0 = no metrics file)\n"
    "  GPUTRACE_NCCL_PLUGIN=0   do not set NCCL_PROFILER_PLUGIN (NCCL then keeps no record of its own)\n"
    "  (GPUTRACE_OUTPUT, GPUTRACE_ONE_FILE, GPUTRACE_RUN_ID, GPUTRACE_LAUNCHER, GPUTRACE_RECORD_PID,\n"
    "  GPUTRACE_RECORD_NOTHING and GPUTRACE_RECORD_STDERR are set by this command; see README.md)\n"
    "  GPUTRACE_LIB=PATH        libgputrace.so to preload (default: the installed one)\n";

/* The usage: every command's (all), or record's own. */
static void usage(FILE *out, int all)
{
    fputs(record_line, out);
    if (all)
        fputs(other_commands, out);
    fputs(record_text, out);
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

/* 1, said in one line, when the directory RUN would be made in does not
 * exist or may not be written in: each traced process would find it missing at its first CUDA
 * call, say so and run on untraced, and the run end with "nothing was
 * written", blaming the program.  A pattern's directory is this host's
 * expansion of it (%h); one that names a pid or a rank is each process's
 * own: not checked. */
static int no_parent(const char *output, const char *abs_out)
{
    char dir[2 * PATH_MAX];
    snprintf(dir, sizeof dir, "%s", abs_out);
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        dir[--n] = 0;
    char *slash = strrchr(dir, '/');
    if (!slash || slash == dir)
        return 0;
    if (gt_config_is_pattern(dir)) {
        char expanded[2 * PATH_MAX];
        if (gt_config_pattern_dir(dir, expanded, sizeof expanded) != 0)
            return 0;
        snprintf(dir, sizeof dir, "%s", expanded);
    } else {
        *slash = 0;
    }
    struct stat st;
    int missing = stat(dir, &st) != 0;
    char shown[GT_PRINTABLE_LEN], shown_dir[GT_PRINTABLE_LEN];
    if (!missing && S_ISDIR(st.st_mode)) {
        /* one it may not write in (permissions, read-only, immutable): each
         * process would say "No such file or directory" of its file and run
         * untraced, and the run end blaming the program; a file made and
         * removed at once tells (access() answers root yes where the write
         * fails) */
        char probe[2 * PATH_MAX + 32];
        snprintf(probe, sizeof probe, "%s/.gputrace-probe-XXXXXX", dir);
        int fd = mkostemp(probe, O_CLOEXEC);
        if (fd >= 0) {
            unlink(probe);
            close(fd);
            return 0;
        }
        if (errno != EACCES && errno != EPERM && errno != EROFS)
            return 0; /* (a full disk, a long name: each process says its own) */
        fprintf(stderr, "gputrace record: cannot write %s: %s: %s\n", gt_printable(output, shown, sizeof shown),
                gt_printable(dir, shown_dir, sizeof shown_dir), strerror(errno));
        return 1;
    }
    fprintf(stderr, "gputrace record: cannot write %s: %s %s\n", gt_printable(output, shown, sizeof shown),
            gt_printable(dir, shown_dir, sizeof shown_dir),
            missing ? "does not exist (make it first)" : "is not a directory");
    return 1;
}

static int record(int argc, char **argv)
{
    const char *output = "gputrace.db";
    int force = 0, one_file = gt_config_one_file(), monitor = 0, i;
    for (i = 0; i < argc; i++) {
        if (strcmp(argv[i], "-o") == 0 && i + 1 < argc) {
            output = argv[++i];
        } else if (strcmp(argv[i], "-f") == 0) {
            force = 1;
        } else if (strcmp(argv[i], "--one-file") == 0) {
            one_file = 1;
        } else if (strcmp(argv[i], "--monitor") == 0) {
            monitor = 1;
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout, 0); /* record's own, not every command's */
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            char shown[GT_PRINTABLE_LEN];
            fprintf(stderr, "gputrace record: unknown option '%s'\n", gt_printable(argv[i], shown, sizeof shown));
            usage(stderr, 0);
            return 2;
        } else {
            break;
        }
    }
    if (i >= argc) {
        fprintf(stderr, "gputrace record: no command given\n");
        usage(stderr, 0);
        return 2;
    }
    char lib[PATH_MAX];
    if (find_library(lib, sizeof lib) != 0) {
        char shown[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace record: libgputrace.so not found (looked for %s); set GPUTRACE_LIB\n",
                gt_printable(lib, shown, sizeof shown));
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
    if (no_parent(output, abs_out))
        return 2;
    enum gt_layout layout = gt_config_layout(abs_out, one_file);
    if (gt_outputs_clear(abs_out, output, layout, force) != 0)
        return 2;
    char preload[4 * PATH_MAX];
    const char *old = getenv("LD_PRELOAD");
    snprintf(preload, sizeof preload, "%s%s%s", lib, old && *old ? " " : "", old && *old ? old : "");
    char host[GT_HOST_MAX + 1], run_id[256];
    gt_config_host(host, sizeof host);
    snprintf(run_id, sizeof run_id, "%s-%d-%ld", host, (int)getpid(), (long)time(NULL));
    setenv("LD_PRELOAD", preload, 1);
    setenv("GPUTRACE_OUTPUT", abs_out, 1);
    if (layout == GT_LAYOUT_FILE)
        setenv("GPUTRACE_ONE_FILE", "1", 1);
    else
        unsetenv("GPUTRACE_ONE_FILE");
    setenv("GPUTRACE_RUN_ID", run_id, 1);
    if (monitor)
        setenv("GPUTRACE_MODE", "monitor", 1);
    setenv("GPUTRACE_LAUNCHER", "gputrace record", 1);
    /* NVTX finds the tracer from the first NVTX call on, even one made by a
     * library's constructor before the tracer's own has run; a tool the
     * user named is kept (overwrite 0) */
    char abs_lib[PATH_MAX];
    if (realpath(lib, abs_lib)) {
        setenv("NVTX_INJECTION64_PATH", abs_lib, 0);
        /* NCCL (2.23+) loads the tracer as its profiler plugin and records
         * every operation, however the program reaches NCCL; a plugin the
         * user named wins (the process row says so) */
        const char *np = getenv("GPUTRACE_NCCL_PLUGIN");
        if (!np || strcmp(np, "0") != 0)
            setenv("NCCL_PROFILER_PLUGIN", abs_lib, 0);
        /* the driver loads the tracer at its initialisation too: a program
         * with a static runtime has no symbol for LD_PRELOAD to interpose
         * (docs/loading.md).  A tool the user named wins, said once. */
        const char *inj = getenv("CUDA_INJECTION64_PATH");
        char shown[GT_PRINTABLE_LEN];
        if (inj && *inj && strcmp(inj, abs_lib) != 0)
            fprintf(stderr, "gputrace: CUDA_INJECTION64_PATH names another tool (%s): it is kept, and programs"
                            " with a static CUDA runtime are not traced\n", gt_printable(inj, shown, sizeof shown));
        else
            setenv("CUDA_INJECTION64_PATH", abs_lib, 1);
    }

    /* The line owed when nothing is written, said by the command's own
     * process as it ends (libtrace/record_end.c): this process becomes the
     * command, and no other is left to look afterwards. */
    char pid[32], nothing[3 * PATH_MAX], shown_out[PATH_MAX], shown_cmd[PATH_MAX / 2];
    snprintf(pid, sizeof pid, "%ld", (long)getpid());
    snprintf(nothing, sizeof nothing, "gputrace record: nothing was written to %s: no process of %s called CUDA or"
             " NCCL (each traced process writes its database at its first CUDA or NCCL call)",
             gt_printable(output, shown_out, sizeof shown_out), gt_printable(argv[i], shown_cmd, sizeof shown_cmd));
    setenv("GPUTRACE_RECORD_PID", pid, 1);
    setenv("GPUTRACE_RECORD_NOTHING", nothing, 1);
    /* the stderr given to this command: the line goes there only, never to
     * a file the program opens on descriptor 2 later */
    struct stat err;
    char err_id[64];
    if (fstat(STDERR_FILENO, &err) == 0) {
        snprintf(err_id, sizeof err_id, "%llu:%llu", (unsigned long long)err.st_dev, (unsigned long long)err.st_ino);
        setenv("GPUTRACE_RECORD_STDERR", err_id, 1);
    } else {
        unsetenv("GPUTRACE_RECORD_STDERR");
    }
    /* The command in this process's place, not in a child: its caller waits
     * for and signals the very process it started (a Ctrl-C, a batch
     * system's SIGTERM, a signal to the whole process group, SIGUSR1, a
     * stop: each reaches the program once, as it would untraced), and gets
     * the program's own exit status, core dump and all.  Signal
     * dispositions, the mask and descriptors pass through exec as given. */
    execvp(argv[i], argv + i);
    /* as shells say it: 127, no such command; 126, found but it cannot
     * be run (not executable, a directory, not a program) */
    int e = errno;
    char shown[GT_PRINTABLE_LEN];
    fprintf(stderr, "gputrace record: cannot run %s: %s\n", gt_printable(argv[i], shown, sizeof shown), strerror(e));
    return e == ENOENT ? 127 : 126;
}

/* The databases of paths: each file, and each of a run directory's, as
 * copies in *out.  Returns how many, or -1 after a line on stderr. */
static int databases(const char *cmd, char *const *paths, int npaths, char ***out)
{
    char **all = NULL;
    int n = 0;
    for (int i = 0; i < npaths; i++) {
        struct stat st;
        char **v = NULL;
        int k = 1;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            k = gt_rundir_list(paths[i], &v);
            if (k <= 0) {
                fprintf(stderr, "gputrace %s: %s: %s\n", cmd, paths[i], k < 0 ? strerror(errno) : "no database (*.db) in it");
                gt_rundir_free(all, n);
                return -1;
            }
        }
        char **g = realloc(all, (size_t)(n + k) * sizeof *all);
        if (!g) {
            fprintf(stderr, "gputrace %s: out of memory\n", cmd);
            gt_rundir_free(v, k);
            gt_rundir_free(all, n);
            return -1;
        }
        all = g;
        for (int j = 0; j < k; j++)
            all[n++] = v ? v[j] : strdup(paths[i]);
        free(v);
        if (!all[n - 1]) {
            fprintf(stderr, "gputrace %s: out of memory\n", cmd);
            gt_rundir_free(all, n);
            return -1;
        }
    }
    *out = all;
    return n;
}

/* `gputrace merge --help`, `gputrace expand --help`: the command's usage
 * and what it does, on stdout, exit 0 (they said "usage" and exited 2, as
 * for a wrong call). */
static const char merge_help[] =
    "usage: gputrace merge OUT.db RUN [RUN...]\n\n"
    "Writes every database of each RUN (a run directory, or one database) into OUT.db, a new\n"
    "file: every call, NVTX range, CUPTI record and GPU operation a row (the tracer stores them\n"
    "in compact blocks), for sqlite3 or pandas.  OUT.db must not exist.  gputrace-report reads\n"
    "it as it reads the run; left inside the run directory, it is left out when the directory\n"
    "is read (its processes are the other files').\n";
static const char expand_help[] =
    "usage: gputrace expand RUN\n\n"
    "Turns the calls, NVTX ranges and CUPTI records that each database of RUN (a run directory,\n"
    "or one database) stores in compact blocks into rows, in place, for SQL.  gputrace-report\n"
    "reads either.  `gputrace merge` does the same into one new file instead.\n";

static int wants_help(int argc, char **argv)
{
    for (int i = 0; i < argc; i++)
        if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0)
            return 1;
    return 0;
}

/* gputrace expand on one database, or on each of a run directory's */
static int expand_run(char *path)
{
    char **v;
    int n = databases("expand", &path, 1, &v), rc = 0;
    if (n < 0)
        return 1;
    for (int k = 0; k < n; k++)
        rc |= gt_expand(v[k]);
    gt_rundir_free(v, n);
    return rc;
}

static int merge_run(int argc, char **argv)
{
    if (argc < 2 || argv[0][0] == '-') {
        fprintf(stderr, "usage: gputrace merge OUT.db RUN [RUN...]\n");
        return 2;
    }
    char **v;
    int n = databases("merge", argv + 1, argc - 1, &v);
    if (n < 0)
        return 1;
    int rc = gt_merge(argv[0], v, n);
    gt_rundir_free(v, n);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "help") == 0) {
        usage(argc < 2 ? stderr : stdout, 1);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "--version") == 0) {
        printf("gputrace %s\n", GT_VERSION);
        return 0;
    }
    if (strcmp(argv[1], "record") == 0)
        return record(argc - 2, argv + 2);
    if (strcmp(argv[1], "metrics") == 0)
        return gt_metrics_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "dump") == 0 || strcmp(argv[1], "capture") == 0)
        return gt_ask_main(argv[1], argc - 2, argv + 2);
    if ((strcmp(argv[1], "merge") == 0 || strcmp(argv[1], "expand") == 0) && wants_help(argc - 2, argv + 2)) {
        fputs(argv[1][0] == 'm' ? merge_help : expand_help, stdout);
        return 0;
    }
    if (strcmp(argv[1], "merge") == 0)
        return merge_run(argc - 2, argv + 2);
    if (strcmp(argv[1], "import") == 0)
        return import_main(argc - 2, argv + 2);
    if (strcmp(argv[1], "expand") == 0) {
        if (argc != 3 || argv[2][0] == '-') {
            fprintf(stderr, "usage: gputrace expand RUN\n");
            return 2;
        }
        return expand_run(argv[2]);
    }
    fprintf(stderr, "gputrace: unknown command '%s'\n", argv[1]);
    usage(stderr, 1);
    return 2;
}
