/* nvtx_inject.c: NVTX ranges, marks and names, through NVTX's injection
 * interface.
 *
 * NVTX (header-only nvtx3, or the old libnvToolsExt) does nothing until its
 * first call, which loads the tool named by NVTX_INJECTION64_PATH and calls
 * its InitializeInjectionNvtx2 to fill NVTX's table of function pointers.
 * This library, already preloaded, points that variable at itself when the
 * process starts (a value the user set is kept: their tool wins, and the
 * process row says so), so the loader finds this very copy and the callbacks
 * below record into the calling thread's ring, like the wrappers do.
 *
 * Push/pop ranges are kept open on a per-thread stack and written as one
 * record when they close (the writer stores the ones still open when the
 * process ends); start/end ranges, which may end on another thread, are
 * written as a start and an end record.  Names are interned (strtab.h):
 * a domain handle or a registered string handle is its string's id.  The
 * structured payloads of NCCL's ranges are read through the payload
 * extension (nvtx_payload.c).
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "libtrace/lifecycle.h"
#include "libtrace/trace.h"
#include "libtrace/nvtx_inject.h"
#include "libtrace/nvtx_payload.h"
#include "collector/strtab.h"
#include "collector/writer.h"

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>
#include <nvtx3/nvToolsExtPayload.h>

#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

static char status[600] = "no NVTX calls seen";
static _Atomic int injected;

const char *gt_nvtx_status(void)
{
    return status;
}

/* Handles we give out must not be NULL (NULL is the default domain). */
#define FULL_HANDLE ((uintptr_t)UINT32_MAX)

static uint32_t id_of_handle(const void *h)
{
    uintptr_t v = (uintptr_t)h;
    return v == FULL_HANDLE || v > UINT32_MAX ? 0 : (uint32_t)v;
}

static uint32_t intern_wide(const wchar_t *w)
{
    if (!w)
        return 0;
    char out[GT_STRTAB_MAXLEN + 8];
    size_t o = 0;
    /* one character past the limit at most: gt_strtab_intern then marks
     * the name cut */
    for (; *w && o <= GT_STRTAB_MAXLEN; w++) {
        uint32_t c = (uint32_t)*w;
        if (c < 0x80) {
            out[o++] = (char)c;
        } else if (c < 0x800) {
            out[o++] = (char)(0xC0 | (c >> 6));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x10000) {
            out[o++] = (char)(0xE0 | (c >> 12));
            out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        } else if (c < 0x110000) {
            out[o++] = (char)(0xF0 | (c >> 18));
            out[o++] = (char)(0x80 | ((c >> 12) & 0x3F));
            out[o++] = (char)(0x80 | ((c >> 6) & 0x3F));
            out[o++] = (char)(0x80 | (c & 0x3F));
        }
    }
    return gt_strtab_intern(out, (long)o);
}

/* A cache miss: intern the name and remember where it came from. */
static __attribute__((noinline)) uint32_t intern_ascii_miss(struct gt_name_cache *e, const char *s)
{
    uint32_t id = gt_strtab_intern(s, -1);
    const char *text = id ? gt_strtab_get(id) : NULL;
    if (text) {
        /* the address last: a signal handler of this thread that looks at
         * the entry meanwhile finds it whole or not at all */
        e->ptr = NULL;
        atomic_signal_fence(memory_order_seq_cst);
        e->text = text;
        e->id = id;
        e->len = (uint32_t)strlen(text);
        atomic_signal_fence(memory_order_seq_cst);
        e->ptr = s;
    }
    return id;
}

/* An ASCII name's string id, through the calling thread's cache of recent
 * addresses (tbuf.h): a hit costs a compare of the text, not a hash. */
static inline uint32_t intern_ascii(const char *s)
{
    struct gt_tbuf *b = gt_thread.tbuf;
    if (!b || !s)
        return gt_strtab_intern(s, -1);
    uintptr_t at = (uintptr_t)s;
    struct gt_name_cache *e = &b->name_cache[((at >> 3) ^ (at >> 8)) & (GT_NAME_CACHE - 1)];
    if (e->ptr == s) {
        /* byte by byte, stopping at the first difference: never past the
         * end of a shorter string now at this address */
        const unsigned char *t = (const unsigned char *)e->text, *u = (const unsigned char *)s;
        uint32_t n = e->len, i = 0;
        while (i < n && t[i] == u[i])
            i++;
        if (i == n && u[n] == 0)
            return e->id;
    }
    return intern_ascii_miss(e, s);
}

