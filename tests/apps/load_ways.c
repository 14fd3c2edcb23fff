/* load_ways.c: every way a program reaches the CUDA runtime and NCCL
 * through the dynamic linker, one per mode, for tracer_loading.sh, which
 * runs each traced and untraced and compares what the program printed
 * (every result and errno) and its exit status, and counts what was
 * recorded.  Not linked against CUDA: libraries come by path.
 *
 *   global PLUGIN          dlopen RTLD_GLOBAL, then the plugin's calls
 *   local PLUGIN           dlopen RTLD_LOCAL (Python extension modules)
 *   tail PLUGIN            RTLD_LOCAL, a function that tail-calls the runtime
 *   lazy PLUGIN            dlopen RTLD_LAZY | RTLD_LOCAL
 *   chain OUTER            RTLD_LOCAL plugin -> library -> libcudart
 *   dlmopen PLUGIN         into a new link-map namespace
 *   handle CUDART NCCL     dlopen RTLD_LOCAL + dlsym(handle), calls through
 *                          the pointers (ctypes, pynccl, launchers)
 *   late PLUGIN OUTER      a library loaded after the first traced call
 *   probe PLUGIN           with the runtime only in a local scope:
 *                          dlsym(RTLD_DEFAULT) and dlsym(dlopen(NULL)) of
 *                          a CUDA name find nothing, as they would untraced
 *   copies USER_A USER_B   two plugins, each linked against its own copy of
 *                          a runtime (two_copies_lib.c): each gets its own
 *   missing USER           a lazily bound call that nothing defines: the
 *                          dynamic linker's error and status 127
 *   closed USER_A USER_B   USER_A opened RTLD_GLOBAL calls its copy, is closed
 *                          (its copy goes with it); then USER_B, RTLD_LOCAL,
 *                          reaches its own copy, not the one unloaded
 *   rebind USER_A COPY2    USER_A (RTLD_LOCAL) calls its copy; COPY2 is then
 *                          opened RTLD_GLOBAL; USER_A's second call site still
 *                          reaches its first copy (an object binds once)
 *   dlerror PLUGIN         a failed dlopen, then the plugin's first CUDA calls
 *                          (the tracer starts and looks things up), then
 *                          dlerror(): the program's own message, once
 *   subscribe PLUGIN       RTLD_LOCAL, the plugin's calls, then a CUPTI client
 *                          of the plugin's own subscribes (torch.profiler)
 *   unload A B             B (RTLD_LOCAL) looks up a symbol of A (RTLD_GLOBAL)
 *                          with dlsym(RTLD_DEFAULT); both closed: A is
 *                          unloaded at its dlclose, as untraced (the
 *                          binding is B's dependency, not the tracer's)
 *   next PLUGIN            dlsym(RTLD_NEXT) from a plugin opened
 *                          RTLD_LOCAL: the C library's answer for the
 *                          plugin (the runtime it links), by file name
 * Exits 5 after a successful run, so that the status is seen to pass.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

static void *need(void *p, const char *what)
{
    if (!p) {
        printf("%s failed: %s\n", what, dlerror());
        fflush(stdout);
    }
    return p;
}

static int run_plugin(void *h, const char *fn, const char *where)
{
    int (*f)(const char *) = (int (*)(const char *))need(h ? dlsym(h, fn) : NULL, fn);
    if (!f)
        return 1;
    printf("%s made %d calls\n", where, f(where));
    return 0;
}

static int by_handle(const char *cudart, const char *nccl)
{
    void *c = need(dlopen(cudart, RTLD_NOW | RTLD_LOCAL), "dlopen cudart");
    void *n = need(dlopen(nccl, RTLD_NOW | RTLD_LOCAL), "dlopen nccl");
    if (!c || !n)
        return 1;
    int (*create)(void **) = (int (*)(void **))need(dlsym(c, "cudaStreamCreate"), "cudaStreamCreate");
    int (*sync)(void *) = (int (*)(void *))need(dlsym(c, "cudaStreamSynchronize"), "cudaStreamSynchronize");
    int (*dsync)(void) = (int (*)(void))need(dlsym(c, "cudaDeviceSynchronize"), "cudaDeviceSynchronize");
    int (*destroy)(void *) = (int (*)(void *))need(dlsym(c, "cudaStreamDestroy"), "cudaStreamDestroy");
    int (*gstart)(void) = (int (*)(void))need(dlsym(n, "ncclGroupStart"), "ncclGroupStart");
    int (*gend)(void) = (int (*)(void))need(dlsym(n, "ncclGroupEnd"), "ncclGroupEnd");
    if (!create || !sync || !dsync || !destroy || !gstart || !gend)
        return 1;
    void *s = NULL;
    errno = 0;
    int rc = create(&s);
    printf("handle cudaStreamCreate %d errno=%d\n", rc, errno);
    printf("handle cudaStreamSynchronize %d\n", sync(s));
    printf("handle cudaDeviceSynchronize %d\n", dsync());
    printf("handle cudaStreamDestroy %d\n", destroy(s));
    printf("handle ncclGroupStart %d\n", gstart());
    printf("handle ncclGroupEnd %d\n", gend());
    /* a name nobody defines stays undefined */
    printf("handle missing %s\n", dlsym(c, "cudaNoSuchFunction") ? "found" : "NULL");
    return 0;
}

