/* load_plugin.c: a plugin that links the CUDA runtime and NCCL (the
 * simulator's, or the toolkit's real ones), for load_ways.c: opened by
 * dlopen in every way a program opens one.  Each call's result goes back
 * to the program, which prints it. */
#define _GNU_SOURCE
#include <cuda_runtime_api.h>
#include <nccl.h>
#ifndef CUPTIAPI
#define CUPTIAPI
#endif

#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Prints "WHERE API RESULT errno=E" for each call; returns how many calls
 * it made. */
int plugin_calls(const char *where)
{
    cudaStream_t s = NULL;
    errno = 0;
    int rc = (int)cudaStreamCreate(&s);
    printf("%s cudaStreamCreate %d errno=%d\n", where, rc, errno);
    rc = (int)cudaStreamSynchronize(s);
    printf("%s cudaStreamSynchronize %d\n", where, rc);
    rc = (int)cudaDeviceSynchronize();
    printf("%s cudaDeviceSynchronize %d\n", where, rc);
    rc = (int)cudaStreamDestroy(s);
    printf("%s cudaStreamDestroy %d\n", where, rc);
    rc = (int)ncclGroupStart();
    printf("%s ncclGroupStart %d\n", where, rc);
    rc = (int)ncclGroupEnd();
    printf("%s ncclGroupEnd %d\n", where, rc);
    return 6;
}

/* The repro, a tail call at -O2: the runtime's function returns
 * straight to our caller, whose object is then the return address's. */
int plugin_tail_sync(const char *where)
{
    (void)where;
    return (int)cudaDeviceSynchronize();
}

/* dlsym(RTLD_NEXT) from here: the C library finds "next" from its caller,
 * this plugin, in the local scope it was opened with; the answer is the
 * runtime this plugin links, printed by file name. */
const char *plugin_next(void)
{
    Dl_info info;
    void *p = dlsym(RTLD_NEXT, "cudaDeviceSynchronize");
    const char *file = p && dladdr(p, &info) && info.dli_fname ? strrchr(info.dli_fname, '/') : NULL;
    return file ? file + 1 : "nowhere";
}

/* A CUPTI client of the plugin's own, as a profiler the program starts is
 * (torch.profiler): subscribes to CUPTI's callbacks, found in the plugin's
 * scope.  Returns cuptiSubscribe's result, or -1 without a CUPTI there. */
static void CUPTIAPI no_callback(void *userdata, int domain, unsigned cbid, const void *data)
{
    (void)userdata; (void)domain; (void)cbid; (void)data;
}

int plugin_subscribe(void)
{
    int (*subscribe)(void **, void (*)(void *, int, unsigned, const void *), void *) =
        (int (*)(void **, void (*)(void *, int, unsigned, const void *), void *))dlsym(RTLD_DEFAULT, "cuptiSubscribe");
    void *sub;
    return subscribe ? subscribe(&sub, no_callback, NULL) : -1;
}
