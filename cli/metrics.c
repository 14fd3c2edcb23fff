/* metrics.c: `gputrace metrics RUN [--listen ADDR:PORT]`: the metrics
 * files of a monitored run (the .prom files of RUN/metrics/, collector/mon_prom.h),
 * all its processes' in one exposition, printed once or served over HTTP
 * for a Prometheus scrape, for those who do not run node_exporter with
 * its textfile collector.  A process of its own, never the traced one.
 *
 * Each file repeats the HELP and TYPE lines of every metric, which one
 * exposition may not: the samples are gathered under their metric, the
 * metrics in the order first met (a histogram's _bucket, _sum and _count
 * under its name).  Files are read at every request: what the processes
 * rewrote since is served; a file being renamed over is read whole, old
 * or new. */
#define _GNU_SOURCE
#include "cli/metrics.h"
#include "cli/ask.h"
#include "collector/mon_prom.h"
#include "common/printable.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

struct family { char *name, *help, *type; char **samples; size_t n, cap; };
struct expo { struct family *v; size_t n, cap; };

static void *must(void *p)
{
    if (!p) {
        fprintf(stderr, "gputrace metrics: out of memory\n");
        exit(1);
    }
    return p;
}

static struct family *family(struct expo *e, const char *name, size_t len)
{
    for (size_t i = 0; i < e->n; i++)
        if (strlen(e->v[i].name) == len && strncmp(e->v[i].name, name, len) == 0)
            return &e->v[i];
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 32;
        e->v = must(realloc(e->v, e->cap * sizeof *e->v));
    }
    struct family *f = &e->v[e->n++];
    memset(f, 0, sizeof *f);
    f->name = must(strndup(name, len));
    return f;
}

/* The metric a sample belongs to: its name, or for a histogram's or a
 * summary's series the name they extend. */
static struct family *owner(struct expo *e, const char *line, size_t len)
{
    static const char *const suffix[] = { "_bucket", "_sum", "_count" };
    for (size_t k = 0; k < 3; k++) {
        size_t s = strlen(suffix[k]);
        if (len > s && strncmp(line + len - s, suffix[k], s) == 0)
            for (size_t i = 0; i < e->n; i++)
                if (e->v[i].type && (strcmp(e->v[i].type, "histogram") == 0 || strcmp(e->v[i].type, "summary") == 0) &&
                    strlen(e->v[i].name) == len - s && strncmp(e->v[i].name, line, len - s) == 0)
                    return &e->v[i];
    }
    return family(e, line, len);
}

static void add_line(struct expo *e, const char *line)
{
    if (strncmp(line, "# HELP ", 7) == 0 || strncmp(line, "# TYPE ", 7) == 0) {
        const char *name = line + 7;
        size_t len = strcspn(name, " ");
        struct family *f = family(e, name, len);
        char **slot = line[2] == 'H' ? &f->help : &f->type;
        if (!*slot)
            *slot = must(strdup(name[len] ? name + len + 1 : ""));
        return;
    }
    if (!line[0] || line[0] == '#')
        return;
    struct family *f = owner(e, line, strcspn(line, "{ "));
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 16;
        f->samples = must(realloc(f->samples, f->cap * sizeof *f->samples));
    }
    f->samples[f->n++] = must(strdup(line));
}

static int is_prom(const char *name)
{
    size_t n = strlen(name);
    return name[0] != '.' && n > 5 && strcmp(name + n - 5, ".prom") == 0;
}

/* Every process's file of the run, gathered; the files read in *files. */
static int gather(const char *run, struct expo *e, int *files)
{
    char dir[4200];
    snprintf(dir, sizeof dir, "%s/" GT_PROM_DIR, run);
    *files = 0;
    DIR *d = opendir(dir);
    if (!d)
        return errno == ENOENT ? 0 : -1;
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (!is_prom(de->d_name))
            continue;
        char path[4500];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue; /* gone: its process ended */
        char *line = NULL;
        size_t cap = 0;
        ssize_t n;
        while ((n = getline(&line, &cap, f)) > 0) {
            line[strcspn(line, "\n")] = 0;
            add_line(e, line);
        }
        free(line);
        fclose(f);
        (*files)++;
    }
    closedir(d);
    return 0;
}

static void print(FILE *out, const struct expo *e)
{
    for (size_t i = 0; i < e->n; i++) {
        const struct family *f = &e->v[i];
        if (!f->n)
            continue;
        if (f->help)
            fprintf(out, "# HELP %s %s\n", f->name, f->help);
        if (f->type)
            fprintf(out, "# TYPE %s %s\n", f->name, f->type);
        for (size_t k = 0; k < f->n; k++)
            fprintf(out, "%s\n", f->samples[k]);
    }
}

static void drop(struct expo *e)
{
    for (size_t i = 0; i < e->n; i++) {
        for (size_t k = 0; k < e->v[i].n; k++)
            free(e->v[i].samples[k]);
        free(e->v[i].samples);
        free(e->v[i].name);
        free(e->v[i].help);
        free(e->v[i].type);
    }
    free(e->v);
    memset(e, 0, sizeof *e);
}

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

