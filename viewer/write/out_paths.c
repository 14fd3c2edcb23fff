/* out_paths.c: outputs that would overwrite an input or each other (see
 * out_paths.h).  `--chrome-trace run.db run.db` once replaced the database
 * with JSON, and a --chrome-trace path equal to a Kineto file gave two
 * traces written into one file, invalid JSON, with exit 0; `--html
 * prof.sqlite prof.sqlite` replaced an nsys export with HTML, and --html
 * onto one trace of a directory of Kineto traces replaced it: the report
 * checks every output against every file it reads (each named, each of a
 * directory it reads, and what SQLite keeps beside each) and every other
 * output before it writes anything. */
#define _GNU_SOURCE
#include "viewer/write/out_paths.h"
#include "viewer/write/out_file.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct file_id {
    int exists;
    dev_t dev;
    ino_t ino;
    char resolved[PATH_MAX * 2];
};

/* The path with every directory that exists resolved (symbolic links,
 * ".", ".."), and what does not exist yet appended as written: a file
 * to be made gets the name it will have. */
static void resolve(const char *path, char *out, size_t len)
{
    char head[PATH_MAX * 2];
    snprintf(head, sizeof head, "%s", *path ? path : ".");
    const char *tail = "";
    for (;;) {
        char *r = realpath(head, NULL);
        if (r) {
            snprintf(out, len, "%s%s%s", r, *tail ? "/" : "", tail);
            free(r);
            return;
        }
        char *slash = strrchr(head, '/');
        if (!slash) { /* a relative name none of whose directories exists: from here */
            char *here = realpath(".", NULL);
            snprintf(out, len, "%s/%s", here ? here : ".", path);
            free(here);
            return;
        }
        if (slash == head) { /* "/name", no such directory */
            snprintf(out, len, "%s", path);
            return;
        }
        *slash = 0; /* head and path agree up to here: the tail is path's */
        tail = path + (slash - head) + 1;
    }
}

static void identify(const char *path, struct file_id *id)
{
    struct stat st;
    id->exists = stat(path, &st) == 0;
    id->dev = id->exists ? st.st_dev : 0;
    id->ino = id->exists ? st.st_ino : 0;
    resolve(path, id->resolved, sizeof id->resolved);
}

static int same(const struct file_id *a, const struct file_id *b)
{
    if (a->exists && b->exists)
        return a->dev == b->dev && a->ino == b->ino;
    return strcmp(a->resolved, b->resolved) == 0;
}

int out_paths_check(char *const *ins, const char *const *in_what, size_t nins, char *const *outs,
                    char *const *what, size_t nouts, char *err, size_t errlen)
{
    static const char *const beside[] = { "", "-wal", "-shm", "-journal" };
    enum { NBESIDE = sizeof beside / sizeof *beside };
    struct file_id *out = calloc(nouts + 1, sizeof *out), in;
    if (!out) {
        snprintf(err, errlen, "out of memory");
        return -1;
    }
    int rc = 0;
    for (size_t o = 0; o < nouts && !rc; o++) {
        identify(outs[o], &out[o]);
        for (size_t i = 0; i < nins && !rc; i++)
            for (size_t k = 0; k < NBESIDE && !rc; k++) {
                char path[PATH_MAX * 2];
                snprintf(path, sizeof path, "%s%s", ins[i], beside[k]);
                identify(path, &in);
                if (same(&out[o], &in)) {
                    snprintf(err, errlen, "%s %s is %s%s %s: not overwritten (choose another file)", what[o], outs[o],
                             in_what && in_what[i] ? in_what[i] : "the input database", k ? "'s SQLite file" : "",
                             path);
                    rc = -1;
                }
            }
        for (size_t p = 0; p < o && !rc; p++)
            if (same(&out[o], &out[p])) {
                snprintf(err, errlen, "%s %s is also %s %s: two outputs cannot be one file", what[o], outs[o], what[p],
                         outs[p]);
                rc = -1;
            }
    }
    free(out);
    return rc;
}

int out_paths_foreign(const char *path, const char *what, enum out_kind kind, int force, char *err, size_t errlen)
{
    static const char *const head[] = {
        [OUT_CHROME] = "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"producer\":\"gputrace",
        [OUT_HTML] = "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>gputrace report",
        [OUT_KINETO] = "{\"schemaVersion\":1,\"deviceProperties\":[", /* Kineto's own is spaced, on lines */
    };
    struct stat st;
    /* stat, not lstat: the write goes through a link to the file it names
     * (out_file.c), so that file is the one judged */
    if (force || out_file_is_stdout(path) || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0)
        return 0; /* (a directory there, or a link to nothing: the write says why it cannot or makes it) */
    char buf[128] = "";
    FILE *f = fopen(path, "rb");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = 0;
    if (!strncmp(buf, head[kind], strlen(head[kind])))
        return 0;
    snprintf(err, errlen, "%s %s exists and is no %s gputrace wrote: not overwritten (--force replaces it)", what, path,
             kind == OUT_HTML ? "page" : "trace");
    return -1;
}
