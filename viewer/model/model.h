/* model.h: one run as the report sees it, loaded from the database.
 *
 * Per process (rank): its wrapped calls, its GPU operations (with the host
 * time each was enqueued, found through CUPTI correlation ids), its NCCL
 * operations (with the GPU time of the kernel that ran them), and the
 * mapping from stream handles to CUPTI stream ids.  Everything is sorted by
 * start time.  Calls, GPU operations and collectives, the bulk of a run,
 * are loaded one process at a time (load_begin_proc, load_end_proc), so
 * that the report's memory follows the largest rank, not the whole run;
 * the analyses across ranks read every rank's collectives back from a
 * temporary file (coll_spill.h), and the rest (ranges, sites, names) stays
 * loaded.  The viewer never shares code with what runs in the traced
 * program; only the schema (format/schema.h, and the layouts of what is
 * stored in bulk, format/call_block.h and nvtx_block.h) crosses over.
 */
#ifndef GPUTRACE_MODEL_H
#define GPUTRACE_MODEL_H

#include "viewer/model/idmap.h"
#include "viewer/model/stream_keys.h"

#include <sqlite3.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* What a wrapped API is, for the analyses. */
enum api_role {
    ROLE_OTHER = 0,
    ROLE_SYNC_DEVICE,   /* cudaDeviceSynchronize, cuCtxSynchronize(_v2) */
    ROLE_SYNC_STREAM,   /* cudaStreamSynchronize*, cuStreamSynchronize */
    ROLE_SYNC_EVENT,    /* cudaEventSynchronize, cuEventSynchronize */
    ROLE_COPY_SYNC,     /* cudaMemcpy, cudaMemcpy2D, cudaMemcpyPeer, cuMemcpy?to?_v2 */
    ROLE_COPY_ASYNC,    /* cudaMemcpy*Async, cuMemcpy*Async_v2 */
    ROLE_MEMSET_SYNC,   /* cudaMemset */
    ROLE_FREE,          /* cudaFree, cudaFreeHost: device-wide implicit sync */
    ROLE_EVENT_RECORD,  /* cudaEventRecord*, cuEventRecord* */
    ROLE_STREAM_WAIT,   /* cudaStreamWaitEvent*, cuStreamWaitEvent* */
    ROLE_STREAM_CREATE, /* cudaStreamCreate*, cuStreamCreate*: bytes holds the flags */
    ROLE_LAUNCH,
    ROLE_NCCL_OP,
    ROLE_NCCL_OTHER,
};

/* A wrapped call: 72 bytes, the bulk of the report's memory, so packed. */
struct call {
    int64_t start, end, stream, event, bytes, call_id;
    uint32_t corr;           /* CUPTI correlation id of this call, 0 if unknown */
    int32_t result;
    int tid;
    int site;                /* index into proc.sites (C and Python stack), 0 if neither */
    uint16_t api;
    uint8_t copy_kind, mem_kind;
};
_Static_assert(sizeof(struct call) == 72, "calls stay packed");

/* The device a cudaSetDevice call chose, as the tracer keeps it in the
 * call's bytes (+ 1, docs/schema.md); -1 where it is not there (a
 * recording made before, a damaged value). */
static inline int model_call_set_device(const struct call *c)
{
    return c->bytes > 0 && c->bytes <= 65536 ? (int)c->bytes - 1 : -1;
}

enum { GOP_KERNEL = 1, GOP_MEMCPY = 2, GOP_MEMSET = 3 };

/* A GPU operation: 56 bytes, packed for the same reason. */
struct gop {
    int64_t start, end, bytes, enq;   /* enq: host time the call that enqueued it began (or start) */
    uint32_t corr;
    int stream, name;
    int16_t device;
    uint8_t kind, copy_kind, src_kind, dst_kind; /* copy_kind: CUPTI's memcpy kind (GOP_HTOD...) */
    uint8_t nccl;                     /* kernel of an NCCL operation */
};
#define GOP_HTOD 1 /* CUPTI_ACTIVITY_MEMCPY_KIND_HTOD */
_Static_assert(sizeof(struct gop) == 56, "GPU operations stay packed");

