/* callsite.c: interned call stacks (see callsite.h).
 *
 * Entries are claimed and published as intern.h describes; never removed.
 */
#define _GNU_SOURCE
#include "collector/callsite.h"
#include "collector/config.h"
#include "collector/hash.h"
#include "collector/intern.h"
#include "collector/modules.h"

#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#define TABLE_SIZE 8192

struct entry {
    struct gt_intern_seq s;  /* the return addresses follow */
    void *pc[GT_MAX_STACK_DEPTH];
};

static struct entry table[TABLE_SIZE];
/* entries made ready, in order, and how many of them the writer visited */
static _Atomic uint32_t made[TABLE_SIZE];
static struct gt_intern_log made_log = { 0, made };
static uint32_t seen;
__thread __attribute__((tls_model("initial-exec"))) struct gt_cs_slot *gt_cs_cache;

static pthread_key_t cache_key;
static pthread_once_t cache_key_once = PTHREAD_ONCE_INIT;

/* Run on the thread that owns it: its pointer is forgotten first, so that a
 * wrapped call from a later key's destructor maps a fresh cache (glibc runs
 * destructors again while keys are set) instead of the unmapped one. */
static void unmap_cache(void *p)
{
    if (gt_cs_cache == p)
        gt_cs_cache = NULL;
    munmap(p, GT_CS_CACHE * sizeof(struct gt_cs_slot));
}

static void make_cache_key(void)
{
    if (pthread_key_create(&cache_key, unmap_cache) != 0)
        cache_key = (pthread_key_t)-1;
}

/* mmap rather than malloc: a wrapped call may come from a signal handler.
 * The mapping goes when the thread ends.  NULL (no cache: every stack is
 * taken again) if it cannot be had. */
struct gt_cs_slot *gt_cs_cache_make(void)
{
    int saved_errno = errno;
    pthread_once(&cache_key_once, make_cache_key);
    void *p = mmap(NULL, GT_CS_CACHE * sizeof(struct gt_cs_slot), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        errno = saved_errno;
        return NULL;
    }
    if (cache_key != (pthread_key_t)-1)
        pthread_setspecific(cache_key, p);
    gt_cs_cache = p;
    errno = saved_errno;
    return p;
}

static uint64_t hash_frames(void *const *pc, int n)
{
    return gt_fnv1a(pc, (size_t)n * sizeof *pc, GT_FNV_OFFSET) | 1; /* 0 means empty */
}

static uint32_t capture(int depth, int runtime);

/* The first frame of a stack taken in a CUPTI callback (no return address
 * is 1): written with GT_CALLSITE_RUNTIME_MARK as its first line. */
#define RUNTIME_MARK ((void *)1)

/* The unwinder may set errno; the program must not see it change. */
__attribute__((noinline)) uint32_t gt_callsite_capture(int depth)
{
    int saved_errno = errno;
    uint32_t id = capture(depth, 0);
    errno = saved_errno;
    return id;
}

__attribute__((noinline)) uint32_t gt_callsite_capture_runtime(int depth)
{
    int saved_errno = errno;
    uint32_t id = capture(depth, 1);
    errno = saved_errno;
    return id;
}

/* The tracer's own library as the span of its loaded segments, found once
 * by gt_callsite_warm_up (at activation); 0, 0 until then. */
static _Atomic uintptr_t self_lo, self_hi;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    uintptr_t me = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr, b = a + ph->p_memsz;
        lo = a < lo ? a : lo;
        hi = b > hi ? b : hi;
    }
    if (me < lo || me >= hi)
        return 0;
    atomic_store_explicit(&self_lo, lo, memory_order_relaxed);
    atomic_store_explicit(&self_hi, hi, memory_order_release);
    return 1;
}

/* Whether pc is in the tracer's own library: its frames (the capture, the
 * wrapper) are dropped from the top of a stack.  Counting them instead
 * breaks when the compiler inlines or splits differently (sanitizers).
 * Two compares once the span is known: dladdr searches the object's
 * symbols for the nearest one, and in a stack taken in a CUPTI callback
 * (no cache there: every call is unwound) it was 40% of the call's cost
 * in a big static executable. */
static int in_tracer(void *pc)
{
    uintptr_t hi = atomic_load_explicit(&self_hi, memory_order_acquire);
    if (hi) {
        uintptr_t at = (uintptr_t)pc - 1;
        return at >= atomic_load_explicit(&self_lo, memory_order_relaxed) && at < hi;
    }
    static void *self_base;
    Dl_info info;
    if (!self_base && dladdr((void *)gt_callsite_capture, &info))
        self_base = info.dli_fbase;
    return dladdr((char *)pc - 1, &info) && info.dli_fbase == self_base;
}

