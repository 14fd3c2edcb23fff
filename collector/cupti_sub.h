/* cupti_sub.h: the CUPTI activity subscriber.
 *
 * CUPTI is found at run time (never linked): symbols already in the
 * process, GPUTRACE_CUPTI_LIB, libcupti.so.<major> on the search path, next
 * to the loaded libcudart, the pip layout (nvidia/cuda_cupti/lib) and the
 * toolkit's extras/CUPTI/lib64.  A missing CUPTI, a refused subscription
 * (another tool holds it) or another major version than the build turns GPU
 * records off with one line on stderr; host records go on.
 */
#ifndef GPUTRACE_CUPTI_SUB_H
#define GPUTRACE_CUPTI_SUB_H

#include "collector/db.h"

#include <cupti.h>
#include <stddef.h>
#include <stdint.h>

/* The dlsym and dlclose that CUPTI is looked up and let go with: libtrace
 * hands in its gt_sys_dlsym and gt_sys_dlclose (real.h: the definitions
 * after its own wrappers, the C library's), before gt_cupti_start.  Not the
 * program-facing ones: those are libtrace's wrappers (whose dlclose makes
 * every wrapper resolve its real function again), or the program's own,
 * which would take the tracer's look-ups for the program's. */
void gt_cupti_use_dl(void *(*sym)(void *, const char *), int (*dlclose_fn)(void *));
/* Starts activity collection.  Returns 0 when CUPTI records will come;
 * otherwise -1 with the reason in why.  quiet suppresses the stderr line. */
int gt_cupti_start(const char *lib_hint, char *why, size_t whylen);
/* Whether CUPTI is collecting. */
int gt_cupti_active(void);
/* The loaded CUPTI's version (0 if none). */
uint32_t gt_cupti_version(void);
/* Whether CUPTI took our timestamp callback, once gt_cupti_start
 * succeeded: its records are then stamped through the same clock map as
 * the host's (collector/clock.c), and the report joins the two at offset 0
 * (process.clock_source "...+cupti"). */
int gt_cupti_stamps_ours(void);
/* CUPTI's callback API, once gt_cupti_start succeeded: subscribes callback
 * (called on the program's threads at the enter and exit of each API in
 * ids, pairs of {CUpti_CallbackDomain, CUpti_CallbackId}).  0, or -1 and
 * why (another subscriber holds CUPTI's callbacks, or there are none). */
int gt_cupti_subscribe(CUpti_CallbackFunc callback, const uint32_t (*ids)[2], size_t n, char *why, size_t whylen);
/* The program is about to use CUPTI's activity API itself (its own
 * profiler): our records pause, CUPTI is left as the program would have
 * found it untraced as far as it can be (cupti_sub.c).  1 when CUPTI was
 * ours; 0 otherwise.  Any thread but a CUPTI callback's. */
int gt_cupti_hand_over(void);
/* The program has forced a flush: if its profiler has stopped (none of its
 * kinds on, CUPTI not finalized), CUPTI is ours again until its next
 * session.  1 if taken back.  Any thread but a CUPTI callback's. */
int gt_cupti_take_back(void);
/* The program subscribes to CUPTI's callbacks: the subscriber we hold
 * (cupti_calls.h), if any, is let go, so that the program's is not
 * refused.  1 if we held one. */
int gt_cupti_let_go_callbacks(void);
/* What the program's call asks CUPTI for (those given: NULL, or kind 0,
 * for none; a kind negated: disabled), before it goes through: for a
 * hand-over that comes after it. */
void gt_cupti_program_asks(CUpti_BuffersCallbackRequestFunc request, CUpti_BuffersCallbackCompleteFunc complete,
                           CUpti_TimestampCallbackFunc stamp, int kind);
/* Whether kind is one the tracer has on now (CUPTI is ours): a program's
 * disable of it, of a kind it has not on itself, would turn ours off. */
int gt_cupti_ours_on(int kind);
/* The program enabled (on 1) or disabled (on 0) kind for context ctx
 * (on -1: only asks): kept as a pair, apart from the kinds enabled for all
 * (a kind on for one context is not off for another's disable).  Whether
 * the pair was on before. */
int gt_cupti_program_context(void *ctx, int kind, int on);
/* The program finalizes CUPTI: nothing is asked of it for the program again. */
void gt_cupti_program_finalizes(void);
/* At most this many stretches (after that the program's profiler keeps
 * CUPTI). */
#define GT_CUPTI_MAX_GAPS 256
/* The stretches the program's profiler held CUPTI, oldest first, in our
 * clock's ns: from, to (0: it holds it still).  Up to max of them into
 * out; returns how many. */
int gt_cupti_gaps(int64_t (*out)[2], int max);
/* External correlation around NCCL calls (no-ops when inactive). */
void gt_cupti_push_external(uint64_t id);
void gt_cupti_pop_external(void);
/* Asks CUPTI for its buffers: forced, every one (at exit and on
 * signals); else those whose records are all complete (monitor mode, once
 * a second, as the header advises for a periodic flush).  Never from a
 * CUPTI callback, nor holding a lock the callbacks take. */
void gt_cupti_flush(int forced);
/* Monitor mode: each GPU record also goes to the live GPU ledger
 * (mon_gpu.h), on the writer thread that stores it. */
void gt_cupti_observe(int on);
/* Writer side: parses and stores the oldest delivered buffer; returns 0
 * when none was waiting (else 1 + the records stored).  One at a time, so
 * that the writer drains the threads' rings between buffers: a few
 * buffers in one go kept it from them long enough for a ring to fill.
 * Its records go in bulk blocks (capi_block.h, gpu_block.h) when `bulk`
 * (the writer is behind on host records), or when the buffers waiting may
 * hold more than bulk_after records (GPUTRACE_BULK_AFTER; 0: always). */
size_t gt_cupti_drain_one(struct gt_db *db, int bulk, int bulk_after);
/* Records CUPTI said it dropped. */
uint64_t gt_cupti_dropped(void);
/* After fork: CUPTI state of the parent is not usable in the child. */
void gt_cupti_forget_after_fork(void);
/* A new process row (fork child, the image after a failed exec): the kernel
 * names known so far get their string rows again when next used. */
void gt_cupti_names_reset_reported(void);

#endif