/* A collective: loaded with its process's calls; what the analyses across
 * ranks read of it goes to coll_spill.h. */
struct coll {
    int64_t call_id, comm, seq, count, bytes, start, end, group;
    int64_t hstream;                  /* the stream handle it was called on */
    int64_t gstart, gend;             /* GPU time of its kernel, matched when its process is loaded
                                       * (load_proc.c); 0, and gstream -1, if none was recorded */
    int api, dtype, op, peer, rank, nranks, gstream, kname;
    int site;                         /* its C and Python stacks (model_site) */
};

/* A collective whose communicator the tracer did not see made (the
 * wrapper stores communicator 0, rank -1): it cannot be matched across
 * ranks (viewer/write/unknown_comm.c says so in the report). */
static inline int model_coll_comm_unknown(const struct coll *c)
{
    return c->comm == 0 || c->rank < 0 || c->nranks < 1;
}

/* A send/recv's sequence number as the tracer stores it, GT_SEQ_P2P | k
 * (format/record.h: its place among the rank's sends to, or receives
 * from, that peer), as messages show it: k.  A collective's is itself. */
static inline int64_t model_seq_shown(int64_t seq)
{
    return seq >= ((int64_t)1 << 48) ? seq & (((int64_t)1 << 48) - 1) : seq;
}

/* Whether seq numbers a collective in its communicator's own order: not a
 * send/recv's (GT_SEQ_P2P) nor a kernel order's (GT_SEQ_ORDER) number. */
static inline int model_seq_collective(int64_t seq)
{
    return seq >= 0 && seq < ((int64_t)1 << 48);
}

/* Whether a collective was made by an import of an NCCL kernel that named
 * no operation or group, numbered GT_SEQ_ORDER | k (format/record.h): it
 * is matched across ranks by kernel order, once checked (order_match.h). */
static inline int model_seq_by_order(int64_t seq)
{
    return seq >= 0 && (seq & ((int64_t)1 << 49));
}

/* Where a call was made: its C and Python stacks (sites.c). */
struct site { int callsite, pystack; int shown; char *text; };

/* An NVTX range (ranges.c); marks are not kept. */
struct nvtx {
    int64_t start, end;       /* end: the process's end when never closed */
    int tid, name, depth;     /* name, domain: indexes into proc.labels (domain 0: the default) */
    int domain;
    int user;                 /* not in NCCL's own domain */
    int parent;               /* enclosing user range on its thread, -1 if top level */
    int payload;              /* a structured payload's text (NCCL's), as a label; 0 if none */
    int64_t iter;             /* the iteration it belongs to, -1 if none can be told */
    int open;                 /* never closed: still open when the process's records end */
    int crossable;            /* a start/end range (NVTX kind 2), which may cross others; else a
                               * push/pop range, which nests (model_ranges_index repairs a crossing) */
};

/* A call the process was blocked in at its writer's last commit (the
 * inflight table): a sync, a blocking copy, an NCCL call. */
struct stuck_call { int64_t start; int tid, api, site; };

/* A monitor's window (the window table): why the file holds only the last
 * seconds of process `proc` (an index into model.procs), and the span it
 * covers, [from_ns, at_ns) on that process's clock. */
struct monitor_window {
    int proc;
    int gpu_flushed;          /* CUPTI handed over every buffer before it was written (a hang's, a
                               * stuck process's, one written at exit) */
    int64_t at_ns, from_ns, cut_rows;
    /* a slowdown's: when its slow steps began, realtime ns, from the words
     * the requesting process wrote (collector/monitor.c); 0 if unknown */
    int64_t slow_from;
    /* the same on the process's own clock, where the process is the one
     * that asked (its own window row's onset_ns: no realtime step between
     * its start and the trigger moves it); 0 if not */
    int64_t onset_own;
    char request[128], reason[32], detail[512];
};

/* A monitor's aggregates of a process (mon_* tables, docs/monitor.md):
 * read when the inputs are a monitored run's own files, which hold no
 * records, so that its report says what the job did and where its windows
 * are. */
