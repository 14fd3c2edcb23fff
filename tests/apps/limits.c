/* limits.c: more of everything than a fixed table of the tracer holds, for
 * tests/e2e/tracer_limits.sh (not a training pattern).
 * Usage: limits MODE N
 *   names    N push/pop NVTX ranges, each with a name of its own
 *   nested   N NVTX ranges pushed inside one another, then popped
 *   kernels  N kernels (up to 6000), each a function of its own (so a name
 *            of its own), then a device sync
 *   inflight N threads blocked at once in cudaStreamSynchronize on a stream
 *            whose kernel sleeps; prints "blocked" and waits to be killed
 *   signals  N NVTX ranges (and a CUDA call every 100, with the signal
 *            blocked: neither CUDA nor the simulator is async-signal-safe)
 *            while a timer signal's handler makes a CUDA call and an NVTX
 *            range of its own; prints how many of each were made ("calls:
 *            N", "ranges: N", "handler: N")
 *   hsignals N CUDA calls while a timer signal's handler makes NVTX ranges
 *            (no CUDA): the handler comes in anywhere in the tracer's
 *            wrappers; prints the same counts, and "past_pending: N": the
 *            handler's ranges beyond the first 8 made within one CUDA call
 *            (the most a call's window holds, trace.h's GT_NVTX_PENDING)
 * Prints "done" when it ends by itself.
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nvtx3/nvToolsExt.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>

/* 6000 kernels, each with its own symbol (and body, so that the linker
 * folds none of them together) */
static volatile int sink;
#define K1(p) void p(void **a) { (void)a; sink = __COUNTER__; }
#define K10(p) K1(p##0) K1(p##1) K1(p##2) K1(p##3) K1(p##4) K1(p##5) K1(p##6) K1(p##7) K1(p##8) K1(p##9)
#define K100(p) K10(p##0) K10(p##1) K10(p##2) K10(p##3) K10(p##4) K10(p##5) K10(p##6) K10(p##7) K10(p##8) K10(p##9)
#define K1000(p) K100(p##0) K100(p##1) K100(p##2) K100(p##3) K100(p##4) K100(p##5) K100(p##6) K100(p##7) \
    K100(p##8) K100(p##9)
K1000(kernel_0) K1000(kernel_1) K1000(kernel_2) K1000(kernel_3) K1000(kernel_4) K1000(kernel_5)
#undef K1
#define K1(p) p,
static void (*const kernels[])(void **) = {
    K1000(kernel_0) K1000(kernel_1) K1000(kernel_2) K1000(kernel_3) K1000(kernel_4) K1000(kernel_5)
};
#define NKERNELS (int)(sizeof kernels / sizeof *kernels)

static cudaStream_t slow;
static pthread_barrier_t entered;

static void sleeper(void **a)
{
    (void)a;
    sleep(60);
}

static void *blocked(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&entered);
    cudaStreamSynchronize(slow);
    return NULL;
}

static volatile sig_atomic_t handler_calls, handler_ranges;

static void on_alarm_nvtx(int sig)
{
    (void)sig;
    nvtxRangePushA("in handler");
    nvtxRangePop();
    handler_ranges++;
}

