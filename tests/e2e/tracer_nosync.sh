#!/bin/sh
# tracer_nosync.sh: a traced process syncs no file, from the start to its
# end: its database is written with synchronous=OFF, set before the switch
# to WAL (that switch is a write of its own: made first, it synced the
# journal, the file and the directory four times in every new process,
# which a run's ranks then waited on at their start on a busy disk).  A
# library preloaded beside the tracer counts fsync and fdatasync.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
export GPUTRACE_QUIET=1
lib="$b/.libs/libgputrace.so"
shim="$b/tests/apps/.libs/libcount_syncs.so"
# untraced, the program itself syncs nothing (the count is the tracer's)
COUNT_SYNCS_OUT="$tmp/plain" LD_PRELOAD="$shim" "$b/tests/apps/paced_calls" 1000 0.5 > /dev/null
expect "untraced: no sync" "$(cat "$tmp/plain")" "syncs: 0"
# a run directory (the default) and a shared file (--one-file), each new
for mode in dir file; do
  if [ $mode = file ]; then out="$tmp/one.db"; one=1; else out="$tmp/run"; one=0; fi
  COUNT_SYNCS_OUT="$tmp/$mode" GPUTRACE_ONE_FILE=$one GPUTRACE_OUTPUT="$out" LD_PRELOAD="$lib $shim" \
    "$b/tests/apps/paced_calls" 1000 0.5 > "$tmp/out"
  expect "$mode: the program ran" "$?" 0
  expect "$mode: calls stored" "$(q "$out" "select count(*) > 400 from api_call")" 1
  expect "$mode: no file synced from start to end" "$(cat "$tmp/$mode")" "syncs: 0"
done
finish
