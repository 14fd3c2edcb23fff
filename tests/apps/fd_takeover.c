/* fd_takeover.c: a program that takes every descriptor >= 3 back, as
 * daemons and some launchers do, for the tracer's tests (not a training
 * pattern).  Usage: fd_takeover MODE DIR
 *   MODE closefrom  closefrom(3) after its first CUDA calls
 *        loop       close(fd) for every fd from 3 to 1023
 *        dup2       dup2(/dev/null) over every open fd >= 3, then closes them
 *        dup2db     dup2(/dev/null, 3): over the tracer's database alone
 *                   (its first descriptor), the others stay the tracer's
 *        vfork      a vfork child closefrom(3)s its own copies and ends (by the
 *                   exit system call: libc's _exit is not what this tests);
 *                   the parent's descriptors are untouched
 *        none       takes nothing back (the tracer may turn off for another
 *                   reason, e.g. a file-size limit)
 * Usage: fd_takeover MODE DIR [CALLS]: CALLS calls (3000) after the takeover.
 * Then it opens files of its own (DIR/own<i>.txt, 20 bytes each) and pipes
 * (64 bytes written into each), which take the lowest numbers, those the
 * tracer's descriptors had; makes more CUDA calls, raises SIGTERM (it
 * handles it itself, installed before its first CUDA call so that the
 * tracer's handler chains to it), and checks that its files (size, bytes,
 * offset) and its pipes hold exactly what it put there.  Last it opens /dev/null until EMFILE and prints how
 * many it could ("openable: N"): under a low RLIMIT_NOFILE a tracer that
 * turned off must not hold descriptors.  Exit 0 when its files were left
 * alone, 1 otherwise.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define NFILES 4
#define NPIPES 3

static volatile sig_atomic_t got_term;
static void on_term(int sig) { (void)sig; got_term = 1; }

static void some_calls(int n)
{
    for (int i = 0; i < n; i++)
        cudaStreamQuery(0);
}

static void take_back(const char *mode)
{
    if (strcmp(mode, "closefrom") == 0) {
        closefrom(3);
    } else if (strcmp(mode, "loop") == 0) {
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    } else if (strcmp(mode, "dup2") == 0) {
        int null = open("/dev/null", O_RDWR);
        for (int fd = 3; fd < 64; fd++)
            if (fd != null && fcntl(fd, F_GETFD) >= 0)
                dup2(null, fd);
        for (int fd = 3; fd < 64; fd++)
            if (fd != null && fcntl(fd, F_GETFD) >= 0)
                close(fd);
        close(null);
    } else if (strcmp(mode, "vfork") == 0) {
        pid_t pid = vfork();
        if (pid == 0) {
            closefrom(3);
            syscall(SYS_exit, 0);
        }
        int st;
        waitpid(pid, &st, 0);
    } else if (strcmp(mode, "dup2db") == 0) {
        int null = open("/dev/null", O_RDWR); /* fd 3 itself, untraced */
        if (null != 3) {
            dup2(null, 3);
            close(null);
        }
    }
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    signal(SIGTERM, on_term);
    void *p = NULL;
    cudaSetDevice(0);
    cudaMalloc(&p, 256);
    some_calls(100);
    usleep(300 * 1000); /* the tracer has committed a few times */
    take_back(mode);

    /* files first, then pipes: together they take every number the
     * tracer's descriptors had */
    static const char mine[] = "0123456789abcdefghij"; /* 20 bytes */
    char in_pipe[64];
    memset(in_pipe, 'p', sizeof in_pipe);
    int files[NFILES], pipes[NPIPES][2];
    for (int i = 0; i < NFILES; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/own%d.txt", argv[2], i);
        files[i] = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
        if (files[i] < 0 || write(files[i], mine, 20) != 20)
            return 2;
    }
    for (int i = 0; i < NPIPES; i++)
        if (pipe(pipes[i]) != 0 || write(pipes[i][1], in_pipe, sizeof in_pipe) != (ssize_t)sizeof in_pipe)
            return 2;
    printf("own files from fd %d, pipes to fd %d\n", files[0], pipes[NPIPES - 1][1]);

    some_calls(argc > 3 ? atoi(argv[3]) : 3000);
    usleep(300 * 1000);
    raise(SIGTERM);
    some_calls(100);
    usleep(300 * 1000);

    int bad = 0;
    for (int i = 0; i < NFILES; i++) {
        struct stat st;
        char back[20];
        off_t at = lseek(files[i], 0, SEEK_CUR);
        if (fstat(files[i], &st) != 0 || st.st_size != 20 || at != 20 || pread(files[i], back, 20, 0) != 20 ||
            memcmp(back, mine, 20) != 0) {
            printf("own file at fd %d changed: %lld bytes, offset %lld\n", files[i], (long long)st.st_size,
                   (long long)at);
            bad = 1;
        }
        close(files[i]);
    }
    for (int i = 0; i < NPIPES; i++) {
        fcntl(pipes[i][0], F_SETFL, O_NONBLOCK);
        char got[256];
        ssize_t n = read(pipes[i][0], got, sizeof got);
        if (n != (ssize_t)sizeof in_pipe || memcmp(got, in_pipe, sizeof in_pipe) != 0) {
            printf("own pipe at fds %d %d changed: read %zd bytes\n", pipes[i][0], pipes[i][1], n);
            bad = 1;
        }
        close(pipes[i][0]);
        close(pipes[i][1]);
    }
    if (!got_term) {
        printf("SIGTERM did not reach the program's handler\n");
        bad = 1;
    }
    int fds[4096], k = 0;
    while (k < 4096 && (fds[k] = open("/dev/null", O_RDONLY)) >= 0)
        k++;
    printf("openable: %d\n", k);
    while (k > 0)
        close(fds[--k]);
    printf(bad ? "files changed\n" : "files unchanged\n");
    return bad;
}
