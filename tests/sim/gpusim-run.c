/* gpusim-run: starts N rank processes of a simulated multi-GPU job, the way
 * torchrun or mpirun would, and reports which ranks failed or hung.
 *
 *   gpusim-run -n N [--timeout SEC] [--] prog args...
 *
 * Each rank gets RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE and a
 * GPUSIM_SESSION token that makes ncclGetUniqueId agree across the ranks of
 * this launch; the rest of the environment (LD_PRELOAD included) passes
 * through.  Ranks still running at the timeout get SIGTERM, then SIGKILL
 * after a grace period, and are reported as hung.  Exit status: 0 when every
 * rank exited 0, 124 when some rank hung, 1 otherwise.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define GRACE_SEC 5

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
    got_signal = sig;
}

static void usage(FILE *out)
{
    fprintf(out, "usage: gpusim-run -n N [--timeout SEC] [--] prog args...\n"
                 "  -n N            number of ranks (1..64)\n"
                 "  --timeout SEC   terminate ranks still running after SEC seconds (default 120)\n");
}

static double now_sec(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void cleanup_shm(const char *session)
{
    char prefix[128];
    snprintf(prefix, sizeof prefix, "gpusim-%s-", session);
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)))
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            char path[512];
            snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
            unlink(path);
        }
    closedir(d);
}

int main(int argc, char **argv)
{
    int n = 0, timeout = 120, i;
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "-n") == 0 && i + 1 < argc) {
            n = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--timeout") == 0 && i + 1 < argc) {
            timeout = atoi(argv[++i]);
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "gpusim-run: unknown option '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        } else {
            break;
        }
    }
    if (n < 1 || n > 64 || i >= argc || timeout < 1) {
        usage(stderr);
        return 2;
    }

    char session[40];
    snprintf(session, sizeof session, "s%dt%lx", (int)getpid(), (unsigned long)time(NULL));
    char nbuf[16];
    snprintf(nbuf, sizeof nbuf, "%d", n);
    setenv("WORLD_SIZE", nbuf, 1);
    setenv("LOCAL_WORLD_SIZE", nbuf, 1);
    setenv("GPUSIM_SESSION", session, 1);

    struct sigaction sa = { .sa_handler = on_signal };
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    pid_t pids[64];
    int status[64], done[64] = { 0 }, hung[64] = { 0 };
    for (int r = 0; r < n; r++) {
        char rbuf[16];
        snprintf(rbuf, sizeof rbuf, "%d", r);
        pids[r] = fork();
        if (pids[r] < 0) {
            perror("gpusim-run: fork");
            return 1;
        }
        if (pids[r] == 0) {
            setenv("RANK", rbuf, 1);
            setenv("LOCAL_RANK", rbuf, 1);
            execvp(argv[i], argv + i);
            fprintf(stderr, "gpusim-run: cannot run %s: %s\n", argv[i], strerror(errno));
            _exit(127);
        }
    }

    double deadline = now_sec() + timeout, kill_at = 0;
    int left = n;
    while (left > 0) {
        int st;
        pid_t p = waitpid(-1, &st, WNOHANG);
        if (p > 0) {
            for (int r = 0; r < n; r++)
                if (pids[r] == p) {
                    status[r] = st;
                    done[r] = 1;
                    left--;
                }
            continue;
        }
        if (got_signal && !kill_at) {
            for (int r = 0; r < n; r++)
                if (!done[r])
                    kill(pids[r], got_signal);
            kill_at = now_sec() + GRACE_SEC;
        }
        double t = now_sec();
        if (!kill_at && t > deadline) {
            for (int r = 0; r < n; r++)
                if (!done[r]) {
                    hung[r] = 1;
                    kill(pids[r], SIGTERM);
                }
            kill_at = t + GRACE_SEC;
        } else if (kill_at && t > kill_at) {
            for (int r = 0; r < n; r++)
                if (!done[r])
                    kill(pids[r], SIGKILL);
            kill_at = t + 3600;
        }
        usleep(5000);
    }
    cleanup_shm(session);

    int failed = 0, anyhung = 0;
    for (int r = 0; r < n; r++) {
        if (hung[r]) {
            anyhung = 1;
            fprintf(stderr, "gpusim-run: rank %d hung (still running after %d s); terminated\n", r, timeout);
        } else if (WIFSIGNALED(status[r])) {
            failed = 1;
            fprintf(stderr, "gpusim-run: rank %d killed by signal %d\n", r, WTERMSIG(status[r]));
        } else if (WEXITSTATUS(status[r]) != 0) {
            failed = 1;
            fprintf(stderr, "gpusim-run: rank %d exited with status %d\n", r, WEXITSTATUS(status[r]));
        }
    }
    return anyhung ? 124 : failed ? 1 : 0;
}
