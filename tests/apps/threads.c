/* threads.c: many threads calling the CUDA runtime at once, for the tracer's
 * tests (not a training pattern).  Usage: threads [NTHREADS] [CALLS] [fork]
 * Each thread creates its own stream and makes CALLS rounds of
 * cudaEventRecord + cudaStreamQuery on it, then a cudaStreamSynchronize.
 * With "fork", the process then allocates and frees 64 bytes, forks a child
 * that makes 3 calls of its own (cudaSetDevice, then a cudaMalloc and a
 * cudaFree from the parent's call site: the child must name it in its own
 * file) and exits 3; the parent checks it.
 * With "forkterm", the child raises SIGTERM after its calls instead, and the
 * parent checks that it died of SIGTERM, as it would untraced.
 * With "flat", threads call flat out, with no pause every 256 rounds (to
 * outrun the writer's row inserts).
 * With "exec", it then tries to exec a program that does not exist (which
 * fails), makes one more call, and execs /bin/true.
 * With THREADS_GO set to a path, each thread waits for that file to exist
 * before its rounds (after its first calls, which start the tracer), and
 * main creates PATH.done once every thread has made its rounds: a test
 * can hold the tracer's writer up over exactly the rounds (hold_lock.py).
 * Prints the number of wrapped calls made, so tests can compare.
 */
#define _GNU_SOURCE
#include "go_file.h"

#include <cuda_runtime_api.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int calls_per_thread = 1000;
static int flat_out;
static const char *go_file;

static void *worker(void *arg)
{
    (void)arg;
    cudaStream_t s;
    cudaEvent_t e;
    if (cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
        cudaEventCreateWithFlags(&e, cudaEventDisableTiming) != cudaSuccess)
        return (void *)1;
    go_wait(go_file);
    for (int i = 0; i < calls_per_thread; i++) {
        cudaEventRecord(e, s);
        cudaStreamQuery(s);
        if (i % 256 == 255 && !flat_out)
            usleep(1000); /* a program also computes between calls */
    }
    cudaStreamSynchronize(s);
    cudaEventDestroy(e);
    cudaStreamDestroy(s);
    return NULL;
}

static __attribute__((noinline)) void alloc_free(void)
{
    void *p = NULL;
    cudaMalloc(&p, 64);
    cudaFree(p);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 16;
    calls_per_thread = argc > 2 ? atoi(argv[2]) : 1000;
    int do_fork = argc > 3 && strncmp(argv[3], "fork", 4) == 0;
    int term = argc > 3 && strcmp(argv[3], "forkterm") == 0;
    int do_exec = argc > 3 && strcmp(argv[3], "exec") == 0;
    flat_out = argc > 3 && strcmp(argv[3], "flat") == 0;
    go_file = getenv("THREADS_GO");
    pthread_t t[256];
    if (n < 1 || n > 256)
        return 2;
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, worker, NULL);
    int bad = 0;
    for (int i = 0; i < n; i++) {
        void *rv;
        pthread_join(t[i], &rv);
        bad |= rv != NULL;
    }
    if (go_done(go_file) != 0)
        bad = 1;
    /* per thread: create stream, create event, 2 per round, sync, 2 destroys */
    printf("wrapped calls: %ld\n", (long)n * (2L * calls_per_thread + 5) + (do_fork ? 2 : 0));
    if (do_fork) {
        fflush(stdout);
        pid_t pid = 1;
        for (int k = 0; k < 2 && pid != 0; k++) {
            if (k == 1 && (pid = fork()) == 0)
                cudaSetDevice(0);
            if (k == 0 || pid == 0)
                alloc_free(); /* one call site: the parent's, then the child's */
        }
        if (pid == 0) {
            if (term)
                raise(SIGTERM);
            _exit(3);
        }
        int st;
        waitpid(pid, &st, 0);
        if (term ? !(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) : !(WIFEXITED(st) && WEXITSTATUS(st) == 3))
            bad = 1;
        if (WIFSIGNALED(st))
            printf("child killed by signal %d\n", WTERMSIG(st));
        else
            printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    }
    if (do_exec) {
        char *none[] = { "/nonexistent/program", NULL }, *truth[] = { "/bin/true", NULL };
        fflush(stdout);
        execv(none[0], none);
        printf("exec failed as expected\n");
        cudaSetDevice(0); /* recorded again, as a process row of its own */
        fflush(stdout);
        execv(truth[0], truth);
        return 5;
    }
    return bad;
}
