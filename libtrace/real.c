/* real.c: resolving the real functions behind the wrappers (see real.h).
 *
 * The order of the search is the dynamic linker's for the calling object:
 *   1. the global scope after libgputrace (dlsym(RTLD_NEXT) from here);
 *   2. the caller's own scope: the object holding the return address,
 *      opened again with RTLD_NOLOAD in its namespace, whose dlsym searches
 *      it and its dependencies (a plugin opened RTLD_LOCAL that links
 *      libcudart);
 *   3. the definition that our dlsym handed out a wrapper for, through a
 *      library handle (ctypes.CDLL, pynccl, a launcher's dlopen + dlsym):
 *      the caller is then libffi or the program, whose scope lacks it;
 *   4. any other loaded object that defines it (a library reached through
 *      the local scope of the group it was opened with rather than through
 *      its own dependencies).
 * Found nowhere, the program ends as the dynamic linker's lazy binding
 * would have ended it: "symbol lookup error", exit status 127.
 *
 * Caching.  The global answer goes into gt_real_table[api], read on every
 * call, as long as no caller of that API was bound to a local definition:
 * then every calling object must keep what it got first (as the binding of
 * its PLT slot would), so the API's answers go per calling object, and per
 * call site as the index onto it, into `sites`, an insert-only
 * open-addressing table read without a lock.  A dlclose forgets them all
 * (gt_real_forget): the answers may point into what it unloaded.  Inserts take
 * a lock, only with trylock: a thread that finds it busy (another thread
 * resolving, or a signal handler interrupting us) resolves without caching
 * rather than wait.
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "format/api_table.h"

#include <dlfcn.h>
#include <errno.h>
#include <gnu/lib-names.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *gt_real_table[GT_API_COUNT];

const char *gt_api_name(enum gt_api api)
{
    return gt_api_table_name((int)api);
}

/* ---- names to APIs ------------------------------------------------------- */

static unsigned short by_name[GT_API_COUNT];
static pthread_once_t by_name_once = PTHREAD_ONCE_INIT;

static int cmp_names(const void *a, const void *b)
{
    return strcmp(gt_api_name(*(const unsigned short *)a), gt_api_name(*(const unsigned short *)b));
}

static void sort_names(void)
{
    for (unsigned i = 0; i < GT_API_COUNT; i++)
        by_name[i] = (unsigned short)i;
    qsort(by_name, GT_API_COUNT, sizeof by_name[0], cmp_names);
}

