/* whatif_out.c: the what-if predictions written (see whatif_out.h). */
#include "viewer/write/whatif_out.h"
#include "viewer/write/json.h"
#include "common/term_text.h"
#include "viewer/model/steps.h"
#include "viewer/write/text_wrap.h"

#include <stdlib.h>
#include <string.h>

int whatif_reliable(const struct whatif_proc *w)
{
    return w->steps > 0 && w->measured_ns > 0 && (double)w->abs_err_ns / (double)w->measured_ns <= WHATIF_RELIABLE &&
           !w->unrecorded_ns;
}

/* How much of the replay's shortfall its unexplained GPU starts must
 * account for to be named its cause. */
#define ROUGH_EXPLAINED 0.5

const char *whatif_rough_text(const struct whatif_proc *w, char *buf, size_t len)
{
    *buf = 0;
    if (whatif_reliable(w) || !w->steps || w->measured_ns <= 0) /* (a damaged file's) */
        return buf;
    if (w->unrecorded_ns > 0) {
        snprintf(buf, len,
                 "the program's own profiler held CUPTI %.1f ms of the run: what the GPU did then is not in the"
                 " graph, which replays the host's time there alone",
                 (double)w->unrecorded_ns / 1e6);
        return buf;
    }
    /* (in doubles: a damaged file's sums are anything) */
    double short_ms = ((double)w->measured_ns - (double)w->replayed_ns) / (double)w->steps / 1e6;
    double unexpl_ms = (double)w->unexplained_ns / (double)w->steps / 1e6;
    if (short_ms > 0 && unexpl_ms >= ROUGH_EXPLAINED * short_ms)
        snprintf(buf, len,
                 "its GPU started work %.2f ms a step later than its launches and the work before them explain"
                 " (another stream's kernels holding the GPU, another process on it); the replay keeps at most"
                 " %.2f ms of each such delay, and comes out %.2f ms a step short",
                 unexpl_ms, WHATIF_LAT_CAP_NS / 1e6, short_ms);
    else if (short_ms > 0)
        snprintf(buf, len,
                 "%.2f ms a step short, %.2f ms of it from GPU starts the graph cannot explain; the rest is host"
                 " time kept as measured that the replay moved (a thread that waited for the GPU in a way the"
                 " graph does not see: a poll, a spin on a flag)",
                 short_ms, unexpl_ms);
    else
        snprintf(buf, len,
                 "%.2f ms a step long: the replay waits where the run did not (a dependency the graph assumes"
                 " that the run did not have)",
                 -short_ms);
    return buf;
}

const char *const cp_kind_names[] = { "host", "call", "kernel", "collective", "copy", "gpu_gap", "launch", "other" };

static const struct whatif_proc *proc_of(const struct findings *fs, int proc)
{
    return proc >= 0 && (size_t)proc < fs->nwhatif && fs->whatif[proc].steps ? &fs->whatif[proc] : NULL;
}

static int joint_reliable(const struct findings *fs);

/* Whether a rank's replay has stretches without GPU records (rough). */
static int unrecorded_any(const struct findings *fs)
{
    for (size_t i = 0; i < fs->nwhatif; i++)
        if (fs->whatif[i].steps && fs->whatif[i].unrecorded_ns)
            return 1;
    return 0;
}

/* A finding's prediction: its rank's replay's, or (comm.straggler,
 * gpu.idle) every rank's together. */
static int finding_reliable(const struct findings *fs, const struct finding *f, const struct whatif_proc *w)
{
    return f->kind == F_COMM_STRAGGLER || f->kind == F_GPU_IDLE ? joint_reliable(fs) : whatif_reliable(w);
}

static double ms_per_step(int64_t ns, int64_t steps)
{
    return steps ? (double)ns / (double)steps / 1e6 : 0;
}

