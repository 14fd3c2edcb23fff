/* load_threads.h: the parts of loading a run that grow with its files
 * and processes, on up to m->jobs threads (load_threads.c), each the same
 * whatever the threads: the same connections ask the same questions, and
 * damage is noted in the order one thread would meet it. */
#ifndef GPUTRACE_LOAD_THREADS_H
#define GPUTRACE_LOAD_THREADS_H

#include "viewer/model/model.h"

#include <pthread.h>

/* Finds where each process's rows are in database d (rowruns.h), and
 * the end of a killed process: its last record's.  Touches only d's
 * connections and its processes' rows and ends; returns rowruns_find's
 * result (load_run.c). */
int load_find_rows(struct model *m, size_t d);
/* What stays loaded of process p for the whole report: kernel names,
 * call sites, calls left in flight, NVTX ranges; its collectives read and
 * parked (under parked_lock when not NULL).  Reads m->dbs[p->db] and
 * notes damage in m (load_run.c). */
void load_process(struct model *m, struct proc *p, pthread_mutex_t *parked_lock);

/* load_find_rows for every database, damage noted in file order; -1 if
 * memory ran out. */
int load_find_all_rows(struct model *m);
/* load_process for every process, damage noted in process order. */
void load_all_processes(struct model *m);

#endif
