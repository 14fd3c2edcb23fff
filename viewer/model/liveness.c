/* liveness.c: whether a process whose file has no end was still running
 * when the file was read, or was killed or frozen (model.h).
 *
 * A process's writer beats every 200 ms (GPUTRACE_FLUSH_MS) while it
 * runs, and a killed one (SIGKILL leaves no end) or a frozen one
 * (SIGSTOP) beats no more.  One whose last heartbeat is more than
 * STALE_NS before the moment its file was read (proc.read_ns) is no
 * process read while it ran: a rank killed before a collective the others
 * then waited in was taken for one read too soon to tell, and no hang was
 * found.  Each file is judged by its own moment: another file, read
 * later, holds later times that say nothing of this one.  Only where that
 * moment is not known, the latest known of all (another process's end or
 * beat) stands in.  A monitor's window is cut at its own moment, read
 * while its process ran: it is running. */
#include "viewer/model/model.h"

#define STALE_NS 3000000000LL

int64_t model_latest_end(const struct model *m)
{
    int64_t latest = INT64_MIN;
    for (size_t i = 0; i < m->nprocs; i++)
        if (!model_proc_window(m, i)) {
            int64_t e = model_aligned(m, &m->procs[i], m->procs[i].end);
            latest = e > latest ? e : latest;
        }
    return latest;
}

int model_proc_running(const struct model *m, size_t pi, int64_t latest)
{
    const struct proc *p = &m->procs[pi];
    if (p->has_end || p->has_signal || !p->has_heartbeat)
        return 0;
    if (p->read_ns)
        latest = p->read_ns - m->t0;
    return model_proc_window(m, pi) || latest == INT64_MIN || latest - model_aligned(m, p, p->end) < STALE_NS;
}