void whatif_json_finding(FILE *out, const struct findings *fs, const struct finding *f)
{
    const struct whatif_proc *w = proc_of(fs, f->proc);
    if (!f->wi_steps || !w)
        return;
    fprintf(out, ", \"whatif\": {\"steps\": %lld, \"step_ms_now\": %.3f, \"step_ms_fixed\": %.3f, \"saving_ms\": %.3f,"
                 " \"reliable\": %s}",
            (long long)f->wi_steps, ms_per_step(f->wi_now_ns, f->wi_steps), ms_per_step(f->wi_fixed_ns, f->wi_steps),
            ms_per_step(f->wi_now_ns - f->wi_fixed_ns, f->wi_steps), finding_reliable(fs, f, w) ? "true" : "false");
}

/* Whether every rank replayed together gives the measured steps back:
 * their mean within WHATIF_RELIABLE. */
static int joint_reliable(const struct findings *fs)
{
    double sum = 0;
    int n = 0;
    for (size_t i = 0; i < fs->nwhatif; i++)
        if (fs->whatif[i].steps) {
            if (fs->whatif[i].unrecorded_ns) /* a rank's GPU not known for a while: rough (whatif_reliable) */
                return 0;
            sum += (double)fs->whatif[i].measured_ns / (double)fs->whatif[i].steps;
            n++;
        }
    double mean = n ? sum / n : 0;
    return mean > 0 && (fs->wjob.now_ns > mean ? fs->wjob.now_ns - mean : mean - fs->wjob.now_ns) <= WHATIF_RELIABLE * mean;
}

int whatif_reference(const struct model *m, const struct findings *fs)
{
    int best = -1;
    double least = 0;
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++) {
        const struct whatif_proc *w = &fs->whatif[i];
        if (!w->steps)
            continue;
        double share = w->replayed_ns ? (double)w->nccl_ns / (double)w->replayed_ns : 0;
        if (best < 0 || share < least) {
            best = (int)i;
            least = share;
        }
    }
    return best;
}

void whatif_json(FILE *out, const struct model *m, const struct findings *fs)
{
    fprintf(out, ",\n\"whatif\": [");
    int first = 1;
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++) {
        const struct whatif_proc *w = &fs->whatif[i];
        if (!w->steps)
            continue;
        fprintf(out, "%s\n  {\"rank\": %d, \"pid\": %d, \"steps\": %lld, \"step_ms_measured\": %.3f,"
                     " \"step_ms_replayed\": %.3f, \"replay_error\": %.4f, \"reliable\": %s,"
                     " \"step_ms_all_fixed\": %.3f, \"nccl_ms\": %.3f",
                first ? "" : ",", m->procs[i].rank, m->procs[i].pid, (long long)w->steps,
                ms_per_step(w->measured_ns, w->steps), ms_per_step(w->replayed_ns, w->steps),
                w->measured_ns ? (double)w->abs_err_ns / (double)w->measured_ns : 0, whatif_reliable(w) ? "true" : "false",
                ms_per_step(w->all_fixed_ns, w->steps), ms_per_step(w->nccl_ns, w->steps));
        fprintf(out, ", \"gpu_unexplained_ms\": %.3f", ms_per_step(w->unexplained_ns, w->steps));
        char why[400];
        if (*whatif_rough_text(w, why, sizeof why)) {
            fputs(", \"rough_why\": ", out);
            json_string(out, why);
        }
        if (w->warmup_steps)
            fprintf(out, ", \"warmup_steps\": %lld, \"warmup_ms\": %.3f", (long long)w->warmup_steps,
                    (double)w->warmup_ns / 1e6);
        if (w->lead_steps) /* the step whose end starts the clock of those timed */
            fprintf(out, ", \"lead_steps\": %lld", (long long)w->lead_steps);
        if (w->cp_ns) {
            fprintf(out, ", \"critical_path\": {\"iteration\": %lld, \"ms\": %.3f, \"parts\": [", (long long)w->cp_iter,
                    (double)w->cp_ns / 1e6);
            for (int k = 0; k < w->nparts; k++) {
                fprintf(out, "%s{\"kind\": \"%s\", \"name\": ", k ? ", " : "", cp_kind_names[w->parts[k].kind]);
                json_string(out, w->parts[k].name);
                fprintf(out, ", \"ms\": %.3f}", (double)w->parts[k].ns / 1e6);
            }
            fprintf(out, "]}");
        }
        fprintf(out, "}");
        first = 0;
    }
    fprintf(out, "\n]");
    int windowed = 0;
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++)
        windowed += fs->whatif[i].windowed;
    if (windowed)
        fprintf(out, ",\n\"whatif_alone\": {\"ranks\": %d, \"why\": \"read a window at a time: replayed on their own,"
                     " their measured arrivals standing when every rank is replayed together\"}", windowed);
    int ref = whatif_reference(m, fs);
    if (ref >= 0) {
        const struct whatif_proc *w = &fs->whatif[ref];
        /* every rank replayed together, when made: its collectives wait for their last member */
        const struct whatif_job *j = &fs->wjob;
        fprintf(out, ",\n\"whatif_job\": {\"reference_rank\": %d, \"step_ms_now\": %.3f, \"step_ms_all_fixed\": %.3f,"
                     " \"reliable\": %s, \"ranks_together\": %s}",
                m->procs[ref].rank, j->made ? j->now_ns / 1e6 : ms_per_step(w->replayed_ns, w->steps),
                j->made ? j->all_fixed_ns / 1e6 : ms_per_step(w->all_fixed_ns, w->steps),
                (j->made ? joint_reliable(fs) : whatif_reliable(w)) ? "true" : "false", j->made ? "true" : "false");
    }
}

