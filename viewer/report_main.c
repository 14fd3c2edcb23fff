/* report_main.c: the gputrace-report command.
 *
 *   gputrace-report [options] run.db [more.db ...]
 *
 * Reads one run (the latest, or --run ID) from one or more databases (a
 * run directory's, one per process, or files written elsewhere: other
 * hosts, %h/%p/%r patterns), computes every finding,
 * and prints the report as text or JSON; optionally writes a Chrome trace.
 * Exit status: 0, 1 on bad input (one line on stderr), 2 on bad usage
 * (an output that would overwrite an input or another output),
 * 3 when a --fail-on kind was found. */
#include "format/rundir.h"
#include "viewer/read/load.h"
#include "viewer/analyse/analysis_p2p.h"
#include "viewer/analyse/clock_align.h"
#include "viewer/model/comm_kernels.h"
#include "viewer/analyse/coll_spill.h"
#include "viewer/analyse/order_match.h"
#include "viewer/write/html.h"
#include "viewer/analyse/findings.h"
#include "viewer/analyse/passes.h"
#include "viewer/write/out_file.h"
#include "viewer/write/out_paths.h"
#include "viewer/write/output.h"
#include "viewer/huge_pages.h"
#include "viewer/proc_jobs.h"
#include "viewer/proc_report.h"
#include "viewer/report_cli.h"
#include "viewer/trace_pass.h"
#include "import/import.h"
#include "viewer/model/tmpfiles.h"
#include "viewer/read/db_open.h"
#include "viewer/read/import_inputs.h"
#include "viewer/analyse/summary.h"
#include "common/term_text.h"

#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Every file the report reads for the paths it was given, with what each
 * is: each file named; each database of a run directory; each trace of a
 * directory of Kineto traces (import_inputs.h).  What the outputs are
 * checked against, before anything is written (out_paths.h). */
struct in_files {
    char **v;
    const char **what; /* "the input database", "the input trace" */
    size_t n, cap;
};

static void in_files_add(struct in_files *f, const char *path, const char *what)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? 2 * f->cap : 16;
        if (!(f->v = realloc(f->v, f->cap * sizeof *f->v)) || !(f->what = realloc(f->what, f->cap * sizeof *f->what)))
            model_out_of_memory();
    }
    if (!(f->v[f->n] = strdup(path)))
        model_out_of_memory();
    f->what[f->n++] = what;
}

static void in_files_of(struct in_files *f, const char *arg)
{
    static const char db[] = "the input database", trace[] = "the input trace";
    struct stat st;
    char **v = NULL;
    int n, there = stat(arg, &st) == 0;
    if (!there || !S_ISDIR(st.st_mode)) {
        enum import_format k = there && S_ISREG(st.st_mode) ? import_detect(arg) : IMPORT_NONE;
        in_files_add(f, arg, k == IMPORT_KINETO || k == IMPORT_NSYS ? trace : db);
        return;
    }
    if ((n = import_input_files(arg, &v)) > 0) {
        for (int k = 0; k < n; k++)
            in_files_add(f, v[k], trace);
    } else if (n == 0 && (n = gt_rundir_list(arg, &v)) > 0) { /* (none: the read says why) */
        for (int k = 0; k < n; k++)
            in_files_add(f, v[k], db);
    } else if (n < 0 && errno == ENOMEM) {
        model_out_of_memory();
    }
    gt_rundir_free(v, n > 0 ? n : 0);
}

static void in_files_free(struct in_files *f)
{
    for (size_t i = 0; i < f->n; i++)
        free(f->v[i]);
    free(f->v);
    free(f->what);
}

/* Refuses, before anything is written, an output that is a file the report
 * reads (or one SQLite keeps beside one) or another output: 0, or -1
 * after one line on stderr.  Before the run is read, m is NULL and the
 * Kineto files unknown; after, the databases read (m->paths: the import's
 * among them) are checked too. */