struct monitor_agg {
    int proc;
    int64_t steps, step_ns, max_step_ns; /* step_ns: the median of its rows' time per step */
    char step[64];                       /* the steps' NVTX name */
    uint64_t last_comm;                  /* the last collective it entered: communicator, sequence, start */
    int64_t last_seq, last_coll_ns, colls;
    int64_t blocked_ns, blocked_calls;   /* its call site that blocked the host longest, in all */
    char blocked_site[160];
};

/* A window directory of a monitored run (RUN/window-<request>/). */
struct monitor_dir { char path[600], reason[32]; int files; };

struct proc_rows;

/* A host's clock as the ends of its collectives align it with the first
 * rank's host (clock_align.h): offset + slope * (t - mid), t kept within
 * [lo, hi], is subtracted from its aligned times; on 0: none. */
struct clock_corr { int64_t offset, mid, lo, hi; double slope; int on; };

struct proc {
    /* end: how long the process is known to have been alive, the latest
     * of its end_ns, its last record's end and its writer's last
     * heartbeat (a process read while it runs, or killed, has only the
     * last two) */
    int64_t id, start, end, clock_offset;
    int64_t calls_end;            /* the end of its last host call (wrapped or CUPTI's), over the windows
                                   * loaded so far; its start if none */
    int rank, pid, device, exit_code, exit_signal, world;
    char host[128], gpu[128], end_reason[32], cupti[256];
    char boot_id[40];             /* its machine's boot (process.boot_id; "" in older files) */
    int has_end, has_exit_code, has_signal, cupti_active;
    int has_heartbeat;            /* its writer left heartbeats (schema 6): a process without an end was alive until then */
    /* The stretches the program's own profiler held CUPTI (table gpu_gap; or
     * process.cupti_status "active until NS", one to the end), its own
     * clock, in time order, to INT64_MAX for one it never gave back: no GPU
     * records of its then.  held is when the profiler took CUPTI, from when
     * the records end: earlier where work in flight at the hand-over lost
     * its records (gap_inflight.c; from == held until its window is read).
     * Its calls that meet [held, to) are left out (load_proc.c), its
     * collectives there have no GPU times to tell, and what its GPU did in
     * [from, to) is not known (the ledger's not_recorded). */
    struct gpu_gap { int64_t from, to, held; } *gpu_gaps;
    size_t ngpu_gaps;
    int64_t gpu_until;            /* the last one's start (from) if it never ended, 0 if not: its GPU records end there */
    int64_t gaps_read_to;         /* its windows before this have had their stretches' starts read (gap_inflight.c) */
    int one_clock;                /* its calls' and CUPTI's times went through one fixed clock map
                                   * (process.clock_source "...+cupti"): no offset to estimate (join_clock.h) */
    int64_t read_ns;              /* realtime when its file's heartbeats were read (liveness.c), 0 if not */
    /* loaded by load_window, freed by load_drop_window */
    struct call *calls; size_t ncalls, calls_cap;
    struct gop *ops; size_t nops, ops_cap;
    struct proc_rows *rows;       /* where its calls and GPU operations are in its database */
    struct coll *colls; size_t ncolls; /* those loaded and not yet done with (load_window) */
    size_t colls_first;           /* the number (in start order) of colls[0] */
    size_t colls_next;            /* the number of the next one to load */
    uint64_t colls_at; size_t colls_parked; /* where they all wait in model.parked, and how many */
    int64_t win_lo, win_hi;       /* the window loaded now: records that start in [win_lo, win_hi) */
    int64_t corr_seen;            /* the highest CUPTI correlation id of the windows so far */
    struct stream_map *smap;      /* its stream and event handles over the windows so far (stream_map.h) */
    struct stream_keys skeys;     /* its streams told apart by their context (stream_keys.h) */
    struct proc_pass *pass;       /* what its analyses carry across windows (analyse/proc_pass.h):
                                   * theirs, made and freed by the driver */
    struct clock_corr align;      /* its host's clock, aligned from the collectives (clock_align.h) */
    struct proc_exts *exts;       /* its ext_corr rows, while it is loaded (load_proc.c) */
    uint8_t *api_wrapped;         /* by api id: a call of it the tracer recorded, anywhere in the process
                                   * (a rank read a window at a time: windows.c's first pass), or NULL:
                                   * the loaded calls are all of them (cupti_calls.c) */
    int64_t inflight; /* calls left in flight when the process ended */
    struct stuck_call *stuck; size_t nstuck; /* those calls, earliest first (load_process) */
    int64_t refused_colls; /* NCCL operations NCCL refused (an error result): not in colls */
    int64_t unknown_comm_colls; /* collectives on a communicator the tracer did not see made (unknown_comm.h) */
    int64_t plugin_ops, plugin_matched, plugin_alone; /* NCCL's own records (read/plugin_join.c) */
    struct plugin_depth { int64_t index; int depth; } *plugin_depth; /* its collectives NCCL left unfinished */
    size_t nplugin_depth;
    int64_t unscoped_syncs; /* explicit syncs whose stream or event the trace cannot name: not analysed */
    int64_t dropped_host, dropped_cupti; /* records the tracer lost, counted (docs/schema.md) */
    int64_t unfinished_ops; /* GPU operations CUPTI handed over before they ended: no times, left out */
    int db;           /* index into model.dbs */
    char **names; int nnames; /* kernel names by string id */
    unsigned char *comm_names; /* per name: a communication kernel's (comm_kernels.h) */
    struct site *sites; int nsites, sites_cap; /* sites[0] is "none" */
    struct idmap site_index;      /* (callsite << 32 | pystack) -> site */
    char **labels; int nlabels;   /* NVTX and Python strings by label id */
    struct nvtx *ranges; size_t nranges; /* user ranges by (tid, start); then the others */
    size_t nuser_ranges;
    int range_tid;                /* the thread with the most user ranges */
};

