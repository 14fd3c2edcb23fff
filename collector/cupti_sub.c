/* cupti_sub.c: the CUPTI activity subscriber (see cupti_sub.h).
 *
 * DESIGN
 *   CUPTI calls `on_request` for buffers and `on_complete` (from its own
 *   thread, or from the thread calling cuptiActivityFlushAll) with filled
 *   ones.  on_complete only queues the buffer under queue_lock; the writer
 *   thread pops one at a time and parses it into rows, or into packed
 *   blocks (capi_block.h, gpu_block.h) under load; past MAX_QUEUED_BYTES of
 *   records waiting, or GT_MEM_CUPTI_BYTES of buffers handed out and not
 *   stored yet (membudget.h), on_request declines.  cuptiActivityFlushAll is never
 *   called with queue_lock held, nor from inside a callback (Kineto hit a
 *   deadlock that way).
 *   Every record is stamped by our timestamp callback, which converts the
 *   same ticks the same way as the host records: one time base.
 */
#define _GNU_SOURCE
#include "collector/cupti_sub.h"
#include "format/capi_block.h"
#include "format/gpu_block.h"
#include "collector/clock.h"
#include "collector/cupti_work.h"
#include "collector/hash.h"
#include "collector/membudget.h"
#include "collector/mon_gpu.h"
#include "collector/say.h"
#include "format/schema.h"

#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* CUPTI 12.3 and newer keep a buffer per thread that makes records
 * (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER, on by default in 13):
 * PyTorch's main, autograd and NCCL watchdog threads and more hold one
 * each at once.  4 MiB buffers let four threads have one within the
 * budget, and a PyTorch loop on an H200 lost 1,452 GPU records in 30 steps
 * (21,306 in 20 s under the monitor) to refused requests; 128 KiB let 128
 * threads have one.  Small also because a buffer holding the record of
 * work still in flight comes back only once full (a default flush returns
 * buffers whose records are all complete, and a busy GPU always has some):
 * 128 KiB, ~650 kernel records, keep the monitor's GPU figures within a
 * second or so of a program launching a few hundred kernels a second. */
#define BUF_BYTES (128u << 10)

static struct {
    CUptiResult (*enable)(CUpti_ActivityKind);
    CUptiResult (*disable)(CUpti_ActivityKind);
    CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
    CUptiResult (*flush_all)(uint32_t);
    CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
    CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
    CUptiResult (*register_ts)(CUpti_TimestampCallbackFunc);
    CUptiResult (*push_ext)(CUpti_ExternalCorrelationKind, uint64_t);
    CUptiResult (*pop_ext)(CUpti_ExternalCorrelationKind, uint64_t *);
    CUptiResult (*get_version)(uint32_t *);
    CUptiResult (*result_string)(CUptiResult, const char **);
    CUptiResult (*set_thread_id_type)(CUpti_ActivityThreadIdType);
    CUptiResult (*get_thread_id_type)(CUpti_ActivityThreadIdType *);
    CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *); /* the callback API: */
    CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
    CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
} fn;

static _Atomic int active;
static int stamps_ours; /* CUPTI took our timestamp callback (set before it starts) */
static _Atomic int program_took; /* the program's own client called CUPTI (gt_cupti_hand_over) */
static _Atomic int handing; /* ours handed over to it, not taken back yet */
/* The stretches the program's profiler held CUPTI, in our clock: from the
 * hand-over to the take-back (0 while it holds it).  Taken back only while
 * there is room for the next one, so that every hand-over has its row. */
static struct { _Atomic int64_t from, to; } gaps[GT_CUPTI_MAX_GAPS];
static _Atomic int ngaps;
static _Atomic int callbacks_given; /* the program subscribed: ours let go, never taken again */
static CUpti_SubscriberHandle our_sub; /* the callback subscriber we hold, if any (sub_lock) */
/* Held while the tracer registers its clock, callbacks and kinds, and
 * across each hand-over: a program thread that registers its own while the
 * tracer starts waits for the start, then hands over, and its call comes
 * after ours, never under it.  Never held across CUPTI's look-up (dlopen,
 * dlsym: the loader's lock, which a library constructor that starts a
 * profiler holds while it waits here), and the program's wait is bounded
 * (hand_over_lock): CUPTI's own calls under it may load libraries too */
static pthread_mutex_t start_lock = PTHREAD_MUTEX_INITIALIZER;
static _Thread_local unsigned pushed; /* external correlation ids this thread pushed and not popped */
static pthread_mutex_t sub_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t kinds_on; /* the activity kinds we enabled, as bits of kinds[] (set before active) */
static CUpti_ActivityThreadIdType thread_id_type = CUPTI_ACTIVITY_THREAD_ID_TYPE_DEFAULT; /* the program's */
/* What the program asked CUPTI for (wrap_cupti.c), for a hand-over that
 * comes after its calls (past hand_over_lock's bound): put back then */
static struct {
    CUpti_BuffersCallbackRequestFunc request;
    CUpti_BuffersCallbackCompleteFunc complete;
    CUpti_TimestampCallbackFunc stamp;
    uint64_t kinds; /* on now, bits by CUpti_ActivityKind (< 64) */
    /* the (context, kind) pairs it enabled per context, not disabled since;
     * past their room, counted as one on for good */
#define CTX_PAIRS 64
    struct { void *ctx; int kind; } pairs[CTX_PAIRS];
    int npairs, pairs_lost;
    int finalized;  /* it called cuptiFinalize: CUPTI is not called again for it */
} program; /* sub_lock */
/* program.complete, read lock-free in a CUPTI buffer callback (forward):
 * CUPTI may call one holding a lock of its own that its calls under
 * sub_lock take */
