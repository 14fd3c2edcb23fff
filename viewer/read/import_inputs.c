/* import_inputs.c: foreign traces given to the report (see import_inputs.h). */
#define _GNU_SOURCE
#include "viewer/read/import_inputs.h"
#include "import/import.h"
#include "viewer/model/tmpfiles.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The import database, in a directory of the report's own: mkstemps made
 * a name that SQLite then opened again (after the import removed the
 * empty file), through whatever link another user of a shared $TMPDIR
 * had planted there meanwhile (8 runs of 20 wrote through one), and the
 * database was 0644: any user could read the trace.  The directory is
 * 0700 (mkdtemp): nobody else can see, replace or plant a file in it.  It
 * and the files SQLite makes in it are removed at exit and on the signals
 * that end the report (tmpfiles.h). */
static const char *const db_files[] = { "", "-wal", "-shm", "-journal" };
enum { NDB_FILES = sizeof db_files / sizeof *db_files };
static char *tmp_dir, *tmp_db;
static int tmp_handles[NDB_FILES + 1] = { -1, -1, -1, -1, -1 };

void import_inputs_cleanup(void)
{
    if (!tmp_db)
        return;
    for (size_t i = 0; i < NDB_FILES; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", tmp_db, db_files[i]);
        unlink(p);
        tmpfiles_forget(tmp_handles[i]);
    }
    rmdir(tmp_dir);
    tmpfiles_forget(tmp_handles[NDB_FILES]);
    free(tmp_db);
    free(tmp_dir);
    tmp_db = tmp_dir = NULL;
}

/* The private directory and the database's name in it, registered. */
static int make_tmp_db(void)
{
    if (!(tmp_dir = tmpfiles_private_dir("gputrace-import", &tmp_handles[NDB_FILES])))
        return -1;
    if (asprintf(&tmp_db, "%s/import.db", tmp_dir) < 0) {
        tmp_db = NULL;
        rmdir(tmp_dir);
        tmpfiles_forget(tmp_handles[NDB_FILES]);
        free(tmp_dir);
        tmp_dir = NULL;
        errno = ENOMEM;
        return -1;
    }
    for (size_t i = 0; i < NDB_FILES; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", tmp_db, db_files[i]);
        tmp_handles[i] = tmpfiles_add(p, 0);
    }
    return 0;
}

static int same_file(const char *a, const char *b)
{
    struct stat x, y;
    return a && b && stat(a, &x) == 0 && stat(b, &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

/* Whether the output trace or Kineto directory would write over an input
 * trace: the file itself, its directory (a Kineto output writes
 * rank-N.json there), or the directory of traces. */
static int overwrites(const char *in, const char *trace, const char *kineto)
{
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", in);
    char *slash = strrchr(dir, '/');
    if (slash)
        *slash = 0;
    return same_file(in, trace) || same_file(in, kineto) || same_file(slash ? dir : ".", kineto);
}

static int has_suffix(const char *s, const char *suf)
{
    size_t n = strlen(s), k = strlen(suf);
    return n >= k && !strcmp(s + n - k, suf);
}

static int add_path(char ***v, int *n, int *cap, const char *dir, const char *name)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 16;
        char **g = realloc(*v, (size_t)c * sizeof *g);
        if (!g)
            return -1;
        *v = g;
        *cap = c;
    }
    if (asprintf(&(*v)[*n], "%s/%s", dir, name) < 0)
        return -1;
    (*n)++;
    return 0;
}

/* What the import reads of a directory of Kineto traces (import.c's
 * dir_traces and import_one): each *.json and *.json.gz not hidden, and
 * what it reads of such a name that is a directory, depth levels down. */
static int add_traces(char ***v, int *n, int *cap, const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return 0; /* what the import will say it cannot read: nothing to overwrite */
    struct dirent *e;
    int rc = 0;
    while (rc == 0 && (e = readdir(d))) {
        if (e->d_name[0] == '.' || (!has_suffix(e->d_name, ".json") && !has_suffix(e->d_name, ".json.gz")))
            continue;
        rc = add_path(v, n, cap, dir, e->d_name);
        struct stat st;
        if (rc == 0 && depth > 0 && stat((*v)[*n - 1], &st) == 0 && S_ISDIR(st.st_mode))
            rc = add_traces(v, n, cap, (*v)[*n - 1], depth - 1);
    }
    closedir(d);
    return rc;
}

int import_input_files(const char *arg, char ***out)
{
    char **v = NULL;
    int n = 0, cap = 0;
    *out = NULL;
    struct stat st;
    if (stat(arg, &st) != 0 || !S_ISDIR(st.st_mode) || import_detect(arg) != IMPORT_KINETO)
        return 0;
    if (add_traces(&v, &n, &cap, arg, 8) != 0) {
        for (int i = 0; i < n; i++)
            free(v[i]);
        free(v);
        errno = ENOMEM;
        return -1;
    }
    *out = v;
    return n;
}

int import_inputs(const char **args, int *n, const char *trace, const char *kineto)
{
    char **foreign = calloc((size_t)*n + 1, sizeof *foreign);
    int nf = 0;
    if (!foreign)
        return -1;
    for (int i = 0; i < *n; i++) {
        enum import_format f = import_detect(args[i]);
        if (f != IMPORT_KINETO && f != IMPORT_NSYS)
            continue;
        if (overwrites(args[i], trace, kineto)) {
            fprintf(stderr, "gputrace-report: %s is an input: --chrome-trace / --kineto would write over it\n",
                    args[i]);
            free(foreign);
            return -2;
        }
        foreign[nf++] = (char *)args[i];
    }
    if (!nf) {
        free(foreign);
        return 0;
    }
    if (make_tmp_db() != 0) {
        fprintf(stderr, "gputrace-report: cannot make a temporary directory in %s (TMPDIR) for the import: %s\n",
                tmpfiles_dir(), strerror(errno));
        free(foreign);
        return -1;
    }
    const char *path = tmp_db;
    char err[1024];
    int rc = import_traces(path, 1, foreign, nf, 1, err, sizeof err);
    if (rc < 0) {
        fprintf(stderr, "gputrace-report: %s\n", err);
        free(foreign);
        import_inputs_cleanup();
        return -1;
    }
    /* the first foreign input's place takes the database; the others go */
    int k = 0, placed = 0;
    for (int i = 0; i < *n; i++) {
        int is_foreign = 0;
        for (int j = 0; j < nf; j++)
            is_foreign |= foreign[j] == args[i];
        if (!is_foreign)
            args[k++] = args[i];
        else if (!placed++)
            args[k++] = tmp_db;
    }
    *n = k;
    free(foreign);
    return rc;
}
