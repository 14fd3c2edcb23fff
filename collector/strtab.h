/* strtab.h: strings the program hands the tracer (NVTX range names,
 * domains, registered strings; Python file and function names), interned
 * lock-free so that a record carries a 32-bit id instead of a copy.
 *
 * The caller's pointer may be a buffer it reuses at once (a range name
 * printed with the step number), so the bytes are copied here, on the
 * calling thread, into an arena; the writer thread reports new ones.
 * Nothing is ever removed.  The table grows (strtab.c) up to about 4
 * million strings and 510 MiB of text; past that new strings get id 0
 * ("unknown"), and each is counted (gt_strtab_lost, part of the process's
 * dropped_host).
 */
#ifndef GPUTRACE_STRTAB_H
#define GPUTRACE_STRTAB_H

#include <stddef.h>
#include <stdint.h>

/* Longer strings are cut, between UTF-8 characters, and end in
 * GT_STRTAB_CUT_MARK, so that a reader sees what was cut (the report
 * counts them): 4095 bytes hold a C++ function name used as a range name,
 * which 255 did not. */
#define GT_STRTAB_MAXLEN 4095
#define GT_STRTAB_CUT_MARK "\xe2\x80\xa6[cut]" /* "…[cut]" */

/* The id of the first len bytes of s (len < 0: up to its NUL); 0 if full. */
uint32_t gt_strtab_intern(const char *s, long len);
/* The id of "NCCL": NCCL's NVTX domain, whose id is its name's as every
 * domain's (libtrace/nvtx_inject.c); 0 while the table is full. */
uint32_t gt_strtab_nccl_domain(void);
/* The string of an id, or NULL (ids come from gt_strtab_intern). */
const char *gt_strtab_get(uint32_t id);
/* Writer side: fn(id, text) for every string not reported before. */
void gt_strtab_flush_new(void (*fn)(uint32_t id, const char *text, void *ctx), void *ctx);
/* Strings that got id 0 because the table was full. */
uint64_t gt_strtab_lost(void);
/* Forget what was reported (after fork: the child writes its own rows). */
void gt_strtab_reset_reported(void);

#endif