static int probe(const char *plugin)
{
    void *h = need(dlopen(plugin, RTLD_NOW | RTLD_LOCAL), "dlopen");
    if (!h)
        return 1;
    printf("probe RTLD_DEFAULT cudaDeviceSynchronize %s\n", dlsym(RTLD_DEFAULT, "cudaDeviceSynchronize") ? "found" : "NULL");
    printf("probe dlerror set %s\n", dlerror() ? "yes" : "no");
    void *self = dlopen(NULL, RTLD_NOW);
    printf("probe program handle cudaStreamSynchronize %s\n", dlsym(self, "cudaStreamSynchronize") ? "found" : "NULL");
    printf("probe RTLD_DEFAULT printf %s\n", dlsym(RTLD_DEFAULT, "printf") ? "found" : "NULL");
    return run_plugin(h, "plugin_calls", "probe");
}

static int copies(const char *a, const char *b)
{
    void *ha = need(dlopen(a, RTLD_NOW | RTLD_LOCAL), "dlopen a");
    void *hb = need(dlopen(b, RTLD_NOW | RTLD_LOCAL), "dlopen b");
    int (*ua)(int *) = ha ? (int (*)(int *))need(dlsym(ha, "user_a"), "user_a") : NULL;
    int (*ub)(int *) = hb ? (int (*)(int *))need(dlsym(hb, "user_b"), "user_b") : NULL;
    if (!ua || !ub)
        return 1;
    for (int i = 0; i < 2; i++) {
        int ea = 0, eb = 0;
        int ra = ua(&ea), rb = ub(&eb);
        printf("copies a %d errno=%d b %d errno=%d\n", ra, ea, rb, eb);
    }
    return 0;
}

