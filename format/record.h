/* record.h: the fixed-size record a wrapper appends to its thread's buffer.
 *
 * One record per wrapped call (GT_REC_CALL), plus a start mark for calls
 * that may block for long (GT_REC_MARK), so that a process killed inside one
 * still shows where each thread was stuck.  An NCCL call takes a second
 * slot (GT_REC_NCCL) for its communicator, sequence and shape.  Times are
 * raw clock ticks (collector/clock.h); the writer converts them.
 *
 * 64 bytes, one cache line: every line of a ring goes to the writer's core
 * and comes back for the next lap, and at two lines a record that traffic
 * was a fifth of a wrapped call's cost.  What the ring already knows is not
 * stored: the thread (its ring's), and the high half of the call id (the
 * thread id: call id = tid << 32 | call_seq).
 */
#ifndef GPUTRACE_RECORD_H
#define GPUTRACE_RECORD_H

#include "format/nvtx_block.h" /* GT_NVTX_PAYLOAD_TEXT */

#include <stdint.h>

enum gt_rec_type { GT_REC_CALL = 1, GT_REC_MARK = 2, GT_REC_COMM = 3, GT_REC_NVTX = 4, GT_REC_NCCL = 5, GT_REC_CORR = 6 };
/* GT_REC_CORR: a call recorded in a CUPTI callback (libtrace/cupti_calls.c)
 * was CUPTI's correlation id `corr.correlation`: stored as an ext_corr row
 * of the call's tagged id (GT_XCORR_TAG), so that the report joins it to
 * CUPTI's record of it by id, as a blocking wrapped call is joined. */
/* GT_REC_NVTX: an NVTX event, `api` its enum gt_nvtx_kind, fields in
 * `nvtx`; for NAME_CATEGORY, `category` is named `name`; for NAME_THREAD,
 * the thread in `range_id` is named `name`.  A structured payload read into
 * text has payload_type GT_NVTX_PAYLOAD_TEXT and its strtab id as payload. */

enum gt_nvtx_kind {
    GT_NVTX_RANGE = 1,      /* a push/pop range, complete: t_start .. t_end */
    GT_NVTX_START = 2,      /* a start/end range began */
    GT_NVTX_END = 3,        /* ... and ended (range_id, t_end) */
    GT_NVTX_MARK = 4,       /* an instant */
    GT_NVTX_NAME_CATEGORY = 5,
    GT_NVTX_NAME_THREAD = 6,
};

/* The sequence number of an NCCL operation that NCCL refused (stored as -1). */
#define GT_SEQ_NONE UINT64_MAX
/* A send/recv's sequence number: GT_SEQ_P2P | its place among this rank's
 * sends to (receives from) that peer on the communicator
 * (libtrace/p2p_seq.h), a range apart from the collectives' 0, 1, 2... */
#define GT_SEQ_P2P ((uint64_t)1 << 48)
#define GT_SEQ_P2P_MASK (GT_SEQ_P2P - 1)
/* A collective an import made of an NCCL kernel that names no operation
 * or group (a Kineto trace without collective args): GT_SEQ_ORDER | its
 * place among the rank's kernels of that name, in GPU start order.  The
 * report matches such collectives across ranks by that order only after
 * checking the match (viewer/analyse/order_match.c). */
#define GT_SEQ_ORDER ((uint64_t)1 << 49)

/* Host memory kinds, as the tracer saw the allocations. */
enum gt_mem_kind { GT_MEM_UNKNOWN = 0, GT_MEM_PAGEABLE, GT_MEM_PINNED, GT_MEM_DEVICE, GT_MEM_MANAGED };

/* Copy directions (cudaMemcpyKind values, resolved for cudaMemcpyDefault). */
enum gt_copy_kind { GT_COPY_NONE = 0, GT_COPY_HTOD, GT_COPY_DTOH, GT_COPY_DTOD, GT_COPY_HTOH, GT_COPY_MEMSET };

