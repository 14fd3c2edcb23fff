/* lifecycle.c: signals and process lifecycle inside a traced program, for
 * tests/e2e/tracer_signals.sh (not a training pattern).
 *   lifecycle MODE [N]
 * Every mode first makes N (default 100) cudaSetDevice calls, which
 * activate the tracer, and prints "calls: C", the wrapped calls it made in
 * this image.  Signal handlers are installed before those calls, as a
 * program does at start-up, unless the mode says otherwise.
 *   term_exit   a SIGTERM handler that calls _exit(7); the main thread then
 *               mallocs and frees large blocks (and makes calls) until a SIGTERM arrives
 *               (sent from outside once "ready PID" is printed)
 *   term_exit_locked   the same, the SIGTERM raised while malloc's lock is
 *               held (from malloc_stats' output); exits 3 where malloc is
 *               not glibc's (a sanitizer's)
 *   term_exit_cupti   the same, the SIGTERM raised inside call N+1, while
 *               the simulated runtime holds CUPTI's lock (run with
 *               GPUSIM_SIGNAL_IN_CUPTI=N+1); prints "signal_at_ms: T"
 *               (CLOCK_REALTIME) just before that call, so that a test
 *               times the exit from the signal, not from the launch
 *   eintr       SIGTERM handler without SA_RESTART; a thread sends SIGTERM
 *               after 0.3 s while the main thread reads an empty pipe;
 *               prints "read: EINTR" or "read: <n>" (the writer end is
 *               closed after 3 s, so a restarted read returns 0)
 *   resethand   SIGINT handler with SA_RESETHAND, then SIGINT twice: the
 *               second kills it (exit status 130 in the shell)
 *   view        prints what sigaction(SIGTERM, NULL, &old) says, installed
 *               before and after the first call: "view: before|after ok"
 *   mask        handlers with sa_mask and SA_NODEFER; prints the signals
 *               blocked inside each: "mask: ..." lines
 *   segv        a SIGSEGV handler that unprotects the page and returns;
 *               2,000 faults; prints "faults: F sum: S seconds: T waits: W",
 *               W the times the thread slept meanwhile (voluntary context
 *               switches: a handler that waits for anything shows there)
 *   vfork       vfork + execv of /bin/true, then N calls more
 *   vforkfail   vfork + execv of a program that does not exist, _exit(127)
 *               in the child, then N calls more
 *   exit8       8 threads make N calls each, then all call exit(0) at once
 *   execl, execlp, execle   exec /bin/true through that function
 *   execfail    launches a kernel, fails an execv, launches it again, exits
 *   execfail_threads   a thread calls cudaStreamQuery all along while the
 *               main thread fails an execv, then makes N calls more
 */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <errno.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long calls;

static void make_calls(int n)
{
    for (int i = 0; i < n; i++)
        cudaSetDevice(0);
    calls += n;
}

static void print_calls(void)
{
    printf("calls: %ld\n", calls);
    fflush(stdout);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void set_handler(int sig, void (*fn)(int), int flags, const sigset_t *mask)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = fn;
    sa.sa_flags = flags;
    if (mask)
        sa.sa_mask = *mask;
    else
        sigemptyset(&sa.sa_mask);
    sigaction(sig, &sa, NULL);
}

/* ---- term_exit ------------------------------------------------------------ */

static void exit7(int sig)
{
    (void)sig;
    _exit(7);
}

static int term_exit(int n)
{
    set_handler(SIGTERM, exit7, 0, NULL);
    make_calls(n);
    print_calls();
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    /* blocks larger than the thread caches: each malloc and free takes the
     * arena lock, which the handler then interrupts */
    for (unsigned i = 0;; i++) {
        void *p = malloc(40000 + (i % 64) * 1024);
        if (p)
            memset(p, 1, 64);
        free(p);
        if (i % 4096 == 0)
            cudaSetDevice(0); /* records for the final flush to store */
    }
    return 0;
}

/* "signal_at_ms: T" (the wall clock's ms) just before the signal is
 * raised: the test times the exit from it, not from the launch (the
 * program's and the tracer's start were most of it under load) */