/* What an event's attributes say (fields past the caller's struct size are
 * not read: older NVTX versions pass a shorter struct). */
struct attrs { uint32_t name, category; int32_t payload_type; uint64_t payload; };

#define HAS_FIELD(a, f) ((a)->size >= offsetof(nvtxEventAttributes_t, f) + sizeof((a)->f))

static struct attrs read_attrs(const nvtxEventAttributes_t *a, uint32_t domain)
{
    struct attrs r = { 0, 0, 0, 0 };
    if (!a)
        return r;
    if (HAS_FIELD(a, category))
        r.category = a->category;
    if (HAS_FIELD(a, payload) && a->payloadType >= NVTX_PAYLOAD_TYPE_UNSIGNED_INT64 &&
        a->payloadType <= NVTX_PAYLOAD_TYPE_FLOAT) {
        r.payload_type = a->payloadType;
        memcpy(&r.payload, &a->payload, sizeof r.payload);
    } else if (HAS_FIELD(a, payload) && a->payloadType == NVTX_PAYLOAD_TYPE_EXT && domain &&
               domain == gt_strtab_nccl_domain()) {
        /* structured payloads are read in NCCL's domain only (nvtx_payload.h):
         * their few fields (communicator, size, operation, root or peer) take
         * few distinct values; any program's payloads could fill the string table */
        r.payload = gt_nvtx_payload_text((const void *)(uintptr_t)a->payload.ullValue,
                                         a->reserved0 > 0 ? (size_t)a->reserved0 : 0);
        r.payload_type = r.payload ? GT_NVTX_PAYLOAD_TEXT : 0;
    }
    if (HAS_FIELD(a, message)) {
        switch (a->messageType) {
        case NVTX_MESSAGE_TYPE_ASCII: r.name = intern_ascii(a->message.ascii); break;
        case NVTX_MESSAGE_TYPE_UNICODE: r.name = intern_wide(a->message.unicode); break;
        case NVTX_MESSAGE_TYPE_REGISTERED: r.name = id_of_handle(a->message.registered); break;
        default: break;
        }
    }
    return r;
}

/* The calling thread's ring, activating the tracer if NVTX comes first.
 * Not subject to gt_thread.guard: NCCL's own ranges come from inside a wrapped
 * call, and are wanted. */
static struct gt_tbuf *ring(void)
{
    if (__builtin_expect(!gt_tracing(), 0)) {
        if (gt_writer_is_self() || !gt_activate())
            return NULL;
    }
    if (__builtin_expect(!atomic_load_explicit(&gt_first_call_done, memory_order_relaxed), 0)) {
        int saved = errno;
        gt_after_first_call();
        errno = saved;
    }
    return gt_tbuf_mine();
}

static GT_TLS struct gt_record pending[GT_NVTX_PENDING];

