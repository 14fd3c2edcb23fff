/* cupti_calls.h: calls no wrapper sees, recorded from CUPTI's callbacks
 * (cupti_calls.c). */
#ifndef GPUTRACE_LIBTRACE_CUPTI_CALLS_H
#define GPUTRACE_LIBTRACE_CUPTI_CALLS_H

/* Once CUPTI's activity is on: subscribes to the callbacks of the APIs
 * whose call sites the report needs; says in one line (unless quiet) when
 * CUPTI refuses (another subscriber holds its callbacks). */
void gt_cupti_calls_start(int quiet);

#endif
