/* sim_nccl_connect.c: NCCL's lazy connection set-up, simulated.
 *
 * Since NCCL 2.22 (NCCL_RUNTIME_CONNECT=1, the default) two ranks are
 * connected for point-to-point only when they first talk: that first
 * ncclSend or ncclRecv (or the ncclGroupEnd of a group holding it) blocks
 * the calling host thread until the peers have set up their transport,
 * where every later call only enqueues and returns.  The simulator blocks
 * the first call from this rank to each peer of a communicator for
 * GPUSIM_NCCL_CONNECT_US microseconds (default 20000; 0: never), unless
 * NCCL_RUNTIME_CONNECT=0 asks for every connection at initialisation, as
 * NCCL then makes them (whose cost the simulator does not model). */
#define _GNU_SOURCE
#include "sim_internal.h"
#include "sim_nccl.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAX_CONNECTIONS 4096

struct connection { ncclUniqueId id; int rank, peer; };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct connection *made;   /* guarded by mu */
static int nmade;                 /* guarded by mu */

static long connect_us(void)
{
    const char *rt = getenv("NCCL_RUNTIME_CONNECT");
    if (rt && !strcmp(rt, "0"))
        return 0;
    const char *v = getenv("GPUSIM_NCCL_CONNECT_US");
    return v && *v ? strtol(v, NULL, 10) : 20000;
}

void sim_nccl_connect(struct ncclComm *c, int peer)
{
    long us = connect_us();
    if (!c || us <= 0)
        return;
    pthread_mutex_lock(&mu);
    int known = 0;
    for (int i = 0; i < nmade && !known; i++)
        known = made[i].rank == c->rank && made[i].peer == peer && !memcmp(&made[i].id, &c->id, sizeof c->id);
    if (!known && !made)
        made = calloc(MAX_CONNECTIONS, sizeof *made);
    if (!known && made && nmade < MAX_CONNECTIONS)
        made[nmade++] = (struct connection){ c->id, c->rank, peer };
    pthread_mutex_unlock(&mu);
    if (known)
        return;
    struct timespec ts = { us / 1000000, (us % 1000000) * 1000 };
    while (nanosleep(&ts, &ts) != 0)
        ;
}