/* GT_RF_*: a record's flags */
#define GT_RF_NCCL 1u     /* a GT_REC_NCCL record follows in the next slot */
#define GT_RF_IN_GROUP 2u /* an NCCL call made between ncclGroupStart and End */
#define GT_RF_SCRATCH 4u  /* a call's record kept off the ring (it was full): never committed */
#define GT_RF_XCORR 8u    /* its id is pushed as CUPTI's external correlation id (api_ids.h) */
/* A blocking CUDA call's external correlation id: its call id with this
 * bit set (docs/schema.md, ext_corr), told apart from an NCCL call's or
 * group's, whose GPU work is NCCL's. */
#define GT_XCORR_TAG ((uint64_t)1 << 62)

struct gt_record {
    /* aligned to its cache line wherever it lives (a ring slot, the
     * thread-local scratch records of a full ring, a copy on the stack):
     * gt_record_clear's 16-byte stores need it */
    _Alignas(64) uint8_t type; /* enum gt_rec_type */
    uint8_t copy_kind;    /* enum gt_copy_kind */
    uint8_t mem_kind;     /* enum gt_mem_kind of the host side */
    uint8_t flags;        /* GT_RF_* */
    uint16_t api;         /* enum gt_api; GT_REC_NVTX: enum gt_nvtx_kind */
    union {               /* what no column of the call's row holds */
        uint16_t depth;   /* GT_REC_NVTX: nesting level */
        uint16_t device;  /* cudaSetDevice: the device */
    };
    union {
        struct { /* GT_REC_CALL, _MARK, _COMM, _NVTX */
            int32_t result;
            uint32_t call_seq; /* the thread's call number (CALL, MARK) */
            uint64_t t_start, t_end;
            union {
                struct { /* GT_REC_CALL, _MARK */
                    uint32_t callsite; /* interned stack id, 0 = none */
                    uint32_t pystack;  /* interned Python stack id (pyframes.h), 0 = none */
                    uint64_t stream, event, bytes;
                };
                struct { /* GT_REC_NVTX (strtab ids; domain 0 = the default one) */
                    uint32_t domain, name, category;
                    int32_t payload_type; /* nvtxPayloadType_t, 0 = none, or GT_NVTX_PAYLOAD_TEXT */
                    uint64_t payload;     /* its bits, or the strtab id of its text */
                    uint64_t range_id;    /* start/end ranges; NAME_THREAD: the thread */
                } nvtx;
                struct { /* GT_REC_COMM: a communicator was made */
                    uint64_t handle, comm_id, parent; /* parent: its comm_id, 0 if none */
                    int32_t rank, nranks;
                } comm;
            };
        };
        struct { /* GT_REC_CORR */
            int32_t unused;
            uint32_t call;        /* the call's call_seq (its thread's is the ring's) */
            uint64_t correlation; /* CUPTI's correlationId of the call */
        } corr;
        struct { /* GT_REC_NCCL: the operation of the GT_REC_CALL before it */
            int32_t op, dtype, peer, rank, nranks, pad;
            uint64_t comm_id;
            uint64_t seq;      /* GT_SEQ_NONE if NCCL refused the operation */
            uint64_t count;
            uint64_t group_id; /* the outermost ncclGroupStart's call id */
        } nccl;
    };
};

_Static_assert(sizeof(struct gt_record) == 64, "a record is one cache line");
_Static_assert(_Alignof(struct gt_record) == 64, "records start a cache line");

/* Clears a record (64-byte aligned) with four 16-byte stores: a plain
 * `= (struct gt_record){ 0 }` compiles to `rep stosq`, whose start-up cost
 * was a tenth of a wrapped call's. */
static inline void gt_record_clear(struct gt_record *r)
{
    typedef long long v2 __attribute__((vector_size(16)));
    v2 *p = (v2 *)__builtin_assume_aligned(r, 64);
    const v2 z = { 0, 0 };
    p[0] = z; p[1] = z; p[2] = z; p[3] = z;
}

#endif