static void print_signal_at(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    printf("signal_at_ms: %lld\n", (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000);
    fflush(stdout);
}

/* The SIGTERM comes while this thread holds malloc's arena lock, every
 * time: malloc_stats prints to stderr holding it, and stderr here is a
 * stream whose write raises SIGTERM. */
static ssize_t raise_term(void *c, const char *buf, size_t len)
{
    (void)c, (void)buf;
    raise(SIGTERM);
    return (ssize_t)len;
}

static int term_exit_locked(int n)
{
    set_handler(SIGTERM, exit7, 0, NULL);
    make_calls(n);
    print_calls();
    FILE *f = fopencookie(NULL, "w", (cookie_io_functions_t){ .write = raise_term });
    if (!f)
        return 2;
    setvbuf(f, NULL, _IONBF, 0);
    print_signal_at();
    FILE *saved = stderr;
    stderr = f;
    malloc_stats();
    stderr = saved;
    fprintf(stderr, "lifecycle: malloc_stats printed nothing (not glibc's allocator)\n");
    return 3;
}

/* ---- eintr ----------------------------------------------------------------- */

static pthread_t main_thread;
static int pipe_fds[2];
static void noop(int sig) { (void)sig; }

static void *send_term(void *arg)
{
    (void)arg;
    struct timespec t = { 0, 300 * 1000 * 1000 };
    nanosleep(&t, NULL);
    pthread_kill(main_thread, SIGTERM);
    t = (struct timespec){ 3, 0 };
    nanosleep(&t, NULL);
    close(pipe_fds[1]);
    return NULL;
}

static int eintr(int n)
{
    set_handler(SIGTERM, noop, 0, NULL);
    make_calls(n);
    print_calls();
    if (pipe(pipe_fds) != 0)
        return 2;
    main_thread = pthread_self();
    pthread_t t;
    pthread_create(&t, NULL, send_term, NULL);
    char c;
    ssize_t r = read(pipe_fds[0], &c, 1);
    if (r < 0)
        printf("read: %s\n", errno == EINTR ? "EINTR" : strerror(errno));
    else
        printf("read: %zd\n", r);
    fflush(stdout);
    pthread_join(t, NULL);
    return 0;
}

/* ---- resethand, view, mask --------------------------------------------------- */

static void say_first(int sig)
{
    (void)sig;
    static const char m[] = "first SIGINT handled\n";
    (void)!write(1, m, sizeof m - 1);
}

static int resethand(int n)
{
    set_handler(SIGINT, say_first, SA_RESETHAND, NULL);
    make_calls(n);
    print_calls();
    raise(SIGINT);
    raise(SIGINT);
    printf("still alive after the second SIGINT\n");
    return 0;
}

static void other(int sig) { (void)sig; }

static const char *view_of(int sig)
{
    struct sigaction old;
    sigaction(sig, NULL, &old);
    int ok = !(old.sa_flags & SA_SIGINFO) && old.sa_handler == other &&
             (old.sa_flags & (SA_RESTART | SA_NODEFER | SA_RESETHAND)) == SA_NODEFER &&
             sigismember(&old.sa_mask, SIGUSR2) && !sigismember(&old.sa_mask, SIGUSR1);
    return ok ? "ok" : "changed";
}

static int view(int n)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR2);
    set_handler(SIGTERM, other, SA_NODEFER, &m);
    make_calls(n);
    print_calls();
    printf("view: before %s\n", view_of(SIGTERM));
    set_handler(SIGHUP, other, SA_NODEFER, &m);
    printf("view: after %s\n", view_of(SIGHUP));
    /* exactly as the kernel keeps an action: its flags (the C library's
     * SA_RESTORER too) and its mask, which never holds SIGKILL or SIGSTOP */
    sigset_t all;
    sigfillset(&all);
    set_handler(SIGINT, other, SA_RESTART, &all);
    struct sigaction kept;
    sigaction(SIGINT, NULL, &kept);
    printf("view: exact flags=%#x kill=%d stop=%d usr2=%d\n", (unsigned)kept.sa_flags, sigismember(&kept.sa_mask, SIGKILL),
           sigismember(&kept.sa_mask, SIGSTOP), sigismember(&kept.sa_mask, SIGUSR2));
    /* the program's view of a handler the kernel reset: SA_RESETHAND */
    set_handler(SIGINT, other, SA_RESETHAND, NULL);
    raise(SIGINT);
    struct sigaction old;
    sigaction(SIGINT, NULL, &old);
    printf("view: reset %s\n", !(old.sa_flags & SA_SIGINFO) && old.sa_handler == SIG_DFL ? "ok" : "changed");
    return 0;
}

static char mask_seen[256];

static void note_mask(int sig)
{
    sigset_t cur;
    sigprocmask(SIG_BLOCK, NULL, &cur);
    snprintf(mask_seen, sizeof mask_seen, "mask: %s usr1=%d self=%d", sig == SIGTERM ? "term" : "quit",
             sigismember(&cur, SIGUSR1), sigismember(&cur, sig));
}

static int mask(int n)
{
    sigset_t m;
    sigemptyset(&m);
    sigaddset(&m, SIGUSR1);
    set_handler(SIGTERM, note_mask, 0, &m);
    set_handler(SIGQUIT, note_mask, SA_NODEFER, NULL);
    make_calls(n);
    print_calls();
    raise(SIGTERM);
    printf("%s\n", mask_seen);
    raise(SIGQUIT);
    printf("%s\n", mask_seen);
    return 0;
}

/* ---- segv ----------------------------------------------------------------- */

static char *guard;
static long page, faults;

static void unprotect(int sig, siginfo_t *si, void *uc)
{
    (void)sig, (void)uc;
    if ((char *)si->si_addr < guard || (char *)si->si_addr >= guard + page)
        abort();
    faults++;
    mprotect(guard, (size_t)page, PROT_READ | PROT_WRITE);
}