static void reply(int fd, const char *status, const char *type, const char *body, size_t len)
{
    char h[256];
    int n = snprintf(h, sizeof h, "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
                     status, type, len);
    if (write(fd, h, (size_t)n) != n)
        return;
    for (size_t done = 0; done < len;) {
        ssize_t w = write(fd, body + done, len - done);
        if (w <= 0)
            return;
        done += (size_t)w;
    }
}

/* One request: GET /metrics gets the run's metrics, anything else 404. */
static void serve_one(int fd, const char *run)
{
    struct timeval tv = { 2, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    char req[4096];
    size_t got = 0;
    req[0] = 0;
    while (got < sizeof req - 1 && !strstr(req, "\r\n\r\n")) {
        ssize_t n = read(fd, req + got, sizeof req - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
        req[got] = 0;
    }
    req[got] = 0;
    if (strncmp(req, "GET /metrics ", 13) != 0 && strncmp(req, "GET /metrics?", 13) != 0) {
        reply(fd, "404 Not Found", "text/plain", "not found: try /metrics\n", 24);
        return;
    }
    struct expo e = { 0 };
    int files;
    char *body = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&body, &len);
    if (m && gather(run, &e, &files) == 0)
        print(m, &e);
    if (m)
        fclose(m);
    reply(fd, "200 OK", "text/plain; version=0.0.4; charset=utf-8", body ? body : "", body ? len : 0);
    free(body);
    drop(&e);
}

static int listen_on(const char *addr, const char *run)
{
    char host[256];
    const char *colon = strrchr(addr, ':');
    char *end;
    long port = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || *end || port < 1 || port > 65535 || colon - addr >= (long)sizeof host) {
        fprintf(stderr, "gputrace metrics: --listen takes ADDRESS:PORT (such as 127.0.0.1:9464)\n");
        return 2;
    }
    snprintf(host, sizeof host, "%.*s", (int)(colon - addr), addr);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    if (inet_pton(AF_INET, host[0] ? host : "0.0.0.0", &sa.sin_addr) != 1) {
        fprintf(stderr, "gputrace metrics: %s is not an IPv4 address\n", host);
        return 2;
    }
    int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (s < 0 || bind(s, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(s, 16) != 0) {
        fprintf(stderr, "gputrace metrics: cannot listen on %s: %s\n", addr, strerror(errno));
        if (s >= 0)
            close(s);
        return 1;
    }
    struct sigaction act = { .sa_handler = on_stop };
    sigaction(SIGINT, &act, NULL);
    sigaction(SIGTERM, &act, NULL);
    signal(SIGPIPE, SIG_IGN);
    fprintf(stderr, "gputrace metrics: serving %s/" GT_PROM_DIR " at http://%s/metrics\n", run, addr);
    while (!stop) {
        int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
        if (c < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        serve_one(c, run);
        close(c);
    }
    close(s);
    return 0;
}

static const char usage[] =
    "usage: gputrace metrics RUN [--listen ADDRESS:PORT]\n"
    "\n"
    "The metrics of a run recorded with `gputrace record --monitor`: each of its\n"
    "processes rewrites RUN/" GT_PROM_DIR "/<host>-<pid>.prom every GPUTRACE_METRICS_MS\n"
    "(node_exporter's textfile collector reads that folder as it is). Without\n"
    "--listen, all of them as one exposition on stdout; with it, served at\n"
    "http://ADDRESS:PORT/metrics for a Prometheus scrape until SIGINT or SIGTERM.\n";

int gt_metrics_main(int argc, char **argv)
{
    const char *run = NULL, *addr = NULL;
    for (int i = 0; i < argc; i++) {
        if (strcmp(argv[i], "--listen") == 0 && i + 1 < argc) {
            addr = argv[++i];
        } else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
            fputs(usage, stdout);
            return 0;
        } else if (argv[i][0] == '-' || run) {
            char shown[GT_PRINTABLE_LEN];
            fprintf(stderr, "gputrace metrics: unexpected '%s'\n%s", gt_printable(argv[i], shown, sizeof shown), usage);
            return 2;
        } else {
            run = argv[i];
        }
    }
    if (!run) {
        fprintf(stderr, "gputrace metrics: no run directory given\n%s", usage);
        return 2;
    }
    if (access(run, R_OK | X_OK) != 0) {
        char shown[GT_PRINTABLE_LEN];
        fprintf(stderr, "gputrace metrics: cannot read %s: %s\n", gt_printable(run, shown, sizeof shown), strerror(errno));
        return 1;
    }
    if (gt_ask_unmonitored("metrics", run))
        return 1;
    if (addr)
        return listen_on(addr, run);
    struct expo e = { 0 };
    int files;
    if (gather(run, &e, &files) != 0) {
        fprintf(stderr, "gputrace metrics: cannot read %s/" GT_PROM_DIR ": %s\n", run, strerror(errno));
        return 1;
    }
    print(stdout, &e);
    drop(&e);
    if (!files)
        fprintf(stderr, "gputrace metrics: no metrics file in %s/" GT_PROM_DIR " (a run recorded with --monitor,"
                        " its processes still running?)\n", run);
    return 0;
}