const char *whatif_text_finding(const struct findings *fs, const struct finding *f, char *buf, size_t len)
{
    const struct whatif_proc *w = proc_of(fs, f->proc);
    buf[0] = 0;
    if (!f->wi_steps || !w)
        return buf;
    snprintf(buf, len, "a step %.2f ms -> %.2f ms if fixed (%s steps replayed, %lld of them%s)",
             ms_per_step(f->wi_now_ns, f->wi_steps), ms_per_step(f->wi_fixed_ns, f->wi_steps),
             f->kind == F_COMM_STRAGGLER || f->kind == F_GPU_IDLE ? "every rank's" : "its rank's",
             (long long)f->wi_steps,
             finding_reliable(fs, f, w) ? ""
             : (f->kind == F_COMM_STRAGGLER || f->kind == F_GPU_IDLE ? unrecorded_any(fs) : w->unrecorded_ns > 0)
                 ? "; a rank's GPU was not recorded for a while (its own profiler held CUPTI), take it as rough"
                 : "; the replay is off by more than 2%, take it as rough");
    return buf;
}

const char *whatif_warmup_text(const struct model *m, const struct findings *fs, char *buf, size_t len)
{
    size_t at = 0, shown = 0, more = 0;
    buf[0] = 0;
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++) {
        const struct whatif_proc *w = &fs->whatif[i];
        if (!w->steps || !w->warmup_steps)
            continue;
        if (shown == 4 || at >= len) {
            more++;
            continue;
        }
        int k = w->warmup_steps == 1
                    ? snprintf(buf + at, len - at, "%srank %d's first step (%.2f ms)", shown ? ", " : "",
                               m->procs[i].rank, (double)w->warmup_ns / 1e6)
                    : snprintf(buf + at, len - at, "%srank %d's first %lld steps (%.2f ms)", shown ? ", " : "",
                               m->procs[i].rank, (long long)w->warmup_steps, (double)w->warmup_ns / 1e6);
        at += k > 0 ? (size_t)k : 0;
        shown++;
    }
    if (more && at < len)
        snprintf(buf + at, len - at, " and %zu more ranks' first steps", more);
    return buf;
}

