#!/bin/sh
# tracer_cupti_buffers.sh: the tracer's CUPTI buffers are reused from one
# commit to the next.  The writer flushes CUPTI at every commit, so at a
# steady rate each buffer comes back part-filled; it used to be cut and
# unmapped, and CUPTI's next request got a freshly mapped buffer
# (a page fault for every 4 KiB CUPTI wrote into it, two unmaps, each a
# TLB flush on every CPU): one fresh map per commit.  A library preloaded
# beside the tracer counts the fresh maps of that size (in the sanitizer
# build the tracer's maps go past it, which the check says by skipping).
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_QUIET=1 GPUTRACE_ONE_FILE=1
lib="$b/.libs/libgputrace.so"
shim="$b/tests/apps/.libs/libcount_maps.so"
# 128 KiB: BUF_BYTES in collector/cupti_sub.c
export COUNT_MAPS_BYTES=131072
# untraced, the program maps no such buffer (the count is the tracer's)
COUNT_MAPS_OUT="$tmp/plain" LD_PRELOAD="$shim" "$b/tests/apps/paced_calls" 500 0.2 > /dev/null
expect "untraced: no 128 KiB map" "$(cat "$tmp/plain")" "maps: 0"
# a commit every 20 ms for a second, each with CUPTI's records flushed:
# about 50 part-filled buffers, none near the tracer's memory budget
COUNT_MAPS_OUT="$tmp/traced" GPUTRACE_FLUSH_MS=20 GPUTRACE_OUTPUT="$tmp/t.db" LD_PRELOAD="$lib $shim" \
  "$b/tests/apps/paced_calls" 2000 1 > "$tmp/out"
expect "the program ran" "$?" 0
expect "every call's CUPTI record stored" "$(qr "$tmp/t.db" "select (select coalesce(sum(n), 0) from cupti_api_block)
  + (select count(*) from cupti_api) >= 2000")" 1
maps=$(sed -n 's/^maps: //p' "$tmp/traced")
if [ "$maps" = 0 ]; then # CUPTI's records were stored (above), so a buffer was mapped: not seen
  skip "CUPTI's buffers reused" "the counter does not see the tracer's mappings here (the sanitizer build's calls go past it)"
else
  expect "CUPTI's buffers mapped once or twice, then reused (was one per commit)" \
    "$([ -n "$maps" ] && [ "$maps" -ge 1 ] && [ "$maps" -le 3 ] && echo ok || echo "maps: $maps")" ok
fi
# CUPTI keeps a buffer for each thread that makes records (as CUPTI 13
# does, and the simulator with it): 24 threads alive at once, each with a
# call of its own, hold 24 buffers until the next flush.  Within the
# tracer's 16 MiB for CUPTI only if each buffer is small (4 MiB ones: four
# threads had one, and the others' records were dropped; PyTorch on an
# H200 lost 1,452 GPU records in 30 steps so)
GPUTRACE_OUTPUT="$tmp/m.db" LD_PRELOAD="$lib" "$b/tests/apps/many_threads" 24 > "$tmp/m.out"
expect "many threads: the program ran" "$?" 0
expect "many threads: every call's CUPTI record stored, none dropped" \
  "$(qr "$tmp/m.db" "select (select coalesce(sum(n), 0) from cupti_api_block) + (select count(*) from cupti_api) >= 25,
    (select dropped_cupti from process)")" "1|0"
finish
