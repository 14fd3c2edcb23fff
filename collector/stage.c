/* stage.c: the drain thread and the staging queue (see stage.h). */
#define _GNU_SOURCE
#include "collector/stage.h"
#include "collector/membudget.h"

#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* A chunk is 64 KiB: a header line and 1023 records.  A record of type
 * STAGE_TID says whose ring the records after it came from (its call_seq),
 * so that one chunk holds several threads' records and a thousand threads
 * with a call each take a chunk, not a thousand. */
#define CHUNK_RECS 1023
#define STAGE_TID 0x7f
/* An idle process's drain tick: a burst that starts meanwhile is drained
 * as soon as its ring moves past GT_TBUF_KICK_RECORDS (kick), so this
 * bounds no drop; each tick is a wake-up of a thread that finds nothing
 * (at 16 ms, a third of an idle process's tracer CPU). */
#define IDLE_MS 64
#define BUSY_RECS 512 /* a tick's pull that keeps the tick short: 256 K records a second at 2 ms */
/* Chunks kept mapped for reuse once stored; past these a stored one is
 * unmapped.  As many as the queue's reserve holds (membudget.h: 4 MiB,
 * which the rings cannot take anyway): a program calling in bursts step
 * after step would map and unmap its backlog's chunks again every step
 * (docs/tracer-guarantees.md has what that cost). */
#define POOL_KEEP (GT_MEM_QUEUE_RESERVE / sizeof(struct chunk))

struct chunk {
    struct chunk *next;
    uint32_t n;
    uint64_t qseq; /* its place in the queue, among chunks and segments */
    _Alignas(64) struct gt_record recs[CHUNK_RECS];
};
_Static_assert(sizeof(struct chunk) == 65536, "a chunk is 64 KiB");

/* drain_mu: whoever drains the rings (one consumer, tbuf.h) and the chunk
 * being filled.  q_mu: the queue and the pool, held only to link and
 * unlink.  Order: drain_mu, then q_mu. */
static pthread_mutex_t drain_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t q_mu = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *cur; /* being filled (drain_mu) */
static uint32_t cur_tid;
static struct chunk *q_head, *q_tail, *pool; /* q_mu */
/* Segments a ring's producer left behind, handed over whole (q_mu): in a
 * burst most records are in them, and copying them into chunks took fresh
 * memory a second time (the chunks' pages faulted in on the drain thread,
 * the segment unmapped after).  Chunks and segments are stored in the order
 * they were queued (qseq): a thread's records in its ring's order. */
static struct gt_tbuf_seg *s_head, *s_tail;
static uint64_t q_seq;
static int pool_n;
static _Atomic size_t mapped;        /* chunks mapped, the pool's included */
static _Atomic uint64_t staged, peak; /* records queued (or being filled) and not stored */
static _Atomic int stop_req, running;

static void unmap_chunk(struct chunk *c)
{
    munmap(c, sizeof *c);
    atomic_fetch_sub(&mapped, 1);
    gt_mem_give(sizeof *c);
}

/* A chunk from the pool, or a new one within the budget the queue shares
 * with the rings (membudget.h); NULL past it. */
