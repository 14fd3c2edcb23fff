/* report_cli.c: gputrace-report's options, declared once in a table: each
 * option's name, the value it takes, its help line and where the value
 * goes.  --help is written from the same table, so the two cannot drift. */
#include "viewer/report_cli.h"
#include "viewer/model/comm_kernels.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char usage_head[] =
    "usage: gputrace-report [options] run.db [more.db ...]\n"
    "\n"
    "Finds what wastes GPU time in a traced run, ranked by cost.  run.db is what\n"
    "`gputrace record -o run.db` made: a run directory, whose databases (one per\n"
    "process) are read as one run; or a database file.  Traces of other tools are\n"
    "read too (imported into $TMPDIR first, docs/import.md): PyTorch profiler\n"
    "(Kineto) JSON, plain or gzip, or a directory of them (one per rank), and\n"
    "Nsight Systems SQLite exports.\n"
    "\n"
    "options:\n";

static const char usage_tail[] =
    "\n"
    "finding kinds: sync.redundant sync.no_consumer sync.device_wide sync.implicit sync.scalar_read\n"
    "  copy.pageable copy.serialized comm.exposed comm.same_stream comm.straggler comm.mismatch\n"
    "  comm.hang gpu.idle comm.lazy_connect   (docs/report.md defines each)\n"
    "environment: GPUTRACE_REPORT_THREADS=1: each worker reads a big table in one thread, not two (the\n"
    "  same report); GPUTRACE_REPORT_JOBS=N: --jobs' default (set, it says on stderr how many workers\n"
    "  read how many processes);\n"
    "  TMPDIR: a folder for a scratch file that holds every rank's collectives while the report\n"
    "  compares ranks (default /tmp; kept in memory if it cannot be written);\n"
    "  GPUTRACE_REPORT_WINDOW_ROWS=N: a long rank is read a window of about N rows at a time\n"
    "  (default 1048576, for ranks of more than 4 windows; the same report); set, it says on stderr\n"
    "  how many windows each rank was read in;\n"
    "  GPUTRACE_REPORT_HUGE_PAGES=0: no transparent huge pages for the report's memory (by default it\n"
    "  asks glibc's malloc for them where the kernel gives them on advice: the same report)\n"
    "exit status: 0 ok, 1 bad input (also: not a regular file, a view where a table belongs), 2 bad usage\n"
    "  (also: an output that is an input database or another output; nothing is written), 3 a --fail-on\n"
    "  kind was found\n";

/* What an option's value is, and so how it is read. */
enum opt_kind {
    OPT_HELP, OPT_VERSION,
    OPT_FLAG,     /* no value: the int at `at` set to 1 */
    OPT_TEXT,     /* the value itself, a const char * at `at` */
    OPT_DOUBLE,   /* a number in [lo, hi], a double at `at` */
    OPT_INT,      /* ... an int */
    OPT_INT64,    /* ... an int64_t */
    OPT_MICROS,   /* ... in us, an int64_t of ns */
    OPT_CUSTOM,   /* read by `set` */
};

struct opt {
    const char *name, *alias; /* "--jobs", "-j" */
    const char *value;        /* what --help calls the value ("" for none) */
    const char *help;         /* its lines, the later ones '\n'-separated */
    enum opt_kind kind;
    size_t at;                /* offsetof(struct report_cli, ...) */
    double lo, hi;
    int (*set)(struct report_cli *c, const char *opt, char *v); /* 0, or -1 after a line on stderr */
};

static int set_format(struct report_cli *c, const char *opt, char *v)
{
    (void)opt;
    if (strcmp(v, "text") && strcmp(v, "json")) {
        fprintf(stderr, "gputrace-report: --format is text or json, not '%s'\n", v);
        return -1;
    }
    c->format = v;
    return 0;
}

static int set_kineto(struct report_cli *c, const char *opt, char *v)
{
    (void)opt;
    for (char *e = v + strlen(v); e > v + 1 && e[-1] == '/'; e--)
        e[-1] = 0; /* "kineto/" names the files kineto/rank-0.json, not kineto//rank-0.json */
    c->kineto = v;
    return 0;
}

static int kind_index(const char *name)
{
    for (int k = 0; k < F_KIND_COUNT; k++)
        if (!strcmp(finding_names[k], name))
            return k;
    return -1;
}

static int set_fail_on(struct report_cli *c, const char *opt, char *v)
{
    (void)opt;
    char *list = strdup(v), *save = NULL;
    if (!list)
        return -1;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (!strcmp(tok, "any")) {
            for (int k = 0; k < F_KIND_COUNT; k++)
                c->fail_on[k] = 1;
        } else if (kind_index(tok) < 0) {
            fprintf(stderr, "gputrace-report: --fail-on: unknown finding kind '%s' (see --help)\n", tok);
            free(list);
            return -1;
        } else {
            c->fail_on[kind_index(tok)] = 1;
        }
        c->any_fail_on = 1;
    }
    free(list);
    return 0;
}

