/* import_inputs.c: foreign traces given to the report (see import_inputs.h). */
#define _GNU_SOURCE
#include "viewer/read/import_inputs.h"
#include "import/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static char *tmp_db;

void import_inputs_cleanup(void)
{
    if (!tmp_db)
        return;
    const char *sfx[] = { "", "-wal", "-shm", "-journal" };
    for (size_t i = 0; i < 4; i++) {
        char p[4200];
        snprintf(p, sizeof p, "%s%s", tmp_db, sfx[i]);
        unlink(p);
    }
    free(tmp_db);
    tmp_db = NULL;
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
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
    char *path;
    if (asprintf(&path, "%s/gputrace-import-XXXXXX.db", dir) < 0) {
        free(foreign);
        return -1;
    }
    int fd = mkstemps(path, 3);
    if (fd < 0) {
        fprintf(stderr, "gputrace-report: cannot make a temporary database in %s (TMPDIR) for the import\n", dir);
        free(path);
        free(foreign);
        return -1;
    }
    close(fd);
    tmp_db = path;
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