static int refuse_overwrites(const struct in_files *f, const struct model *m, const char *trace, const char *html,
                             char *const *kineto_files, int force)
{
    size_t nk = kineto_files ? m->nprocs : 0, n = 0, cap = (trace ? 1 : 0) + (html ? 1 : 0) + nk;
    char **outs = calloc(cap + 1, sizeof *outs), **what = calloc(cap + 1, sizeof *what);
    char **names = calloc(cap + 1, sizeof *names);
    struct in_files all = { 0 };
    for (size_t i = 0; i < f->n; i++)
        in_files_add(&all, f->v[i], f->what[i]);
    for (size_t i = 0; m && i < m->ndbs; i++)
        in_files_add(&all, m->paths[i], "the input database");
    if (!outs || !what || !names)
        model_out_of_memory();
    if (trace) {
        outs[n] = (char *)trace;
        what[n++] = "--chrome-trace";
    }
    if (html) {
        outs[n] = (char *)html;
        what[n++] = "--html";
    }
    for (size_t i = 0; i < nk; i++) {
        const struct proc *p = &m->procs[i];
        char name[64];
        if (p->rank >= 0)
            snprintf(name, sizeof name, "the Kineto trace of rank %d (pid %d)", p->rank, p->pid);
        else
            snprintf(name, sizeof name, "the Kineto trace of pid %d", p->pid);
        if (!(names[n] = strdup(name)))
            model_out_of_memory();
        outs[n] = kineto_files[i];
        what[n] = names[n];
        n++;
    }
    char err[PATH_MAX * 3];
    int rc = out_paths_check(all.v, all.what, all.n, outs, what, n, err, sizeof err);
    for (size_t i = 0; i < n && !rc; i++) /* nor over a file of the user's, or of another tool */
        rc = out_paths_foreign(outs[i], what[i], outs[i] == trace ? OUT_CHROME : outs[i] == html ? OUT_HTML : OUT_KINETO,
                               force, err, sizeof err);
    char shown[4 * sizeof err];
    if (rc)
        fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
    for (size_t i = 0; i < n; i++)
        free(names[i]);
    free(names);
    free(outs);
    free(what);
    in_files_free(&all);
    return rc;
}

/* The inputs, each a copy: a database, or every database of a run
 * directory but those with no trace in them (skipped).  Returns 0, or -1
 * after a line on stderr. */
struct inputs {
    char **v;
    int n, cap;
    char **skipped; /* files of a run directory with no trace in them, left out */
    size_t nskipped;
    int skipped_cap;
};

static int push(char ***v, int n, int *cap, const char *path)
{
    if (n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        char **g = realloc(*v, (size_t)c * sizeof *g);
        if (!g)
            return -1;
        *v = g;
        *cap = c;
    }
    return ((*v)[n] = strdup(path)) ? 0 : -1;
}

static int input_add(struct inputs *in, const char *path)
{
    if (push(&in->v, in->n, &in->cap, path) != 0)
        return -1;
    in->n++;
    return 0;
}

/* The files of a run directory, but those with no trace in them: an empty
 * <host>-<pid>.db (what the tracer leaves of a process whose first write
 * failed, on a full disk) once made the whole run unreportable.  Each is
 * left out, the report says so (a line on stderr, a note: model.h); a
 * directory none of whose files has a trace is still an error. */
/* A `gputrace merge` output among the run's own files holds their
 * processes again (merged into the directory, every total was doubled):
 * it is left out, with a line, unless the directory holds nothing else. */
static int leave_merges_out(const char *dir, char **v, int n, char *is_merge)
{
    int merges = 0, others = 0;
    const char *first = NULL;
    char w[32];
    for (int k = 0; k < n; k++)
        if ((is_merge[k] = (char)model_db_is_merge(v[k]))) {
            first = first ? first : v[k];
            merges++;
        } else {
            others += !model_db_holds_nothing(v[k], w, sizeof w);
        }
    if (!merges || !others) { /* (beside files with nothing in them only: it is the run) */
        memset(is_merge, 0, (size_t)n);
        return 0;
    }
    char shown[4 * (PATH_MAX + 300)], line[2 * PATH_MAX + 300];
    const char *base = strrchr(first, '/') ? strrchr(first, '/') + 1 : first;
    snprintf(line, sizeof line, "warning: %s: %s%s is a gputrace merge output, the processes of the run's other files"
             " again: left out (report it alone to read it)", dir, base, merges > 1 ? " (and others)" : "");
    fprintf(stderr, "gputrace-report: %s\n", term_text(line, shown, sizeof shown));
    return merges;
}