int gt_api_by_name(const char *name)
{
    pthread_once(&by_name_once, sort_names);
    size_t lo = 0, hi = GT_API_COUNT;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(name, gt_api_name(by_name[mid]));
        if (c == 0)
            return by_name[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return -1;
}

/* ---- objects ------------------------------------------------------------- */

static struct link_map *object_of(const void *p)
{
    Dl_info info;
    struct link_map *lm = NULL;
    if (!p || !dladdr1(p, &info, (void **)&lm, RTLD_DL_LINKMAP))
        return NULL;
    return lm;
}

static struct link_map *self(void)
{
    static struct link_map *me;
    struct link_map *lm = __atomic_load_n(&me, __ATOMIC_RELAXED);
    if (!lm) {
        lm = object_of((const void *)gt_real_slow);
        __atomic_store_n(&me, lm, __ATOMIC_RELAXED);
    }
    return lm;
}

int gt_in_base_namespace(void)
{
    static int answer = -1; /* -1: not asked yet */
    int a = __atomic_load_n(&answer, __ATOMIC_RELAXED);
    if (a < 0) {
        Lmid_t ns = LM_ID_BASE;
        struct link_map *me = self();
        a = !me || dlinfo(me, RTLD_DI_LMID, &ns) != 0 || ns == LM_ID_BASE;
        __atomic_store_n(&answer, a, __ATOMIC_RELAXED);
    }
    return a;
}

int gt_in_global_scope(const char *name, const void *ours)
{
    void *program = dlopen(NULL, RTLD_LAZY);
    void *p = program ? gt_sys_dlsym(program, name) : NULL;
    if (program)
        gt_sys_dlclose(program);
    return p == ours;
}

int gt_is_ours(const void *p)
{
    struct link_map *lm = object_of(p);
    return lm && lm == self();
}

/* What `name` resolves to in the scope of object lm: lm and its
 * dependencies, breadth first, in lm's own namespace.  Opening it again
 * with RTLD_NOLOAD only counts a reference (and builds its search list if
 * it was loaded as a dependency), which dlclose gives back.  A handle is
 * the object's link_map in glibc, which dlinfo reads its namespace from. */
static void *lookup_in(struct link_map *lm, const char *name)
{
    Lmid_t ns = LM_ID_BASE;
    if (dlinfo(lm, RTLD_DI_LMID, &ns) != 0)
        ns = LM_ID_BASE;
    void *h = dlmopen(ns, lm->l_name[0] ? lm->l_name : NULL, RTLD_LAZY | RTLD_NOLOAD);
    if (!h)
        return NULL;
    void *p = gt_sys_dlsym(h, name);
    gt_sys_dlclose(h);
    return p && !gt_is_ours(p) ? p : NULL;
}

void *gt_scope_lookup(const void *caller, const char *name)
{
    struct link_map *lm = object_of(caller);
    if (!lm || lm == self())
        return NULL;
    return lookup_in(lm, name);
}

static void *any_loaded(const char *name)
{
    struct link_map *lm = self();
    if (!lm)
        return NULL;
    while (lm->l_prev)
        lm = lm->l_prev;
    for (; lm; lm = lm->l_next) {
        if (lm == self() || !lm->l_name[0])
            continue;
        void *p = lookup_in(lm, name);
        if (p)
            return p;
    }
    return NULL;
}

void *gt_next_definition(const char *name, const void *caller)
{
    void *p = gt_sys_dlsym(RTLD_NEXT, name);
    if (p && !gt_is_ours(p))
        return p;
    p = gt_scope_lookup(caller, name);
    return p ? p : any_loaded(name);
}

void *gt_real_global(enum gt_api api)
{
    void *p = gt_sys_dlsym(RTLD_NEXT, gt_api_name(api));
    return p && !gt_is_ours(p) ? p : NULL;
}

/* ---- definitions handed out through library handles ------------------------ */

static void *handle_real[GT_API_COUNT];

int gt_real_claim_handle(enum gt_api api, void *p)
{
    void *none = NULL;
    return __atomic_compare_exchange_n(&handle_real[api], &none, p, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) || none == p;
}

void *gt_wrapper_of(enum gt_api api)
{
    static void *wrappers[GT_API_COUNT];
    void *w = __atomic_load_n(&wrappers[api], __ATOMIC_RELAXED);
    if (w)
        return w;
    struct link_map *me = self();
    void *h = me ? dlopen(me->l_name, RTLD_LAZY | RTLD_NOLOAD) : NULL;
    if (h) {
        /* our own handle's search list starts with us */
        w = gt_sys_dlsym(h, gt_api_name(api));
        gt_sys_dlclose(h);
    }
    if (w)
        __atomic_store_n(&wrappers[api], w, __ATOMIC_RELAXED);
    return w;
}

/* ---- per call site answers -------------------------------------------------- */

#define SITE_SLOTS 4096u /* a power of two */

struct site {
    uintptr_t key; /* 0: free; written last, with release */
    void *fn;
};
static struct site sites[SITE_SLOTS];
static unsigned char local_seen[GT_API_COUNT]; /* written under `lock` */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* User-space addresses fit in 48 bits on x86-64 and AArch64.  A call
 * site's key is its return address; an object's (the answer that binds all
 * its call sites, as its PLT slot would) is its link_map, with the top bit. */
static uintptr_t site_key(enum gt_api api, const void *caller)
{
    return (uintptr_t)caller | ((uintptr_t)api + 1) << 48;
}

static uintptr_t object_key(enum gt_api api, const struct link_map *lm)
{
    return (uintptr_t)lm | ((uintptr_t)api + 1) << 48 | (uintptr_t)1 << 63;
}

static unsigned site_hash(uintptr_t key)
{
    uint64_t h = (uint64_t)key * 0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 40) & (SITE_SLOTS - 1);
}

static void *site_get(uintptr_t key)
{
    for (unsigned i = site_hash(key), n = 0; n < SITE_SLOTS; n++, i = (i + 1) & (SITE_SLOTS - 1)) {
        uintptr_t k = __atomic_load_n(&sites[i].key, __ATOMIC_ACQUIRE);
        if (k == key)
            return sites[i].fn;
        if (!k)
            return NULL;
    }
    return NULL;
}

