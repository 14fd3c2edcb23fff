/* plugin_burst.c: drives libgputrace.so's ncclProfiler_v5 table as NCCL
 * would, without NCCL: a burst of operations and proxy ops whose stops
 * come at once (stored with their starts), then ones whose stops and step
 * states come after the writer stored their starts (stored as updates),
 * and proxy ops left in progress (tests/e2e/nccl_plugin.sh).
 * Usage: plugin_burst LIBGPUTRACE N */
#include "../../libtrace/nccl_profiler_abi.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static const struct gt_nccl_profiler_v5 *p;
static void *ctx;

static void *op(void)
{
    struct gt_npd_v5 d = { .type = GT_NPE_COLL };
    d.coll.func = "AllReduce";
    d.coll.datatype = "ncclFloat32";
    d.coll.algo = "RING";
    d.coll.proto = "LL";
    d.coll.count = 1024;
    d.coll.nChannels = 1;
    void *h = NULL;
    p->startEvent(ctx, &h, &d);
    return h;
}

static void *proxy(void *parent, void **step, int state)
{
    struct gt_npd_v5 d = { .type = GT_NPE_PROXY_OP, .parentObj = parent };
    d.proxyOp.nSteps = 1;
    d.proxyOp.isSend = 1;
    void *h = NULL;
    p->startEvent(ctx, &h, &d);
    struct gt_npd_v5 s = { .type = GT_NPE_PROXY_STEP, .parentObj = h };
    p->startEvent(ctx, step, &s);
    union gt_nps_args_v4 a = { .proxyStep = { 4096 } };
    p->recordEventState(*step, state, &a);
    return h;
}

int main(int argc, char **argv)
{
    if (argc < 3)
        return 2;
    int n = atoi(argv[2]);
    void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    p = lib ? dlsym(lib, "ncclProfiler_v5") : NULL;
    if (!p)
        return 3;
    int mask = 0;
    p->init(&ctx, 7, &mask, "burst", 1, 1, 0, NULL);
    void **late = calloc((size_t)n, sizeof *late), **steps = calloc((size_t)n, sizeof *steps);
    void **lp = calloc((size_t)n, sizeof *lp);
    if (!late || !steps || !lp)
        return 4;
    for (int i = 0; i < n; i++) { /* a burst: stops at once */
        void *o = op(), *st;
        void *x = proxy(o, &st, GT_NPS_STEP_SEND_WAIT);
        p->stopEvent(o);
        p->stopEvent(st);
        p->stopEvent(x);
    }
    for (int i = 0; i < n; i++) { /* stops and states that come later */
        late[i] = op();
        lp[i] = proxy(late[i], &steps[i], GT_NPS_STEP_SEND_PEER_WAIT);
    }
    usleep(300 * 1000); /* the writer stores their starts meanwhile */
    for (int i = 0; i < n; i++) {
        union gt_nps_args_v4 a = { .proxyStep = { 4096 } };
        p->recordEventState(steps[i], GT_NPS_STEP_SEND_WAIT, &a);
        p->stopEvent(late[i]);
        if (i % 2 == 0) { /* half end; the others stay in progress */
            p->stopEvent(steps[i]);
            p->stopEvent(lp[i]);
        }
    }
    p->finalize(ctx);
    printf("plugin_burst: %d\n", n);
    return 0;
}
