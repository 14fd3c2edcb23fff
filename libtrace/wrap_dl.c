/* wrap_dl.c: dlsym, so that CUDA and NCCL functions reached through a
 * library handle are recorded too (ctypes.CDLL("libcudart.so.13"), vLLM's
 * pynccl, launchers that dlopen a library and dlsym from it), and so that
 * a look-up sees what it would see without the tracer.
 *
 * What the program gets back:
 *   - dlsym(RTLD_NEXT, name), and any look-up of a name we do not wrap:
 *     exactly the C library's answer.  glibc finds "next", and the scope of
 *     RTLD_DEFAULT, from its caller's return address, and records a binding
 *     as that caller's dependency, so the entry point jumps into the C
 *     library's dlsym with the program's return address still on the stack
 *     (a tail jump, written in assembly because C cannot promise one).
 *   - dlsym(handle, name) for a wrapped name: our wrapper when it will
 *     call exactly the definition the handle gives (that definition is the
 *     global scope's, or the one the wrappers use for callers that have
 *     none of their own); the handle's own definition, unrecorded, when a
 *     second copy of the library would make that uncertain.
 *   - dlsym(RTLD_DEFAULT, name): glibc answers from its caller's scope; we
 *     are the caller here, so the answer is the global scope's, and where
 *     that is nothing, the program's caller's own scope is searched as it
 *     would have been.  A wrapped name the program's scope does not define
 *     without us gets NULL, as it would untraced: a program that probes
 *     for CUDA must not find the tracer's wrappers instead.
 * dlvsym is not wrapped: its answers are the C library's, unrecorded.
 * Only on x86-64, for the tail jump; elsewhere the C library's dlsym is
 * used as it is and calls through handles are not recorded.
 */
#define _GNU_SOURCE
#include "libtrace/real.h"
#include "libtrace/lifecycle.h"

#include "collector/tbuf.h" /* GT_TLS */
#include "collector/visibility.h"

#include <dlfcn.h>
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <stdlib.h>

typedef void *(*dlsym_fn)(void *, const char *);
/* Reached from the assembly of dlsym below (by name), so never called
 * from C: declared here for the compiler's prototype check. */
GT_INTERNAL dlsym_fn gt_resolve_dlsym(void);
GT_INTERNAL void *gt_dlsym_c(void *handle, const char *name);
GT_INTERNAL int gt_dlsym_is_wrapped(const char *name);

/* The C library's function `name`, found once (next after us) into *slot. */
static void *next_fn(void **slot, const char *name)
{
    void *p = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (!p) {
        p = gt_sys_dlsym(RTLD_NEXT, name);
        __atomic_store_n(slot, p, __ATOMIC_RELEASE);
    }
    return p;
}

/* ---- dlerror: the program's pending message, whatever the tracer looked up -- */

typedef char *(*dlerror_fn)(void);
static void *next_dlerror_fn;
static GT_TLS char *kept_error;     /* the program's message, kept aside (malloc'd) */
static GT_TLS char *returned_error; /* what dlerror() last returned of ours, freed at the next call */
static GT_TLS int tracer_depth;     /* inside the tracer's own work: dlerror() is the C library's */

static dlerror_fn next_dlerror(void)
{
    return (dlerror_fn)next_fn(&next_dlerror_fn, "dlerror");
}

/* Found before the program runs: looking it up later (a dlsym, which
 * succeeds) would itself clear the program's pending message. */
GT_CONSTRUCTOR(dlerror_init)
{
    next_dlerror();
}

/* Neither touches errno (dlerror() may set it, formatting its message). */
void gt_dlerror_keep(void)
{
    int saved_errno = errno;
    tracer_depth++;
    dlerror_fn real = next_dlerror();
    char *pending = real ? real() : NULL;
    if (pending && !kept_error)
        kept_error = strdup(pending);
    errno = saved_errno;
}

void gt_dlerror_clear(void)
{
    int saved_errno = errno;
    dlerror_fn real = next_dlerror();
    if (real)
        (void)real();
    tracer_depth--;
    errno = saved_errno;
}

/* A newer failure of the program's own comes first; then the message kept
 * aside while the tracer looked things up.  Libraries the tracer calls get
 * the C library's answers. */
char *dlerror(void)
{
    dlerror_fn real = next_dlerror();
    char *e = real ? real() : NULL;
    if (tracer_depth) /* a library the tracer called (CUPTI's start): not the program's message */
        return e;
    free(returned_error);
    returned_error = NULL;
    if (e) {
        free(kept_error);
        kept_error = NULL;
        return e;
    }
    returned_error = kept_error;
    kept_error = NULL;
    return returned_error;
}

#if defined(__x86_64__) && defined(__linux__)

GT_INTERNAL dlsym_fn gt_next_dlsym; /* the C library's dlsym */
static int ready;                   /* our constructor has run */

static void *no_dlsym(void *handle, const char *name)
{
    (void)handle;
    (void)name;
    return NULL;
}

/* Runs before the sanitizers' runtime may have started (it looks its own
 * functions up with dlsym early), so it is not instrumented. */
GT_INTERNAL __attribute__((no_sanitize("address", "undefined"))) dlsym_fn gt_resolve_dlsym(void)
{
    /* x86-64 glibc: dlsym moved into libc at 2.34; 2.2.5 is the first */
    dlsym_fn p = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!p)
        p = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    if (!p)
        p = no_dlsym;
    __atomic_store_n(&gt_next_dlsym, p, __ATOMIC_RELEASE);
    return p;
}