static _Atomic(CUpti_BuffersCallbackCompleteFunc) program_complete;
static _Atomic int wait_gave_up; /* hand_over_lock's bound passed once: no call waits again */
static int observe; /* monitor mode: the live GPU ledger sees each record (writer thread) */
static uint32_t version;
static _Atomic uint64_t dropped_total;

struct qbuf { uint8_t *buf; size_t valid; struct qbuf *next; size_t bytes; /* as held_bytes counts it */ };
static pthread_mutex_t queue_lock = PTHREAD_MUTEX_INITIALIZER;
static struct qbuf *q_head, *q_tail; /* guarded by queue_lock */
/* Records waiting for the writer, in bytes: past MAX_QUEUED_BYTES, CUPTI
 * gets no new buffer (a NULL one: the request callback's documented way to
 * decline) and drops records (and counts them: process.dropped_cupti)
 * rather than the queue growing without bound when the program makes GPU
 * work faster than the writer stores it (250 MiB seen at 500 K launches/s;
 * the tracer takes 39-50 MiB in all so).  Counted in bytes of records, and
 * a buffer delivered part-filled (a flush) is cut to its records, so that
 * the flushes of many streams' buffers at once do not make CUPTI drop. */
#define MAX_QUEUED_BYTES ((size_t)16 << 20)
static _Atomic size_t queued_bytes;
/* Every buffer of ours, from on_request until it is freed: held by CUPTI
 * (which may hold several at once), queued, or being stored.  Past
 * GT_MEM_CUPTI_BYTES (membudget.h) no new buffer is handed out either. */
static _Atomic size_t held_bytes;
/* The buffers CUPTI holds of ours, from on_request to on_complete: once
 * taken back, a buffer the program asked for may come to our on_complete
 * (CUPTI calls the callback registered when it completes one); it goes to
 * the program's, never to our pool.  As many as the budget has buffers
 * (pool_lock). */
#define OUT_MAX (GT_MEM_CUPTI_BYTES / BUF_BYTES)
static uint8_t *out_bufs[OUT_MAX];

/* A buffer of ours let go (never below 0: a forked child that starts
 * CUPTI again may see buffers its parent asked for, counted there). */
static void held_sub(size_t n)
{
    size_t was = atomic_load(&held_bytes);
    while (!atomic_compare_exchange_weak(&held_bytes, &was, was > n ? was - n : 0))
        ;
}

/* The buffers are mapped, not from malloc: CUPTI asks for them from
 * whichever thread makes a record, so malloc took them from as many arenas,
 * which kept the freed ones each (16 threads flat out: 34 MiB resident for
 * a budget of 16).  Unmapped when stored, but for the last eight whole ones
 * (full, or part-filled and kept whole: keep_whole), kept for CUPTI's next
 * requests.  held_bytes counts every buffer of ours from its mapping to
 * its unmapping, those kept included, so that they are inside the budget;
 * a request takes a kept one first, so they never make one refused. */
#define BUF_POOL 8
static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t *pool[BUF_POOL];
static int pool_n;

/* A buffer for CUPTI: a kept one, else a fresh one if the budget has room
 * for it; NULL if not. */
static uint8_t *buf_get(void)
{
    uint8_t *p = NULL;
    pthread_mutex_lock(&pool_lock);
    if (pool_n)
        p = pool[--pool_n];
    pthread_mutex_unlock(&pool_lock);
    if (p)
        return p;
    if (atomic_fetch_add(&held_bytes, BUF_BYTES) + BUF_BYTES > GT_MEM_CUPTI_BYTES) {
        held_sub(BUF_BYTES);
        return NULL;
    }
    p = mmap(NULL, BUF_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p != MAP_FAILED)
        return p;
    held_sub(BUF_BYTES);
    return NULL;
}

/* A buffer of bytes (as held_bytes counts it) done with: kept, or unmapped. */
static void buf_put(uint8_t *p, size_t bytes)
{
    if (bytes == BUF_BYTES) {
        pthread_mutex_lock(&pool_lock);
        int kept = pool_n < BUF_POOL;
        if (kept)
            pool[pool_n++] = p;
        pthread_mutex_unlock(&pool_lock);
        if (kept)
            return;
    }
    munmap(p, bytes);
    held_sub(bytes);
}

/* Whether a part-filled buffer (a flush's) is kept whole rather than cut:
 * when it can go back to the pool once stored and our buffers (CUPTI's,
 * queued, kept) are well within the budget.  The writer flushes CUPTI at
 * every commit, so at a steady rate every buffer comes back part-filled:
 * cut, it cost an unmap of its tail, an unmap of the rest once stored
 * (each a TLB flush on every CPU the process ran on) and a fresh map that
 * takes a page fault for every 4 KiB CUPTI writes next; kept, the next
 * request reuses its pages.
 * Past half the budget (a flush of many streams' buffers at once) they
 * are cut as before, so that CUPTI is not refused buffers. */
static int keep_whole(size_t size)
{
    if (size != BUF_BYTES || atomic_load(&held_bytes) > GT_MEM_CUPTI_BYTES / 2)
        return 0;
    pthread_mutex_lock(&pool_lock);
    int room = pool_n < BUF_POOL;
    pthread_mutex_unlock(&pool_lock);
    return room;
}

/* A part-filled buffer cut, in place, to the pages that hold its records. */
static size_t buf_cut(uint8_t *p, size_t size, size_t valid)
{
    size_t keep = valid ? (valid + 4095) / 4096 * 4096 : 4096;
    if (keep >= size)
        return size;
    munmap(p + keep, size - keep);
    return keep;
}

