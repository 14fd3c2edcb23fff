/* tmpstore.h: an append-only scratch store for what the report puts aside
 * while it works on one process at a time (every rank's collectives,
 * coll_spill.h and load_run.c): an unlinked file in $TMPDIR (else /tmp), or
 * memory when no file can be written, from the start or once the disk is
 * full (what the file held is then read back). */
#ifndef GPUTRACE_TMPSTORE_H
#define GPUTRACE_TMPSTORE_H

#include <stddef.h>
#include <stdint.h>

struct tmpstore {
    int fd;          /* the file, or -1: in mem */
    char *mem;
    uint64_t len, cap;
};

void tmpstore_open(struct tmpstore *t);
/* Appends len bytes; returns where they start. */
uint64_t tmpstore_append(struct tmpstore *t, const void *data, size_t len);
/* Reads len bytes from offset at (all within what was appended). */
void tmpstore_read(const struct tmpstore *t, uint64_t at, void *buf, size_t len);
void tmpstore_close(struct tmpstore *t);

#endif
