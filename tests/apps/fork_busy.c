/* fork_busy.c: fork while the GPU is busy.  Each of N rounds queues 50
 * memsets over 4 streams, forks, and the child makes one CUDA call and
 * _exits; the parent waits up to 10 s for it and kills it if it hangs.
 * Prints "forks: N hung: H".  A child forked while one of the
 * simulator's stream threads held its lock inherited the lock held, and
 * its call waited forever (105 of 300 children before the simulator's
 * fork handlers); a tracer must add no such wait either.
 * Usage: fork_busy [N]   (default 200)
 */
#include <cuda_runtime_api.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 200;
    cudaStream_t s[4];
    for (int i = 0; i < 4; i++)
        if (cudaStreamCreate(&s[i]) != cudaSuccess)
            return 2;
    char *d;
    if (cudaMalloc((void **)&d, 4096) != cudaSuccess)
        return 2;
    int hung = 0;
    for (int k = 0; k < n; k++) {
        for (int j = 0; j < 50; j++)
            cudaMemsetAsync(d, j, 4096, s[j % 4]);
        pid_t p = fork();
        if (p < 0)
            return 3;
        if (p == 0) {
            cudaStreamQuery(s[0]);
            _exit(0);
        }
        int st;
        for (int t = 0; t < 10000 && waitpid(p, &st, WNOHANG) == 0; t++)
            usleep(1000);
        if (waitpid(p, &st, WNOHANG) == 0) {
            hung++;
            kill(p, SIGKILL);
            waitpid(p, &st, 0);
        }
    }
    cudaDeviceSynchronize();
    cudaFree(d);
    printf("forks: %d hung: %d\n", n, hung);
    return 0;
}
