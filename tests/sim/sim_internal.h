/* sim_internal.h: shared internals of the GPU simulator (libgpusim.so).
 *
 * The simulator is a test double of the CUDA runtime, NCCL and the CUPTI
 * activity API, compiled against the toolkit's own headers so that the
 * prototypes and record structs are the real ones.  It is never installed and
 * never linked into the product.
 *
 * Model:
 *   - A device has a legacy default stream and any number of created streams.
 *     Every stream is a worker thread that runs its operations in FIFO order.
 *   - An operation may depend on "tickets" of other streams: (stream, n) is
 *     satisfied when that stream has completed its first n operations.  This
 *     one mechanism gives events, cudaStreamWaitEvent and the implicit
 *     serialisation of the legacy default stream with blocking streams.
 *   - One global mutex and condition variable guard all stream and event
 *     state.  Tests are small; simplicity wins over scalability here.
 *   - Every API entry point takes a correlation id (CUPTI style); GPU work it
 *     enqueues carries the same id, so activity records can be joined.
 */
#ifndef GPUSIM_SIM_INTERNAL_H
#define GPUSIM_SIM_INTERNAL_H

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stddef.h>

#define SIM_MAX_DEVICES 16

/* ---- clock ------------------------------------------------------------ */
uint64_t sim_mono_ns(void);          /* CLOCK_MONOTONIC, for the time model */
/* Set by a kernel's function on its stream's thread: the CLOCK_MONOTONIC
 * instant its work ended, where that is not when the function returned (a
 * collective ends when its last member arrives plus its transfer, on every
 * rank at once, however late this thread is scheduled after it); 0 = when it
 * returned.  run_op reads and clears it. */
extern _Thread_local uint64_t sim_kernel_ended_mono;
uint64_t sim_cupti_ts(void);         /* the clock CUPTI records use */
void sim_sleep_until(uint64_t mono_ns);

/* ---- streams and operations ------------------------------------------- */
struct sim_stream;

typedef enum {
    SIM_OP_KERNEL,
    SIM_OP_MEMCPY,
    SIM_OP_MEMSET,
    SIM_OP_MARKER,     /* event record / sync marker: no GPU activity */
    SIM_OP_HOSTFN,     /* collective or other host-implemented GPU work */
    SIM_OP_EXIT        /* stream destroyed: the worker ends after this */
} sim_op_kind;

struct sim_dep {
    struct sim_stream *stream;
    uint64_t ticket;
};

struct sim_op {
    sim_op_kind kind;
    uint32_t correlation;
    struct sim_op *next;
    struct sim_dep *deps;
    int ndeps;
    /* kernel and host-implemented work */
    void (*fn)(void **args);
    void **args;
    const char *name;
    void (*hostfn)(struct sim_op *op);  /* SIM_OP_HOSTFN: runs on the stream thread */
    void *ctx;                          /* private to hostfn */
    int no_record;                      /* SIM_OP_HOSTFN: work CUPTI has no record of (stream memory operations) */
    /* memcpy / memset */
    void *dst;
    const void *src;
    size_t bytes;
    size_t width, height, spitch, dpitch; /* 2D copies: height > 0 */
    int value;
    uint8_t copy_kind;                  /* CUpti_ActivityMemcpyKind */
    uint8_t src_kind, dst_kind;         /* CUpti_ActivityMemoryKind */
    int async;
    uint64_t model_ns;                  /* how long the op lasts at least */
    uint64_t stage_ns;                  /* a pageable upload: when its host side is done (0: none) */
    /* event marker */
    struct sim_event *event;
    uint64_t event_gen;
    /* CUPTI's record of it, reserved from its launch to its end, as CUPTI
     * does (sim_cupti.c): guarded by the CUPTI lock */
    struct sim_stream *cupti_stream;    /* set: the record is reserved */
    struct sim_op *cupti_prev, *cupti_next;
    int cupti_out;                      /* handed over incomplete by a forced flush */
    void *cupti_buf;                    /* the launching thread's buffer, where the record is */
};

struct sim_stream {
    int device;
    uint32_t id;             /* CUPTI stream id */
    int legacy;              /* the legacy default stream of its device */
    int blocking;            /* synchronises with the legacy default stream */
    int priority;
    uint64_t enqueued;       /* guarded by sim_lock */
    uint64_t completed;      /* guarded by sim_lock */
    uint64_t staged;         /* guarded by sim_lock: the ticket of the last pageable upload staged */
    struct sim_op *head, *tail; /* guarded by sim_lock */
    struct sim_stream *next_on_device;
    pthread_t thread;
    int exiting;
};

struct sim_event {
    struct sim_stream *stream; /* stream of the latest record, NULL if never recorded */
    uint64_t ticket;           /* done when stream->completed >= ticket */
    uint64_t gen;              /* record generation */
    uint64_t time_ns;          /* CUPTI-clock time the marker ran */
    int timing;                /* 0 with cudaEventDisableTiming */
    int destroyed;
    int refs;                  /* pending markers + the handle itself */
    uint32_t id;
    uint64_t sync_id;          /* CUPTI's cudaEventSyncId of the latest record (0: none) */
};
struct CUevent_st { struct sim_event ev; };
struct CUstream_st { struct sim_stream s; };

extern pthread_mutex_t sim_lock;
extern pthread_cond_t sim_cond;

