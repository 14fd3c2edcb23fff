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

void findings_take_proc(struct findings *fs, struct findings *from, size_t pi, size_t nprocs)
{
    if (from->n) {
        if (fs->n + from->n > fs->cap) {
            size_t cap = fs->cap ? fs->cap : 32;
            while (cap < fs->n + from->n)
                cap *= 2;
            struct finding *v = realloc(fs->v, cap * sizeof *v);
            if (!v)
                model_out_of_memory();
            fs->v = v;
            fs->cap = cap;
        }
        memcpy(fs->v + fs->n, from->v, from->n * sizeof *from->v);
        fs->n += from->n;
    }
    struct charges *c = &fs->charges, *fc = &from->charges;
    if (fc->n) {
        if (c->n + fc->n > c->cap) {
            size_t cap = c->cap ? c->cap : 256;
            while (cap < c->n + fc->n)
                cap *= 2;
            struct charge *v = realloc(c->v, cap * sizeof *v);
            if (!v)
                model_out_of_memory();
            c->v = v;
            c->cap = cap;
        }
        memcpy(c->v + c->n, fc->v, fc->n * sizeof *fc->v);
        c->n += fc->n;
    }
    host_times_take(fs, from, pi, nprocs);
    host_times_free(from, nprocs);
    charges_free(&from->charges);
    free(from->v);
    memset(from, 0, sizeof *from);
}