static struct chunk *get_chunk(void)
{
    pthread_mutex_lock(&q_mu);
    struct chunk *c = pool;
    if (c) {
        pool = c->next;
        pool_n--;
    }
    pthread_mutex_unlock(&q_mu);
    if (!c) {
        if (gt_mem_take(sizeof *c, GT_MEM_QUEUE) != 0)
            return NULL;
        atomic_fetch_add(&mapped, 1);
        int saved = errno;
        /* populated: it is filled at once, and the faults are taken here */
        c = mmap(NULL, sizeof *c, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
        errno = saved;
        if (c == MAP_FAILED) {
            atomic_fetch_sub(&mapped, 1);
            gt_mem_give(sizeof *c);
            return NULL;
        }
    }
    c->next = NULL;
    c->n = 0;
    return c;
}

/* The chunk being filled goes to the writer (drain_mu held). */
static void publish(void)
{
    if (!cur || cur->n == 0)
        return;
    pthread_mutex_lock(&q_mu);
    cur->qseq = q_seq++;
    if (q_tail)
        q_tail->next = cur;
    else
        q_head = cur;
    q_tail = cur;
    pthread_mutex_unlock(&q_mu);
    cur = NULL;
}

static void count_staged(uint64_t n)
{
    uint64_t s = atomic_fetch_add_explicit(&staged, n, memory_order_relaxed) + n;
    if (s > atomic_load_explicit(&peak, memory_order_relaxed))
        atomic_store_explicit(&peak, s, memory_order_relaxed);
}

/* gt_tbuf_drain_some's other callback: a segment left behind with a
 * chunk's worth of records at least, queued whole after what the chunk
 * being filled holds (drain_mu held); fewer are copied, as the drain
 * thread's small pulls share a chunk. */
static int give(struct gt_tbuf_seg *s, uint64_t from, uint64_t to, uint32_t tid, void *ctx)
{
    (void)ctx;
    if (to - from < CHUNK_RECS)
        return 1;
    gt_tbuf_seg_queued(s); /* before the writer can have it */
    publish(); /* the thread's records taken before these go first */
    s->qfrom = from;
    s->qto = to;
    s->qtid = tid;
    s->qnext = NULL;
    pthread_mutex_lock(&q_mu);
    s->qseq = q_seq++;
    if (s_tail)
        s_tail->qnext = s;
    else
        s_head = s;
    s_tail = s;
    pthread_mutex_unlock(&q_mu);
    count_staged(to - from);
    return 0;
}

/* gt_tbuf_drain_some's callback: a copy of the record (and its NCCL one)
 * into the chunk being filled; non-zero when the queue is full. */
static int take(const struct gt_record *r, const struct gt_record *nccl, uint32_t tid, void *ctx)
{
    (void)ctx;
    unsigned need = (nccl ? 2 : 1) + 1; /* room for a STAGE_TID record too */
    if (!cur || cur->n + need > CHUNK_RECS) {
        publish();
        if (!cur && !(cur = get_chunk()))
            return -1;
    }
    if (cur->n == 0 || tid != cur_tid) {
        struct gt_record *m = &cur->recs[cur->n++];
        m->type = STAGE_TID;
        m->call_seq = tid;
        cur_tid = tid;
    }
    cur->recs[cur->n++] = *r;
    if (nccl)
        cur->recs[cur->n++] = *nccl;
    count_staged(nccl ? 2 : 1);
    return 0;
}

size_t gt_stage_pull(int *cut, int partial)
{
    pthread_mutex_lock(&drain_mu);
    size_t n = gt_tbuf_drain_some(take, give, NULL, cut);
    if (partial)
        publish();
    pthread_mutex_unlock(&drain_mu);
    return n;
}

/* A segment's records to fn, then its memory let go. */
static size_t store_seg(struct gt_tbuf_seg *s, gt_tbuf_fn *fn, void *ctx)
{
    size_t n = 0;
    for (uint64_t t = s->qfrom; t < s->qto; t++) {
        const struct gt_record *r = &s->recs[t & s->mask], *nccl = NULL;
        /* committed together, in one segment (gt_tbuf_drain_some) */
        if (r->type == GT_REC_CALL && (r->flags & GT_RF_NCCL) && t + 1 < s->qto &&
            s->recs[(t + 1) & s->mask].type == GT_REC_NCCL)
            nccl = &s->recs[++t & s->mask];
        fn(r, nccl, s->qtid, ctx);
        n += nccl ? 2 : 1;
    }
    atomic_fetch_sub_explicit(&staged, n, memory_order_relaxed);
    gt_tbuf_seg_free(s);
    return n;
}

size_t gt_stage_store_one(gt_tbuf_fn *fn, void *ctx)
{
    pthread_mutex_lock(&q_mu);
    struct chunk *c = q_head;
    struct gt_tbuf_seg *g = s_head;
    if (g && (!c || g->qseq < c->qseq)) { /* the older of the two queues' heads */
        s_head = g->qnext;
        if (!s_head)
            s_tail = NULL;
        c = NULL;
    } else if (c) {
        g = NULL;
        q_head = c->next;
        if (!q_head)
            q_tail = NULL;
    }
    pthread_mutex_unlock(&q_mu);
    if (g)
        return store_seg(g, fn, ctx);
    if (!c)
        return 0;
    size_t n = 0;
    uint32_t tid = 0;
    for (uint32_t i = 0; i < c->n; i++) {
        const struct gt_record *r = &c->recs[i], *nccl = NULL;
        if (r->type == STAGE_TID) {
            tid = r->call_seq;
            continue;
        }
        /* taken together (gt_tbuf_drain_some), so kept together in one chunk */
        if (r->type == GT_REC_CALL && (r->flags & GT_RF_NCCL) && i + 1 < c->n && c->recs[i + 1].type == GT_REC_NCCL)
            nccl = &c->recs[++i];
        fn(r, nccl, tid, ctx);
        n += nccl ? 2 : 1;
    }
    atomic_fetch_sub_explicit(&staged, n, memory_order_relaxed);
    pthread_mutex_lock(&q_mu);
    int keep = pool_n < (int)POOL_KEEP;
    if (keep) {
        c->next = pool;
        pool = c;
        pool_n++;
    }
    pthread_mutex_unlock(&q_mu);
    if (!keep)
        unmap_chunk(c);
    return n;
}

uint64_t gt_stage_backlog(void)
{
    return atomic_load_explicit(&staged, memory_order_relaxed);
}

uint64_t gt_stage_peak(void)
{
    return atomic_load_explicit(&peak, memory_order_relaxed);
}

/* A ring moved past GT_TBUF_KICK_RECORDS (tbuf.h): the drain thread wakes
 * from its tick now (a wake-up with no waiter, the thread pulling, is
 * lost harmlessly: it pulls anyway). */
static void kick(void)
{
    syscall(SYS_futex, &stop_req, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

static void *drain_main(void *arg)
{
    (void)arg;
    prctl(PR_SET_NAME, "gputrace-drain", 0, 0, 0); /* as the writer names itself (writer.c) */
    /* every GT_STAGE_TICK_MS while records come; an idle process's drain
     * thread backs off to IDLE_MS, so that it costs next to nothing (a ring
     * grows meanwhile if a burst starts, and wakes it: kick) */
    long ms = GT_STAGE_TICK_MS;
    while (!atomic_load(&stop_req)) {
        int cut;
        /* back to the short tick when a tick brings many records; a few
         * (or none) let it lengthen: the ring grows for a burst meanwhile */
        ms = gt_stage_pull(&cut, 0) >= BUSY_RECS ? GT_STAGE_TICK_MS : ms * 2 > IDLE_MS ? IDLE_MS : ms * 2;
        /* the tick's pause, on the stop flag: gt_stage_stop wakes it at
         * once (a nanosleep made every process's exit wait for the rest of
         * its tick, up to IDLE_MS) */
        struct timespec tick = { 0, ms * 1000 * 1000 };
        syscall(SYS_futex, &stop_req, FUTEX_WAIT_PRIVATE, 0, &tick, NULL, 0);
    }
    atomic_store(&running, 0);
    return NULL;
}

int gt_stage_start(char *err, size_t errlen)
{
    atomic_store(&stop_req, 0);
    gt_tbuf_set_grow_hook(kick);
    atomic_store(&running, 1);
    pthread_attr_t attr;
    pthread_t t;
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED); /* stopped by a flag, never joined */
    int rc = pthread_create(&t, &attr, drain_main, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) {
        atomic_store(&running, 0);
        snprintf(err, errlen, "cannot start the drain thread: %s", strerror(rc));
        return -1;
    }
    return 0;
}

int gt_stage_stop(int timeout_ms)
{
    atomic_store(&stop_req, 1);
    syscall(SYS_futex, &stop_req, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    struct timespec pause = { 0, 100 * 1000 };
    for (int i = 0; i < timeout_ms * 10 && atomic_load(&running); i++)
        nanosleep(&pause, NULL);
    return atomic_load(&running) ? -1 : 0;
}

void gt_stage_fork_prepare(void)
{
    pthread_mutex_lock(&drain_mu);
    pthread_mutex_lock(&q_mu);
}

void gt_stage_fork_parent(void)
{
    pthread_mutex_unlock(&q_mu);
    pthread_mutex_unlock(&drain_mu);
}

void gt_stage_forget(int in_child)
{
    if (!in_child && atomic_load(&running))
        return; /* a drain thread that did not stop still uses all of it: leave it be */
    /* the chunks left: the parent's records (its writer stores them), or,
     * after the final pass, none but the pool's */
    struct chunk *lists[] = { q_head, pool, cur };
    for (int i = 0; i < 3; i++)
        for (struct chunk *c = lists[i], *next; c; c = next) {
            next = i == 2 ? NULL : c->next;
            munmap(c, sizeof *c);
        }
    q_head = q_tail = pool = cur = NULL;
    for (struct gt_tbuf_seg *g = s_head, *next; g; g = next) {
        next = g->qnext;
        gt_tbuf_seg_free(g);
    }
    s_head = s_tail = NULL;
    pool_n = 0;
    for (size_t n = atomic_exchange(&mapped, 0); n; n--)
        gt_mem_give(sizeof(struct chunk));
    atomic_store(&staged, 0);
    atomic_store(&peak, 0);
    atomic_store(&running, 0);
    atomic_store(&stop_req, 0);
    pthread_mutex_init(&drain_mu, NULL);
    pthread_mutex_init(&q_mu, NULL);
}
