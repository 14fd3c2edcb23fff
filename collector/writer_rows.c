/* writer_rows.c: the writer's records into rows (see writer.h): calls,
 * marks of calls in flight, NVTX ranges, communicators, and the strings
 * and stacks they point to. */
#define _GNU_SOURCE
#include "collector/writer_int.h"
#include "format/api_ids.h"
#include "collector/callsite.h"
#include "collector/clock.h"
#include "collector/modules.h"
#include "collector/mon_agg.h"
#include "collector/mon_gpu.h"
#include "collector/pyframes.h"
#include "collector/strtab.h"

#include <dlfcn.h>
#include <stdlib.h>

/* Room for one more element in a writer-side array (writer thread only). */
static int room_for(void **arr, int *cap, int n, size_t elem, int limit)
{
    if (n < *cap)
        return 1;
    int want = *cap ? *cap * 2 : 256;
    if (want > limit)
        want = limit;
    void *p = n < want ? realloc(*arr, (size_t)want * elem) : NULL;
    if (!p) {
        gt_w.lost++;
        return 0;
    }
    *arr = p;
    *cap = want;
    return 1;
}

static int is_collective(unsigned api)
{
    return api >= GT_API_ncclAllReduce && api <= GT_API_ncclRecv;
}

/* A call that may block ended: its mark goes (monitor mode: its time is
 * added to its call site's). */
static void forget_mark(uint64_t call_id, int64_t end_ns)
{
    for (int i = 0; i < gt_w.nmarks; i++)
        if (gt_w.marks[i].call_id == call_id) {
            if (gt_w.monitor) {
                gt_mon_agg_blocking(gt_w.marks[i].callsite, (int)gt_w.marks[i].api, gt_w.marks[i].start_ns, end_ns);
                gt_mon_gpu_blocked(gt_w.marks[i].start_ns, end_ns);
            }
            if (gt_w.marks[i].written) {
                int64_t v[] = { (int64_t)call_id };
                gt_db_exec_i64(&gt_w.db, GT_ST_UNMARK, v, 1);
            }
            gt_w.marks[i] = gt_w.marks[--gt_w.nmarks];
            return;
        }
}

/* The device, the first time the program picks one; its name is asked for
 * later (gt_wr_look_up_gpu_name), never in the pass that stores the records:
 * a signal's flush runs this pass while the thread the signal interrupted
 * may hold the runtime's or CUPTI's locks, which cudaGetDeviceProperties
 * takes, and the handler's exit waits for the pass. */
static void note_device(int device)
{
    if (gt_w.device_seen)
        return;
    gt_w.device_seen = 1;
    gt_w.name_device = device + 1;
    gt_db_set_process_i64(&gt_w.db, "device", device, 0);
}

void gt_wr_look_up_gpu_name(void)
{
    if (!gt_w.name_device)
        return;
    int device = gt_w.name_device - 1;
    gt_w.name_device = 0;
    /* cudaDeviceProp starts with char name[256]; the buffer leaves room for
     * the larger struct of newer runtimes */
    static char prop[4096];
    int (*get_props)(void *, int) = (int (*)(void *, int))dlsym(RTLD_DEFAULT, "cudaGetDeviceProperties");
    if (get_props && get_props(prop, device) == 0) {
        prop[255] = 0;
        gt_db_set_process_text(&gt_w.db, "gpu_name", prop);
    }
}

static void flush_block(void)
{
    if (gt_w.nblock)
        gt_db_call_block(&gt_w.db, gt_w.block, gt_w.nblock);
    gt_w.nblock = 0;
}

static void flush_nvtx_block(void)
{
    if (gt_w.nnvtx_block)
        gt_db_nvtx_block(&gt_w.db, gt_w.nvtx_block, gt_w.nnvtx_block);
    gt_w.nnvtx_block = 0;
}