static int set_comm_kernels(struct report_cli *c, const char *opt, char *v)
{
    (void)c, (void)opt;
    char err[256];
    if (comm_kernels_set(v, err, sizeof err)) {
        fprintf(stderr, "gputrace-report: --comm-kernels: %s\n", err);
        return -1;
    }
    return 0;
}

#define AT(field) offsetof(struct report_cli, field)
/* In the order --help lists them. */
static const struct opt opts[] = {
    { "--format", NULL, "text|json", "output format (default text)", OPT_CUSTOM, 0, 0, 0, set_format },
    { "--chrome-trace", NULL, "FILE", "also write a Chrome/Perfetto trace (open it at ui.perfetto.dev; - for\n"
      "standard output, the report then printed nowhere)", OPT_TEXT,
      AT(trace), 0, 0, NULL },
    { "--kineto", NULL, "DIR", "also write one Kineto (PyTorch profiler) trace per rank into DIR, for HTA",
      OPT_CUSTOM, 0, 0, 0, set_kineto },
    { "--html", NULL, "FILE", "also write the report as one HTML page with charts (opens offline; - for\n"
      "standard output)", OPT_TEXT,
      AT(html), 0, 0, NULL },
    { "--force", NULL, "", "replace an existing output file that gputrace did not write (by default only\n"
      "its own page or trace is replaced)", OPT_FLAG, AT(force), 0, 0, NULL },
    { "--run", NULL, "ID", "report this run (default: the latest)", OPT_TEXT, AT(run), 0, 0, NULL },
    { "--range", NULL, "NAME", "only what happened inside NVTX ranges named NAME (e.g. optimizer.step)", OPT_TEXT,
      AT(range), 0, 0, NULL },
    { "--fail-on", NULL, "KIND[,KIND...]", "exit 3 if such a finding exists (for CI gates); 'any' for all kinds",
      OPT_CUSTOM, 0, 0, 0, set_fail_on },
    { "--min-cost", NULL, "MS",
      "show findings, and fail --fail-on, only when they cost at least MS ms\n"
      "(default 1, or 0.5% of the longest process's wall time where that is\n"
      "less; a hang or a mismatch always); JSON lists the others, marked\n"
      "below_min_cost",
      OPT_DOUBLE, AT(o.min_cost_ms), 0, 1e9, NULL },
    { "--charges", NULL, "", "JSON: list the intervals of each rank's time charged to each finding", OPT_FLAG,
      AT(charges), 0, 0, NULL },
    { "--no-whatif", NULL, "", "do not replay each rank's steps to predict the step time with each finding fixed",
      OPT_FLAG, AT(o.no_whatif), 0, 0, NULL },
    { "--exposed-fraction", NULL, "F", "comm.exposed below this compute overlap (default 0.2)", OPT_DOUBLE,
      AT(o.exposed_fraction), 0, 1, NULL },
    { "--exposed-share", NULL, "F", "... in at least F of a call site's collectives (default 0.25)", OPT_DOUBLE,
      AT(o.exposed_share), 0, 1, NULL },
    { "--idle-gap-us", NULL, "N", "gpu.idle gaps of at least N us (default 100)", OPT_MICROS, AT(o.idle_gap_ns), 1,
      1e9, NULL },
    { "--scalar-bytes", NULL, "N", "sync.scalar_read reads at most N bytes (default 1024)", OPT_INT64,
      AT(o.scalar_bytes), 1, 1 << 30, NULL },
    { "--implicit-min-us", NULL, "N", "sync.implicit blocked at least N us (default 20)", OPT_MICROS,
      AT(o.implicit_min_ns), 0, 1e9, NULL },
    { "--min-repeats", NULL, "N", "'repeated at a call site' means N times (default 2)", OPT_INT, AT(o.min_repeats),
      1, 1e9, NULL },
    { "--straggler-fraction", NULL, "F", "comm.straggler caused more than F of all waiting (default 0.5)",
      OPT_DOUBLE, AT(o.straggler_fraction), 0, 1, NULL },
    { "--straggler-margin-us", NULL, "N", "'clearly last' means by N us (default 2000)", OPT_MICROS,
      AT(o.straggler_margin_ns), 0, 1e9, NULL },
    { "--straggler-clear-fraction", NULL, "F",
      "comm.straggler is clearly last in at least F of collectives (default 0.15)", OPT_DOUBLE,
      AT(o.straggler_clear_fraction), 0, 1, NULL },
    { "--comm-kernels", NULL, "PATTERNS",
      "kernels that are communication besides NCCL's (nccl*): comma-separated\n"
      "globs of function names; +PATTERNS adds to the default, '' leaves NCCL's\n"
      "only (default\n" COMM_KERNELS_DEFAULT_HELP ")",
      OPT_CUSTOM, 0, 0, 0, set_comm_kernels },
    { "--jobs", "-j", "N",
      "analyse N processes at a time, each on a thread of its own (default:\n"
      "GPUTRACE_REPORT_JOBS, else the online CPUs; at most one per process):\n"
      "the same report, byte for byte, as one (-j 1)",
      OPT_INT, AT(jobs), 1, 4096, NULL },
    { "--help", "-h", "", "this help", OPT_HELP, 0, 0, 0, NULL },
    { "--version", NULL, "", "the version", OPT_VERSION, 0, 0, 0, NULL },
};
#define NOPTS (sizeof opts / sizeof *opts)

