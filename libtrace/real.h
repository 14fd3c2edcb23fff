/* real.h: the real functions behind the wrappers: for each call, the
 * definition the calling object would have bound to without the tracer.
 *
 * The dynamic linker binds an object's reference to the first definition
 * in its lookup scope: the global scope (the program, the preloaded
 * tracer, their dependencies, libraries opened RTLD_GLOBAL), then, for a
 * library opened by dlopen, the local scope of the group it was opened
 * with.  Our wrapper took the place of the first definition in the global
 * scope, so the real one is the next definition in the global scope
 * (dlsym(RTLD_NEXT)) or, where the global scope has none (libcudart
 * linked by a plugin opened RTLD_LOCAL, as Python extension modules are),
 * the one in the caller's own scope, found from the call's return address.
 * A function pointer that our dlsym handed out for a library handle
 * (ctypes, pynccl, launchers) resolves to that handle's definition.
 * Where nothing defines the symbol the program fails as the dynamic
 * linker's lazy binding would have made it fail (real.c).
 *
 * The fast path is one relaxed load: the global answer, kept for every
 * caller as long as no caller of that API has been bound to a local
 * definition.  Otherwise each call looks its caller up in a lock-free
 * table filled on first use.
 */
#ifndef GPUTRACE_REAL_H
#define GPUTRACE_REAL_H

#include "collector/visibility.h"

#include "format/api_ids.h"

void *gt_real_slow(enum gt_api api, const void *caller);
extern GT_INTERNAL void *gt_real_table[GT_API_COUNT];

static inline __attribute__((always_inline)) void *gt_real_for(enum gt_api api, const void *caller)
{
    void *p = __atomic_load_n(&gt_real_table[api], __ATOMIC_RELAXED);
    return __builtin_expect(p != 0, 1) ? p : gt_real_slow(api, caller);
}

/* Used in the exported wrappers and the always_inline helpers they are
 * made of, so that the return address is the program's call site. */
#define gt_real(api) gt_real_for((api), __builtin_return_address(0))

/* REAL(cudaFoo) has the type of cudaFoo. */
#define REAL(name) ((__typeof__(&name))gt_real(GT_API_##name))

/* For the dlsym wrapper (wrap_dl.c). */
GT_INTERNAL int gt_api_by_name(const char *name);                   /* -1 when not wrapped */
GT_INTERNAL const char *gt_api_name(enum gt_api api);
GT_INTERNAL void *gt_real_global(enum gt_api api);                  /* the global scope's, after ours */
GT_INTERNAL void *gt_scope_lookup(const void *caller, const char *name);
/* A function the tracer wraps outside the API list (wrap_cupti.c): the
 * global scope's next definition after ours, else the caller's scope's,
 * else any loaded object's, as gt_real_slow looks; NULL if none. */
GT_INTERNAL void *gt_next_definition(const char *name, const void *caller);
GT_INTERNAL int gt_real_claim_handle(enum gt_api api, void *p);     /* 1: calls without another definition go to p */
GT_INTERNAL void *gt_wrapper_of(enum gt_api api);                   /* our own exported wrapper */
GT_INTERNAL int gt_is_ours(const void *p);                          /* p lies in libgputrace */
/* 0 for a copy of the library loaded into another link-map namespace
 * (dlmopen; NVTX or the driver loading it for a library that lives
 * there): that copy stays dormant, and the program's own copy traces. */
GT_INTERNAL int gt_in_base_namespace(void);
/* Whether the program's global scope resolves name to ours: this copy was
 * preloaded (or opened RTLD_GLOBAL), not opened locally by a library (NVTX
 * opening NVTX_INJECTION64_PATH in a process that dropped LD_PRELOAD). */
GT_INTERNAL int gt_in_global_scope(const char *name, const void *ours);
/* The C library's dlsym, not ours: for the tracer's own look-ups, whose
 * RTLD_NEXT and RTLD_DEFAULT must be relative to libgputrace. */
GT_INTERNAL void *gt_sys_dlsym(void *handle, const char *name);
GT_INTERNAL int gt_sys_dlclose(void *handle);
/* The C library's own close, looked up in the C library itself, for the
 * tracer's own descriptors (collector/fdguard.h): no definition of close in
 * the global scope sees those closes, neither our wrapper nor one before
 * it (the program's) or after it (a descriptor tracker preloaded after us,
 * as `gputrace record` puts the user's LD_PRELOAD).  NULL where the
 * look-up fails.  A look-up (dlopen, dlsym): call it once, never from a
 * signal handler. */
typedef int gt_close_fn(int);
GT_INTERNAL gt_close_fn *gt_sys_close_lookup(void);
/* Whether an object other than ours, not the program itself, defines api
 * (a dynamically loaded runtime, in whatever scope). */
GT_INTERNAL int gt_defined_elsewhere(enum gt_api api);
/* Around the tracer's own dl calls on a program thread (wrap_dl.c): keep
 * the program's pending dlerror() message aside, then clear what the
 * tracer's calls left, so that the program's dlerror() still answers with
 * its own. */
GT_INTERNAL void gt_dlerror_keep(void);
GT_INTERNAL void gt_dlerror_clear(void);
/* After a dlclose of the program's: every cached answer forgotten. */
GT_INTERNAL void gt_real_forget(void);

#endif