/* Under `lock`.  A full table only means that later call sites are
 * resolved on every call. */
static void site_put(uintptr_t key, void *fn)
{
    for (unsigned i = site_hash(key), n = 0; n < SITE_SLOTS; n++, i = (i + 1) & (SITE_SLOTS - 1)) {
        uintptr_t k = sites[i].key;
        if (k == key)
            return;
        if (!k) {
            sites[i].fn = fn;
            __atomic_store_n(&sites[i].key, key, __ATOMIC_RELEASE);
            return;
        }
    }
}

/* ---- resolution --------------------------------------------------------------- */

/* The answer for api at caller, cached; NULL where none (gt_real_slow). */
static void *gt_real_find(enum gt_api api, const void *caller)
{
    int saved_errno = errno;
    uintptr_t key = site_key(api, caller);
    void *p = site_get(key);
    if (p)
        return p;
    /* the calling object's answer, if one of its call sites was resolved:
     * the dynamic linker binds an object's reference once, for all of them */
    struct link_map *lm = object_of(caller);
    uintptr_t okey = lm ? object_key(api, lm) : 0;
    p = okey ? site_get(okey) : NULL;
    if (!p) {
        void *global = gt_real_global(api);
        if (global) {
            if (pthread_mutex_trylock(&lock) == 0) {
                if (!local_seen[api]) {
                    __atomic_store_n(&gt_real_table[api], global, __ATOMIC_RELAXED);
                } else {
                    site_put(key, global);
                    if (okey)
                        site_put(okey, global);
                }
                pthread_mutex_unlock(&lock);
            }
            errno = saved_errno;
            return global;
        }
        p = lm && lm != self() ? lookup_in(lm, gt_api_name(api)) : NULL;
        if (!p)
            p = __atomic_load_n(&handle_real[api], __ATOMIC_ACQUIRE);
        if (!p)
            p = any_loaded(gt_api_name(api));
    }
    if (p && pthread_mutex_trylock(&lock) == 0) {
        local_seen[api] = 1;
        site_put(key, p);
        if (okey)
            site_put(okey, p);
        pthread_mutex_unlock(&lock);
    }
    errno = saved_errno;
    return p;
}

int gt_defined_elsewhere(enum gt_api api)
{
    return gt_real_global(api) || any_loaded(gt_api_name(api));
}

void gt_real_forget(void)
{
    pthread_mutex_lock(&lock);
    for (unsigned a = 0; a < GT_API_COUNT; a++) {
        __atomic_store_n(&gt_real_table[a], NULL, __ATOMIC_RELAXED);
        __atomic_store_n(&handle_real[a], NULL, __ATOMIC_RELEASE);
    }
    /* a reader probing meanwhile misses, and resolves again */
    for (unsigned i = 0; i < SITE_SLOTS; i++)
        __atomic_store_n(&sites[i].key, 0, __ATOMIC_RELEASE);
    pthread_mutex_unlock(&lock);
}

/* The dynamic linker's own words for a reference nothing defines, and its
 * exit status; the tracer's exit wrapper still records how it ended. */
static __attribute__((noreturn)) void no_definition(const void *caller, const char *name)
{
    Dl_info info;
    const char *object = dladdr(caller, &info) && info.dli_fname && info.dli_fname[0] ? info.dli_fname
                                                                                    : program_invocation_name;
    dprintf(2, "%s: symbol lookup error: %s: undefined symbol: %s\n", program_invocation_name, object, name);
    _exit(127);
}

void *gt_real_slow(enum gt_api api, const void *caller)
{
    gt_dlerror_keep();
    void *p = gt_real_find(api, caller);
    gt_dlerror_clear();
    /* the tracer's own calls get NULL, and the API's "not available" error */
    if (!p && !gt_is_ours(caller))
        no_definition(caller, gt_api_name(api));
    return p;
}

gt_close_fn *gt_sys_close_lookup(void)
{
    /* a handle's look-up searches that object first: the C library's own
     * definition, whatever the global scope puts before or after ours */
    void *libc = dlopen(LIBC_SO, RTLD_LAZY | RTLD_NOLOAD);
    gt_close_fn *fn = libc ? (gt_close_fn *)gt_sys_dlsym(libc, "close") : NULL;
    if (libc)
        gt_sys_dlclose(libc);
    return fn;
}
