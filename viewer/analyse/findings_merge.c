/* findings_merge.c: one process's findings, made apart (by a worker of the
 * report, viewer/proc_jobs.h), added to the run's in process order.
 *
 * The analyses of one process make findings of that process only, look up
 * no other process's, and claim intervals of its time only (attribution.h),
 * all in the order they meet them; a finding's index is used only while
 * its process is analysed (proc_pass.h's scalar reads waiting for idle
 * time).  So what a process made into findings of its own, appended, is
 * what it would have made after the processes before it. */
#include "viewer/analyse/findings.h"

#include <stdlib.h>
#include <string.h>

/* Appends ns elements of size bytes at src to the growable array *v. */
static void append(void *v_, size_t *n, size_t *cap, const void *src, size_t ns, size_t size, size_t first_cap)
{
    void **v = v_;
    if (!ns)
        return;
    if (*n + ns > *cap) {
        size_t c = *cap ? *cap : first_cap;
        while (c < *n + ns)
            c *= 2;
        void *nv = realloc(*v, c * size);
        if (!nv)
            model_out_of_memory();
        *v = nv;
        *cap = c;
    }
    memcpy((char *)*v + *n * size, src, ns * size);
    *n += ns;
}

void findings_take_proc(struct findings *fs, struct findings *from, size_t pi, size_t nprocs)
{
    append(&fs->v, &fs->n, &fs->cap, from->v, from->n, sizeof *from->v, 32);
    append(&fs->charges.v, &fs->charges.n, &fs->charges.cap, from->charges.v, from->charges.n,
           sizeof *from->charges.v, 256);
    host_times_take(fs, from, pi, nprocs);
    host_times_free(from, nprocs);
    ledgers_take(fs, from, pi, nprocs);
    append(&fs->wsites, &fs->nwsites, &fs->wsites_cap, from->wsites, from->nwsites, sizeof *from->wsites, 16);
    free(from->wsites);
    if (from->whatif && pi < from->nwhatif) {
        if (!fs->whatif && !(fs->whatif = calloc(nprocs + 1, sizeof *fs->whatif)))
            model_out_of_memory();
        fs->nwhatif = nprocs;
        fs->whatif[pi] = from->whatif[pi];
        memset(&from->whatif[pi], 0, sizeof from->whatif[pi]);
    }
    ledgers_free(from);
    charges_free(&from->charges);
    free(from->v);
    free(from->whatif);
    memset(from, 0, sizeof *from);
}
