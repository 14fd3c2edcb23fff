/* load_threads.c: the run's files passed over, and its processes'
 * lasting parts loaded, on several threads (load_threads.h). */
#define _GNU_SOURCE
#include "viewer/read/load_threads.h"
#include "viewer/read/load_internal.h"
#include "viewer/read/db_open.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* The databases' passes (load_find_rows), on up to m->jobs threads, one
 * database at a time each: a run directory's files are one process each,
 * and counting each one's rows is most of loading it.  Damage is noted in
 * database order, as one thread passing over them in turn notes it.
 * Returns -1 if memory ran out. */
struct rows_job { struct model *m; int *rc; size_t next; };

static void *rows_worker(void *arg)
{
    struct rows_job *j = arg;
    for (size_t d; (d = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < j->m->ndbs;)
        j->rc[d] = load_find_rows(j->m, d);
    return NULL;
}

int load_find_all_rows(struct model *m)
{
    struct rows_job j = { m, calloc(m->ndbs + 1, sizeof *j.rc), 0 };
    if (!j.rc)
        return -1;
    pthread_t th[64];
    size_t started = 0, want = m->jobs > 1 ? (size_t)m->jobs - 1 : 0;
    if (want > m->ndbs - 1)
        want = m->ndbs - 1;
    while (started < want && started < sizeof th / sizeof *th && pthread_create(&th[started], NULL, rows_worker, &j) == 0)
        started++;
    rows_worker(&j);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    int nomem = 0;
    for (size_t d = 0; d < m->ndbs; d++)
        if (j.rc[d] == SQLITE_NOMEM)
            nomem = 1;
        else
            load_note_damage(m, (int)d, j.rc[d], "where each process's rows are");
    free(j.rc);
    return nomem ? -1 : 0;
}

/* The processes' lasting parts (load_process), on up to m->jobs threads
 * (the report's among them), a process at a time each: the rest of the
 * run's loading that grows with its processes.  Each process is read on
 * a connection opened for it alone (what SQLite makes of a damaged file
 * depends on what the connection read before: the same whatever the
 * threads), into a copy of the model whose damage note is its own; the
 * notes are kept in process order, as one thread passing over them in
 * turn keeps them.  A process whose connection cannot be had (descriptors
 * short) is loaded afterwards, in order, on the report's connection.  The
 * threads share the store of parked collectives (under a lock: where each
 * process's lie differs, not what they hold) and only read the rest of
 * the model. */
struct procs_job {
    struct model *m;
    size_t next;
    char (*damaged)[sizeof ((struct model *)0)->damaged];
    unsigned char *later;    /* no connection of its own: the report's, afterwards */
    pthread_mutex_t parked;
};

static void *procs_worker(void *arg)
{
    struct procs_job *j = arg;
    struct model *m = j->m, wm = *m;
    if (!(wm.dbs = calloc(m->ndbs + 1, sizeof *wm.dbs)))
        model_out_of_memory();
    wm.dbs2 = NULL;
    for (size_t i; (i = __atomic_fetch_add(&j->next, 1, __ATOMIC_RELAXED)) < m->nprocs;) {
        struct proc *p = &m->procs[i];
        if (model_open_again(m->paths[p->db], &wm.dbs[p->db]) != 0) {
            j->later[i] = 1;
            continue;
        }
        wm.damaged[0] = 0;
        load_process(&wm, p, &j->parked);
        memcpy(j->damaged[i], wm.damaged, sizeof wm.damaged);
        sqlite3_close(wm.dbs[p->db]);
        wm.dbs[p->db] = NULL;
    }
    free(wm.dbs);
    return NULL;
}

void load_all_processes(struct model *m)
{
    struct procs_job j = { m, 0, calloc(m->nprocs + 1, sizeof *j.damaged), calloc(m->nprocs + 1, 1),
                           PTHREAD_MUTEX_INITIALIZER };
    if (!j.damaged || !j.later)
        model_out_of_memory();
    pthread_t th[64];
    size_t started = 0, want = m->jobs > 1 ? (size_t)m->jobs - 1 : 0;
    if (want > m->nprocs - 1)
        want = m->nprocs - 1;
    while (started < want && started < sizeof th / sizeof *th &&
           pthread_create(&th[started], NULL, procs_worker, &j) == 0)
        started++;
    procs_worker(&j);
    for (size_t i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    for (size_t i = 0; i < m->nprocs; i++) {
        if (j.later[i]) {
            char keep[sizeof m->damaged];
            memcpy(keep, m->damaged, sizeof keep);
            m->damaged[0] = 0;
            load_process(m, &m->procs[i], NULL);
            memcpy(j.damaged[i], m->damaged, sizeof m->damaged);
            memcpy(m->damaged, keep, sizeof keep);
        }
        if (!m->damaged[0] && j.damaged[i][0])
            memcpy(m->damaged, j.damaged[i], sizeof m->damaged);
    }
    pthread_mutex_destroy(&j.parked);
    free(j.damaged);
    free(j.later);
}

