/* config.h: the tracer's settings, from the environment.
 *
 * GPUTRACE_OUTPUT      where the run goes (default gputrace.db): a run directory, in which each
 *                      process writes its own file <host>-<pid>.db; with %h host, %p pid or %r rank
 *                      in it, a file name pattern instead (each process writes the file its
 *                      expansion names); with GPUTRACE_ONE_FILE=1, one file all processes share
 * GPUTRACE_ONE_FILE    1 = GPUTRACE_OUTPUT (without %h/%p/%r) is one SQLite file that every process
 *                      appends to (they then wait for each other's locks: see docs/schema.md)
 * GPUTRACE_CUPTI       1 = collect GPU activity through CUPTI, 0 = host records only (default 1)
 * GPUTRACE_CALLSTACKS  call-stack depth for syncs, copies, frees, allocations,
 *                      stream creation and NCCL calls; 0 = off (default 8, max 32)
 * GPUTRACE_PYSTACKS    Python frames captured with each call stack, when the thread holds the GIL; 0 = off (default 16, max 32)
 * GPUTRACE_FLUSH_MS    how often the writer commits to the database (default 200, 10..60000)
 * GPUTRACE_BUFFER_MB   record buffer a thread keeps, MiB, about twice that waiting for the drain in a burst (tbuf.h) (default 8, 1..1024; all threads' and the drain queue share max(32, 4 x this) MiB: membudget.h): 131072 records, 131 ms of calls at a million a second, for the moments a checkpoint, a commit or a busy machine holds the writer up (at 2 MiB, 3 of 4 runs of 1 M calls/s with CUPTI on dropped 2-24% of the calls on a loaded 2-core machine; at 8 MiB, 1 of 4 dropped 1.6%)
 * GPUTRACE_BULK_AFTER  records waiting before the writer stores calls, NVTX ranges and CUPTI records in bulk blocks
 *                      (default 0 = always: a row one by one cost the process ~840 ns of CPU, a record in a
 *                      block ~240 (bench/row_cost.sh); `gputrace merge` and `gputrace expand` make rows for SQL)
 * GPUTRACE_QUIET       1 = no messages on stderr except errors (default 0)
 * GPUTRACE_RUN_ID      run id shared by the processes of one run (set by `gputrace record`)
 * GPUTRACE_CUPTI_LIB   path of libcupti to load
 * GPUTRACE_CLOCK       "monotonic" forces clock_gettime instead of the TSC
 * A bad value gets a one-line message on stderr and the default.
 */
#ifndef GPUTRACE_CONFIG_H
#define GPUTRACE_CONFIG_H

#include <stddef.h>

struct gt_config {
    char output[4096];
    int layout; /* enum gt_layout of GPUTRACE_OUTPUT */
    int cupti;
    int callstack_depth;
    int pystack_depth;
    int flush_ms;
    size_t buffer_bytes;
    int quiet;
    int bulk_after;
    int packed_blocks; /* GPUTRACE_BLOCK_FORMAT=1: blocks as packed structs (format/block_codec.h) */
    char run_id[128];
    const char *cupti_lib;
    int force_mono_clock;
};

#define GT_MAX_STACK_DEPTH 32

/* What an output path names (GPUTRACE_OUTPUT, `gputrace record -o`). */
enum gt_layout {
    GT_LAYOUT_DIR,     /* a run directory: GT_RUN_DIR_FILE in it per process */
    GT_LAYOUT_PATTERN, /* %h, %p or %r in it: each process writes its expansion */
    GT_LAYOUT_FILE,    /* one file for every process (GPUTRACE_ONE_FILE=1) */
};
/* The name of a process's file in a run directory (a pattern). */
#define GT_RUN_DIR_FILE "%h-%p.db"

/* The longest host name a file name holds (Linux's HOST_NAME_MAX). */
#define GT_HOST_MAX 64
/* This host's name as every file name, run id and process row of ours
 * has it: gethostname's, each byte but [A-Za-z0-9._-] made '_', a leading
 * '.' too (so that a name such as "../../x" or "a/b" can never lead out of
 * the run directory or hide the file), cut to GT_HOST_MAX bytes;
 * "unknown" when there is none.  The one place a host name is made. */
void gt_config_host(char *out, size_t len);
/* 1 when name is one that pattern expands to: %h a host name as
 * gt_config_host makes it (one byte at least), %p and %r numbers, %% '%'.
 * Allocates nothing (record_end.c calls it as the process ends). */
int gt_config_name_matches(const char *pattern, const char *name);
/* Reads the environment into cfg.  rank < 0 when unknown (for %r).  For a
 * run directory, cfg->output is this process's file in it, and the
 * directory is made here (called at activation, the first CUDA call). */
void gt_config_load(struct gt_config *cfg, int rank);
/* Expands %h, %p, %r (and %% ) of pattern into out. */
void gt_config_expand_output(const char *pattern, int rank, char *out, size_t len);
/* The directory a pattern path's processes write in, as this host's
 * expand it (%h this host; %% '%'), into out; -1 when its directory part
 * names a pid or a rank (each process's own), has no '/', or is too long. */
int gt_config_pattern_dir(const char *path, char *out, size_t len);
/* 1 when path holds %h, %p or %r. */
int gt_config_is_pattern(const char *path);
/* The layout path names; one_file: GPUTRACE_ONE_FILE=1 (or --one-file). */
enum gt_layout gt_config_layout(const char *path, int one_file);
/* The environment variable name as an integer in lo..hi: def when unset
 * or empty; a bad value gets a one-line message on stderr and def. */
int gt_config_env_int(const char *name, int def, int lo, int hi);
/* 1 when GPUTRACE_ONE_FILE=1 is set (another value than 0 or 1: a line, 0). */
int gt_config_one_file(void);

#endif