static uint64_t CUPTIAPI timestamp(void)
{
    return gt_clock_now_ns();
}

/* Marks p as held by CUPTI (in: 1), or finds and clears its mark (in: 0);
 * 0 if there was no room, or no mark. */
static int out_mark(uint8_t *p, int in)
{
    int done = 0;
    pthread_mutex_lock(&pool_lock);
    for (size_t i = 0; i < OUT_MAX && !done; i++)
        if (out_bufs[i] == (in ? NULL : p)) {
            out_bufs[i] = in ? p : NULL;
            done = 1;
        }
    pthread_mutex_unlock(&pool_lock);
    return done;
}

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
    uint8_t *p = atomic_load(&queued_bytes) < MAX_QUEUED_BYTES ? buf_get() : NULL;
    if (p && !out_mark(p, 1)) {
        buf_put(p, BUF_BYTES);
        p = NULL;
    }
    *buffer = p;
    *size = p ? BUF_BYTES : 0;
    *max_records = 0;
}

/* A buffer the program asked CUPTI for, completed to our callback: to the
 * program's, its memory (dropped if it never registered one: not ours to
 * free). */
static void forward(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    CUpti_BuffersCallbackCompleteFunc complete = atomic_load(&program_complete);
    if (complete)
        complete(ctx, stream, buffer, size, valid);
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid)
{
    if (!buffer)
        return;
    if (!out_mark(buffer, 0)) { /* the program's (see out_bufs) */
        forward(ctx, stream, buffer, size, valid);
        return;
    }
    struct qbuf *q = malloc(sizeof *q);
    if (!q) { /* no memory to queue it: its records are lost, and counted */
        CUpti_Activity *rec = NULL;
        uint64_t n = 0;
        while (fn.next_record && fn.next_record(buffer, valid, &rec) == CUPTI_SUCCESS)
            n++;
        atomic_fetch_add(&dropped_total, n);
        buf_put(buffer, size);
        return;
    }
    size_t bytes = size;
    if (valid < size / 2 && !keep_whole(size)) { /* ours now: keep only what holds records */
        bytes = buf_cut(buffer, size, valid);
        held_sub(size - bytes);
    }
    *q = (struct qbuf){ buffer, valid, NULL, bytes };
    atomic_fetch_add(&queued_bytes, valid);
    pthread_mutex_lock(&queue_lock);
    if (q_tail)
        q_tail->next = q;
    else
        q_head = q;
    q_tail = q;
    pthread_mutex_unlock(&queue_lock);
}

/* cupti_sub.h: set before gt_cupti_start, which fails without them */
static struct {
    void *(*sym)(void *, const char *);
    int (*close)(void *);
} dl;

void gt_cupti_use_dl(void *(*sym)(void *, const char *), int (*dlclose_fn)(void *))
{
    dl.sym = sym;
    dl.close = dlclose_fn;
}

/* Loads every entry point from h; returns whether the required ones are there. */
static int find_symbols(void *h)
{
#define LOAD(field, name) *(void **)&fn.field = dl.sym(h, name)
    LOAD(enable, "cuptiActivityEnable");
    LOAD(disable, "cuptiActivityDisable");
    LOAD(register_callbacks, "cuptiActivityRegisterCallbacks");
    LOAD(flush_all, "cuptiActivityFlushAll");
    LOAD(next_record, "cuptiActivityGetNextRecord");
    LOAD(dropped, "cuptiActivityGetNumDroppedRecords");
    LOAD(register_ts, "cuptiActivityRegisterTimestampCallback");
    LOAD(push_ext, "cuptiActivityPushExternalCorrelationId");
    LOAD(pop_ext, "cuptiActivityPopExternalCorrelationId");
    LOAD(get_version, "cuptiGetVersion");
    LOAD(result_string, "cuptiGetResultString");
    LOAD(set_thread_id_type, "cuptiSetThreadIdType");
    LOAD(get_thread_id_type, "cuptiGetThreadIdType");
    LOAD(subscribe, "cuptiSubscribe");
    LOAD(enable_callback, "cuptiEnableCallback");
    LOAD(unsubscribe, "cuptiUnsubscribe");
#undef LOAD
    return fn.enable && fn.register_callbacks && fn.flush_all && fn.next_record && fn.get_version &&
           fn.push_ext && fn.pop_ext;
}

/* Tries one candidate path; returns the handle if it has CUPTI. */
static void *try_open(const char *path)
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h)
        return NULL;
    if (find_symbols(h))
        return h;
    dl.close(h);
    return NULL;
}

/* Returns a handle to CUPTI (RTLD_DEFAULT counts as found), or FAILED. */
#define FAILED ((void *)-1)
static void *locate(const char *hint)
{
    char path[4096];
    int major = CUPTI_API_VERSION / 10000;
    if (find_symbols(RTLD_DEFAULT))
        return RTLD_DEFAULT;
    if (hint && *hint)
        return try_open(hint) ? RTLD_DEFAULT : FAILED;
    snprintf(path, sizeof path, "libcupti.so.%d", major);
    void *h = try_open(path);
    if (h)
        return h;
    /* next to the libcudart the program loaded */
    Dl_info info;
    void *sym = dl.sym(RTLD_DEFAULT, "cudaGetDeviceCount");
    if (sym && dladdr(sym, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        int dirlen = slash ? (int)(slash - info.dli_fname) : 0;
        const char *fmts[] = { "%.*s/libcupti.so.%d", "%.*s/../../cuda_cupti/lib/libcupti.so.%d",
                               "%.*s/../extras/CUPTI/lib64/libcupti.so.%d" };
        for (size_t i = 0; dirlen && i < sizeof fmts / sizeof *fmts; i++) {
            snprintf(path, sizeof path, fmts[i], dirlen, info.dli_fname, major);
            if ((h = try_open(path)))
                return h;
        }
    }
    const char *home = getenv("CUDA_HOME");
    snprintf(path, sizeof path, "%s/extras/CUPTI/lib64/libcupti.so.%d", home && *home ? home : "/usr/local/cuda", major);
    h = try_open(path);
    return h ? h : FAILED;
}

static const CUpti_ActivityKind kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
    CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_RUNTIME, CUPTI_ACTIVITY_KIND_DRIVER,
    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION,
    CUPTI_ACTIVITY_KIND_CUDA_EVENT, /* which stream each event record was on (a record only CUPTI saw) */
};

