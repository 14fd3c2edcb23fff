/* sim_nccl_shm.c: the shared-memory segment behind a simulated communicator.
 *
 * The first rank to open the segment (O_EXCL wins) sizes it and initialises
 * the process-shared mutex and condition variable, then sets `ready`; the
 * others wait for that.  After the init barrier the segment's name is
 * unlinked, so nothing is left in /dev/shm even if a rank is killed later.
 * The mutex is robust: a rank that dies holding it does not wedge the rest.
 */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_nccl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static size_t layout_size(int n)
{
    size_t sz = (sizeof(struct sim_shm_comm) + 63) & ~(size_t)63;
    sz += (size_t)2 * n * sizeof(int);
    sz += (size_t)n * n * sizeof(struct sim_mbox);
    sz = (sz + 63) & ~(size_t)63;
    sz += (size_t)n * SIM_NCCL_SLOT_BYTES;
    sz += (size_t)n * n * SIM_NCCL_MBOX_BYTES;
    return sz;
}

static void layout(struct ncclComm *c)
{
    int n = c->nranks;
    char *p = (char *)c->shm + ((sizeof(struct sim_shm_comm) + 63) & ~(size_t)63);
    c->exch = (int *)p;
    p += (size_t)2 * n * sizeof(int);
    c->mbox = (struct sim_mbox *)p;
    p += (size_t)n * n * sizeof(struct sim_mbox);
    p = (char *)(((uintptr_t)p + 63) & ~(uintptr_t)63);
    c->slots = p;
    c->mbox_data = p + (size_t)n * SIM_NCCL_SLOT_BYTES;
}

static void segment_name(const ncclUniqueId *id, char *out, size_t len)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < NCCL_UNIQUE_ID_BYTES; i++)
        h = (h ^ (unsigned char)id->internal[i]) * 1099511628211ull;
    /* the launcher's session token sits at offset 8 of the id */
    char session[41];
    memcpy(session, id->internal + 8, 40);
    session[40] = 0;
    for (char *s = session; *s; s++)
        if (*s == '/')
            *s = '_';
    snprintf(out, len, "/gpusim-%s-%016llx", session, (unsigned long long)h);
}

static void init_shared(struct sim_shm_comm *s, int nranks)
{
    pthread_mutexattr_t ma;
    pthread_mutexattr_init(&ma);
    pthread_mutexattr_setpshared(&ma, PTHREAD_PROCESS_SHARED);
    pthread_mutexattr_setrobust(&ma, PTHREAD_MUTEX_ROBUST);
    pthread_mutex_init(&s->mu, &ma);
    pthread_mutexattr_destroy(&ma);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
    pthread_cond_init(&s->cv, &ca);
    pthread_condattr_destroy(&ca);
    s->nranks = nranks;
    atomic_store(&s->ready, 1);
}

struct ncclComm *sim_comm_attach(const ncclUniqueId *id, int nranks, int rank, int device, int barrier)
{
    char name[96];
    segment_name(id, name, sizeof name);
    size_t size = layout_size(nranks);
    int creator = 1;
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    if (fd < 0 && errno == EEXIST) {
        creator = 0;
        fd = shm_open(name, O_RDWR, 0600);
    }
    if (fd < 0)
        return NULL;
    if (creator) {
        if (ftruncate(fd, (off_t)size) != 0) {
            close(fd);
            shm_unlink(name);
            return NULL;
        }
    } else {
        struct stat st;
        while (fstat(fd, &st) == 0 && (size_t)st.st_size < size)
            usleep(100);
    }
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (p == MAP_FAILED)
        return NULL;
    struct sim_shm_comm *s = p;
    if (creator)
        init_shared(s, nranks);
    else
        while (!atomic_load(&s->ready))
            usleep(100);

    struct ncclComm *c = calloc(1, sizeof *c);
    if (!c) {
        munmap(p, size);
        return NULL;
    }
    c->shm = s;
    c->map_size = size;
    c->nranks = nranks;
    c->rank = rank;
    c->device = device;
    c->id = *id;
    layout(c);
    if (barrier) {
        sim_comm_barrier(c, 1);
        if (rank == 0)
            shm_unlink(name);
    }
    return c;
}

void sim_comm_unlink(const ncclUniqueId *id)
{
    char name[96];
    segment_name(id, name, sizeof name);
    shm_unlink(name);
}

void sim_comm_detach(struct ncclComm *c)
{
    munmap(c->shm, c->map_size);
    free(c);
}

void sim_comm_lock(struct ncclComm *c)
{
    if (pthread_mutex_lock(&c->shm->mu) == EOWNERDEAD)
        pthread_mutex_consistent(&c->shm->mu);
}

void sim_comm_unlock(struct ncclComm *c)
{
    pthread_mutex_unlock(&c->shm->mu);
}

void sim_comm_wait(struct ncclComm *c)
{
    if (pthread_cond_wait(&c->shm->cv, &c->shm->mu) == EOWNERDEAD)
        pthread_mutex_consistent(&c->shm->mu);
}

void sim_comm_signal(struct ncclComm *c)
{
    pthread_cond_broadcast(&c->shm->cv);
}

uint64_t sim_comm_barrier(struct ncclComm *c, int host)
{
    struct sim_barrier *b = host ? &c->shm->host_bar : &c->shm->gpu_bar;
    sim_comm_lock(c);
    uint64_t gen = b->generation;
    if (++b->arrived == c->nranks) {
        b->arrived = 0;
        b->released_ns = sim_mono_ns();
        b->generation++;
        sim_comm_signal(c);
    } else {
        while (b->generation == gen)
            sim_comm_wait(c);
    }
    /* read before the next generation can overwrite it: the lock is held,
     * and no member can arrive again before this one leaves */
    uint64_t released = b->released_ns;
    sim_comm_unlock(c);
    return released;
}

char *sim_comm_slot(struct ncclComm *c, int rank)
{
    return c->slots + (size_t)rank * SIM_NCCL_SLOT_BYTES;
}

char *sim_comm_mbox_data(struct ncclComm *c, int src, int dst)
{
    return c->mbox_data + ((size_t)src * c->nranks + dst) * SIM_NCCL_MBOX_BYTES;
}

struct sim_mbox *sim_comm_mbox(struct ncclComm *c, int src, int dst)
{
    return &c->mbox[src * c->nranks + dst];
}
