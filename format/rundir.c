/* rundir.c: lists a run directory's databases (see rundir.h).  A run
 * directory is what `gputrace record -o run.db` makes: one SQLite file per
 * traced process, <host>-<pid>.db, read together as one run. */
#define _GNU_SOURCE
#include "format/rundir.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ends_with(const char *s, const char *end)
{
    size_t n = strlen(s), k = strlen(end);
    return n > k && strcmp(s + n - k, end) == 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int gt_rundir_list(const char *dir, char ***out)
{
    *out = NULL;
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    char **v = NULL;
    int n = 0, cap = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (!ends_with(e->d_name, ".db"))
            continue;
        char *p;
        if (asprintf(&p, "%s/%s", dir, e->d_name) < 0)
            goto nomem;
        struct stat st;
        if (stat(p, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(p);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            char **g = realloc(v, (size_t)cap * sizeof *v);
            if (!g) {
                free(p);
                goto nomem;
            }
            v = g;
        }
        v[n++] = p;
    }
    closedir(d);
    if (n) /* qsort of NULL, even of nothing, is undefined */
        qsort(v, (size_t)n, sizeof *v, by_name);
    *out = v;
    return n;
nomem:
    closedir(d);
    gt_rundir_free(v, n);
    errno = ENOMEM;
    return -1;
}

void gt_rundir_free(char **v, int n)
{
    for (int i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