static const char *result_text(CUptiResult r)
{
    const char *s = NULL;
    if (fn.result_string && fn.result_string(r, &s) == CUPTI_SUCCESS && s)
        return s;
    return "unknown CUPTI error";
}

static int register_locked(char *why, size_t whylen);
static int hand_over_locked(int restore);

/* Whether the program enabled kind for some context (its pairs). */
static int program_has_kind_per_context(const __typeof__(program) *asked, int kind)
{
    for (int i = 0; i < asked->npairs; i++)
        if (asked->pairs[i].kind == kind)
            return 1;
    return asked->pairs_lost;
}

int gt_cupti_start(const char *lib_hint, char *why, size_t whylen)
{
    if (!dl.sym || !dl.close) {
        snprintf(why, whylen, "CUPTI not looked for: no dlsym and dlclose handed in (gt_cupti_use_dl)");
        return -1;
    }
    if (atomic_load(&program_took)) {
        snprintf(why, whylen, "the program's own profiler holds CUPTI (it took it before the tracer started)");
        return -1;
    }
    if (locate(lib_hint) == FAILED) {
        snprintf(why, whylen, "CUPTI not found (set GPUTRACE_CUPTI_LIB to libcupti.so.%d)", CUPTI_API_VERSION / 10000);
        return -1;
    }
    fn.get_version(&version);
    if (version / 10000 != CUPTI_API_VERSION / 10000) {
        snprintf(why, whylen, "CUPTI version %u is not of the major version this build expects (%d)", version,
                 CUPTI_API_VERSION / 10000);
        return -1;
    }
    pthread_mutex_lock(&start_lock);
    int rc = register_locked(why, whylen);
    pthread_mutex_unlock(&start_lock);
    /* the program took CUPTI while we registered, past hand_over_lock's
     * bound: hand over now, and put back what it asked for, which our
     * registration may have replaced */
    if (rc == 0 && atomic_load(&program_took)) {
        pthread_mutex_lock(&start_lock);
        int done = hand_over_locked(1);
        pthread_mutex_unlock(&start_lock);
        if (done)
            gt_tell("the program took CUPTI while the tracer started (a profiler of its own): its profiler gets "
                    "CUPTI, and this process's GPU records pause until it stops");
    }
    return rc;
}

static int register_locked(char *why, size_t whylen)
{
    if (atomic_load(&program_took)) { /* it did while we looked CUPTI up */
        snprintf(why, whylen, "the program's own profiler holds CUPTI (it took it before the tracer started)");
        return -1;
    }
    /* before any kind is enabled; without it CUPTI stamps with its own
     * clock, and the file must not say the two are one */
    stamps_ours = fn.register_ts && fn.register_ts(timestamp) == CUPTI_SUCCESS;
    if (fn.get_thread_id_type) /* put back at a hand-over */
        fn.get_thread_id_type(&thread_id_type);
    if (fn.set_thread_id_type)
        fn.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    CUptiResult r = fn.register_callbacks(on_request, on_complete);
    if (r != CUPTI_SUCCESS) {
        snprintf(why, whylen, "CUPTI refused the subscription: %s", result_text(r));
        return -1;
    }
    kinds_on = 0;
    /* the program taking CUPTI meanwhile (past hand_over_lock's bound)
     * stops it here: what is on is handed over at the end (gt_cupti_start) */
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds && !atomic_load(&program_took); i++) {
        r = fn.enable(kinds[i]);
        if (r != CUPTI_SUCCESS && (i == 0 || r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)) {
            snprintf(why, whylen, "CUPTI refused activity collection: %s (%d)", result_text(r), (int)r);
            return -1;
        }
        kinds_on |= r == CUPTI_SUCCESS ? 1u << i : 0;
    }
    atomic_store(&active, 1);
    return 0;
}

int gt_cupti_active(void)
{
    return atomic_load_explicit(&active, memory_order_relaxed);
}

uint32_t gt_cupti_version(void)
{
    return version;
}

int gt_cupti_stamps_ours(void)
{
    return gt_cupti_active() && stamps_ours;
}

void gt_cupti_push_external(uint64_t id)
{
    if (gt_cupti_active() && fn.push_ext(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, id) == CUPTI_SUCCESS)
        pushed++;
}

/* Pops what this thread pushed, whether or not CUPTI is still ours: a
 * thread blocked in a call while the program's profiler took CUPTI would
 * otherwise leave our id under the profiler's own (Kineto's are CUSTOM0
 * too) for good. */