static void on_nvtx(const struct gt_record *r, uint32_t tid, int64_t start)
{
    switch (r->api) {
    case GT_NVTX_RANGE:
    case GT_NVTX_MARK:
    case GT_NVTX_START: {
        int64_t end = r->api == GT_NVTX_START ? 0 : (int64_t)gt_ticks_to_ns(r->t_end);
        /* NCCL's own ranges (one per collective) are no step, as the
         * report's user ranges leave them out (read/load_ranges.c) */
        if (gt_w.monitor && r->api == GT_NVTX_RANGE && r->nvtx.domain != gt_strtab_nccl_domain())
            gt_mon_agg_range(r->nvtx.name, r->depth, start, end);
        if (gt_w.bulk && r->api != GT_NVTX_START) { /* a start's row is updated by its end: never in bulk */
            gt_w.nvtx_block[gt_w.nnvtx_block++] = (struct gt_nvtx_packed){
                start, end, r->nvtx.payload, tid, r->nvtx.domain, r->nvtx.name, r->nvtx.category, r->depth,
                r->nvtx.payload_type, (uint8_t)r->api, { 0 } };
            if (gt_w.nnvtx_block == GT_BLOCK_ROWS)
                flush_nvtx_block();
            break;
        }
        int no_end = r->api == GT_NVTX_START;
        for (int i = 0; no_end && i < gt_w.nearly; i++)
            if (gt_w.early_ends[i].id == r->nvtx.range_id) {
                end = gt_w.early_ends[i].end_ns;
                no_end = 0;
                gt_w.early_ends[i] = gt_w.early_ends[--gt_w.nearly];
            }
        int64_t v[] = { tid, r->api, r->nvtx.domain, r->nvtx.name, r->nvtx.category, start, end,
                        r->depth, (int64_t)r->nvtx.range_id };
        gt_db_nvtx_row(&gt_w.db, v, no_end, r->nvtx.payload_type, r->nvtx.payload);
        break;
    }
    case GT_NVTX_END: {
        int64_t v[] = { (int64_t)r->nvtx.range_id, (int64_t)gt_ticks_to_ns(r->t_end) };
        gt_db_exec_i64(&gt_w.db, GT_ST_NVTX_END, v, 2);
        if (sqlite3_changes(gt_w.db.db) == 0 &&
            room_for((void **)&gt_w.early_ends, &gt_w.cap_early, gt_w.nearly, sizeof *gt_w.early_ends, MAX_EARLY_ENDS)) {
            gt_w.early_ends[gt_w.nearly].id = r->nvtx.range_id;
            gt_w.early_ends[gt_w.nearly++].end_ns = v[1];
        }
        break;
    }
    case GT_NVTX_NAME_CATEGORY: {
        int64_t v[] = { r->nvtx.domain, r->nvtx.category, r->nvtx.name };
        gt_db_exec_i64(&gt_w.db, GT_ST_NVTX_CATEGORY, v, 3);
        break;
    }
    case GT_NVTX_NAME_THREAD: {
        int64_t v[] = { (int64_t)r->nvtx.range_id, r->nvtx.name };
        gt_db_exec_i64(&gt_w.db, GT_ST_THREAD_NAME, v, 2);
        break;
    }
    default:
        break;
    }
}

/* At the end: push/pop ranges never closed, with no end. */
void gt_wr_on_open_range(uint32_t tid, const struct gt_nvtx_open *o, int depth, void *ctx)
{
    (void)ctx;
    int64_t v[] = { tid, GT_NVTX_RANGE, o->domain, o->name, o->category, (int64_t)gt_ticks_to_ns(o->t_start), 0,
                    depth, 0 };
    gt_db_nvtx_row(&gt_w.db, v, 1, o->payload_type, o->payload);
}