int sim_current_device(void);
int sim_device_count(void);
struct sim_stream *sim_legacy_stream(int device);
/* Maps an API stream handle (NULL, cudaStreamLegacy, cudaStreamPerThread, or
 * a created stream) to the stream it means for the current thread. */
struct sim_stream *sim_resolve_stream(cudaStream_t handle);
struct sim_op *sim_op_new(sim_op_kind kind);
/* Enqueues op on s, adding the implicit dependencies of the legacy default
 * stream.  Returns the ticket that is done when op has completed. */
uint64_t sim_enqueue(struct sim_stream *s, struct sim_op *op);
/* Blocks until s has completed ticket. */
void sim_wait_ticket(struct sim_stream *s, uint64_t ticket);
/* Until the op of that ticket is done, or, a pageable upload, staged. */
void sim_wait_staged(struct sim_stream *s, uint64_t ticket);
/* Blocks until every stream of the device has completed what was enqueued
 * before the call. */
void sim_device_drain(int device);

/* ---- kernels (sim_device.c) ------------------------------------------- */
/* Enqueues a launch of func (a C workload's host function, or a stub nvcc
 * registered) on stream, as every launch API does. */
cudaError_t sim_launch(const void *func, void **args, cudaStream_t stream);

/* ---- the driver's entry points by name, as cuGetProcAddress hands them
 * out, for the simulator's own libraries (NCCL's static cudart) */
void *sim_driver_entry(const char *name);

/* ---- the driver's initialisation (sim_inject.c): loads CUDA_INJECTION64_PATH */
void sim_driver_init(void);

/* ---- nvcc's host ABI (sim_nvcc_abi.c) ---------------------------------- */
/* 1 when fn is a host stub that nvcc registered with __cudaRegisterFunction */
int sim_is_nvcc_kernel(const void *fn);
/* Enqueues the kernel of a registered stub, copying its arguments. */
cudaError_t sim_launch_nvcc_kernel(const void *stub, void **args, cudaStream_t stream);

/* ---- memory ----------------------------------------------------------- */
typedef enum { SIM_MEM_PAGEABLE = 0, SIM_MEM_DEVICE, SIM_MEM_PINNED, SIM_MEM_MANAGED } sim_mem_kind;
sim_mem_kind sim_classify(const void *ptr);
/* Time the bandwidth model gives a copy between the two memory kinds. */
uint64_t sim_copy_model_ns(size_t bytes, sim_mem_kind src, sim_mem_kind dst);
uint8_t sim_cupti_mem_kind(sim_mem_kind k);

/* ---- errors ----------------------------------------------------------- */
cudaError_t sim_set_error(cudaError_t e); /* records e as the last error, returns it */

/* ---- CUPTI ------------------------------------------------------------ */
/* Per-thread API context: sim_api_begin gives the call its correlation id,
 * sim_api_end writes the RUNTIME/DRIVER activity record. */
typedef struct {
    uint64_t start;
    uint32_t correlation;
    CUpti_CallbackId cbid;
    CUpti_ActivityKind kind;
    const void *params;      /* the call's parameter struct for callbacks, or NULL */
} sim_api_ctx;
void sim_api_begin(sim_api_ctx *ctx, CUpti_ActivityKind kind, CUpti_CallbackId cbid);
/* The same, with the call's parameters for CUPTI's callbacks (a struct of
 * generated_cuda_runtime_api_meta.h or generated_cuda_meta.h). */
void sim_api_begin_params(sim_api_ctx *ctx, CUpti_ActivityKind kind, CUpti_CallbackId cbid, const void *params);
/* CUPTI's API callbacks (sim_cupti_callbacks.c): at enter and exit. */
void sim_cupti_callback(const sim_api_ctx *ctx, CUpti_ApiCallbackSite site, void *return_value);
void sim_api_end(sim_api_ctx *ctx, uint32_t result);
/* The correlation id of the API call the calling thread is in (0 outside). */
uint32_t sim_current_correlation(void);
int sim_cupti_enabled(CUpti_ActivityKind kind);
/* A GPU operation's record reserved at its launch (kernels, copies, memsets) */
void sim_cupti_reserve(struct sim_op *op, struct sim_stream *s);
/* ... and its end: the record completed (kernel, host-implemented work,
 * copy or memset), unless a forced flush handed it over already, when
 * CUPTI has nothing more of it */
void sim_cupti_op_ended(struct sim_op *op, const struct sim_stream *s, uint64_t start, uint64_t end);
/* Appends one record of the given kind if the client enabled it. */
void sim_cupti_emit(const void *rec, size_t rec_size, CUpti_ActivityKind kind);
/* CUDA_EVENT and SYNCHRONIZATION records (sim_cupti_events.c): s is the
 * stream recorded on, synced, or waiting (for an event sync the event's,
 * which only gives the context); sync_id the cudaEventSyncId of the event's
 * latest record (0: never recorded). */
uint64_t sim_next_event_sync_id(void);
void sim_cupti_event_record(uint32_t correlation, const struct sim_stream *s, uint32_t event_id, uint64_t sync_id);
void sim_cupti_sync(CUpti_ActivitySynchronizationType type, uint32_t correlation, const struct sim_stream *s,
                    uint32_t event_id, uint64_t sync_id, uint64_t start, uint64_t end);

#endif