void gt_cupti_pop_external(void)
{
    if (!pushed)
        return;
    pushed--;
    fn.pop_ext(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
}

void gt_cupti_observe(int on)
{
    observe = on;
}

void gt_cupti_flush(int forced)
{
    if (!gt_cupti_active())
        return;
    fn.flush_all(forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0);
    size_t n = 0;
    if (fn.dropped && fn.dropped(NULL, 0, &n) == CUPTI_SUCCESS)
        atomic_fetch_add(&dropped_total, n);
}

uint64_t gt_cupti_dropped(void)
{
    return atomic_load(&dropped_total);
}

void gt_cupti_forget_after_fork(void)
{
    atomic_store(&active, 0);
    pushed = 0; /* the forking thread's: a child never pops the parent's ids */
    if (atomic_load(&ngaps) && !atomic_load(&handing)) /* the parent's profiler had let go: */
        atomic_store(&program_took, 0);                   /* the child may start CUPTI */
    atomic_store(&handing, 0); /* the parent's hand-overs are not the child's */
    atomic_store(&ngaps, 0);
    memset(out_bufs, 0, sizeof out_bufs); /* the parent's CUPTI held them */
    pthread_mutex_init(&start_lock, NULL);
    our_sub = NULL; /* the parent's */
    pthread_mutex_init(&sub_lock, NULL);
    pthread_mutex_init(&queue_lock, NULL);
    q_head = q_tail = NULL; /* the parent's buffers are the parent's */
    atomic_store(&queued_bytes, 0);
    pthread_mutex_init(&pool_lock, NULL);
    atomic_store(&held_bytes, (size_t)pool_n * BUF_BYTES); /* the kept ones are the child's copies */
}

/* ---- parsing, on the writer thread -------------------------------------- */

/* Kernel names, interned by the writer thread alone: an open-addressing
 * table that doubles when half full (a program may have tens of thousands
 * of kernels: every template instance is one).  A name that memory cannot
 * hold is stored with id 0 and counted in dropped_cupti. */
/* stored: this process row has the name's string row (a fork child, or the
 * image after a failed exec, is a new row that knows the names, not its rows) */
struct name { uint64_t hash; char *name; uint32_t id; uint8_t stored; };
static struct name *names;
static uint32_t names_cap, names_used;
static uint32_t next_name_id = 1;

/* The slot of name, or the free one where it goes (the table is never
 * more than half full). */
static struct name *name_slot(struct name *tab, uint32_t cap, uint64_t h, const char *name)
{
    for (uint32_t i = (uint32_t)(h & (cap - 1));; i = (i + 1) & (cap - 1))
        if (!tab[i].name || (tab[i].hash == h && strcmp(tab[i].name, name) == 0))
            return &tab[i];
}

static int grow_names(void)
{
    uint32_t cap = names_cap ? names_cap * 2 : 4096;
    struct name *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return -1;
    for (uint32_t i = 0; i < names_cap; i++) {
        if (!names[i].name)
            continue;
        uint32_t j = (uint32_t)(names[i].hash & (cap - 1)); /* all distinct: the first free slot */
        while (tab[j].name)
            j = (j + 1) & (cap - 1);
        tab[j] = names[i];
    }
    free(names);
    names = tab;
    names_cap = cap;
    return 0;
}

static uint32_t intern_name(struct gt_db *db, const char *name)
{
    if (!name)
        return 0;
    uint64_t h = gt_fnv1a(name, strlen(name), GT_FNV_OFFSET);
    if ((names_used + 1) * 2 > names_cap && grow_names() != 0 && names_used + 1 >= names_cap) {
        atomic_fetch_add(&dropped_total, 1);
        return 0;
    }
    struct name *e = name_slot(names, names_cap, h, name);
    if (e->name) {
        if (!e->stored) {
            gt_db_exec_text(db, GT_ST_STRING, e->id, name);
            e->stored = 1;
        }
        return e->id;
    }
    char *copy = strdup(name);
    if (!copy) {
        atomic_fetch_add(&dropped_total, 1);
        return 0;
    }
    *e = (struct name){ h, copy, next_name_id++, 1 };
    names_used++;
    gt_db_exec_text(db, GT_ST_STRING, e->id, name);
    return e->id;
}

/* API records of this drain, when it stores them in bulk */
static struct gt_capi_packed capi_block[GT_BLOCK_ROWS];
static int ncapi_block;

static void flush_capi_block(struct gt_db *db)
{
    if (ncapi_block)
        gt_db_capi_block(db, capi_block, ncapi_block);
    ncapi_block = 0;
}

/* ... and GPU operations */
static struct gt_gpu_packed gpu_block[GT_BLOCK_ROWS];
static int ngpu_block;

static void flush_gpu_block(struct gt_db *db)
{
    if (ngpu_block)
        gt_db_gpu_block(db, gpu_block, ngpu_block);
    ngpu_block = 0;
}

/* A gpu_op row (v: its 14 columns after process_id, as the statement
 * takes them), or the same record into the block. */
static void store_gpu(struct gt_db *db, const int64_t *v, int bulk)
{
    if (!bulk) {
        gt_db_row(db, GT_ST_GPU, v);
        return;
    }
    gpu_block[ngpu_block++] = (struct gt_gpu_packed){
        .kind = (uint8_t)v[0], .device = (int32_t)v[1], .context = (uint32_t)v[2], .stream_id = v[3],
        .name_id = (uint32_t)v[4], .start_ns = v[5], .end_ns = v[6], .bytes = v[7], .copy_kind = (uint8_t)v[8],
        .src_kind = (uint8_t)v[9], .dst_kind = (uint8_t)v[10], .correlation = (uint32_t)v[11],
        .sync_type = (uint8_t)v[12], .event_id = (int32_t)v[13] };
    if (ngpu_block == GT_BLOCK_ROWS)
        flush_gpu_block(db);
}

/* A cupti_api row (v: its 7 columns after process_id), or the same
 * record into the block. */
static void store_capi(struct gt_db *db, const int64_t *v, int bulk)
{
    if (!bulk) {
        gt_db_row(db, GT_ST_CUPTI_API, v);
        return;
    }
    capi_block[ncapi_block++] = (struct gt_capi_packed){
        .domain = (uint8_t)v[0], .cbid = (uint32_t)v[1], .tid = (uint32_t)v[2], .start_ns = v[3], .end_ns = v[4],
        .correlation = (uint32_t)v[5], .result = (uint32_t)v[6] };
    if (ncapi_block == GT_BLOCK_ROWS)
        flush_capi_block(db);
}

/* A cudaEventSyncId as stored: -1 where CUPTI says it does not apply
 * (CUPTI_SYNCHRONIZATION_INVALID_VALUE, in 64 bits or 32). */
static int64_t event_sync_id(uint64_t id)
{
    return id == CUPTI_SYNCHRONIZATION_INVALID_VALUE || id == UINT64_MAX || id > INT64_MAX ? -1 : (int64_t)id;
}

static void store(struct gt_db *db, const CUpti_Activity *rec, int bulk)
{
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const void *)rec;
        int64_t v[] = { GT_GPU_KERNEL, k->deviceId, k->contextId, k->streamId, intern_name(db, k->name),
                        (int64_t)k->start, (int64_t)k->end, 0, 0, 0, 0, k->correlationId, 0, 0 };
        store_gpu(db, v, bulk);
        if (observe)
            gt_mon_gpu_op(GT_GPU_KERNEL, k->name, (int64_t)k->start, (int64_t)k->end, k->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const void *)rec;
        int64_t v[] = { GT_GPU_MEMCPY, m->deviceId, m->contextId, m->streamId, 0, (int64_t)m->start,
                        (int64_t)m->end, (int64_t)m->bytes, m->copyKind, m->srcKind, m->dstKind,
                        m->correlationId, 0, 0 };
        store_gpu(db, v, bulk);
        if (observe)
            gt_mon_gpu_op(GT_GPU_MEMCPY, NULL, (int64_t)m->start, (int64_t)m->end, m->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const void *)rec;
        int64_t v[] = { GT_GPU_MEMSET, m->deviceId, m->contextId, m->streamId, 0, (int64_t)m->start,
                        (int64_t)m->end, (int64_t)m->bytes, 0, 0, m->memoryKind, m->correlationId, 0, 0 };
        store_gpu(db, v, bulk);
        if (observe)
            gt_mon_gpu_op(GT_GPU_MEMSET, NULL, (int64_t)m->start, (int64_t)m->end, m->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
        /* streamId and cudaEventId are CUPTI_SYNCHRONIZATION_INVALID_VALUE
         * where they do not apply (stored as -1); the record's
         * cudaEventSyncId goes into bytes, as an event record's does */
        const CUpti_ActivitySynchronization2 *s = (const void *)rec;
        int64_t v[] = { GT_GPU_SYNC, -1, s->contextId, (int64_t)(int32_t)s->streamId, 0, (int64_t)s->start,
                        (int64_t)s->end, event_sync_id(s->cudaEventSyncId), 0, 0, 0, s->correlationId, s->type,
                        (int64_t)(int32_t)s->cudaEventId };
        store_gpu(db, v, bulk);
        break;
    }
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: {
        /* the stream an event was recorded on, by the record call's
         * correlation id: no time of its own (its call's is in cupti_api) */
        const CUpti_ActivityCudaEvent2 *e = (const void *)rec;
        int64_t v[] = { GT_GPU_EVENT, e->deviceId, e->contextId, (int64_t)(int32_t)e->streamId, 0, 0, 0,
                        event_sync_id(e->cudaEventSyncId), 0, 0, 0, e->correlationId, 0, (int64_t)(int32_t)e->eventId };
        store_gpu(db, v, bulk);
        break;
    }
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER: {
        const CUpti_ActivityAPI *a = (const void *)rec;
        int64_t v[] = { rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME ? 1 : 2, a->cbid, a->threadId,
                        (int64_t)a->start, (int64_t)a->end, a->correlationId, a->returnValue };
        store_capi(db, v, bulk);
        if (observe && a->returnValue == 0 && gt_cupti_enqueues_work(rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME, a->cbid))
            gt_mon_gpu_launch((int64_t)a->start, a->correlationId);
        break;
    }
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: {
        const CUpti_ActivityExternalCorrelation *x = (const void *)rec;
        if (x->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
            int64_t v[] = { (int64_t)x->externalId, x->correlationId };
            gt_db_row(db, GT_ST_EXT, v);
            if (observe)
                gt_mon_gpu_xcorr(x->externalId, x->correlationId);
        }
        break;
    }
    default:
        break;
    }
}

