#!/bin/sh
# tracer_unfinished.sh: GPU work still running when CUPTI is flushed.  A
# forced flush (CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) hands over the records
# of work queued or running with start and end 0, and CUPTI never delivers
# them again: the writer used to force one at every commit, and on an H200
# a 6 s kernel came out as 0-0 (the report then counted the GPU idle from
# time 0: 367 s of a 4 s window).  The simulator's CUPTI does as CUPTI
# does (tests/sim/sim_cupti.c).  Now only the process's end forces a flush,
# and the report leaves a record without times out, counted.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_QUIET=1 GPUTRACE_ONE_FILE=1
lib="$b/.libs/libgputrace.so"
# a 400 ms kernel under a commit every 20 ms: its record has its times
GPUTRACE_FLUSH_MS=20 GPUTRACE_OUTPUT="$tmp/a.db" LD_PRELOAD="$lib" "$b/tests/apps/long_kernel" 400 > "$tmp/a.out"
expect "the program ran" "$?" 0
expect "a kernel running across 20 commits keeps its GPU times" \
  "$(q "$tmp/a.db" "select count(*), min(start_ns) > 0, max(end_ns - start_ns) >= 350000000 from gpu_op where kind = 1")" "6|1|1"
# the program exits while its kernel runs: the end's forced flush hands the
# record over without times; the report leaves it out and says so
GPUTRACE_OUTPUT="$tmp/b.db" LD_PRELOAD="$lib" "$b/tests/apps/long_kernel" 400 nosync > "$tmp/b.out"
expect "nosync: the program ran" "$?" 0
expect "nosync: the kernel's record came without times" \
  "$(q "$tmp/b.db" "select count(*), sum(start_ns = 0 and end_ns = 0) from gpu_op where kind = 1")" "6|1"
"$b/gputrace-report" --format json "$tmp/b.db" > "$tmp/b.json" 2> "$tmp/b.err"
expect "nosync: the report ran" "$?" 0
expect "nosync: the record left out and counted; the GPU's span not from time 0" \
  "$(python3 -c 'import json, sys; r = json.load(open(sys.argv[1]))["ranks"][0]
print(r.get("unfinished_gpu_ops"), r["gpu_ops"], r["gpu_span_ns"] <= r["wall_ns"])' "$tmp/b.json")" "1 5 True"
"$b/gputrace-report" "$tmp/b.db" > "$tmp/b.txt" 2>&1
expect "nosync: the text report says so" "$(grep -c 'GPU operation(s) had not ended' "$tmp/b.txt")" 1
# a hang under the monitor: the stuck kernel's record keeps its thread's
# buffer from a default flush, with the records before it; the hang's
# window forces one, so that it holds them (on an H200 it held no GPU
# record at all)
GPUTRACE_ONE_FILE= GPUTRACE_HANG_S=1 "$b/gputrace" record --monitor -o "$tmp/mon" -- "$b/tests/apps/long_kernel" 3000 > "$tmp/c.out" 2>&1
expect "monitor: the program ran" "$?" 0
w=$(ls -d "$tmp"/mon/window-*-hang-* 2> /dev/null | head -n 1)
expect "monitor: a hang window written" "$([ -n "$w" ] && echo yes)" yes
expect "monitor: the window holds the 5 kernels before the stuck one, and its record without times" \
  "$(q "$w" "select count(*), sum(start_ns = 0 and end_ns = 0) from gpu_op where kind = 1")" "6|1"
finish
