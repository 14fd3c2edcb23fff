/* nccl_comm.c: registering the communicators the NCCL wrappers see made,
 * and their records (see nccl_comm.h).  Everything here is the slow path:
 * once per communicator. */
#define _GNU_SOURCE
#include "libtrace/nccl_comm.h"
#include "libtrace/real.h"

#include <dlfcn.h>
#include <errno.h>

/* NCCL's function `name` from the library that defines lib_fn: the one
 * whose communicator it is, whatever scope it was opened in. */
static void *nccl_fn(const void *lib_fn, const char *name)
{
    int saved_errno = errno;
    gt_dlerror_keep();
    void *p = lib_fn ? gt_scope_lookup(lib_fn, name) : NULL;
    if (!p)
        p = gt_sys_dlsym(RTLD_DEFAULT, name);
    if (p && gt_is_ours(p))
        p = NULL;
    gt_dlerror_clear();
    errno = saved_errno;
    return p;
}

void gt_nccl_comm_shape(ncclComm_t comm, const void *lib_fn, int *rank, int *nranks)
{
    ncclResult_t (*user_rank)(const ncclComm_t, int *) = (ncclResult_t (*)(const ncclComm_t, int *))nccl_fn(lib_fn, "ncclCommUserRank");
    ncclResult_t (*count)(const ncclComm_t, int *) = (ncclResult_t (*)(const ncclComm_t, int *))nccl_fn(lib_fn, "ncclCommCount");
    int saved_errno = errno;
    if (user_rank && user_rank(comm, rank) != ncclSuccess)
        *rank = -1;
    if (count && count(comm, nranks) != ncclSuccess)
        *nranks = 0;
    errno = saved_errno;
}

struct gt_comm *gt_nccl_comm_made(ncclComm_t comm, uint64_t id, int rank, int nranks, uint64_t parent,
                                  uint64_t t_made)
{
    if (!comm)
        return NULL;
    struct gt_comm *g = gt_comm_add(comm, id, rank, nranks);
    if (!g)
        return NULL;
    g->parent = parent;
    g->t_made = t_made;
    return g;
}

void gt_nccl_comm_record(const struct gt_comm *g, ncclComm_t comm)
{
    if (!gt_tracing())
        return;
    struct gt_tbuf *b = gt_tbuf_mine();
    if (!b)
        return;
    struct gt_record r;
    gt_record_clear(&r);
    r.type = GT_REC_COMM;
    r.t_start = g->t_made;
    r.comm.handle = (uintptr_t)comm;
    r.comm.parent = g->parent;
    r.comm.comm_id = g->id;
    r.comm.rank = g->rank;
    r.comm.nranks = g->nranks;
    /* a signal handler's wrapped call meanwhile must not take the slot */
    int guard = gt_thread.guard;
    gt_thread.guard = 1;
    gt_tbuf_push(b, &r);
    gt_thread.guard = guard;
}

void gt_nccl_comm_call_end(struct gt_call *c, ncclResult_t rc, ncclComm_t *comms, int n)
{
    gt_exit(c, rc);
    if (rc != ncclSuccess && rc != ncclInProgress)
        return;
    for (int i = 0; comms && i < n; i++) {
        struct gt_comm *g = comms[i] ? gt_comm_find(comms[i]) : NULL;
        if (g)
            gt_nccl_comm_record(g, comms[i]);
    }
}

/* ---- non-blocking splits and shrinks ------------------------------------- */

#define PENDING 64 /* more at once are not registered (their collectives: communicator 0) */

enum { FREE, FILLING, WAITING, SETTLING };

struct pending {
    _Atomic int state;
    ncclComm_t *newcomm; /* the program's: NCCL writes it from its own thread */
    ncclComm_t parent;
    uint64_t id, parent_id, t_made;
    const void *lib_fn;
};

static struct pending pending[PENDING];
_Atomic int gt_nccl_npending;

void gt_nccl_pending_add(ncclComm_t *newcomm, ncclComm_t parent, uint64_t id, uint64_t parent_id, uint64_t t_made,
                         const void *lib_fn)
{
    for (int i = 0; i < PENDING; i++) {
        struct pending *p = &pending[i];
        int expect = FREE;
        if (!atomic_compare_exchange_strong(&p->state, &expect, FILLING))
            continue;
        p->newcomm = newcomm;
        p->parent = parent;
        p->id = id;
        p->parent_id = parent_id;
        p->t_made = t_made;
        p->lib_fn = lib_fn;
        atomic_fetch_add(&gt_nccl_npending, 1);
        atomic_store_explicit(&p->state, WAITING, memory_order_release);
        return;
    }
}

struct gt_comm *gt_nccl_pending_settle(ncclComm_t comm, int parent_done, int record)
{
    struct gt_comm *mine = NULL;
    int saved_errno = errno;
    for (int i = 0; i < PENDING && atomic_load_explicit(&gt_nccl_npending, memory_order_relaxed) > 0; i++) {
        struct pending *p = &pending[i];
        if (atomic_load_explicit(&p->state, memory_order_acquire) != WAITING)
            continue;
        /* NCCL keeps the program's pointer until it stores the communicator
         * there: valid while the call is pending */
        ncclComm_t child = __atomic_load_n(p->newcomm, __ATOMIC_ACQUIRE);
        if (!(parent_done && p->parent == comm) && !(child && child == comm))
            continue;
        int expect = WAITING;
        if (!atomic_compare_exchange_strong(&p->state, &expect, SETTLING))
            continue;
        if (!child) { /* done, and no communicator made (NCCL_SPLIT_NOCOLOR, a failure) */
            atomic_fetch_sub(&gt_nccl_npending, 1);
            atomic_store_explicit(&p->state, FREE, memory_order_release);
            continue;
        }
        int rank = -1, nranks = 0;
        gt_nccl_comm_shape(child, p->lib_fn, &rank, &nranks);
        if (rank < 0) { /* not ready after all: NCCL refuses to answer */
            atomic_store_explicit(&p->state, WAITING, memory_order_release);
            continue;
        }
        struct gt_comm *g = gt_nccl_comm_made(child, p->id, rank, nranks, p->parent_id, p->t_made);
        atomic_fetch_sub(&gt_nccl_npending, 1);
        atomic_store_explicit(&p->state, FREE, memory_order_release);
        if (g && record)
            gt_nccl_comm_record(g, child);
        else if (g)
            mine = g; /* an operation's: only `comm` matches (parent_done is 0) */
    }
    errno = saved_errno;
    return mine;
}

void gt_nccl_pending_forget(ncclComm_t comm)
{
    for (int i = 0; i < PENDING && atomic_load_explicit(&gt_nccl_npending, memory_order_relaxed) > 0; i++) {
        struct pending *p = &pending[i];
        if (atomic_load_explicit(&p->state, memory_order_acquire) != WAITING)
            continue;
        if (p->parent != comm && __atomic_load_n(p->newcomm, __ATOMIC_ACQUIRE) != comm)
            continue;
        int expect = WAITING;
        if (atomic_compare_exchange_strong(&p->state, &expect, SETTLING)) {
            atomic_fetch_sub(&gt_nccl_npending, 1);
            atomic_store_explicit(&p->state, FREE, memory_order_release);
        }
    }
}