void gt_nvtx_flush_pending(struct gt_tbuf *b)
{
    /* a signal handler of this thread may add one meanwhile (it runs to
     * its end before this goes on): the count is re-read, and cleared only
     * if it did not grow since */
    int i = 0;
    for (;;) {
        int n = __atomic_load_n(&gt_thread.nvtx_pending, __ATOMIC_RELAXED);
        if (i >= n) {
            if (__atomic_compare_exchange_n(&gt_thread.nvtx_pending, &n, 0, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
                return;
            continue;
        }
        if (gt_tbuf_push(b, &pending[i]) == 0) {
            i++;
        } else { /* the ring counted this one: and the rest */
            atomic_fetch_add_explicit(&b->dropped, (uint64_t)(n - i - 1), memory_order_relaxed);
            i = n;
        }
    }
}

/* The NVTX window: while an event changes this thread's ring or range
 * stack, gt_thread.guard is GT_GUARD_NVTX, so that a signal handler that
 * comes in meanwhile does not change them too (two records in one slot, a
 * stale slot committed: calls lost and ranges that were never made).  The
 * handler's own NVTX records then wait in `pending` until the window ends;
 * its pushes (and their pops) are counted as dropped, and so are its CUDA
 * calls (trace.h).  Returns the guard to restore, or -1 inside another
 * window (a handler). */
static inline int window_enter(void)
{
    int g = gt_thread.guard;
    if (g == GT_GUARD_NVTX)
        return -1;
    if (!g) {
        gt_thread.guard = GT_GUARD_NVTX;
        atomic_signal_fence(memory_order_seq_cst);
    }
    return g;
}

static inline void window_leave(struct gt_tbuf *b, int g)
{
    if (g != 0)
        return;
    atomic_signal_fence(memory_order_seq_cst);
    if (gt_thread.nvtx_pending) /* what a handler made meanwhile */
        gt_nvtx_flush_pending(b);
    gt_thread.guard = 0;
}

/* Pushes a handler made inside a window, not kept (so their pops are not
 * either). */
static GT_TLS int skipped_pushes;

/* nested: a slot of the ring is held (inside a wrapped call or a window):
 * the record waits in `pending` */
static void emit(struct gt_tbuf *b, enum gt_nvtx_kind kind, uint32_t domain, const struct attrs *a, uint64_t t0,
                 uint64_t t1, int depth, uint64_t range_id, int nested)
{
    if (nested && gt_thread.nvtx_pending == GT_NVTX_PENDING) {
        atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
        return;
    }
    struct gt_record *r = nested ? &pending[gt_thread.nvtx_pending] : gt_tbuf_reserve(b);
    if (!r)
        return;
    /* every field the writer reads for an NVTX record, and no others: a
     * whole-record clear is a quarter of the pair's cost */
    r->type = GT_REC_NVTX;
    r->flags = 0; /* the slot's last lap may have been an NCCL call's: no pair follows this one */
    r->api = (uint16_t)kind;
    r->depth = (uint16_t)depth;
    r->t_start = t0;
    r->t_end = t1;
    r->nvtx.domain = domain;
    r->nvtx.name = a->name;
    r->nvtx.category = a->category;
    r->nvtx.payload_type = a->payload_type;
    r->nvtx.payload = a->payload;
    r->nvtx.range_id = range_id;
    if (nested) {
        atomic_signal_fence(memory_order_seq_cst); /* filled before it is counted */
        gt_thread.nvtx_pending++;
    } else {
        gt_tbuf_commit(b);
    }
}

/* An event's record, inside the window (or deferred, from a handler). */
static void emit_one(struct gt_tbuf *b, enum gt_nvtx_kind kind, uint32_t domain, const struct attrs *a, uint64_t t0,
                     uint64_t t1, int depth, uint64_t range_id)
{
    int g = window_enter();
    emit(b, kind, domain, a, t0, t1, depth, range_id, g != 0);
    window_leave(b, g);
}

/* NVTX keeps a push/pop stack per thread and domain: a range's level is
 * the number of ranges of its own domain open around it (kept ones; every
 * level below a kept one is kept, tbuf.h).  One stack holds them all here,
 * so a range NCCL leaves open in its domain (ncclCommInitRankConfig's, on
 * an H200 with NCCL 2.28) made every later train_step level 1, and the
 * monitor, which takes the steps among level-0 ranges, saw none. */
static int domain_level(struct gt_tbuf *b, int below, uint32_t domain)
{
    int n = 0;
    for (int k = 0; k < below; k++) {
        const struct gt_nvtx_open *o = gt_tbuf_nvtx_level(b, k);
        if (!o)
            break;
        n += o->domain == domain;
    }
    return n;
}

static int push(uint32_t domain, const struct attrs *a)
{
    struct gt_tbuf *b = ring();
    if (!b)
        return 0;
    int g = window_enter();
    int d = atomic_load_explicit(&b->nvtx_depth, memory_order_relaxed);
    if (g < 0) { /* a handler, inside another event of this thread */
        skipped_pushes++;
        atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
        return d + skipped_pushes - 1;
    }
    struct gt_nvtx_open *o = gt_tbuf_nvtx_level(b, d);
    if (o)
        *o = (struct gt_nvtx_open){ gt_ticks(), a->payload, a->name, domain, a->category, a->payload_type };
    else /* deeper than can be kept: this range will not be stored */
        atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
    int level = domain_level(b, d, domain);
    atomic_store_explicit(&b->nvtx_depth, d + 1, memory_order_release);
    window_leave(b, g);
    return level;
}

static int pop(uint32_t domain)
{
    uint64_t t = gt_ticks();
    struct gt_tbuf *b = gt_tracing() ? gt_tbuf_mine() : NULL;
    if (!b)
        return -1;
    int g = window_enter();
    int d = atomic_load_explicit(&b->nvtx_depth, memory_order_relaxed);
    if (g < 0 || skipped_pushes) { /* the end of a push not kept, or a handler's pop of a range it did not push */
        if (skipped_pushes)
            skipped_pushes--;
        else
            atomic_fetch_add_explicit(&b->dropped, 1, memory_order_relaxed);
        return d + skipped_pushes;
    }
    int r = -1;
    if (d <= 0) {
        r = -1; /* a pop without a push: NVTX says -1 */
    } else if (!gt_tbuf_nvtx_level(b, d - 1)) { /* deeper than kept (counted): the innermost, unkept, ends */
        atomic_store_explicit(&b->nvtx_depth, d - 1, memory_order_release);
        r = d - 1;
    } else {
        /* every level below a kept one is kept (tbuf.h) */
        int i = d - 1;
        while (i >= 0 && gt_tbuf_nvtx_level(b, i)->domain != domain)
            i--;
        if (i >= 0) {
            int level = domain_level(b, i, domain);
            struct gt_nvtx_open o = *gt_tbuf_nvtx_level(b, i);
            for (int k = i; k < d - 1; k++) /* a pop of another domain's inner range; usually the innermost ends */
                *gt_tbuf_nvtx_level(b, k) = *gt_tbuf_nvtx_level(b, k + 1);
            atomic_store_explicit(&b->nvtx_depth, d - 1, memory_order_release);
            struct attrs a = { o.name, o.category, o.payload_type, o.payload };
            emit(b, GT_NVTX_RANGE, domain, &a, o.t_start, t, level, 0, g != 0);
            r = level;
        }
    }
    window_leave(b, g);
    return r;
}

static nvtxRangeId_t start(uint32_t domain, const struct attrs *a)
{
    struct gt_tbuf *b = ring();
    if (!b)
        return 0;
    int g = window_enter();
    uint64_t id = ((uint64_t)b->tid << 32) | ++gt_thread.calls;
    uint64_t t = gt_ticks();
    emit(b, GT_NVTX_START, domain, a, t, 0, 0, id, g != 0);
    window_leave(b, g);
    return id;
}

static void end(nvtxRangeId_t id)
{
    uint64_t t = gt_ticks();
    struct gt_tbuf *b = gt_tracing() ? gt_tbuf_mine() : NULL;
    if (!b || !id)
        return;
    struct attrs none = { 0, 0, 0, 0 };
    emit_one(b, GT_NVTX_END, 0, &none, 0, t, 0, id);
}

static void mark(uint32_t domain, const struct attrs *a)
{
    struct gt_tbuf *b = ring();
    if (!b)
        return;
    uint64_t t = gt_ticks();
    emit_one(b, GT_NVTX_MARK, domain, a, t, t, 0, 0);
}

static void name_category(uint32_t domain, uint32_t category, uint32_t name)
{
    struct gt_tbuf *b = ring();
    if (!b)
        return;
    struct attrs a = { name, category, 0, 0 };
    emit_one(b, GT_NVTX_NAME_CATEGORY, domain, &a, 0, 0, 0, 0);
}

static void name_thread(uint32_t tid, uint32_t name)
{
    struct gt_tbuf *b = ring();
    if (!b)
        return;
    struct attrs a = { name, 0, 0, 0 };
    emit_one(b, GT_NVTX_NAME_THREAD, 0, &a, 0, 0, 0, tid);
}

static struct attrs named(uint32_t name)
{
    return (struct attrs){ name, 0, 0, 0 };
}

/* ---- the callbacks NVTX calls ---------------------------------------------- */

static void cb_mark_ex(const nvtxEventAttributes_t *a) { struct attrs r = read_attrs(a, 0); mark(0, &r); }
static void cb_mark_a(const char *m) { struct attrs r = named(intern_ascii(m)); mark(0, &r); }
static void cb_mark_w(const wchar_t *m) { struct attrs r = named(intern_wide(m)); mark(0, &r); }
static nvtxRangeId_t cb_start_ex(const nvtxEventAttributes_t *a) { struct attrs r = read_attrs(a, 0); return start(0, &r); }
static nvtxRangeId_t cb_start_a(const char *m) { struct attrs r = named(intern_ascii(m)); return start(0, &r); }
static nvtxRangeId_t cb_start_w(const wchar_t *m) { struct attrs r = named(intern_wide(m)); return start(0, &r); }
static void cb_end(nvtxRangeId_t id) { end(id); }
static int cb_push_ex(const nvtxEventAttributes_t *a) { struct attrs r = read_attrs(a, 0); return push(0, &r); }
static int cb_push_a(const char *m) { struct attrs r = named(intern_ascii(m)); return push(0, &r); }
static int cb_push_w(const wchar_t *m) { struct attrs r = named(intern_wide(m)); return push(0, &r); }
static int cb_pop(void) { return pop(0); }
static void cb_name_category_a(uint32_t c, const char *n) { name_category(0, c, gt_strtab_intern(n, -1)); }
static void cb_name_category_w(uint32_t c, const wchar_t *n) { name_category(0, c, intern_wide(n)); }
static void cb_name_thread_a(uint32_t t, const char *n) { name_thread(t, gt_strtab_intern(n, -1)); }
static void cb_name_thread_w(uint32_t t, const wchar_t *n) { name_thread(t, intern_wide(n)); }

static void cb_dmark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    struct attrs r = read_attrs(a, id_of_handle(d));
    mark(id_of_handle(d), &r);
}
static nvtxRangeId_t cb_dstart_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    struct attrs r = read_attrs(a, id_of_handle(d));
    return start(id_of_handle(d), &r);
}
static void cb_dend(nvtxDomainHandle_t d, nvtxRangeId_t id) { (void)d; end(id); }
static int cb_dpush_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
    struct attrs r = read_attrs(a, id_of_handle(d));
    return push(id_of_handle(d), &r);
}
static int cb_dpop(nvtxDomainHandle_t d) { return pop(id_of_handle(d)); }
static void cb_dname_category_a(nvtxDomainHandle_t d, uint32_t c, const char *n)
{
    name_category(id_of_handle(d), c, gt_strtab_intern(n, -1));
}
static void cb_dname_category_w(nvtxDomainHandle_t d, uint32_t c, const wchar_t *n)
{
    name_category(id_of_handle(d), c, intern_wide(n));
}
static nvtxStringHandle_t handle_of(uint32_t id)
{
    return (nvtxStringHandle_t)(id ? (uintptr_t)id : FULL_HANDLE);
}
static nvtxStringHandle_t cb_register_a(nvtxDomainHandle_t d, const char *s) { (void)d; return handle_of(gt_strtab_intern(s, -1)); }
static nvtxStringHandle_t cb_register_w(nvtxDomainHandle_t d, const wchar_t *s) { (void)d; return handle_of(intern_wide(s)); }
static nvtxDomainHandle_t cb_domain_a(const char *n)
{
    return (nvtxDomainHandle_t)handle_of(gt_strtab_intern(n, -1));
}
static nvtxDomainHandle_t cb_domain_w(const wchar_t *n)
{
    return (nvtxDomainHandle_t)handle_of(intern_wide(n));
}
static void cb_domain_destroy(nvtxDomainHandle_t d) { (void)d; }

