/* deps_app.h: what the small dependency workloads (pg_sync.c, cpu_copy.c,
 * event_sync.c) share: a kernel that lasts as long as asked (kernels are
 * exported host functions, as the simulator's contract says) and its
 * launch.  Included by one file of each program. */
#ifndef GPUTRACE_DEPS_APP_H
#define GPUTRACE_DEPS_APP_H

#include "app_train.h"

#include <nvtx3/nvToolsExt.h>
#include <time.h>

#define DEPS_STEPS 8

/* DEPS_FIX=1: the twin with the planted problem fixed as its finding
 * suggests (tests/e2e/report_twins.py); each step is an NVTX range
 * "train_step" and the end's wait "drain", whose times are the loop's. */
static inline int deps_fix(void)
{
    const char *v = getenv("DEPS_FIX");
    return v && *v == '1';
}

static inline void deps_spin_us(int us)
{
    struct timespec ts = { us / 1000000, (long)(us % 1000000) * 1000 };
    nanosleep(&ts, NULL);
}

/* The kernels' arguments must outlive their launch: one slot per launch. */
struct deps_arg { int us; int *p; void *argv[1]; };

static inline void deps_launch(void (*fn)(void **), cudaStream_t s, int us)
{
    struct deps_arg *a = calloc(1, sizeof *a); /* freed at exit: a few per step */
    if (!a)
        exit(1);
    a->us = us;
    a->p = &a->us;
    a->argv[0] = &a->p;
    CHECK_CUDA(cudaLaunchKernel((const void *)fn, (dim3){ 1, 1, 1 }, (dim3){ 32, 1, 1 }, a->argv, 0, s));
}

static inline int deps_us(void **args)
{
    return **(int **)args[0];
}

#endif
