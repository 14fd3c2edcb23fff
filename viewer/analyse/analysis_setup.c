/* analysis_setup.c: host.setup (analysis_setup.h).
 *
 * A CUDA call that waits for no GPU work, yet holds the host a millisecond
 * or more while the GPU sits idle: set-up in the steps' path.  The context
 * made at the first call (PyTorch's cudaFree(0)), a module loaded at a
 * kernel's first launch (CUDA's lazy loading), an allocation or a free
 * with nothing pending (cudaFree returns memory to the driver), a stream
 * or a graph made.  On the two AlexNet benchmark traces such calls were
 * half the GPU time lost (6.5 and 8.0 s of cudaFree, a 3 s first launch)
 * and no finding named them: a free with nothing pending is no sync, and
 * the rest was gpu.idle's "the host does not submit work fast enough".
 *
 * Its cost is the GPU idle inside the call, and only between the
 * process's first and last GPU work (the ledger's span): idle before the
 * first is no GPU time lost, nor is a teardown's after the last.  A rank
 * read a window at a time (read/windows.h) gets what it gets read whole:
 * the part of a call past its window's last GPU work waits for a later
 * window with GPU work (setup_due), and is taken back at the process's
 * end if none comes (setup_proc_end: only when the windows after it hold
 * no GPU work at all; the range and the mark its occurrence noted then
 * stay, where read whole it has none). */
#include "viewer/analyse/analysis_setup.h"
#include "viewer/analyse/proc_pass.h"

#include <stdlib.h>

#define SETUP_MIN_NS 1000000LL
/* a kernel launch holds the host microseconds; one of this long loaded
 * the kernel's module (a thread descheduled that long is rarer) */
#define SETUP_LAUNCH_MIN_NS 10000000LL

int setup_call(enum api_role r, int launched)
{
    return r == ROLE_LAUNCH || (!launched && (r == ROLE_OTHER || r == ROLE_STREAM_CREATE || r == ROLE_FREE));
}

int setup_held(const struct model *m, const struct call *c)
{
    int64_t held = c->end - c->start;
    if (held < (m->roles[c->api] == ROLE_LAUNCH ? SETUP_LAUNCH_MIN_NS : SETUP_MIN_NS))
        return 0;
    /* a query that blocked waited for the driver's lock, held by another
     * thread's call (PyTorch's NCCL watchdog polls events beside the main
     * thread's cudaMalloc): that call is the one to name (its "not
     * ready", 600, marks a query: model/api.c) */
    return m->answers[c->api] != 600;
}

/* The call's API in the finding's list, longest first; n: how many of
 * its calls (1, or -1 to take one back). */
static void by_api(struct finding_facts *x, int api, int n, int64_t held)
{
    x->has |= FACT_SETUP;
    int k = 0;
    while (k < x->nsetup && x->setup[k].api != api)
        k++;
    if (k == x->nsetup) {
        if (n < 0)
            return; /* (one that gave way to a longer one: in the totals only) */
        if (k < FACT_SETUP_MAX)
            x->setup[x->nsetup++] = (struct finding_setup){ api, 0, 0 };
        else if (x->setup[k - 1].host_ns < held)
            x->setup[--k] = (struct finding_setup){ api, 0, 0 }; /* all taken: the shortest gives way */
        else
            return;
    }
    x->setup[k].count += n;
    model_add(&x->setup[k].host_ns, n * held);
    for (; k > 0 && x->setup[k].host_ns > x->setup[k - 1].host_ns; k--) {
        struct finding_setup tmp = x->setup[k];
        x->setup[k] = x->setup[k - 1];
        x->setup[k - 1] = tmp;
    }
    for (; k + 1 < x->nsetup && x->setup[k].host_ns < x->setup[k + 1].host_ns; k++) {
        struct finding_setup tmp = x->setup[k];
        x->setup[k] = x->setup[k + 1];
        x->setup[k + 1] = tmp;
    }
    if (!x->setup[k].count) { /* taken back whole */
        for (int j = k; j + 1 < x->nsetup; j++)
            x->setup[j] = x->setup[j + 1];
        x->nsetup--;
    }
}

