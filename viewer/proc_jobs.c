/* proc_jobs.c: the run's processes on several workers (proc_jobs.h).
 *
 * DESIGN.  The report's thread starts the workers, then waits for process
 * 0's results, adds them to the run's, waits for process 1's, and so on.
 * A worker takes the next process (a counter), works on it into a result
 * slot of its own, marks the slot done and signals.  The lock guards the
 * slots' done flags and the busiest worker's CPU time; the spill has a
 * lock of its own (proc_report.h), so have the call sites' symbolizer
 * (symbolize.c) and SQLite's connection of a file that a worker could not
 * open again.  What the workers share of the model is read only while they
 * run, but for each process's own entry (its calls, GPU operations,
 * collectives, sites and analyses' state: only its worker touches them)
 * and the run's point-to-point stages (each worker its process's); the
 * lazily made tables (callback ids, the point-to-point run) are made
 * before they start.  Each worker has a copy of the model with its own
 * connections and timelines, and notes damage there, process by process,
 * for the report's thread to keep the first in process order. */
#define _GNU_SOURCE
#include "viewer/proc_jobs.h"
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/read/cupti_calls.h"
#include "viewer/read/db_open.h"
#include "viewer/model/timeline.h"
#include "viewer/trace_pass.h"
#include "viewer/write/chrome_part.h"
#include "common/term_text.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define JOBS_MAX 256

int report_jobs(int want, size_t nprocs)
{
    long n = want;
    const char *e = getenv("GPUTRACE_REPORT_JOBS");
    if (n <= 0 && e && *e) {
        char *end;
        n = strtol(e, &end, 10);
        if (*end || n < 1) {
            char shown[200]; /* whatever the environment held: made safe to show, and short */
            fprintf(stderr, "gputrace-report: GPUTRACE_REPORT_JOBS is a number of workers (1 or more), not '%s':"
                            " the online CPUs are used\n",
                    term_cell(e, 40, TERM_CUT | TERM_ELLIPSIS, shown, sizeof shown));
            n = 0;
        }
    }
    if (n <= 0)
        n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n > JOBS_MAX)
        n = JOBS_MAX;
    if ((size_t)n > nprocs)
        n = (long)nprocs;
    if (n < 1 || !sqlite3_threadsafe())
        n = 1;
    return (int)n;
}

/* What a worker made of one process, until the report's thread takes it. */
struct result {
    struct findings fs;
    struct summary s;
    struct chrome_trace *ct;  /* its part of the Chrome trace, or NULL */
    int ct_errno;             /* why no part could be made */
    int rc;                   /* report_process's or trace_process's */
    int done;
    char err[1024];
    char damaged[sizeof ((struct model *)0)->damaged];
};

struct jobs {
    struct model *m;
    const struct report_sinks *k;     /* the report's pass, or NULL: the traces' */
    struct chrome_trace *ct;          /* the traces' pass: its trace, or NULL */
    char *const *kineto;              /* ... and Kineto files, or NULL */
    int *kineto_ok;
    double *cpu;                      /* where the busiest worker's CPU seconds are added, or NULL */
    struct result *res;
    size_t next;                      /* the next process to take (atomic) */
    pthread_mutex_t lock, spill_lock, shared_db;
    pthread_cond_t done;
    double busiest;                   /* the most CPU seconds a worker spent */
};

/* One process, on a worker's model wm. */
static void work(struct jobs *J, struct model *wm, size_t pi, struct result *r)
{
    const struct report_sinks *k = J->k;
    struct chrome_trace *whole = k ? k->ct : J->ct;
    if (whole && !(r->ct = chrome_trace_part(whole, wm)))
        r->ct_errno = errno;
    /* a Kineto file failed: those after it are not started (as on one worker, which
     * starts none after it; which were started before it was known may differ) */
    int kineto = __atomic_load_n(J->kineto_ok, __ATOMIC_RELAXED);
    if (!k) {
        r->rc = trace_process(wm, r->ct, kineto && J->kineto ? J->kineto[pi] : NULL, pi, r->err, sizeof r->err);
        return;
    }
    r->fs.range_filter = k->fs->range_filter;
    r->fs.show_charges = k->fs->show_charges;
    r->fs.aside = k->fs->aside;
    r->fs.aside_lock = &J->spill_lock; /* one lock for the run's scratch stores */
    summary_begin(wm, &r->s);
    r->s.range_filter = k->s->range_filter;
    struct report_sinks mine = { k->o, &r->fs, &r->s, r->ct, kineto ? k->kineto : NULL, k->spill, &J->spill_lock };
    r->rc = report_process(wm, &mine, pi, r->err, sizeof r->err);
}