/* ---- injection ------------------------------------------------------------- */

#define FN(f) ((NvtxFunctionPointer)(void (*)(void))(f))

/* What this library takes of NVTX's two core modules (the others, CUDA
 * resource naming and sync objects, are left as no-ops). */
struct entry { NvtxCallbackModule module; unsigned id; NvtxFunctionPointer fn; };
static const struct entry entries[] = {
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkEx, FN(cb_mark_ex) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkA, FN(cb_mark_a) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_MarkW, FN(cb_mark_w) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartEx, FN(cb_start_ex) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartA, FN(cb_start_a) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeStartW, FN(cb_start_w) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangeEnd, FN(cb_end) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushEx, FN(cb_push_ex) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushA, FN(cb_push_a) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePushW, FN(cb_push_w) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_RangePop, FN(cb_pop) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameCategoryA, FN(cb_name_category_a) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameCategoryW, FN(cb_name_category_w) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameOsThreadA, FN(cb_name_thread_a) },
    { NVTX_CB_MODULE_CORE, NVTX_CBID_CORE_NameOsThreadW, FN(cb_name_thread_w) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainMarkEx, FN(cb_dmark_ex) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeStartEx, FN(cb_dstart_ex) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangeEnd, FN(cb_dend) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePushEx, FN(cb_dpush_ex) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRangePop, FN(cb_dpop) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainNameCategoryA, FN(cb_dname_category_a) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainNameCategoryW, FN(cb_dname_category_w) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringA, FN(cb_register_a) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainRegisterStringW, FN(cb_register_w) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateA, FN(cb_domain_a) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainCreateW, FN(cb_domain_w) },
    { NVTX_CB_MODULE_CORE2, NVTX_CBID_CORE2_DomainDestroy, FN(cb_domain_destroy) },
};