static void add_due(struct proc_pass *ps, size_t finding, const struct call *c, int64_t from)
{
    if (ps->nsetup_due == ps->setup_due_cap) {
        ps->setup_due_cap = ps->setup_due_cap ? ps->setup_due_cap * 2 : 8;
        if (!(ps->setup_due = realloc(ps->setup_due, ps->setup_due_cap * sizeof *ps->setup_due)))
            model_out_of_memory();
    }
    ps->setup_due[ps->nsetup_due++] = (struct setup_due){ finding, from, c->end, c->end - c->start, c->api };
}

void setup_note(const struct model *m, struct findings *fs, const struct timeline *t, size_t pi, const struct call *c)
{
    const struct proc *p = &m->procs[pi];
    struct proc_pass *ps = p->pass;
    int64_t held = c->end - c->start;
    if (!setup_held(m, c))
        return;
    if (!t->busy.n && !ps->setup_had_gpu)
        return; /* before the process's first GPU work */
    int64_t a = c->start;
    if (!ps->setup_had_gpu && a < t->busy.v[0].a)
        a = t->busy.v[0].a;
    /* idle now: within this window's GPU work; the rest (past its last) is
     * idle only if GPU work follows, in a later window */
    int64_t last = t->busy.n ? t->busy.v[t->busy.n - 1].b : INT64_MIN;
    int64_t to = c->end < last ? c->end : last;
    int64_t idle = to > a ? to - a - ivals_cover(&t->seen, a, to) : 0;
    int64_t from = last > a ? last : a, rest = c->end > from ? c->end - from : 0;
    if (p->win_hi == INT64_MAX)
        rest = 0; /* read whole, or its last window: no GPU work follows */
    if (idle + rest < SETUP_MIN_NS)
        return; /* the GPU had work: the call cost it nothing */
    struct finding *f = findings_at(fs, m, F_HOST_SETUP, (int)pi, c->site, c->tid, c->start);
    if (!f)
        return;
    if (!f->count++)
        f->api = c->api;
    model_add(&f->host_blocked_ns, held);
    if (to > a)
        model_add(&f->gpu_idle_ns, charge_idle(fs, f, (int)pi, t->p, &t->busy, a, to));
    by_api(&f->facts, c->api, 1, held);
    if (rest > 0)
        add_due(ps, (size_t)(f - fs->v), c, from);
}

void setup_due(const struct model *m, struct findings *fs, const struct timeline *t, size_t pi)
{
    struct proc_pass *ps = m->procs[pi].pass;
    if (!ps->nsetup_due || !t->busy.n)
        return;
    for (size_t i = 0; i < ps->nsetup_due; i++) {
        const struct setup_due *d = &ps->setup_due[i];
        struct finding *f = &fs->v[d->finding];
        model_add(&f->gpu_idle_ns, charge_idle(fs, f, (int)pi, &m->procs[pi], &t->busy, d->from, d->to));
    }
    ps->nsetup_due = 0;
}

void setup_window_end(const struct timeline *t, size_t pi)
{
    struct proc_pass *ps = t->p->pass;
    (void)pi;
    if (t->busy.n)
        ps->setup_had_gpu = 1;
}

void setup_proc_end(const struct model *m, struct findings *fs, size_t pi)
{
    struct proc_pass *ps = m->procs[pi].pass;
    /* calls after the last GPU work: taken back, but for what the call's
     * window gave (a call partly inside the span keeps that part) */
    for (size_t i = 0; i < ps->nsetup_due; i++) {
        const struct setup_due *d = &ps->setup_due[i];
        struct finding *f = &fs->v[d->finding];
        if (d->to - d->from < d->held) /* partly inside: its occurrence stays */
            continue;
        f->count--;
        model_add(&f->host_blocked_ns, -d->held);
        by_api(&f->facts, d->api, -1, d->held);
    }
    ps->nsetup_due = 0;
}