/* One option's lines of --help: "  -j, --jobs N" then its help, the first
 * line from column 30 (at least two spaces after the name), the later
 * ones under it. */
static void usage_opt(FILE *out, const struct opt *p)
{
    char label[96];
    snprintf(label, sizeof label, "%s%s%s%s%s", p->alias ? p->alias : "", p->alias ? ", " : "", p->name,
             *p->value ? " " : "", p->value);
    int pad = 27 - (int)strlen(label);
    fprintf(out, "  %s%*s", label, pad < 2 ? 2 : pad, "");
    for (const char *h = p->help; *h;) {
        const char *nl = strchr(h, '\n');
        int n = nl ? (int)(nl - h) : (int)strlen(h);
        fprintf(out, "%.*s\n", n, h);
        h += n;
        if (*h == '\n') {
            h++;
            fprintf(out, "%29s", "");
        }
    }
}

static void usage(FILE *out)
{
    fputs(usage_head, out);
    for (size_t i = 0; i < NOPTS; i++)
        usage_opt(out, &opts[i]);
    fputs(usage_tail, out);
}

static int parse_num(const char *opt, const char *v, double lo, double hi, double *out)
{
    char *end;
    errno = 0;
    double x = strtod(v, &end);
    if (errno || end == v || *end || x < lo || x > hi) {
        fprintf(stderr, "gputrace-report: %s needs a number in %g..%g, not '%s'\n", opt, lo, hi, v);
        return -1;
    }
    *out = x;
    return 0;
}

static const struct opt *find_opt(const char *a)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (!strcmp(a, opts[i].name) || (opts[i].alias && !strcmp(a, opts[i].alias)))
            return &opts[i];
    return NULL;
}

/* Sets option p (as written: a) to v; -1 after a line on stderr. */
static int set_value(struct report_cli *c, const struct opt *p, const char *a, char *v)
{
    char *field = (char *)c + p->at;
    double x;
    switch (p->kind) {
    case OPT_TEXT:
        *(const char **)field = v;
        return 0;
    case OPT_CUSTOM:
        return p->set(c, a, v);
    default:
        break;
    }
    if (parse_num(a, v, p->lo, p->hi, &x))
        return -1;
    if (p->kind == OPT_DOUBLE)
        *(double *)field = x;
    else if (p->kind == OPT_INT)
        *(int *)field = (int)x;
    else if (p->kind == OPT_INT64)
        *(int64_t *)field = (int64_t)x;
    else /* OPT_MICROS */
        *(int64_t *)field = (int64_t)(x * 1000);
    return 0;
}

int report_cli_parse(int argc, char **argv, struct report_cli *c)
{
    memset(c, 0, sizeof *c);
    report_opts_default(&c->o);
    c->format = "text";
    c->args = calloc((size_t)argc, sizeof *c->args);
    for (int i = 1; i < argc; i++) {
        char *a = argv[i];
        const struct opt *p = find_opt(a);
        if (!p && !strncmp(a, "-j", 2) && a[2]) { /* -j4 */
            if (set_value(c, find_opt("-j"), "-j", a + 2))
                return 2;
            continue;
        }
        if (!p && a[0] == '-' && a[1]) {
            fprintf(stderr, "gputrace-report: unknown option '%s' (see --help)\n", a);
            return 2;
        }
        if (!p) {
            if (c->args)
                c->args[c->npaths++] = a;
            continue;
        }
        if (p->kind == OPT_HELP) {
            usage(stdout);
            return 0;
        }
        if (p->kind == OPT_VERSION) {
            printf("gputrace-report %s\n", GT_VERSION);
            return 0;
        }
        if (p->kind == OPT_FLAG) {
            *(int *)((char *)c + p->at) = 1;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "gputrace-report: %s needs a value (see --help)\n", a);
            return 2;
        }
        if (set_value(c, p, a, argv[++i]))
            return 2;
    }
    if (!c->npaths) {
        usage(stderr);
        return 2;
    }
    return -1;
}