/* Whether p did not end normally: killed (a signal, or no end at all),
 * read while it runs, or with calls left in flight.  Its trace then ends
 * in the middle of things (a hang is looked for; its GPU's time after its
 * last work is idle, not the quiet after a run). */
static inline int model_proc_unended(const struct proc *p)
{
    return !p->has_end || p->has_signal || p->inflight > 0;
}

struct timeline;
struct tmpstore;
struct clock_fit;
struct p2p_run;
struct order_match;

struct model {
    char run_id[256];
    struct proc *procs; size_t nprocs;   /* sorted by rank, then pid */
    char **api_names; int napis;         /* indexed by api id */
    enum api_role *roles;
    int32_t *answers;                    /* a result that is no error besides 0 (model_result_failed) */
    int16_t *cbid_api;                   /* CUPTI callback id -> api id (cupti_calls.c), made on first use */
    uint8_t *api_has_records;            /* by api id: CUPTI makes API records of it (CUDA's calls) */
    /* per process: kernel names and call sites, looked up by (process index, id) */
    sqlite3 **dbs; size_t ndbs;
    sqlite3 **dbs2;                      /* second connections, for reading in two threads (or NULL) */
    struct tmpstore *parked;             /* each process's collectives until it is loaded (tmpstore.h) */
    const char *const *paths;            /* their file names (the caller's) */
    char damaged[512];                   /* the first read a damaged file cut short, "" if none */
    /* the ids of the inputs' runs not reported (no --run, and more than
     * one: the latest is), in the order first read */
    char **other_runs; size_t nother_runs;
    /* files of a run directory with no trace in them, left out (the
     * caller's, set after load_model; report_main.c) */
    char *const *skipped; size_t nskipped;
    int64_t t0;                          /* earliest realtime start, for aligned times */
    struct timeline **timelines;         /* per process, built on first use (timeline.h) */
    int progress;                        /* show a progress line on stderr */
    int jobs;                            /* threads the report may work on (viewer/proc_jobs.h), set before load_model */
    struct clock_fit *clock;             /* the hosts' clocks as the collectives align them (clock_align.h), or NULL */
    struct p2p_run *p2p;                 /* point-to-point pairs and stages (analysis_p2p.h), or NULL */
    struct order_match *order;           /* collectives matched by kernel order, checked (order_match.h), or NULL */
    uint64_t rows_read;
    struct monitor_window *windows; size_t nwindows; /* the inputs are monitor windows: why, and what each spans */
    struct monitor_agg *magg; size_t nmagg; /* the inputs are a monitored run's files: its aggregates */
    struct monitor_dir *mdirs; size_t nmdirs; /* ... and the windows written beside them */
    const struct stack_source *stacks;   /* the sites' stacks (NULL: none known) */
};

