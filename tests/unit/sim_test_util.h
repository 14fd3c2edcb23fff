/* sim_test_util.h: helpers shared by the simulator's unit tests: timing,
 * a sleeping test kernel, CUPTI record capture, and running N ranks as
 * forked processes. */
#ifndef GPUTRACE_SIM_TEST_UTIL_H
#define GPUTRACE_SIM_TEST_UTIL_H

#include <cuda_runtime_api.h>
#include <cupti.h>
#include <stdint.h>

uint64_t tu_now_ns(void);
void tu_sleep_us(int us);

/* A kernel that sleeps args->us, then stores args->value to *args->out (if
 * set) after reading *args->in into *args->seen (if set). */
struct tu_karg { int us; int value; int *out; const int *in; int *seen; };
void tu_kernel(void **args);
/* Launches tu_kernel with a copy of a kept alive in a static ring. */
void tu_launch(cudaStream_t s, struct tu_karg a);

/* CUPTI capture: every record delivered is copied into a flat array. */
struct tu_records { CUpti_Activity **rec; size_t n; };
void tu_cupti_start(size_t buffer_bytes);   /* enables the usual kinds */
void tu_cupti_flush(struct tu_records *out); /* FlushAll, then all records so far */

/* Forks n ranks with a fresh simulator session; each runs fn(rank, n) and
 * exits with its result.  Returns how many ranks failed. */
int tu_run_ranks(int n, int (*fn)(int rank, int nranks));

#endif