static int rundir_add(struct inputs *in, const char *dir, char **v, int n)
{
    int used = 0, skipped = 0, cut = 0;
    char names[400] = "";
    char *is_merge = calloc((size_t)n + 1, 1);
    if (!is_merge)
        model_out_of_memory();
    leave_merges_out(dir, v, n, is_merge);
    for (int k = 0; k < n; k++) {
        char w[32];
        if (is_merge[k])
            continue;
        if (!model_db_holds_nothing(v[k], w, sizeof w)) {
            if (input_add(in, v[k]) != 0)
                model_out_of_memory();
            used++;
            continue;
        }
        if (push(&in->skipped, (int)in->nskipped, &in->skipped_cap, v[k]) != 0)
            model_out_of_memory();
        in->nskipped++;
        const char *base = strrchr(v[k], '/') ? strrchr(v[k], '/') + 1 : v[k];
        size_t l = strlen(names);
        if (!cut && l + strlen(base) + strlen(w) + 8 < sizeof names - 5)
            cut = snprintf(names + l, sizeof names - l, "%s%s (%s)", l ? ", " : "", base, w) < 0; /* (never) */
        else if (!cut++)
            snprintf(names + l, sizeof names - l, "%s...", l ? ", " : "");
        skipped++;
    }
    free(is_merge);
    char shown[4 * (sizeof names + PATH_MAX)], line[sizeof names + PATH_MAX + 200];
    if (!used) {
        snprintf(line, sizeof line, "%s: no file of this run directory holds a trace: %s", dir, names);
        fprintf(stderr, "gputrace-report: %s\n", term_text(line, shown, sizeof shown));
        return -1;
    }
    if (skipped) {
        snprintf(line, sizeof line, "warning: %s: %d file(s) with no trace in them left out (a process whose first"
                 " write failed?): %s", dir, skipped, names);
        fprintf(stderr, "gputrace-report: %s\n", term_text(line, shown, sizeof shown));
    }
    return 0;
}

static int inputs_add(struct inputs *in, const char *arg)
{
    struct stat st;
    char **v = NULL;
    int n = 0, rc = 0;
    if (stat(arg, &st) != 0 && errno == ENOENT) {
        /* what `gputrace record -- true` leaves: say why, not only what */
        fprintf(stderr, "gputrace-report: %s: no such file or run directory (gputrace record makes it at the first"
                        " CUDA or NCCL call of a traced process: a program that makes none leaves nothing)\n", arg);
        return -1;
    }
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode)) { /* a file, or what load_model will say is wrong with it */
        if (input_add(in, arg) == 0)
            return 0;
        fprintf(stderr, "gputrace-report: out of memory\n");
        return -1;
    }
    n = gt_rundir_list(arg, &v);
    if (n <= 0) {
        fprintf(stderr, "gputrace-report: %s: %s\n", arg,
                n < 0 ? strerror(errno) : "a directory without a database (*.db) in it");
        return -1;
    }
    rc = rundir_add(in, arg, v, n);
    gt_rundir_free(v, n);
    return rc;
}

/* A run directory holds a file per process, and each is read through two
 * connections, each with the file, its -wal and its -shm open: with
 * hundreds of ranks that passes the usual soft limit of 1024 descriptors.
 * The soft limit is raised as far as the hard one allows. */
static void room_for(int nfiles)
{
    struct rlimit r;
    rlim_t want = (rlim_t)nfiles * 6 + 64;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0 || r.rlim_cur == RLIM_INFINITY || r.rlim_cur >= want)
        return;
    r.rlim_cur = r.rlim_max == RLIM_INFINITY || r.rlim_max > want ? want : r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
}

static void inputs_free(struct inputs *in)
{
    for (int k = 0; k < in->n; k++)
        free(in->v[k]);
    free(in->v);
    gt_rundir_free(in->skipped, (int)in->nskipped);
}

/* Two runs recorded into one directory: the latest is reported, and said
 * so in one line. */
static void warn_other_runs(const struct model *m)
{
    if (!m->nother_runs)
        return;
    char others[400] = "", line[sizeof others + sizeof m->run_id + 200], shown[4 * sizeof line];
    for (size_t i = 0, l = 0; i < m->nother_runs; i++, l = strlen(others))
        if (l + strlen(m->other_runs[i]) + 2 + 5 < sizeof others) {
            snprintf(others + l, sizeof others - l, "%s%s", i ? ", " : "", m->other_runs[i]);
        } else {
            snprintf(others + l, sizeof others - l, ", ...");
            break;
        }
    snprintf(line, sizeof line, "warning: the inputs hold %zu runs: this report is of the latest, %s; not of %s"
             " (--run ID reports another)", m->nother_runs + 1, m->run_id, others);
    fprintf(stderr, "gputrace-report: %s\n", term_text(line, shown, sizeof shown));
}