static dlsym_fn next_dlsym(void)
{
    dlsym_fn p = __atomic_load_n(&gt_next_dlsym, __ATOMIC_ACQUIRE);
    return p ? p : gt_resolve_dlsym();
}

/* Never a tail call: the C library must see us as its caller, or
 * RTLD_NEXT and RTLD_DEFAULT would be taken relative to our caller. */
__attribute__((noinline)) void *gt_sys_dlsym(void *handle, const char *name)
{
    void *p = next_dlsym()(handle, name);
    __asm__ volatile("" : "+r"(p));
    return p;
}

typedef int (*dlclose_fn)(void *);
static void *next_dlclose_fn;

static dlclose_fn next_dlclose(void)
{
    return (dlclose_fn)next_fn(&next_dlclose_fn, "dlclose");
}

int gt_sys_dlclose(void *handle)
{
    dlclose_fn real = next_dlclose();
    return real ? real(handle) : -1;
}

/* dlclose: the program's result, errno and dlerror as the C library left
 * them; then the wrappers' cached answers are forgotten, since they may
 * point into what was unloaded (an object a wrapper found with
 * RTLD_NEXT is nobody's dependency, so it can go). */
int dlclose(void *handle)
{
    int rc = gt_sys_dlclose(handle);
    if (__atomic_load_n(&ready, __ATOMIC_ACQUIRE)) {
        int saved_errno = errno;
        gt_real_forget();
        errno = saved_errno;
    }
    return rc;
}

GT_CONSTRUCTOR(dl_init)
{
    next_dlsym();
    next_dlclose();
    __atomic_store_n(&ready, 1, __ATOMIC_RELEASE);
}

/* dlsym(handle, name) for a wrapped name: see the top of the file. */
static void *through_handle(enum gt_api api, void *found, const void *caller)
{
    void *global = gt_real_global(api);
    if (global == found)
        return gt_wrapper_of(api) ? gt_wrapper_of(api) : found;
    if (global)
        return found; /* a second copy beside the global one */
    void *own = gt_scope_lookup(caller, gt_api_name(api));
    if (own && own != found)
        return found; /* the caller has a copy of its own */
    void *w = gt_wrapper_of(api);
    return w && gt_real_claim_handle(api, found) ? w : found;
}

/* Entered by a jump from dlsym below, for a wrapped name once our
 * constructor has run (gt_dlsym_is_wrapped), so that its return address is
 * the program's. */
GT_INTERNAL void *gt_dlsym_c(void *handle, const char *name)
{
    const void *caller = __builtin_return_address(0);
    void *found = gt_sys_dlsym(handle, name);
    if (!found || gt_is_ours(caller))
        return found; /* nothing to hand out, or the tracer's own look-up */
    enum gt_api api = (enum gt_api)gt_api_by_name(name);
    /* Our wrapper: RTLD_DEFAULT, or a handle whose search reaches us (the
     * program's own, dlopen(NULL)).  Without us the search would have gone
     * on to the global scope's next definition, or (RTLD_DEFAULT) to the
     * caller's own scope: where there is one, our wrapper calls it; where
     * there is none, nothing, with the C library's error. */
    if (gt_is_ours(found)) {
        int reachable = gt_real_global(api) || (handle == RTLD_DEFAULT && gt_scope_lookup(caller, name));
        return reachable ? found : gt_sys_dlsym(RTLD_NEXT, name);
    }
    return handle == RTLD_DEFAULT ? found : through_handle(api, found, caller);
}

/* Whether dlsym's name is one of the wrapped APIs: only those take the C
 * path; every other look-up jumps into the C library's dlsym as it came,
 * so that glibc sees the program as its caller (RTLD_DEFAULT searches the
 * caller's scope, and a binding is recorded as the caller's dependency). */
GT_INTERNAL __attribute__((no_sanitize("address", "undefined"))) int gt_dlsym_is_wrapped(const char *name)
{
    return name && __atomic_load_n(&ready, __ATOMIC_ACQUIRE) && gt_api_by_name(name) >= 0;
}

__asm__(".text\n"
        ".globl dlsym\n"
        ".type dlsym, @function\n"
        ".p2align 4\n"
        "dlsym:\n"
        ".cfi_startproc\n"
        "    cmpq $-1, %rdi\n" /* RTLD_NEXT */
        "    je 1f\n"
        "    pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    movq %rsi, %rdi\n"
        "    call gt_dlsym_is_wrapped\n"
        "    addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    testl %eax, %eax\n"
        "    jz 1f\n"
        "    jmp gt_dlsym_c\n"
        "1:  movq gt_next_dlsym(%rip), %rax\n"
        "    testq %rax, %rax\n"
        "    jz 2f\n"
        "    jmp *%rax\n"
        "2:  pushq %rdi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    pushq %rsi\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    subq $8, %rsp\n"
        ".cfi_adjust_cfa_offset 8\n"
        "    call gt_resolve_dlsym\n"
        "    addq $8, %rsp\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    popq %rsi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    popq %rdi\n"
        ".cfi_adjust_cfa_offset -8\n"
        "    jmp *%rax\n"
        ".cfi_endproc\n"
        ".size dlsym, .-dlsym\n");

#else

void *gt_sys_dlsym(void *handle, const char *name)
{
    return dlsym(handle, name);
}

int gt_sys_dlclose(void *handle)
{
    return dlclose(handle);
}

#endif