static int segv(int n)
{
    page = sysconf(_SC_PAGESIZE);
    guard = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (guard == MAP_FAILED)
        return 2;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = unprotect;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    make_calls(n);
    print_calls();
    long sum = 0;
    struct rusage ru0, ru1;
    getrusage(RUSAGE_THREAD, &ru0);
    double t0 = now_s();
    for (int i = 0; i < 2000; i++) {
        mprotect(guard, (size_t)page, PROT_NONE);
        ((volatile char *)guard)[i % page] = (char)i; /* faults; the handler lets it through */
        sum += ((volatile char *)guard)[i % page];
    }
    double t1 = now_s();
    getrusage(RUSAGE_THREAD, &ru1);
    printf("faults: %ld sum: %ld seconds: %.6f waits: %ld\n", faults, sum, t1 - t0, ru1.ru_nvcsw - ru0.ru_nvcsw);
    return 0;
}

/* ---- vfork, exit8, exec ---------------------------------------------------- */

static int do_vfork(int n, const char *prog)
{
    make_calls(n);
    char *argv[] = { (char *)prog, NULL };
    fflush(stdout);
    pid_t pid = vfork();
    if (pid == 0) {
        execv(prog, argv);
        _exit(127);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    printf("child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
    make_calls(n);
    print_calls();
    return 0;
}

static pthread_barrier_t at_exit;
static int per_thread;

static void *call_then_exit(void *arg)
{
    (void)arg;
    for (int i = 0; i < per_thread; i++)
        cudaSetDevice(0);
    pthread_barrier_wait(&at_exit);
    exit(0);
}

static int exit8(int n)
{
    make_calls(1);
    per_thread = n;
    calls += 8L * n;
    print_calls();
    pthread_barrier_init(&at_exit, NULL, 8);
    pthread_t t[8];
    for (int i = 0; i < 8; i++)
        pthread_create(&t[i], NULL, call_then_exit, NULL);
    for (;;)
        pause();
    return 0;
}

/* A thread that calls cudaStreamQuery until told to stop, across the
 * failed exec of execfail_threads. */
static _Atomic int stop_querying;

static void *query_until_stopped(void *arg)
{
    (void)arg;
    while (!stop_querying) {
        cudaStreamQuery(0);
        usleep(100);
    }
    return NULL;
}

static int execfail_threads(int n)
{
    make_calls(n);
    pthread_t t;
    pthread_create(&t, NULL, query_until_stopped, NULL);
    usleep(20000);
    char *argv[] = { "/nonexistent/program", NULL };
    execv(argv[0], argv);
    make_calls(n);
    usleep(50000);
    stop_querying = 1;
    pthread_join(t, NULL);
    print_calls();
    return 0;
}

void lifecycle_kernel(void **args)
{
    (void)args;
}

static void launch(void)
{
    cudaLaunchKernel((const void *)lifecycle_kernel, (dim3){ 1, 1, 1 }, (dim3){ 1, 1, 1 }, NULL, 0, 0);
    cudaDeviceSynchronize();
    calls += 2;
}

/* The SIGTERM comes while the runtime, inside call n + 1, holds CUPTI's
 * lock (the simulator raises it there: GPUSIM_SIGNAL_IN_CUPTI). */
static int term_exit_cupti(int n)
{
    set_handler(SIGTERM, exit7, 0, NULL);
    make_calls(n);
    print_signal_at();
    cudaSetDevice(0);
    return 3; /* not reached where the simulator raised the signal */
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    int n = argc > 2 ? atoi(argv[2]) : 100;
    if (!strcmp(mode, "term_exit"))
        return term_exit(n);
    if (!strcmp(mode, "term_exit_cupti"))
        return term_exit_cupti(n);
    if (!strcmp(mode, "term_exit_locked"))
        return term_exit_locked(n);
    if (!strcmp(mode, "eintr"))
        return eintr(n);
    if (!strcmp(mode, "resethand"))
        return resethand(n);
    if (!strcmp(mode, "view"))
        return view(n);
    if (!strcmp(mode, "mask"))
        return mask(n);
    if (!strcmp(mode, "segv"))
        return segv(n);
    if (!strcmp(mode, "vfork"))
        return do_vfork(n, "/bin/true");
    if (!strcmp(mode, "vforkfail"))
        return do_vfork(n, "/nonexistent/program");
    if (!strcmp(mode, "exit8"))
        return exit8(n);
    if (!strcmp(mode, "execfail_threads"))
        return execfail_threads(n);
    if (!strncmp(mode, "exec", 4)) {
        make_calls(n);
        if (!strcmp(mode, "execfail")) {
            launch();
            char *argv2[] = { "/nonexistent/program", NULL };
            execv(argv2[0], argv2);
            make_calls(n); /* this image again, as a process row of its own */
            launch();
            print_calls();
            return 0;
        }
        print_calls();
        char *env[] = { "LIFECYCLE=1", NULL };
        if (!strcmp(mode, "execl"))
            execl("/bin/true", "true", (char *)NULL);
        else if (!strcmp(mode, "execlp"))
            execlp("true", "true", (char *)NULL);
        else if (!strcmp(mode, "execle"))
            execle("/bin/true", "true", (char *)NULL, env);
        return 5;
    }
    fprintf(stderr, "lifecycle: unknown mode '%s'\n", mode);
    return 2;
}