int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table);

/* Whether this copy of the library is the one the program preloaded (its
 * symbols interpose), not a second copy NVTX loaded for a child process
 * that dropped LD_PRELOAD but kept the variable. */
static int is_preloaded_copy(void)
{
    /* (dlsym(RTLD_DEFAULT) from here would search this copy's own local
     * scope too, and find itself) */
    return gt_in_base_namespace() && gt_in_global_scope("InitializeInjectionNvtx2", (void *)InitializeInjectionNvtx2);
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_table)
{
    if (!get_table || !is_preloaded_copy())
        return 0; /* NVTX unloads us again and runs as without a tool */
    const NvtxExportTableCallbacks *cb = (const NvtxExportTableCallbacks *)get_table(NVTX_ETID_CALLBACKS);
    if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
        return 0;
    int ok = 0;
    static const NvtxCallbackModule modules[] = { NVTX_CB_MODULE_CORE, NVTX_CB_MODULE_CORE2 };
    for (size_t m = 0; m < sizeof modules / sizeof *modules; m++) {
        NvtxFunctionTable t = NULL;
        unsigned n = 0;
        if (!cb->GetModuleFunctionTable(modules[m], &t, &n) || !t)
            continue;
        for (size_t k = 0; k < sizeof entries / sizeof *entries; k++)
            if (entries[k].module == modules[m] && entries[k].id < n && t[entries[k].id]) {
                *t[entries[k].id] = entries[k].fn;
                ok = 1;
            }
    }
    if (ok) {
        atomic_store(&injected, 1);
        snprintf(status, sizeof status, "active");
    }
    return ok;
}

/* At load time, before the program's first NVTX call can happen: point
 * NVTX at this library unless the user chose a tool of their own.  Only an
 * environment variable is set; nothing else runs until a traced call. */
GT_CONSTRUCTOR(arrange_injection)
{
    if (!is_preloaded_copy())
        return;
    Dl_info info;
    char self[PATH_MAX];
    if (!dladdr((void *)InitializeInjectionNvtx2, &info) || !info.dli_fname || !realpath(info.dli_fname, self))
        return;
    const char *cur = getenv("NVTX_INJECTION64_PATH");
    if (cur && *cur) {
        char theirs[PATH_MAX];
        if (!realpath(cur, theirs) || strcmp(theirs, self) != 0)
            snprintf(status, sizeof status, "off (NVTX_INJECTION64_PATH names another tool: %.500s)", cur);
        return;
    }
    setenv("NVTX_INJECTION64_PATH", self, 0);
}