static void on_alarm(int sig)
{
    (void)sig;
    nvtxRangePushA("in handler");
    cudaStreamQuery(0);
    nvtxRangePop();
    handler_calls++;
    handler_ranges++;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    const char *mode = argv[1];
    int n = atoi(argv[2]);
    /* SIGALRM only ever reaches the main thread (below): every thread made
     * from here on (the simulator's, the tracer's) starts with it blocked */
    sigset_t alarm;
    sigemptyset(&alarm);
    sigaddset(&alarm, SIGALRM);
    sigprocmask(SIG_BLOCK, &alarm, NULL);
    if (cudaSetDevice(0) != cudaSuccess)
        return 1;
    if (strcmp(mode, "names") == 0) {
        for (int i = 0; i < n; i++) {
            char name[64];
            snprintf(name, sizeof name, "range %d", i);
            nvtxRangePushA(name);
            nvtxRangePop();
        }
    } else if (strcmp(mode, "nested") == 0) {
        for (int i = 0; i < n; i++) {
            char name[64];
            snprintf(name, sizeof name, "level %d", i);
            nvtxRangePushA(name);
        }
        for (int i = 0; i < n; i++)
            nvtxRangePop();
    } else if (strcmp(mode, "kernels") == 0) {
        if (n > NKERNELS)
            return 2;
        for (int i = 0; i < n; i++)
            cudaLaunchKernel((const void *)kernels[i], (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, NULL, 0, 0);
        cudaDeviceSynchronize();
    } else if (strcmp(mode, "inflight") == 0) {
        pthread_t t;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 256 << 10);
        pthread_barrier_init(&entered, NULL, (unsigned)n + 1);
        cudaStreamCreate(&slow);
        cudaLaunchKernel((const void *)sleeper, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, NULL, 0, slow);
        for (int i = 0; i < n; i++)
            if (pthread_create(&t, &attr, blocked, NULL) != 0)
                return 3;
        pthread_barrier_wait(&entered);
        printf("blocked\n");
        fflush(stdout);
        pause();
    } else if (strcmp(mode, "signals") == 0) {
        /* NVTX initialised before the timer is armed: a handler's NVTX call
         * that interrupts NVTX's own first-call initialisation (nvtx3's
         * nvtxInitOnce, in this program) spins forever waiting for it,
         * traced or not (a sanitizer run hung there, in its dlsym of the
         * injection library) */
        nvtxInitialize(NULL);
        struct sigaction sa = { 0 };
        sa.sa_handler = on_alarm;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 200 }, { 0, 200 } };
        setitimer(ITIMER_REAL, &it, NULL);
        sigprocmask(SIG_UNBLOCK, &alarm, NULL);
        int main_calls = 0;
        for (int i = 0; i < n; i++) {
            nvtxRangePushA("in main");
            nvtxRangePop();
            if (i % 100 == 0) {
                sigprocmask(SIG_BLOCK, &alarm, NULL);
                cudaStreamQuery(0);
                sigprocmask(SIG_UNBLOCK, &alarm, NULL);
                main_calls++;
            }
            if (i % 100 == 99)
                usleep(1000); /* the writer keeps up: nothing dropped for want of room */
        }
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
        sigprocmask(SIG_BLOCK, &alarm, NULL);
        printf("calls: %d\nranges: %d\n", 1 + main_calls + handler_calls, n + handler_ranges);
        printf("handler: %d\n", handler_calls);
    } else if (strcmp(mode, "hsignals") == 0) {
        nvtxInitialize(NULL); /* as above */
        struct sigaction sa = { 0 };
        sa.sa_handler = on_alarm_nvtx;
        sa.sa_flags = SA_RESTART;
        sigaction(SIGALRM, &sa, NULL);
        struct itimerval it = { { 0, 200 }, { 0, 200 } };
        setitimer(ITIMER_REAL, &it, NULL);
        sigprocmask(SIG_UNBLOCK, &alarm, NULL);
        /* a call that waits (the simulator's lock, held by a thread
         * descheduled on a loaded machine) is interrupted by every tick:
         * past 8 handlers in one call the tracer counts the ranges as
         * dropped.  Counted here from the outside of the whole wrapper, so
         * an upper bound of what the tracer may drop. */
        int past_pending = 0;
        for (int i = 0; i < n; i++) {
            int before = handler_ranges;
            cudaStreamQuery(0);
            int in_call = handler_ranges - before;
            if (in_call > 8)
                past_pending += in_call - 8;
            if (i % 100 == 99)
                usleep(1000); /* the writer keeps up */
        }
        struct itimerval off = { { 0, 0 }, { 0, 0 } };
        setitimer(ITIMER_REAL, &off, NULL);
        sigprocmask(SIG_BLOCK, &alarm, NULL);
        printf("calls: %d\nranges: %d\n", 1 + n, handler_ranges);
        printf("handler: %d\n", handler_ranges);
        printf("past_pending: %d\n", past_pending);
    } else {
        return 2;
    }
    printf("done\n");
    return 0;
}