/* The Chrome trace finished and put in place (out_file.h: only when
 * whole), or one line why not (open_errno: why it could not be opened,
 * when ct is NULL); where it is said in a text report.  0, or -1. */
static int close_chrome_trace(const char *trace, struct chrome_trace *ct, int open_errno, const struct model *m,
                              struct findings *fs, struct coll_spill *spill, int text)
{
    long n = -1;
    int why = open_errno;
    if (ct) {
        n = chrome_trace_close(ct, m, fs, spill);
        why = errno;
        if (n >= 0 && out_file_commit(trace) != 0) {
            n = -1;
            why = errno;
        }
    }
    if (n < 0) {
        char shown[4096]; /* as main's other lines show a name from the user */
        fprintf(stderr, "gputrace-report: cannot write %s: %s\n", term_text(trace, shown, sizeof shown), strerror(why));
        return -1;
    }
    if (text)
        printf("\nChrome trace: %s (%ld events); open it at https://ui.perfetto.dev or chrome://tracing\n", trace, n);
    return 0;
}

/* --fail-on: 3, after one line naming every kind asked for that was found
 * (in the order of --help), or 0. */
static int fail_on_found(const struct findings *fs, const int *fail_on)
{
    int found[F_KIND_COUNT] = { 0 }, rc = 0;
    for (size_t i = 0; i < fs->n; i++) /* what is shown: none under --min-cost */
        found[fs->v[i].kind] |= fail_on[fs->v[i].kind] && finding_shown(&fs->v[i]);
    for (int kind = 0; kind < F_KIND_COUNT; kind++)
        if (found[kind]) {
            fprintf(stderr, "%s%s", rc ? ", " : "gputrace-report: found ", finding_names[kind]);
            rc = 3;
        }
    if (rc)
        fputs(" (--fail-on)\n", stderr);
    return rc;
}