__attribute__((noinline)) static uint32_t capture(int depth, int runtime)
{
    void *buf[GT_MAX_STACK_DEPTH + 8];
    /* room for the tracer's own frames; inside a callback, for CUPTI's,
     * the driver's and the runtime's too (cut when written: report()) */
    int want = runtime ? GT_MAX_STACK_DEPTH + 7 : depth + 6;
    if (want > (int)(sizeof buf / sizeof *buf))
        want = (int)(sizeof buf / sizeof *buf);
    int got = backtrace(buf, want), first = 0;
    /* a sanitizer's interceptor of backtrace() may come above our frames */
    while (first < got && first < 3 && !in_tracer(buf[first]))
        first++;
    if (first == got || first == 3)
        first = 0;
    while (first < got && in_tracer(buf[first]))
        first++;
    int room = runtime ? GT_MAX_STACK_DEPTH - 1 : depth;
    int n = got - first < room ? got - first : room;
    if (n <= 0)
        return 0;
    void **pc = buf + first;
    if (runtime) { /* the mark in front */
        pc = buf + first - 1;
        if (first == 0) {
            memmove(buf + 1, buf, (size_t)n * sizeof *buf);
            pc = buf;
        }
        pc[0] = RUNTIME_MARK;
        n++;
    }
    uint64_t h = hash_frames(pc, n);
    return gt_intern_seq(table, TABLE_SIZE, sizeof *table, offsetof(struct entry, pc), h, pc, n, sizeof *pc, &made_log);
}

/* "function+0xoff (module+0xoff)", the module's offset from its load bias:
 * the object's own (link-time) address, which the report looks up in its
 * line information (collector/modules.h). */
static void symbolise(void *pc, char *out, size_t len)
{
    Dl_info info;
    struct link_map *lm = NULL;
    /* a return address points after the call: look up the call itself */
    void *at = (char *)pc - 1;
    if (dladdr1(at, &info, (void **)&lm, RTLD_DL_LINKMAP) && info.dli_fname && lm) {
        int main = lm->l_name == NULL || lm->l_name[0] == 0;
        const char *mod = gt_module_note(info.dli_fname, (uintptr_t)lm->l_addr, main);
        uintptr_t off = (uintptr_t)at - (uintptr_t)lm->l_addr;
        if (info.dli_sname)
            snprintf(out, len, "%s+0x%lx (%s+0x%lx)", info.dli_sname,
                     (unsigned long)((uintptr_t)at - (uintptr_t)info.dli_saddr), mod, (unsigned long)off);
        else
            snprintf(out, len, "%s+0x%lx", mod, (unsigned long)off);
    } else {
        snprintf(out, len, "0x%lx", (unsigned long)(uintptr_t)at);
    }
}

static void report(struct entry *e, uint32_t id, void (*fn)(uint32_t, const char *, void *), void *ctx)
{
    char text[GT_MAX_STACK_DEPTH * 300 + sizeof GT_CALLSITE_RUNTIME_MARK];
    size_t o = 0;
    int f0 = e->s.depth > 0 && e->pc[0] == RUNTIME_MARK;
    text[0] = 0;
    if (f0) { /* the report cuts what lies above the API, once it has names */
        memcpy(text, GT_CALLSITE_RUNTIME_MARK "\n", sizeof GT_CALLSITE_RUNTIME_MARK + 1);
        o = sizeof GT_CALLSITE_RUNTIME_MARK;
    }
    for (int f = f0; f < e->s.depth && o < sizeof text - 300; f++) {
        symbolise(e->pc[f], text + o, 300);
        o += strlen(text + o);
        text[o++] = '\n';
        text[o] = 0;
    }
    if (o > 0)
        text[o - 1] = 0;
    fn(id, text, ctx);
    e->s.reported = 1;
}

struct flush { void (*fn)(uint32_t, const char *, void *); void *ctx; };

static void flush_one(uint32_t i, void *arg)
{
    struct flush *f = arg;
    if (!table[i].s.reported)
        report(&table[i], i + 1, f->fn, f->ctx);
}

void gt_callsite_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx)
{
    struct flush f = { fn, ctx };
    gt_intern_each_new(&made_log, &seen, flush_one, &f);
}

void gt_callsite_reset_reported(void)
{
    gt_intern_reset(&made_log, table, TABLE_SIZE, sizeof *table, &seen);
}

void gt_callsite_warm_up(void)
{
    void *buf[2];
    backtrace(buf, 2);
    if (!atomic_load_explicit(&self_hi, memory_order_acquire))
        dl_iterate_phdr(find_self, (void *)(uintptr_t)gt_callsite_capture);
}
