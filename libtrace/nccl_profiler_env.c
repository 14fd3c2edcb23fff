/* nccl_profiler_env.c: pointing NCCL at the tracer as its profiler plugin.
 *
 * NCCL reads NCCL_PROFILER_PLUGIN when it makes its first communicator;
 * the preloaded library sets it at load time, before the program (or a
 * library's constructor) can reach NCCL, to its own path, unless the user
 * named a plugin (or "none"): theirs wins, and the process row says so.
 * GPUTRACE_NCCL_PLUGIN=0 leaves the variable alone.  Only an environment
 * variable is set; nothing else runs here. */
#define _GNU_SOURCE
#include "libtrace/nccl_profiler.h"
#include "libtrace/lifecycle.h"
#include "libtrace/nccl_profiler_abi.h"
#include "libtrace/real.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>


static char status[700] = "not loaded by NCCL (no communicator made, or an NCCL before 2.23)";

const char *gt_nccl_plugin_status(void)
{
    return status;
}

static void arrange(void)
{
    const char *off = getenv("GPUTRACE_NCCL_PLUGIN");
    if (off && strcmp(off, "0") == 0) {
        snprintf(status, sizeof status, "off (GPUTRACE_NCCL_PLUGIN=0)");
        return;
    }
    Dl_info info;
    char self[PATH_MAX];
    if (!dladdr((const void *)&gt_np_own_v5, &info) || !info.dli_fname || !realpath(info.dli_fname, self))
        return;
    const char *cur = getenv("NCCL_PROFILER_PLUGIN");
    if (cur && *cur) {
        char theirs[PATH_MAX];
        if (strcasecmp(cur, "none") == 0)
            snprintf(status, sizeof status, "off (NCCL_PROFILER_PLUGIN=none)");
        else if (!realpath(cur, theirs) || strcmp(theirs, self) != 0)
            snprintf(status, sizeof status, "off (NCCL_PROFILER_PLUGIN names another plugin: %.500s)", cur);
        return;
    }
    setenv("NCCL_PROFILER_PLUGIN", self, 0);
}

GT_CONSTRUCTOR(arrange_plugin)
{
    if (!gt_in_base_namespace() || !gt_in_global_scope("ncclProfiler_v5", &gt_np_own_v5))
        return;
    arrange();
}

/* Loaded by the driver's injection (RTLD_LOCAL, at cuInit) and not
 * preloaded: the program's first communicator comes after its first CUDA
 * call, so NCCL (a static one too) still finds the variable, and its
 * dlopen of this path is this copy.  Without it NCCL's operations in a
 * process traced by injection alone were not recorded at all. */
void gt_nccl_plugin_arrange_injected(void)
{
    if (gt_in_base_namespace())
        arrange();
}