int main(int argc, char **argv)
{
    report_huge_pages(argv); /* first: it may start the report again */
    /* A fixed, low mmap threshold: glibc otherwise raises it (and its trim
     * threshold, to twice that) when the first big array is freed, and the
     * next rank's sort keys and CUPTI records then stay in a heap it no
     * longer trims: 200 -> 174 MiB peak on the 10M-record bench file at 32
     * MiB.  Arrays of 1 MiB and more are mapped, and given back whole when
     * freed: the unions and indexes of one rank (a few MiB each) otherwise
     * left holes under the next rank's, 174 -> 170 MiB (and 184 once
     * the unions were sized exactly).  Since each dropped window gives its
     * pages back by malloc_trim (load_proc.c), an 8 MiB threshold has the
     * same peak (103 MiB on 4M records over 8 ranks, 191 MiB on an 8M-record
     * rank read in windows), and on several workers it is much the faster:
     * each mapped array freed is an munmap, which in a process of several
     * threads stops the others' page faults and interrupts their CPUs to
     * flush the TLB.  4M records, 8 ranks, run directory, 2 workers: 1.47
     * -> 1.24 s, system time 0.62 -> 0.33 s (1 worker: 2.27 -> 2.26 s). */
    mallopt(M_MMAP_THRESHOLD, 8 << 20);
    /* no global lock around each of SQLite's allocations: two threads read
     * a big table's halves (rowruns_each_split), and nothing here asks
     * SQLite how much memory it holds */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    struct report_cli cli;
    int usage_rc = report_cli_parse(argc, argv, &cli);
    if (usage_rc >= 0) {
        free(cli.args);
        return usage_rc;
    }
    struct report_opts o = cli.o;
    const char *format = cli.format, *trace = cli.trace, *run = cli.run, *range = cli.range, *kineto = cli.kineto,
               *html = cli.html;
    int charges = cli.charges, jobs = cli.jobs, any_fail_on = cli.any_fail_on;
    const int *fail_on = cli.fail_on;
    const char **args = cli.args; /* the inputs as given */
    int npaths = cli.npaths;
    struct inputs in = { 0 };
    /* what the report makes goes, however it ends (tmpfiles.h) */
    tmpfiles_init();
    /* no output over a file the report reads, nor over another output,
     * before anything is written: the import's database is the first */
    struct in_files named = { 0 };
    for (int k = 0; k < npaths; k++)
        in_files_of(&named, args[k]);
    if (refuse_overwrites(&named, NULL, trace, html, NULL, cli.force) != 0) {
        in_files_free(&named);
        free(args);
        return 2;
    }
    /* traces of other tools (Kineto, nsys) are imported first (import/) */
    atexit(import_inputs_cleanup);
    int imported = import_inputs(args, &npaths, trace, kineto);
    if (imported < 0) {
        in_files_free(&named);
        free(args);
        return imported == -2 ? 2 : 1;
    }
    /* read once the options are known good: a bad option is bad usage (2)
     * even after an input that is not there */
    for (int k = 0; k < npaths; k++)
        if (inputs_add(&in, args[k]) != 0) {
            inputs_free(&in);
            in_files_free(&named);
            free(args);
            return 1;
        }
    free(args);
    char **paths = in.v;
    npaths = in.n;
    jobs = report_jobs(jobs, SIZE_MAX);
    room_for(npaths + 2 * jobs); /* each worker two connections more */
    struct model m = { 0 };
    m.progress = isatty(2);
    m.jobs = jobs;
    char err[1024], shown[4 * sizeof err]; /* err as stderr shows it (term_text.h): names from the file */
    if (load_model(&m, paths, npaths, run, err, sizeof err) != 0) {
        fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown)); /* it may quote the file */
        load_free(&m);
        inputs_free(&in);
        in_files_free(&named);
        return 1;
    }
    m.skipped = in.skipped;
    m.nskipped = in.nskipped;
    char **kineto_files = kineto ? kineto_paths(kineto, &m, err, sizeof err) : NULL;
    if (refuse_overwrites(&named, &m, trace, html, kineto_files, cli.force) != 0) {
        kineto_paths_free(kineto_files, m.nprocs);
        load_free(&m);
        inputs_free(&in);
        in_files_free(&named);
        return 2;
    }
    in_files_free(&named);
    if (kineto && err[0]) /* processes of one rank: which file is whose */
        fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
    int rc = 0;
    /* Each process in turn: its calls and GPU operations are loaded, analysed,
     * summarised and exported, then freed (model.h) */
    struct findings fs = { 0 };
    fs.range_filter = range;
    if (range && !findings_range_known(&m, range)) /* a typo: said, and the report goes on (the exit status as without it) */
        fprintf(stderr, "gputrace-report: warning: no NVTX range is named '%s': --range leaves no call-site finding\n",
                term_text(range, shown, sizeof shown));
    fs.show_charges = charges;
    struct tmpstore aside; /* the ledger's intervals, every rank's, until the end (ledger.h) */
    tmpstore_open(&aside);
    fs.aside = &aside;
    struct summary s;
    summary_begin(&m, &s);
    s.range_filter = range;
    struct chrome_trace *ct = NULL;
    int trace_errno = 0;
    /* on several hosts, the traces wait for their clocks' alignment */
    int later = clock_align_hosts(&m), trace_later = trace && later;
    if (trace && !trace_later && !(ct = chrome_trace_open(trace, &m, isatty(2))))
        trace_errno = errno;
    int kineto_ok = kineto && kineto_begin(kineto, err, sizeof err) == 0;
    if (kineto && !kineto_ok) {
        fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
        rc = 1;
    }
    struct coll_spill spill; /* every rank's collectives, for what looks across ranks */
    coll_spill_open(&spill, m.nprocs);
    if ((size_t)jobs > m.nprocs) /* a worker per process at most */
        jobs = (int)m.nprocs;
    if (getenv("GPUTRACE_REPORT_JOBS")) /* whoever sets it sees what it did */
        fprintf(stderr, "gputrace-report: %zu processes on %d worker%s\n", m.nprocs, jobs, jobs == 1 ? "" : "s");
    struct report_sinks k = { &o, &fs, &s, ct, kineto_ok && !later ? kineto_files : NULL, &spill, NULL };
    double workers_cpu = 0; /* the busiest worker's CPU seconds, each pass */
    if (report_processes(&m, &k, jobs, &kineto_ok, &workers_cpu) != 0)
        rc = 1;
    load_progress_done(&m);
    clock_align_fit(&m, &spill);
    if (trace_later && !(ct = chrome_trace_open(trace, &m, isatty(2))))
        trace_errno = errno;
    if (later && ((trace_later && ct) || kineto_ok) &&
        trace_processes(&m, trace_later ? ct : NULL, kineto_ok ? kineto_files : NULL, jobs, &kineto_ok,
                        &workers_cpu) != 0)
        rc = 1;
    struct pass_ctx across = { &m, &o, &fs, &spill };
    passes_across(&across); /* the analyses' order: analyse/passes.c */
    clock_align_confidence(&m, &fs, &spill);
    findings_finish(&fs, &o, &m);
    summary_end(&s);
    /* an output sent to standard output is all that goes there */
    int stdout_taken = out_file_is_stdout(trace) || out_file_is_stdout(html);
    for (size_t i = 0; kineto_files && i < m.nprocs && !stdout_taken; i++)
        stdout_taken = kineto_files[i] && out_file_is_stdout(kineto_files[i]);
    if (!stdout_taken && !strcmp(format, "json"))
        output_json(stdout, &m, &s, &fs);
    else if (!stdout_taken)
        output_text(stdout, &m, &s, &fs);
    if (!strcmp(format, "text") && !stdout_taken)
        import_notes_text(stdout, &m);
    if (imported > 0)
        rc = 1; /* a trace cut short: its import said so on stderr */
    if (trace && close_chrome_trace(trace, ct, trace_errno, &m, &fs, &spill, !strcmp(format, "text") && !stdout_taken) != 0)
        rc = 1;
    if (html && html_report_write(html, &m, &s, &fs, &spill, err, sizeof err) != 0) {
        fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
        rc = 1;
    } else if (html && out_file_commit(html) != 0) {
        snprintf(err, sizeof err, "cannot write %s: %s", html, strerror(errno));
        fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
        rc = 1;
    } else if (html && !strcmp(format, "text") && !stdout_taken) {
        printf("HTML report: %s (one page; open it in any browser, no network needed)\n", html);
    }
    for (size_t i = 0; kineto_ok && i < m.nprocs; i++) /* every rank's, or none */
        if (out_file_commit(kineto_files[i]) != 0) {
            snprintf(err, sizeof err, "cannot write %s: %s", kineto_files[i], strerror(errno));
            fprintf(stderr, "gputrace-report: %s\n", term_text(err, shown, sizeof shown));
            kineto_ok = 0;
            rc = 1;
        }
    out_file_discard_all(); /* what failed, or followed a failure */
    if (kineto_ok && !strcmp(format, "text") && !stdout_taken)
        printf("Kineto traces: %zu in %s/ (for Holistic Trace Analysis: TraceAnalysis(trace_dir=\"%s\"))\n", m.nprocs,
               kineto, kineto);
    /* one line on stderr: a file found damaged while reading says so, and
     * its damage is likely why the inputs seemed to hold another run (a
     * byte of a run id); the report's own note names the runs either way */
    if (m.damaged[0]) {
        fprintf(stderr, "gputrace-report: %s\n", term_text(m.damaged, shown, sizeof shown));
        rc = 1;
    } else {
        warn_other_runs(&m);
    }
    if (any_fail_on && !rc)
        rc = fail_on_found(&fs, fail_on);
    struct timespec cpu;
    if (getenv("GPUTRACE_REPORT_JOBS") && clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
        /* on idle CPUs, the report takes about their sum (this thread waits while the workers work) */
        fprintf(stderr, "gputrace-report: CPU seconds: %.3f on the report's thread, %.3f on the busiest worker\n",
                (double)cpu.tv_sec + (double)cpu.tv_nsec / 1e9, workers_cpu);
    coll_spill_close(&spill);
    kineto_paths_free(kineto_files, m.nprocs);
    summary_free(&s);
    findings_free(&fs);
    tmpstore_close(&aside);
    clock_align_free(&m);
    p2p_free(&m);
    order_match_free(&m);
    load_free(&m);
    inputs_free(&in);
    if (fflush(stdout) != 0)
        return 1;
    return rc;
}