/* How far NCCL got in one of a process's collectives (by its place among
 * them, coll_rec.index), as NCCL's profiler plugin recorded it
 * (read/plugin_join.c fills proc.plugin_depth): PD_NONE when it did not, or
 * the collective finished (api.c). */
enum { PD_NONE = 0, PD_ENQUEUED, PD_KERNEL, PD_PEER, PD_NETWORK, PD_DONE };
int model_plugin_depth(const struct proc *p, int64_t index);

/* Whether two processes ran on one machine: the same host name and, where
 * both files say, the same boot id (two machines may share a name). */
static inline int model_same_host(const struct proc *a, const struct proc *b)
{
    return !strcmp(a->host, b->host) && (!a->boot_id[0] || !b->boot_id[0] || !strcmp(a->boot_id, b->boot_id));
}

/* One line on stderr and exit 1: the report cannot go on without memory. */
void model_out_of_memory(void);
/* Host syncs (docs/report.md): explicit ones wait for the device, a stream
 * or an event; implicit ones are blocking copies and memsets, copies to or
 * from pageable memory, and frees. */
/* Whether a call's result is an error: not 0, nor the API's answer that
 * is none (a query's "not ready", ncclInProgress). */
int model_result_failed(const struct model *m, int api, int32_t result);
int model_is_explicit_sync(const struct model *m, const struct call *c);
int model_is_implicit_sync(const struct model *m, const struct call *c);
/* Makes API id known by its name (api.c): its role and its results that
 * are answers follow from the name; a NULL name makes the id known as an
 * API of no role.  Ids outside 0..4096 are ignored. */
void model_set_api(struct model *m, int id, const char *name);
/* Name of a wrapped API (or "?": a file whose api table lacks it). */
const char *model_api_name(const struct model *m, int api);
/* The id of the API of that name in the file's api table, or -1. */
int model_api_named(const struct model *m, const char *name);
/* Whether an API is a per-thread default stream entry point (_ptsz,
 * _ptds): its stream 0 is the calling thread's stream, not the legacy one */
int model_api_per_thread(const struct model *m, int api);
/* Name of a kernel, whole, as the file has it (or "?"). */
const char *model_kernel_name(const struct proc *p, int name_id);
/* What a GPU operation is, for a finding's text: its kernel's name, or
 * "a copy", "a memset", "an NCCL copy-engine collective". */
const char *model_op_name(const struct proc *p, const struct gop *g);
/* Where a site's stacks come from: the reader hands this in
 * (read/stack_text.c: the file's callsite and pystack rows, C frames
 * symbolised), so that the model never reads a file.  Each writes the
 * frames one per line into buf and returns buf ("" when there are none). */
struct stack_source {
    const char *(*c_stack)(const struct model *m, const struct proc *p, int callsite, char *buf, size_t len);
    const char *(*py_stack)(const struct model *m, const struct proc *p, int pystack, char *buf, size_t len);
    /* the source line a shown frame (model_callsite) names, "" if unknown */
    const char *(*source_text)(const char *frame, char *buf, size_t len);
};
/* The most bytes of the frame a site is shown as, with its NUL: C++
 * frames run long. */
#define MODEL_CALLSITE_LEN 2048
/* Call sites (sites.c).  A site is a (C stack, Python stack) pair of a
 * process; model_callsite gives the frame a user wants to see: the
 * innermost Python frame of their own code when there is a Python stack,
 * else the first C frame outside the CUDA, NCCL and framework libraries. */
int model_site(struct proc *p, int callsite, int pystack);
const char *model_callsite(const struct model *m, const struct proc *p, int site, char *buf, size_t len);
/* The first site of the process shown as the same frame as `site`: the
 * one its findings are grouped under. */
int model_site_shown(const struct model *m, struct proc *p, int site);
/* Full C and Python stacks of a site (one frame per line), or "". */
const char *model_callstack(const struct model *m, const struct proc *p, int site, char *buf, size_t len);
/* The text of the source line a frame as model_callsite shows it names
 * ("" when the file cannot be read, or the frame names no line). */