void whatif_text(FILE *out, const struct model *m, const struct findings *fs)
{
    int any = 0, windowed = 0, lead = 0, ranks = 0;
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++) {
        windowed += fs->whatif[i].windowed;
        lead += fs->whatif[i].steps && fs->whatif[i].lead_steps;
        ranks += fs->whatif[i].steps != 0;
    }
    for (size_t i = 0; i < fs->nwhatif && i < m->nprocs; i++) {
        const struct whatif_proc *w = &fs->whatif[i];
        if (!w->steps)
            continue;
        if (!any)
            fprintf(out, "\nWhat if it were fixed (each rank's steps replayed on its dependency graph%s):\n"
                         "  rank   steps   measured ms  replayed ms  error   all fixed ms\n",
                    !lead ? "" : lead == ranks ? ",\n  timed from the first one's end"
                                               : ",\n  timed from the first one's end where a rank has 6 or more");
        any = 1;
        fprintf(out, "  %4d  %6lld  %12.2f  %11.2f  %5.1f%%  %12.2f%s\n", m->procs[i].rank, (long long)w->steps,
                ms_per_step(w->measured_ns, w->steps), ms_per_step(w->replayed_ns, w->steps),
                w->measured_ns ? 100.0 * (double)w->abs_err_ns / (double)w->measured_ns : 0,
                ms_per_step(w->all_fixed_ns, w->steps), whatif_reliable(w) ? "" : "  (rough)");
    }
    for (size_t i = 0, shown = 0; any && i < fs->nwhatif && i < m->nprocs; i++) {
        char why[400];
        if (!fs->whatif[i].steps || !*whatif_rough_text(&fs->whatif[i], why, sizeof why))
            continue;
        if (!shown++) /* (or the GPU not recorded for a while: the reason says so) */
            fprintf(out, "  Rough (the replay as measured over %.0f%% off%s), why:\n", 100 * WHATIF_RELIABLE,
                    unrecorded_any(fs) ? ", or a rank's GPU not recorded" : "");
        text_para(out, "    ", 4, "rank %d: %s.", m->procs[i].rank, why);
    }
    char wu[400];
    if (any && *whatif_warmup_text(m, fs, wu, sizeof wu)) {
        fprintf(out, "  Left out as warm-up (a step's start to the next's over %dx the median):\n", STEP_WARMUP_FACTOR);
        text_para(out, "    ", 4, "%s.", wu);
    }
    if (windowed)
        fprintf(out, "%s  %d rank(s) read a window at a time (more than the report holds at once): replayed on\n"
                     "  their own; replaying every rank together, their measured arrivals stand.\n",
                any ? "" : "\nWhat if it were fixed:\n", windowed);
    int ref = whatif_reference(m, fs);
    if (ref >= 0 && fs->whatif[ref].cp_ns) {
        const struct whatif_proc *w = &fs->whatif[ref];
        char t[400];
        fprintf(out, "  What sets the step (rank %d, step %lld, %.2f ms: its critical path, the longest first):\n",
                m->procs[ref].rank, (long long)w->cp_iter, (double)w->cp_ns / 1e6);
        for (int k = 0; k < w->nparts; k++)
            fprintf(out, "    %7.2f ms %5.1f%%  %-10s %s\n", (double)w->parts[k].ns / 1e6,
                    100.0 * (double)w->parts[k].ns / (double)w->cp_ns, cp_kind_names[w->parts[k].kind],
                    term_cell(w->parts[k].name, 62, TERM_CUT, t, sizeof t));
    }
    if (fs->wjob.made)
        fprintf(out, "  Every rank's steps replayed together (a collective ends when its last member arrived):\n"
                     "  a step %.2f ms now, %.2f ms with every finding above fixed.\n",
                fs->wjob.now_ns / 1e6, fs->wjob.all_fixed_ns / 1e6);
    else if (ref >= 0 && m->nprocs > 1)
        fprintf(out, "  The job goes at the pace of rank %d, which waits least for the others in its collectives:\n"
                     "  a step %.2f ms now, %.2f ms with every finding above fixed.\n",
                m->procs[ref].rank, ms_per_step(fs->whatif[ref].replayed_ns, fs->whatif[ref].steps),
                ms_per_step(fs->whatif[ref].all_fixed_ns, fs->whatif[ref].steps));
}