static int next(const char *plugin)
{
    void *h = need(dlopen(plugin, RTLD_NOW | RTLD_LOCAL), "dlopen");
    const char *(*f)(void) = h ? (const char *(*)(void))need(dlsym(h, "plugin_next"), "plugin_next") : NULL;
    if (!f)
        return 1;
    printf("next cudaDeviceSynchronize from %s\n", f());
    return 0;
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    const char *x = argc > 2 ? argv[2] : "", *y = argc > 3 ? argv[3] : "";
    int rc;
    if (!strcmp(mode, "global"))
        rc = run_plugin(need(dlopen(x, RTLD_NOW | RTLD_GLOBAL), "dlopen"), "plugin_calls", mode);
    else if (!strcmp(mode, "local"))
        rc = run_plugin(need(dlopen(x, RTLD_NOW | RTLD_LOCAL), "dlopen"), "plugin_calls", mode);
    else if (!strcmp(mode, "tail"))
        rc = run_plugin(need(dlopen(x, RTLD_NOW | RTLD_LOCAL), "dlopen"), "plugin_tail_sync", mode);
    else if (!strcmp(mode, "lazy"))
        rc = run_plugin(need(dlopen(x, RTLD_LAZY | RTLD_LOCAL), "dlopen"), "plugin_calls", mode);
    else if (!strcmp(mode, "chain"))
        rc = run_plugin(need(dlopen(x, RTLD_NOW | RTLD_LOCAL), "dlopen"), "outer_calls", mode);
    else if (!strcmp(mode, "dlmopen"))
        rc = run_plugin(need(dlmopen(LM_ID_NEWLM, x, RTLD_NOW), "dlmopen"), "plugin_calls", mode);
    else if (!strcmp(mode, "handle"))
        rc = by_handle(x, y);
    else if (!strcmp(mode, "late"))
        rc = run_plugin(need(dlopen(x, RTLD_NOW | RTLD_LOCAL), "dlopen"), "plugin_calls", "first") ||
             run_plugin(need(dlopen(y, RTLD_NOW | RTLD_LOCAL), "dlopen"), "outer_calls", "late");
    else if (!strcmp(mode, "probe"))
        rc = probe(x);
    else if (!strcmp(mode, "copies"))
        rc = copies(x, y);
    else if (!strcmp(mode, "missing")) {
        void *h = need(dlopen(x, RTLD_LAZY | RTLD_LOCAL), "dlopen");
        int (*f)(void) = h ? (int (*)(void))need(dlsym(h, "user_missing"), "user_missing") : NULL;
        rc = f ? f() : 1;
        printf("missing returned %d\n", rc);
    } else if (!strcmp(mode, "closed") || !strcmp(mode, "rebind")) {
        int closed = !strcmp(mode, "closed"), err = 0;
        void *ha = need(dlopen(x, RTLD_NOW | (closed ? RTLD_GLOBAL : RTLD_LOCAL)), "dlopen a");
        int (*ua)(int *) = ha ? (int (*)(int *))need(dlsym(ha, "user_a"), "user_a") : NULL;
        int (*ua2)(int *) = ha ? (int (*)(int *))need(dlsym(ha, "user_a_again"), "user_a_again") : NULL;
        rc = !ua || !ua2;
        if (!rc) {
            printf("%s: a %d\n", mode, ua(&err));
            if (closed) {
                dlclose(ha);
                void *hb = need(dlopen(y, RTLD_NOW | RTLD_LOCAL), "dlopen b");
                int (*ub)(int *) = hb ? (int (*)(int *))need(dlsym(hb, "user_b"), "user_b") : NULL;
                rc = !ub;
                if (ub)
                    printf("closed: then b %d\n", ub(&err));
            } else {
                rc = !need(dlopen(y, RTLD_NOW | RTLD_GLOBAL), "dlopen copy 2");
                printf("rebind: a's second call site %d\n", ua2(&err));
            }
        }
    } else if (!strcmp(mode, "dlerror")) {
        void *h = need(dlopen(x, RTLD_NOW | RTLD_LOCAL), "dlopen");
        int (*f)(const char *) = h ? (int (*)(const char *))need(dlsym(h, "plugin_calls"), "plugin_calls") : NULL;
        rc = !f;
        if (f) {
            void *none = dlopen("/nonexistent/libnothing.so", RTLD_NOW);
            f(mode);
            const char *e = dlerror();
            printf("dlerror: %s %s\n", none ? "opened?" : "not opened", e ? e : "(none)");
            e = dlerror();
            printf("dlerror again: %s\n", e ? e : "(none)");
        }
    } else if (!strcmp(mode, "subscribe")) {
        void *h = need(dlopen(x, RTLD_NOW | RTLD_LOCAL), "dlopen");
        rc = run_plugin(h, "plugin_calls", mode);
        int (*sub)(void) = h ? (int (*)(void))need(dlsym(h, "plugin_subscribe"), "plugin_subscribe") : NULL;
        if (sub)
            printf("subscribe: cuptiSubscribe %d\n", sub());
    } else if (!strcmp(mode, "unload")) {
        void *a = need(dlopen(x, RTLD_NOW | RTLD_GLOBAL), "dlopen a");
        void *b = need(dlopen(y, RTLD_NOW | RTLD_LOCAL), "dlopen b");
        int (*lookup)(void) = b ? (int (*)(void))need(dlsym(b, "unload_lookup"), "unload_lookup") : NULL;
        rc = !a || !lookup;
        if (!rc) {
            printf("unload: B found A's symbol: %d\n", lookup());
            dlclose(b);
            printf("unload: B closed\n");
            fflush(stdout);
            dlclose(a);
            printf("unload: A closed\n");
        }
    } else if (!strcmp(mode, "next"))
        rc = next(x);
    else {
        fprintf(stderr, "usage: load_ways MODE [LIB [LIB]]\n");
        return 2;
    }
    fflush(stdout);
    return rc ? 1 : 5;
}
