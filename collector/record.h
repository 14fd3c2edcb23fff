/* record.h: the fixed-size record a wrapper appends to its thread's buffer.
 *
 * One record per wrapped call (GT_REC_CALL), plus a start mark for calls
 * that may block for long (GT_REC_MARK), so that a process killed inside one
 * still shows where each thread was stuck.  Times are raw clock ticks
 * (collector/clock.h); the writer converts them.  128 bytes: two cache lines,
 * written once by the owning thread and read once by the writer.
 */
#ifndef GPUTRACE_RECORD_H
#define GPUTRACE_RECORD_H

#include <stdint.h>

enum gt_rec_type { GT_REC_CALL = 1, GT_REC_MARK = 2, GT_REC_COMM = 3, GT_REC_NVTX = 4 };
/* GT_REC_COMM: a communicator was made: comm_id, rank, nranks; stream holds
 * the handle, event the parent communicator id (0 if none).
 * GT_REC_NVTX: an NVTX event; `api` holds enum gt_nvtx_kind, and
 *   stream = domain (a strtab id, 0 = the default domain),
 *   event = name (strtab id), count = category, seq = nesting depth,
 *   call_id = range id (start/end ranges), bytes = payload bits and
 *   op = payload type (nvtxPayloadType_t, 0 = none; GT_NVTX_PAYLOAD_TEXT:
 *   a structured payload read into text, bytes its strtab id); for NAME_CATEGORY,
 *   count is the category and event its name; for NAME_THREAD, peer is the
 *   thread and event its name. */
#define GT_NVTX_PAYLOAD_TEXT 100 /* outside nvtxPayloadType_t's scalar types (1..6) */

enum gt_nvtx_kind {
    GT_NVTX_RANGE = 1,      /* a push/pop range, complete: t_start .. t_end */
    GT_NVTX_START = 2,      /* a start/end range began */
    GT_NVTX_END = 3,        /* ... and ended (call_id, t_end) */
    GT_NVTX_MARK = 4,       /* an instant */
    GT_NVTX_NAME_CATEGORY = 5,
    GT_NVTX_NAME_THREAD = 6,
};

/* The sequence number of an NCCL operation that NCCL refused (stored as -1). */
#define GT_SEQ_NONE UINT64_MAX

/* Host memory kinds, as the tracer saw the allocations. */
enum gt_mem_kind { GT_MEM_UNKNOWN = 0, GT_MEM_PAGEABLE, GT_MEM_PINNED, GT_MEM_DEVICE, GT_MEM_MANAGED };

/* Copy directions (cudaMemcpyKind values, resolved for cudaMemcpyDefault). */
enum gt_copy_kind { GT_COPY_NONE = 0, GT_COPY_HTOD, GT_COPY_DTOH, GT_COPY_DTOD, GT_COPY_HTOH, GT_COPY_MEMSET };

struct gt_record {
    /* aligned to its cache line wherever it lives (a ring slot, the
     * thread-local scratch record of a full ring, a copy on the stack):
     * gt_record_clear's 16-byte stores need it */
    _Alignas(64) uint16_t type; /* enum gt_rec_type */
    uint16_t api;         /* enum gt_api */
    uint8_t copy_kind;    /* enum gt_copy_kind */
    uint8_t mem_kind;     /* enum gt_mem_kind of the host side */
    uint8_t in_group;     /* NCCL call made between ncclGroupStart and End */
    uint8_t pad0;
    int32_t result;
    uint32_t tid;
    uint32_t callsite;    /* interned stack id, 0 = none */
    uint32_t pystack;     /* interned Python stack id (pyframes.h), 0 = none */
    uint64_t t_start, t_end;
    uint64_t stream, event;
    uint64_t bytes;
    uint64_t call_id;     /* unique in the process; the external correlation id */
    /* NCCL operations */
    uint64_t comm_id;
    uint64_t seq;
    uint64_t count;
    uint64_t group_id;
    int32_t op, dtype, peer, rank;
    int32_t nranks, device;
};

_Static_assert(sizeof(struct gt_record) == 128, "records are two cache lines");
_Static_assert(_Alignof(struct gt_record) == 64, "records start a cache line");

/* Clears a record (64-byte aligned) with eight 16-byte stores: a plain
 * `= (struct gt_record){ 0 }` compiles to `rep stosq`, whose start-up cost
 * was a tenth of a wrapped call's. */
static inline void gt_record_clear(struct gt_record *r)
{
    typedef long long v2 __attribute__((vector_size(16)));
    v2 *p = (v2 *)__builtin_assume_aligned(r, 64);
    const v2 z = { 0, 0 };
    p[0] = z; p[1] = z; p[2] = z; p[3] = z;
    p[4] = z; p[5] = z; p[6] = z; p[7] = z;
}

#endif
