/* plugin_store.c: NCCL plugin records into the nccl_comm, nccl_op,
 * nccl_kernel_ch and nccl_proxy_op tables (docs/schema.md).  A start is a
 * row; its stop fills in the row's end (the ring keeps a start before its
 * stop).  Runs on the writer thread only. */
#include "collector/plugin_store.h"
#include "collector/plugin_ring.h"

#include <stdio.h>

static int told; /* the process row says the plugin is active */

static int64_t id64(uint64_t v)
{
    return (int64_t)v;
}

static void store_one(const struct gt_plug_rec *r, void *ctx)
{
    struct gt_db *d = ctx;
    int64_t t = (int64_t)r->t;
    switch (r->kind) {
    case GT_PK_COMM: {
        int64_t v[] = { id64(r->comm), r->a, r->b, r->c, r->func, r->version, t };
        gt_db_exec_i64(d, GT_ST_NCCL_COMM, v, 7);
        if (!told) {
            char s[64];
            snprintf(s, sizeof s, "active (v%d)", r->version);
            gt_db_set_process_text(d, "nccl_plugin_status", s);
            told = 1;
        }
        break;
    }
    case GT_PK_OP_START: {
        int64_t v[] = { id64(r->id), id64(r->comm), id64(r->seq), r->nccl_seq == UINT64_MAX ? -1 : id64(r->nccl_seq),
                        r->func, r->dtype, id64(r->count), r->algo, r->proto, r->rank, r->b, r->nchannels, r->nwarps,
                        (r->flags & GT_PF_P2P) != 0, (r->flags & GT_PF_GRAPH) != 0, id64(r->stream), t };
        gt_db_exec_i64(d, GT_ST_NCCL_OP, v, 17);
        break;
    }
    case GT_PK_OP_STOP: {
        int64_t v[] = { id64(r->id), t };
        gt_db_exec_i64(d, GT_ST_NCCL_OP_END, v, 2);
        break;
    }
    case GT_PK_KCH_START: {
        int64_t v[] = { id64(r->id), id64(r->parent), r->channel, t, id64(r->ns[0]) };
        gt_db_exec_i64(d, GT_ST_NCCL_KCH, v, 5);
        break;
    }
    case GT_PK_KCH_STOP: {
        int64_t v[] = { id64(r->id), t, id64(r->ns[0]) };
        gt_db_exec_i64(d, GT_ST_NCCL_KCH_END, v, 3);
        break;
    }
    case GT_PK_PROXY_START: {
        int64_t v[] = { id64(r->id), id64(r->parent), r->channel, r->a, (r->flags & GT_PF_SEND) != 0, r->b, r->c, t };
        gt_db_exec_i64(d, GT_ST_NCCL_PROXY, v, 8);
        break;
    }
    case GT_PK_PROXY_STOP: {
        int64_t v[] = { id64(r->id), t, r->a, id64(r->count), id64(r->ns[GT_PB_GPU_WAIT]), id64(r->ns[GT_PB_PEER_WAIT]),
                        id64(r->ns[GT_PB_NET]), id64(r->ns[GT_PB_RECV_WAIT]), id64(r->ns[GT_PB_FLUSH]), r->b };
        gt_db_exec_i64(d, GT_ST_NCCL_PROXY_END, v, 10);
        break;
    }
    case GT_PK_PROXY_STATE: {
        int64_t v[] = { id64(r->id), r->b };
        gt_db_exec_i64(d, GT_ST_NCCL_PROXY_STATE, v, 2);
        break;
    }
    default:
        break;
    }
}

unsigned long gt_plug_store(struct gt_db *d)
{
    return gt_plug_drain(store_one, d);
}

void gt_plug_store_forget_after_fork(void)
{
    told = 0;
}
