/* nsys.c: an Nsight Systems SQLite export into our schema (placeholder). */
#include "import/import.h"
#include "import/out_db.h"
#include <stdio.h>

int import_nsys_file(struct out_db *o, const char *path, char *err, size_t errlen)
{
    (void)o;
    snprintf(err, errlen, "%s: Nsight Systems exports are not read yet", path);
    return -1;
}