const char *model_source_text(const struct model *m, const char *frame, char *buf, size_t len);
const char *model_pystack(const struct model *m, const struct proc *p, int site, char *buf, size_t len);
/* Sorts the process's ranges as model_range_at needs them and gives each
 * user range its parent and iteration (ranges.c); once they are loaded. */
void model_ranges_index(struct proc *p);
/* Each boundary of a user push/pop range that falls inside a call of its
 * thread (the clock's doing: ranges.c) moved to an edge of that call; on
 * each window's calls, sorted by start.  How many moved. */
size_t model_ranges_fit_calls(struct proc *p);
/* The innermost user range around time t on thread tid (tid < 0: the
 * thread with the most ranges), as an index into p->ranges, or -1. */
int model_range_at(const struct proc *p, int tid, int64_t t);
/* The first user range of thread tid that starts after t (an index into
 * p->ranges, sorted as model_range_at needs), or p->nuser_ranges. */
size_t model_range_after(const struct proc *p, int tid, int64_t t);
/* The range that names a place for what happened inside range r: r or
 * the nearest range around it whose name is neither a step's
 * ("ProfilerStep#12", numbered anew each step) nor an operation's
 * ("aten::mm"); -1 if none.  What the GPU did while the host was in it is
 * then one finding over all the steps (gpu.idle's place). */
int model_range_place(const struct proc *p, int r);
/* Whether a range named `name` encloses range r (or is r). */
int model_range_within(const struct proc *p, int r, const char *name);
const char *model_label(const struct proc *p, int id);
/* Times read from a file are kept within +-2^60 ns (36 years) and clock
 * offsets within +-2^61 (the realtime epoch is 2^60.6 ns away): a damaged
 * or crafted file holds anything, and the analyses subtract times and add
 * offsets unchecked, which these bounds keep within 64 bits.  Sums over
 * many records use model_add. */
static inline int64_t model_clamp(int64_t t, int bits)
{
    const int64_t lim = (int64_t)1 << bits;
    return t < -lim ? -lim : t > lim ? lim : t;
}
static inline int64_t model_ns(int64_t t) { return model_clamp(t, 60); }
static inline int64_t model_offset_ns(int64_t t) { return model_clamp(t, 61); }
/* A start and end read from a file: each kept within bounds, and the end
 * not before the start (a damaged row; durations are never negative). */
static inline void model_span(int64_t *start, int64_t *end)
{
    *start = model_ns(*start);
    *end = model_ns(*end);
    if (*end < *start)
        *end = *start;
}

/* *acc += v, saturating instead of overflowing. */
static inline void model_add(int64_t *acc, int64_t v)
{
    if (__builtin_add_overflow(*acc, v, acc))
        *acc = v > 0 ? INT64_MAX : INT64_MIN;
}

/* Aligned time: ns since the run's start, on the realtime clock, each
 * host's corrected by the ends of the collectives it shares with the
 * first rank's host (clock_align.h) once those are known. */
static inline int64_t model_aligned(const struct model *m, const struct proc *p, int64_t t)
{
    int64_t a = t + p->clock_offset - m->t0;
    if (p->align.on) {
        int64_t x = a < p->align.lo ? p->align.lo : a > p->align.hi ? p->align.hi : a;
        a -= p->align.offset + (int64_t)(p->align.slope * (double)(x - p->align.mid));
    }
    return a;
}

/* The monitor's window process pi's file is (its `window` row), NULL if
 * the file is not one. */
static inline const struct monitor_window *model_proc_window(const struct model *m, size_t pi)
{
    for (size_t w = 0; w < m->nwindows; w++)
        if (m->windows[w].proc == (int)pi)
            return &m->windows[w];
    return NULL;
}

/* ... if it was written while the process ran (no end: its records stop
 * where the window was cut, not at a kill); NULL otherwise. */
static inline const struct monitor_window *model_proc_cut_window(const struct model *m, size_t pi)
{
    return m->procs[pi].has_end ? NULL : model_proc_window(m, pi);
}