void gt_wr_on_record(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)ctx;
    int64_t start = (int64_t)gt_ticks_to_ns(r->t_start);
    uint64_t call_id = ((uint64_t)tid << 32) | r->call_seq;
    switch (r->type) {
    case GT_REC_MARK:
        if (room_for((void **)&gt_w.marks, &gt_w.cap_marks, gt_w.nmarks, sizeof *gt_w.marks, 1 << 30))
            gt_w.marks[gt_w.nmarks++] = (struct mark){ call_id, tid, r->api, start, r->callsite, r->pystack, 0 };
        break;
    case GT_REC_COMM: {
        int64_t v[] = { (int64_t)r->comm.handle, (int64_t)r->comm.comm_id, r->comm.rank, r->comm.nranks,
                        (int64_t)r->comm.parent, start };
        gt_db_exec_i64(&gt_w.db, GT_ST_COMM, v, 6);
        break;
    }
    case GT_REC_CALL: {
        /* a call whose end the wrapper did not read (t_end 0: libtrace/
         * trace.h, GT_F_END) is stored ending where it starts: "not
         * measured" (docs/tracer-guarantees.md), for the report to take
         * from CUPTI's record of it */
        int64_t end = r->t_end ? (int64_t)gt_ticks_to_ns(r->t_end) : start;
        int64_t bytes = (int64_t)r->bytes;
        if (gt_w.bulk) {
            gt_w.block[gt_w.nblock++] = (struct gt_call_packed){
                start, end, (int64_t)r->stream, (int64_t)r->event, bytes, (int64_t)call_id,
                tid, r->callsite, r->pystack, r->result, r->api, r->copy_kind, r->mem_kind, 0 };
            if (gt_w.nblock == GT_CALL_BLOCK_ROWS)
                flush_block();
        } else {
            int64_t v[] = { tid, r->api, start, end, (int64_t)r->stream, (int64_t)r->event, bytes,
                            r->copy_kind, r->mem_kind, r->result, r->callsite, (int64_t)call_id, r->pystack };
            gt_db_row(&gt_w.db, GT_ST_CALL, v);
        }
        if (nccl && is_collective(r->api)) {
            int64_t c[] = { (int64_t)call_id, r->api, (int64_t)nccl->nccl.comm_id, (int64_t)nccl->nccl.seq,
                            (int64_t)nccl->nccl.count, nccl->nccl.dtype, bytes, nccl->nccl.op, nccl->nccl.peer,
                            nccl->nccl.rank, nccl->nccl.nranks, (int64_t)r->stream, start, end, r->callsite,
                            (int64_t)nccl->nccl.group_id, r->result, r->pystack };
            gt_db_exec_i64(&gt_w.db, GT_ST_COLL, c, 18);
            if (gt_w.monitor)
                gt_mon_gpu_call(call_id, nccl->nccl.group_id,
                                gt_mon_agg_collective(nccl->nccl.comm_id, r->api, nccl->nccl.nranks, bytes,
                                                      (int64_t)nccl->nccl.seq, start),
                                bytes);
        }
        if (r->api == GT_API_cudaSetDevice && r->result == 0)
            note_device(r->device);
        forget_mark(call_id, end);
        break;
    }
    case GT_REC_NVTX:
        on_nvtx(r, tid, start);
        break;
    case GT_REC_CORR: {
        int64_t v[] = { (int64_t)(GT_XCORR_TAG | ((uint64_t)tid << 32) | r->corr.call), (int64_t)r->corr.correlation };
        gt_db_row(&gt_w.db, GT_ST_EXT, v);
        break;
    }
    default: /* GT_REC_NCCL comes with its call */
        break;
    }
}

static void on_callsite(uint32_t id, const char *text, void *ctx)
{
    (void)ctx;
    gt_db_exec_text(&gt_w.db, GT_ST_CALLSITE, id, text);
}

static void on_module(uint32_t id, const char *name, const char *path, const char *build_id, void *ctx)
{
    (void)ctx;
    gt_db_module_row(&gt_w.db, id, name, path, build_id);
}

static void on_label(uint32_t id, const char *text, void *ctx)
{
    (void)ctx;
    gt_db_exec_text(&gt_w.db, GT_ST_LABEL, id, text);
}

static void on_pystack(uint32_t id, const char *text, void *ctx)
{
    (void)ctx;
    gt_db_exec_text(&gt_w.db, GT_ST_PYSTACK, id, text);
}

void gt_wr_flush_blocks(void)
{
    flush_block();
    flush_nvtx_block();
}

void gt_wr_store_names(void)
{
    gt_callsite_flush_new(on_callsite, NULL);
    gt_modules_flush_new(on_module, NULL);
    gt_strtab_flush_new(on_label, NULL);
    gt_pystack_flush_new(on_pystack, NULL);
    const char *py = gt_pyframes_status_news();
    if (py)
        gt_db_set_process_text(&gt_w.db, "python_status", py);
}

void gt_wr_store_marks(void)
{
    for (int i = 0; i < gt_w.nmarks; i++)
        if (!gt_w.marks[i].written) {
            struct mark *m = &gt_w.marks[i];
            int64_t v[] = { m->tid, m->api, m->start_ns, (int64_t)m->call_id, m->callsite, m->pystack };
            gt_db_exec_i64(&gt_w.db, GT_ST_MARK, v, 6);
            m->written = 1;
        }
}