size_t gt_cupti_drain_one(struct gt_db *db, int bulk, int bulk_after)
{
    pthread_mutex_lock(&queue_lock);
    struct qbuf *q = q_head;
    if (q) {
        q_head = q->next;
        if (!q_head)
            q_tail = NULL;
    }
    pthread_mutex_unlock(&queue_lock);
    if (!q)
        return 0;
    /* more records waiting than bulk_after, stored as rows, would hold the
     * writer up for longer than a thread takes to fill its ring (a full 4
     * MiB buffer: 10-100 K records, up to ~150 ms).  Counted as if all were
     * of the largest kind (kernels), and past bulk_after records of this
     * buffer the rest go in bulk whatever the count said. */
    size_t waiting = atomic_fetch_sub(&queued_bytes, q->valid) / sizeof(CUpti_ActivityKernel10);
    int bulk_buf = bulk || bulk_after == 0 || waiting > (size_t)bulk_after;
    size_t n = 0;
    CUpti_Activity *rec = NULL;
    while (fn.next_record && fn.next_record(q->buf, q->valid, &rec) == CUPTI_SUCCESS) {
        store(db, rec, bulk_buf || n >= (size_t)bulk_after);
        n++;
    }
    flush_capi_block(db);
    flush_gpu_block(db);
    buf_put(q->buf, q->bytes);
    free(q);
    return n + 1; /* not 0: a buffer (even an empty one) was taken */
}