static void close_dbs(struct model *wm, int db)
{
    sqlite3_close(wm->dbs[db]); /* NULL: nothing */
    wm->dbs[db] = NULL;
    if (wm->dbs2) {
        sqlite3_close(wm->dbs2[db]);
        wm->dbs2[db] = NULL;
    }
}

/* Connections to file db that have read nothing yet, into wm->dbs[db]
 * (and wm->dbs2[db] where the model has second ones), for one process:
 * what SQLite reads of a damaged file depends on what the connection read
 * before (rowruns.h), so each process is read on connections of its own,
 * on one worker as on several, whichever processes the worker had before.
 * Returns -1, with none open, where they cannot be had. */
static int open_fresh(const struct model *m, struct model *wm, int db)
{
    wm->dbs[db] = NULL;
    if (wm->dbs2)
        wm->dbs2[db] = NULL;
    if (model_open_again(m->paths[db], &wm->dbs[db]) == 0 &&
        (!wm->dbs2 || model_open_again(m->paths[db], &wm->dbs2[db]) == 0))
        return 0;
    close_dbs(wm, db);
    return -1;
}

/* On one worker: process pi on fresh connections (open_fresh) in place of
 * the report's, which are put back after (*keep, *keep2). */
static int swap_fresh(struct model *m, size_t pi, sqlite3 **keep, sqlite3 **keep2)
{
    int db = m->procs[pi].db;
    *keep = m->dbs[db];
    *keep2 = m->dbs2 ? m->dbs2[db] : NULL;
    if (open_fresh(m, m, db) == 0)
        return 0;
    m->dbs[db] = *keep; /* descriptors short: the report's own */
    if (m->dbs2)
        m->dbs2[db] = *keep2;
    return -1;
}

static void swap_back(struct model *m, size_t pi, int fresh, sqlite3 *keep, sqlite3 *keep2)
{
    int db = m->procs[pi].db;
    if (!fresh)
        return;
    close_dbs(m, db);
    m->dbs[db] = keep;
    if (m->dbs2)
        m->dbs2[db] = keep2;
}

static void *worker(void *arg)
{
    struct jobs *J = arg;
    const struct model *m = J->m;
    struct model wm = *m; /* the model's tables, shared; connections and timelines its own */
    wm.dbs = calloc(m->ndbs + 1, sizeof *wm.dbs);
    /* a big table read in halves, as one worker reads it (where a file is
     * damaged, each half reads what it can: the same rows as one worker) */
    wm.dbs2 = m->dbs2 ? calloc(m->ndbs + 1, sizeof *wm.dbs2) : NULL;
    if (!wm.dbs || (m->dbs2 && !wm.dbs2))
        model_out_of_memory();
    wm.timelines = NULL;
    wm.progress = 0;
    wm.rows_read = 0;
    for (;;) {
        size_t pi = __atomic_fetch_add(&J->next, 1, __ATOMIC_RELAXED);
        if (pi >= m->nprocs)
            break;
        int db = m->procs[pi].db, shared = 0, open = open_fresh(m, &wm, db) == 0;
        if (!open) { /* no connections of its own (descriptors short): the report's, one worker at a time */
            pthread_mutex_lock(&J->shared_db);
            wm.dbs[db] = m->dbs[db];
            if (wm.dbs2)
                wm.dbs2[db] = m->dbs2[db];
            shared = 1;
        }
        wm.damaged[0] = 0;
        struct result *r = &J->res[pi];
        work(J, &wm, pi, r);
        memcpy(r->damaged, wm.damaged, sizeof r->damaged);
        if (r->rc)
            __atomic_store_n(J->kineto_ok, 0, __ATOMIC_RELAXED);
        if (shared) {
            wm.dbs[db] = NULL;
            if (wm.dbs2)
                wm.dbs2[db] = NULL;
            pthread_mutex_unlock(&J->shared_db);
        } else {
            close_dbs(&wm, db);
        }
        pthread_mutex_lock(&J->lock);
        r->done = 1;
        pthread_cond_broadcast(&J->done);
        pthread_mutex_unlock(&J->lock);
    }
    free(wm.dbs);
    free(wm.dbs2);
    model_free_timelines(&wm);
    struct timespec t;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t) == 0) {
        double cpu = (double)t.tv_sec + (double)t.tv_nsec / 1e9;
        pthread_mutex_lock(&J->lock);
        if (cpu > J->busiest)
            J->busiest = cpu;
        pthread_mutex_unlock(&J->lock);
    }
    return NULL;
}

