/* import_inputs.c: foreign traces given to the report (see import_inputs.h). */
#define _GNU_SOURCE
#include "viewer/read/import_inputs.h"
#include "import/import.h"
#include "viewer/model/tmpfiles.h"

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
