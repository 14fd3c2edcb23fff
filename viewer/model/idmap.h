/* idmap.h: a growing open-addressing map from non-zero 64-bit ids
 * (correlation ids, handles) to 64-bit values, for the report's joins. */
#ifndef GPUTRACE_IDMAP_H
#define GPUTRACE_IDMAP_H

#include <stddef.h>
#include <stdint.h>

struct idmap { uint64_t *key; int64_t *val; size_t cap, n; };

/* Sets key to val (key 0 is ignored); with keep_first, an existing entry
 * stays as it is. */
void idmap_put(struct idmap *m, uint64_t key, int64_t val, int keep_first);
/* Room for n keys in all, made before they are put (an empty map only):
 * no growing, which rehashed every key at each doubling and touched
 * fresh memory each time (the largest source of the report's page
 * faults, in the joins of a rank's records). */
void idmap_reserve(struct idmap *m, size_t n);
/* Returns 1 and the value if key is there. */
int idmap_get(const struct idmap *m, uint64_t key, int64_t *val);
void idmap_free(struct idmap *m);
/* A key for a string (FNV-1a, never 0); equal strings give equal keys, so
 * a hit still needs its text compared. */
uint64_t idmap_text_key(const char *s);

#endif
