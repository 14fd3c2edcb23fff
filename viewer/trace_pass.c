/* trace_pass.c: a process's calls and GPU operations loaded once more,
 * whole or a window at a time (windows.h), for the Chrome and Kineto
 * traces only (trace_pass.h).  Its findings and summary were made in the
 * first pass. */
#include "viewer/read/load.h"
#include "viewer/trace_pass.h"
#include "viewer/read/windows.h"

int trace_process(struct model *m, struct chrome_trace *ct, const char *kineto, size_t pi, char *err, size_t errlen)
{
    int rc = 0;
    load_begin_proc(m, pi);
    struct kineto_rank *kr = kineto ? kineto_open_rank(kineto, m, pi, err, errlen) : NULL;
    if (kineto && !kr)
        rc = -1;
    struct proc_windows w = { 0 };
    int windowed = windows_plan(m, pi, &w) == 0;
    for (size_t i = 0; i < (windowed ? w.n : 1); i++) {
        if (windowed) {
            load_window(m, pi, &w.v[i].rows, w.v[i].lo, w.v[i].hi);
        } else {
            load_window(m, pi, NULL, INT64_MIN, INT64_MAX);
            load_drop_exts(m, pi);
        }
        if (ct)
            chrome_trace_window(ct, m, pi);
        if (kr)
            kineto_rank_window(kr, m, pi);
        load_drop_window(m, pi);
        /* the collectives come from the spill at the trace's end: those
         * loaded with the window are only let go, in order */
        const struct proc *p = &m->procs[pi];
        size_t n = 0;
        while (n < p->ncolls && load_coll_settled(p, n))
            n++;
        load_release_colls(m, pi, n);
    }
    windows_free(&w);
    if (ct)
        chrome_trace_proc_end(ct, m, pi);
    if (kr && kineto_close_rank(kr, m, pi, err, errlen) != 0)
        rc = -1;
    load_end_proc(m, pi);
    return rc;
}