static inline int model_proc_cut_running(const struct model *m, size_t pi)
{
    return model_proc_cut_window(m, pi) != NULL;
}

/* Whether a process was running when its file was read (liveness.c):
 * model_latest_end's moment (for a process whose read time is not
 * known), then model_proc_running of each. */
int64_t model_latest_end(const struct model *m);
int model_proc_running(const struct model *m, size_t pi, int64_t latest);

/* Whether process pi's GPU records stop before its file does: a window
 * written while it ran without CUPTI's buffers all handed over first (only
 * a hang's window, or one of a process stuck in a blocking call, has CUPTI
 * flush them: collector/monitor.c), so its last moments' GPU records were
 * still in CUPTI's buffers; or the program's own profiler took CUPTI
 * (gpu_until).  The time past its last GPU record is not known, not idle. */
static inline int model_proc_gpu_cut(const struct model *m, size_t pi)
{
    const struct monitor_window *w = model_proc_cut_window(m, pi);
    return (w && !w->gpu_flushed) || m->procs[pi].gpu_until;
}

/* The first of process p's stretches without its GPU records (gpu_gaps:
 * disjoint, in order) that ends after t; ngpu_gaps if none.  A search: a
 * hostile file may hold millions. */
static inline size_t model_gpu_gap_after(const struct proc *p, int64_t t)
{
    size_t lo = 0, hi = p->ngpu_gaps;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (p->gpu_gaps[mid].to <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* [a, b) of process p cut at its stretches: each part outside one to
 * recorded, each part inside one to gap, in time order (either NULL: not
 * wanted). */
static inline void model_gpu_gap_split(const struct proc *p, int64_t a, int64_t b,
                                       void (*recorded)(void *, int64_t, int64_t),
                                       void (*gap)(void *, int64_t, int64_t), void *arg)
{
    int64_t at = a;
    for (size_t i = p && p->ngpu_gaps ? model_gpu_gap_after(p, a) : 0;
         p && i < p->ngpu_gaps && p->gpu_gaps[i].from < b && at < b; i++) {
        const struct gpu_gap *g = &p->gpu_gaps[i];
        if (g->from > at && recorded)
            recorded(arg, at, g->from);
        int64_t s = g->from > at ? g->from : at, e = g->to < b ? g->to : b;
        if (e > s && gap)
            gap(arg, s, e);
        at = e > at ? e : at;
    }
    if (at < b && recorded)
        recorded(arg, at, b);
}

/* Whether time t of process p lies in such a stretch. */
static inline int model_proc_in_gpu_gap(const struct proc *p, int64_t t)
{
    size_t i = p->ngpu_gaps ? model_gpu_gap_after(p, t) : 0;
    return i < p->ngpu_gaps && p->gpu_gaps[i].from <= t;
}

/* Whether work of process p started at t may have been in flight when
 * such a stretch began (work in flight at a hand-over loses its records:
 * collector/cupti_sub.c): t is in one, or the profiler took CUPTI within
 * `within` ns after it (held: not the start read back to such work).
 * Bounded: a rank hung in a collective does no more GPU work, and a
 * profiler started seconds later to look at the hang must not hide it. */
#define MODEL_GAP_INFLIGHT_NS 100000000LL /* the `within` of a collective entered before a stretch */
static inline int model_proc_gpu_gap_soon(const struct proc *p, int64_t t, int64_t within)
{
    size_t i = p->ngpu_gaps ? model_gpu_gap_after(p, t) : 0;
    return i < p->ngpu_gaps && (p->gpu_gaps[i].from <= t || p->gpu_gaps[i].held - t < within);
}

/* Whether [a, b) of process p (a call) meets such a stretch as the
 * profiler held CUPTI: one whose hand-over is in it, or in which it
 * starts.  (The same in every read of a window: not the start read
 * back to the work in flight at the hand-over.) */
static inline int model_proc_meets_gpu_gap(const struct proc *p, int64_t a, int64_t b)
{
    size_t i = p->ngpu_gaps ? model_gpu_gap_after(p, a) : 0;
    return i < p->ngpu_gaps && (p->gpu_gaps[i].held <= a || p->gpu_gaps[i].held < b);
}

#endif