/* Process pi's results into the run's, in process order. */
static int take(struct jobs *J, size_t pi)
{
    struct model *m = J->m;
    struct result *r = &J->res[pi];
    const struct report_sinks *k = J->k;
    if (k) {
        findings_take_proc(k->fs, &r->fs, pi, m->nprocs);
        summary_take_proc(k->s, &r->s, pi);
    }
    struct chrome_trace *whole = k ? k->ct : J->ct;
    if (whole)
        chrome_trace_join(whole, r->ct, r->ct_errno);
    if (!m->damaged[0] && r->damaged[0])
        memcpy(m->damaged, r->damaged, sizeof m->damaged);
    if (!r->rc)
        return 0;
    char shown[4 * sizeof r->err];
    fprintf(stderr, "gputrace-report: %s\n", term_text(r->err, shown, sizeof shown));
    __atomic_store_n(J->kineto_ok, 0, __ATOMIC_RELAXED);
    return 1;
}

static int run(struct jobs *J, int jobs)
{
    struct model *m = J->m;
    /* made now, not by the first worker to need them */
    cupti_api_has_records(m, 0);
    p2p_begin(m);
    if (!(J->res = calloc(m->nprocs + 1, sizeof *J->res)))
        model_out_of_memory();
    pthread_mutex_init(&J->lock, NULL);
    pthread_mutex_init(&J->spill_lock, NULL);
    pthread_mutex_init(&J->shared_db, NULL);
    pthread_cond_init(&J->done, NULL);
    pthread_t th[JOBS_MAX];
    int started = 0;
    for (; started < jobs && started < JOBS_MAX; started++)
        if (pthread_create(&th[started], NULL, worker, J) != 0)
            break;
    if (!started) /* no thread to be had: this one works */
        worker(J);
    int rc = 0;
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        pthread_mutex_lock(&J->lock);
        while (!J->res[pi].done)
            pthread_cond_wait(&J->done, &J->lock);
        pthread_mutex_unlock(&J->lock);
        rc |= take(J, pi);
    }
    for (int i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    pthread_cond_destroy(&J->done);
    pthread_mutex_destroy(&J->shared_db);
    pthread_mutex_destroy(&J->spill_lock);
    pthread_mutex_destroy(&J->lock);
    free(J->res);
    if (J->cpu)
        *J->cpu += J->busiest;
    return rc;
}

int report_processes(struct model *m, const struct report_sinks *k, int jobs, int *kineto_ok, double *cpu)
{
    if (jobs > 1) {
        struct jobs J = { .m = m, .k = k, .kineto_ok = kineto_ok, .cpu = cpu };
        return run(&J, jobs);
    }
    int rc = 0;
    char err[1024], shown[4 * sizeof err];
    struct report_sinks one = *k;
    for (size_t pi = 0; pi < m->nprocs; pi++) {
        if (!*kineto_ok)
            one.kineto = NULL;
        sqlite3 *keep, *keep2;
        int fresh = swap_fresh(m, pi, &keep, &keep2) == 0;
        int failed = report_process(m, &one, pi, err, sizeof err) != 0;
        swap_back(m, pi, fresh, keep, keep2);
        if (failed) {
            fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
            *kineto_ok = 0;
            rc = 1;
        }
    }
    return rc;
}

int trace_processes(struct model *m, struct chrome_trace *ct, char *const *kineto, int jobs, int *kineto_ok,
                    double *cpu)
{
    if (jobs > 1) {
        struct jobs J = { .m = m, .ct = ct, .kineto = kineto, .kineto_ok = kineto_ok, .cpu = cpu };
        return run(&J, jobs);
    }
    int rc = 0;
    char err[1024], shown[4 * sizeof err];
    for (size_t pi = 0; (ct || *kineto_ok) && pi < m->nprocs; pi++) {
        sqlite3 *keep, *keep2;
        int fresh = swap_fresh(m, pi, &keep, &keep2) == 0;
        int failed = trace_process(m, ct, *kineto_ok && kineto ? kineto[pi] : NULL, pi, err, sizeof err) != 0;
        swap_back(m, pi, fresh, keep, keep2);
        if (failed) {
            fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
            *kineto_ok = 0;
            rc = 1;
        }
    }
    return rc;
}
