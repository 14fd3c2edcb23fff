/* boot_id.c: the process row's boot id (docs/schema.md).
 *
 * Two machines may carry the same host name (cloned images, "localhost",
 * containers), and the report aligns clocks and groups ranks by host: the
 * kernel's boot id, a random UUID made at each boot, tells them apart.
 * Read once, when the process row is written (the writer thread, never
 * the wrappers' path), with open/read/close, so that no descriptor
 * outlives the call.  (The simulator answers that open for a rank it puts
 * on a machine of its own: GPUSIM_BOOT_ID, tests/sim/sim_boot_id.c.) */
#define _GNU_SOURCE
#include "collector/boot_id.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#define BOOT_ID_PATH "/proc/sys/kernel/random/boot_id"

/* The boot id into out (a UUID: 36 characters), or "" if it cannot be read. */
static void read_boot_id(char *out, size_t len)
{
    out[0] = 0;
    int fd = open(BOOT_ID_PATH, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    ssize_t n;
    do
        n = read(fd, out, len - 1);
    while (n < 0 && errno == EINTR);
    syscall(SYS_close, fd); /* not through the tracer's own close wrapper (libtrace/wrap_fd.c) */
    if (n <= 0) {
        out[0] = 0;
        return;
    }
    out[n] = 0;
    /* one line of printable text: anything else is cut there */
    for (ssize_t i = 0; i < n; i++)
        if ((unsigned char)out[i] < 0x21 || (unsigned char)out[i] > 0x7e) {
            out[i] = 0;
            break;
        }
}

static int has_column(sqlite3 *db)
{
    sqlite3_stmt *s;
    int found = 0;
    if (sqlite3_prepare_v2(db, "SELECT 1 FROM pragma_table_info('process') WHERE name = 'boot_id'", -1, &s, NULL) !=
        SQLITE_OK)
        return 0;
    found = sqlite3_step(s) == SQLITE_ROW;
    sqlite3_finalize(s);
    return found;
}

void gt_boot_id_store(sqlite3 *db, int64_t process_id)
{
    int saved = errno;
    char id[64];
    read_boot_id(id, sizeof id);
    if (!id[0] || !db)
        goto out;
    /* a file made by a tracer from before the column (the same schema
     * version): added, as new files have it; another process may add it
     * first, which is as good */
    if (!has_column(db))
        sqlite3_exec(db, "ALTER TABLE process ADD COLUMN boot_id TEXT", NULL, NULL, NULL);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(db, "UPDATE process SET boot_id = ? WHERE id = ?", -1, &s, NULL) != SQLITE_OK)
        goto out;
    sqlite3_bind_text(s, 1, id, -1, SQLITE_TRANSIENT);
    sqlite3_bind_int64(s, 2, process_id);
    sqlite3_step(s);
    sqlite3_finalize(s);
out:
    errno = saved;
}
