/* std_fds.c: what a program finds of errno and its standard descriptors,
 * traced as untraced, for tests/e2e/tracer_std_fds.sh (not a training
 * pattern).
 *   std_fds errno   errno at main, before any call: "errno at main: E"
 *   std_fds stdin   (run with fd 0 closed) CUDA calls, then read(0) and
 *                   an open: "read(0): R errno E" and "open: FD"
 *   std_fds pipe    fd 2 made a pipe whose reader is gone (as `prog 2>&1 |
 *                   head -1` leaves it), CUDA calls, "done": the program
 *                   itself never writes to stderr
 * Each prints its lines on stdout and exits 0. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static void calls(void)
{
    cudaSetDevice(0);
    cudaStream_t s;
    cudaStreamCreate(&s);
    for (int i = 0; i < 100; i++)
        cudaStreamQuery(s);
    cudaStreamDestroy(s);
}

int main(int argc, char **argv)
{
    int at_main = errno;
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "errno")) {
        printf("errno at main: %d\n", at_main);
        return 0;
    }
    if (!strcmp(mode, "stdin")) {
        calls();
        char c;
        errno = 0;
        ssize_t r = read(0, &c, 1);
        printf("read(0): %zd errno %d\n", r, errno);
        int fd = open("/dev/null", O_RDONLY);
        printf("open: %d\n", fd);
        return 0;
    }
    if (!strcmp(mode, "pipe")) {
        int p[2];
        if (pipe(p) != 0)
            return 2;
        close(p[0]);
        dup2(p[1], 2);
        close(p[1]);
        calls();
        printf("done\n");
        return 0;
    }
    return 2;
}