void gt_cupti_names_reset_reported(void)
{
    for (uint32_t i = 0; i < names_cap; i++)
        names[i].stored = 0;
}

int gt_cupti_subscribe(CUpti_CallbackFunc callback, const uint32_t (*ids)[2], size_t n, char *why, size_t whylen)
{
    if (!atomic_load(&active) || !fn.subscribe || !fn.enable_callback) {
        snprintf(why, whylen, "CUPTI's callback API is not there");
        return -1;
    }
    CUpti_SubscriberHandle sub;
    pthread_mutex_lock(&sub_lock);
    CUptiResult r = atomic_load(&handing) || atomic_load(&callbacks_given)
                        ? CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED
                        : fn.subscribe(&sub, callback, NULL);
    if (r != CUPTI_SUCCESS) {
        pthread_mutex_unlock(&sub_lock);
        snprintf(why, whylen, "CUPTI refused a callback subscriber: %s", result_text(r));
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        fn.enable_callback(1, sub, (CUpti_CallbackDomain)ids[i][0], (CUpti_CallbackId)ids[i][1]);
    our_sub = sub;
    pthread_mutex_unlock(&sub_lock);
    return 0;
}

/* CUPTI's own clock where no client registers one: CLOCK_REALTIME on
 * Linux (cupti_activity.h), what a profiler that registers none expects. */
static uint64_t CUPTIAPI cupti_default_clock(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* start_lock for a hand-over: waited for at most 2 s, once.  A program
 * thread may hold the loader's lock here (a library constructor that
 * starts a profiler), which CUPTI's own calls under start_lock may want:
 * past the bound, the start hands over itself once it is done
 * (gt_cupti_start), and no later call waits. */
static int hand_over_lock(void)
{
    for (int i = 0; i < 2000 && !atomic_load(&wait_gave_up); i++) {
        if (pthread_mutex_trylock(&start_lock) == 0)
            return 1;
        struct timespec ms = { 0, 1000000 };
        nanosleep(&ms, NULL);
    }
    if (pthread_mutex_trylock(&start_lock) == 0)
        return 1;
    atomic_store(&wait_gave_up, 1);
    return 0;
}

/* A stretch the program holds CUPTI begins (from, our clock): its row, in
 * the slot a take-back left room for (< GT_CUPTI_MAX_GAPS). */
static void open_gap(int64_t from)
{
    int g = atomic_load(&ngaps);
    atomic_store(&gaps[g].to, 0);
    atomic_store(&gaps[g].from, from);
    atomic_store(&ngaps, g + 1);
}

/* What the program finds untraced: the clock it registered last, else
 * CUPTI's own (if we had replaced it), and CUPTI's thread ids as it left
 * them. */
static void clock_back(const __typeof__(program) *asked)
{
    if (fn.register_ts && (stamps_ours || asked->stamp))
        fn.register_ts(asked->stamp ? asked->stamp : cupti_default_clock);
    if (fn.set_thread_id_type)
        fn.set_thread_id_type(thread_id_type);
}

int gt_cupti_hand_over(void)
{
    atomic_store(&program_took, 1); /* before we started, we never start */
    if (!hand_over_lock())
        return 0;
    int done = hand_over_locked(0);
    pthread_mutex_unlock(&start_lock);
    return done;
}

/* The program's own CUPTI client (torch.profiler's Kineto: a timestamp
 * callback of its own, raw TSC ticks; its buffer callbacks, which replace
 * ours process-wide; its kinds, which it disables at its stop, ours with
 * them) is about to take CUPTI.  What it would have got untraced, it must
 * get: our kinds go off, then our buffers come back (a forced flush, so
 * that none of ours is filled on its clock or completed to its
 * callbacks), its clock (the one it registered last, else CUPTI's own),
 * its callbacks, if it registered any before (a profiler that registers
 * them once, and finds ours after a take-back), and its thread ids are
 * put back, our external correlation ids stop (they would land among its
 * own), and the callback subscriber we hold is let go (its cuptiSubscribe
 * would be refused: older Kineto then profiles the CPU only).  Our GPU
 * records pause here, and the file says from when (gpu_gap).
 *
 * Here start_lock is held.  restore: the program's calls went
 * through before it (past hand_over_lock's bound) and ours may have
 * replaced what they asked for: its kinds are enabled again, as they
 * stand now; nothing after its cuptiFinalize. */
static int hand_over_locked(int restore)
{
    if (!atomic_load(&active) || atomic_exchange(&handing, 1))
        return 0;
    atomic_store(&active, 0);
    pthread_mutex_lock(&sub_lock);
    __typeof__(program) asked = program;
    pthread_mutex_unlock(&sub_lock);
    /* from before our kinds go off: a call from then on may have no GPU
     * record of ours */
    int64_t from = (int64_t)gt_clock_now_ns();
    if (asked.finalized) { /* CUPTI is torn down, ours with the program's */
        open_gap(from);
        return 1;
    }
    /* our kinds off first: a record made after the flush would fill a
     * buffer of ours that the program's callbacks then get (under restore,
     * a kind the program has on already stays on: its calls went through;
     * else its call, next, turns it on again) */
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (fn.disable && (kinds_on & (1u << i)) &&
            !(restore && (((unsigned)kinds[i] < 64 && (asked.kinds & (1ull << kinds[i]))) ||
                          program_has_kind_per_context(&asked, (int)kinds[i]))))
            fn.disable(kinds[i]);
    fn.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    size_t n = 0;
    if (fn.dropped && fn.dropped(NULL, 0, &n) == CUPTI_SUCCESS)
        atomic_fetch_add(&dropped_total, n);
    clock_back(&asked);
    if (asked.request && asked.complete)
        fn.register_callbacks(asked.request, asked.complete);
    if (restore)
        for (int i = 1; i < 64; i++)
            if (asked.kinds & (1ull << i))
                fn.enable((CUpti_ActivityKind)i);
    gt_cupti_let_go_callbacks();
    open_gap(from);
    return 1;
}

/* The program's profiler has stopped (its kinds all off, its buffers all
 * flushed, CUPTI not finalized): ours again, as gt_cupti_start made it,
 * until its next session's first call hands it over again.  Its thread
 * id type is read again first (put back at that hand-over).  A failed
 * registration leaves CUPTI the program's, its callbacks put back.  Here
 * start_lock is held. */
static int take_back_locked(void)
{
    int g = atomic_load(&ngaps);
    if (!atomic_load(&handing) || atomic_load(&active) || g == 0 || g >= GT_CUPTI_MAX_GAPS)
        return 0;
    pthread_mutex_lock(&sub_lock);
    __typeof__(program) asked = program;
    pthread_mutex_unlock(&sub_lock);
    if (asked.finalized || asked.kinds || asked.npairs || asked.pairs_lost)
        return 0;
    if (fn.get_thread_id_type)
        fn.get_thread_id_type(&thread_id_type);
    if (fn.register_ts && (stamps_ours || asked.stamp)) /* ours; else CUPTI's, which ours were on, not its */
        fn.register_ts(stamps_ours ? timestamp : cupti_default_clock);
    if (fn.set_thread_id_type)
        fn.set_thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
    if (fn.register_callbacks(on_request, on_complete) != CUPTI_SUCCESS) {
        clock_back(&asked);
        return 0;
    }
    uint32_t on = 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        on |= fn.enable(kinds[i]) == CUPTI_SUCCESS ? 1u << i : 0;
    kinds_on = on;
    /* after the kinds are on: a call before this has no GPU record */
    atomic_store(&gaps[g - 1].to, (int64_t)gt_clock_now_ns());
    atomic_store(&handing, 0);
    atomic_store(&active, 1);
    return 1;
}

int gt_cupti_take_back(void)
{
    if (!atomic_load(&handing) || atomic_load(&active))
        return 0;
    /* one try: a take-back can wait for the next forced flush, and the
     * program's thread may hold the loader's lock */
    if (pthread_mutex_trylock(&start_lock) != 0)
        return 0;
    int done = take_back_locked();
    pthread_mutex_unlock(&start_lock);
    return done;
}

int gt_cupti_let_go_callbacks(void)
{
    pthread_mutex_lock(&sub_lock);
    atomic_store(&callbacks_given, 1);
    int had = our_sub != NULL;
    if (our_sub && fn.unsubscribe)
        fn.unsubscribe(our_sub);
    our_sub = NULL;
    pthread_mutex_unlock(&sub_lock);
    return had;
}

void gt_cupti_program_asks(CUpti_BuffersCallbackRequestFunc request, CUpti_BuffersCallbackCompleteFunc complete,
                           CUpti_TimestampCallbackFunc stamp, int kind)
{
    pthread_mutex_lock(&sub_lock);
    if (request && complete) {
        program.request = request;
        program.complete = complete;
        atomic_store(&program_complete, complete);
    }
    if (stamp)
        program.stamp = stamp;
    if (kind > 0 && kind < 64)
        program.kinds |= 1ull << kind;
    else if (kind < 0 && kind > -64)
        program.kinds &= ~(1ull << -kind);
    pthread_mutex_unlock(&sub_lock);
}

int gt_cupti_ours_on(int kind)
{
    if (!atomic_load(&active))
        return 0;
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if ((int)kinds[i] == kind)
            return (kinds_on >> i) & 1;
    return 0;
}

int gt_cupti_program_context(void *ctx, int kind, int on)
{
    pthread_mutex_lock(&sub_lock);
    int i = 0;
    while (i < program.npairs && !(program.pairs[i].ctx == ctx && program.pairs[i].kind == kind))
        i++;
    int had = i < program.npairs;
    if (on == 1 && !had) {
        if (program.npairs < CTX_PAIRS)
            program.pairs[program.npairs++] = (__typeof__(program.pairs[0])){ ctx, kind };
        else
            program.pairs_lost = 1;
    } else if (on == 0 && had) {
        program.pairs[i] = program.pairs[--program.npairs];
    }
    pthread_mutex_unlock(&sub_lock);
    return had;
}

void gt_cupti_program_finalizes(void)
{
    pthread_mutex_lock(&sub_lock);
    program.finalized = 1;
    pthread_mutex_unlock(&sub_lock);
}

int gt_cupti_gaps(int64_t (*out)[2], int max)
{
    int n = atomic_load(&ngaps);
    for (int i = 0; i < n && i < max; i++) {
        out[i][1] = atomic_load(&gaps[i].to);
        out[i][0] = atomic_load(&gaps[i].from);
    }
    return n < max ? n : max;
}
