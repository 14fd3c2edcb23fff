#!/bin/sh
# tracer_own_activity.sh: a program that starts a profiler of its own on
# CUPTI's activity API (tests/apps/own_activity.c, in the order
# torch.profiler's Kineto calls it) gets from CUPTI what it gets untraced:
# its kernel records, on its own clock, none of the tracer's kinds, none of
# the tracer's buffers (libtrace/wrap_cupti.c).  The tracer's GPU records
# end where the program took CUPTI, the file says so, and the report leaves
# the calls after out (a launch there has no kernel record to be read by)
# and says why.
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
lib="$b/.libs/libgputrace.so"
app="$b/tests/apps/own_activity"

"$app" > "$tmp/untraced" 2>&1
expect "untraced: the program's profiler gets its 10 kernels" "$(grep 'own profiler' "$tmp/untraced")" \
  "own profiler: 10 kernel records, 10 inside the profiled stretch on its clock, 0 of other kinds, 0 buffers not its own"

LD_PRELOAD="$lib" GPUTRACE_OUTPUT="$tmp/pre.db" "$app" > "$tmp/pre.out" 2> "$tmp/pre.err"
expect "preloaded: exit status passes through" $? 0
expect "preloaded: its profiler gets what it gets untraced" "$(grep -v '^gputrace' "$tmp/pre.out")" "$(cat "$tmp/untraced")"
expect "preloaded: one line says the tracer stepped aside" \
  "$(grep -c 'its profiler gets CUPTI, and this process.s GPU records end here' "$tmp/pre.err")" 1

# as gputrace record runs a program: injected as well as preloaded
GPUTRACE_QUIET=1 "$b/gputrace" record -o "$tmp/rec.db" -- "$app" > "$tmp/rec.out" 2>&1
expect "gputrace record: exit status passes through" $? 0
expect "gputrace record: its profiler gets what it gets untraced" "$(grep -v '^gputrace' "$tmp/rec.out")" "$(cat "$tmp/untraced")"
expect "gputrace record, GPUTRACE_QUIET=1: no line of the tracer's" "$(grep -c '^gputrace' "$tmp/rec.out")" 0

# a thread blocked in a sync across the profiler's start: the tracer's
# external id pushed around that call is popped at its end, though CUPTI
# is not the tracer's by then (it stayed under the profiler's own CUSTOM0
# ids: 5 of its records carried it)
"$app" blocked > "$tmp/blocked.untraced" 2>&1
LD_PRELOAD="$lib" GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/blocked.db" "$app" blocked > "$tmp/blocked.traced" 2>&1
expect "blocked across the start: its profiler gets what it gets untraced" \
  "$(cat "$tmp/blocked.traced") / $(cat "$tmp/blocked.untraced")" \
  "own profiler: 0 CUSTOM0 external ids, 0 buffers not its own / own profiler: 0 CUSTOM0 external ids, 0 buffers not its own"

for run in pre rec; do
  expect "$run: the file says where CUPTI was handed over" \
    "$(q "$tmp/$run.db" "select cupti_status glob 'active until [0-9]* (the program''s own profiler took CUPTI)' from process")" 1
  # the first stretch's 20 kernels, not the profiled 10 nor the 20 after
  expect "$run: the tracer's kernel records end there" \
    "$("$b/gputrace-report" --format json "$tmp/$run.db" | python3 -c '
import json, sys
d = json.load(sys.stdin)
r = d["ranks"][0]
print(sum(k["count"] for k in d.get("kernels", [])), r["gpu_records_until_ns"] > 0)')" "20 True"
  text=$("$b/gputrace-report" "$tmp/$run.db")
  case "$text" in
    *"the program's own profiler (torch.profiler, or another CUPTI client) took CUPTI"*) ok "$run: the report says so" ;;
    *) bad "$run: the report says so (got: $(printf '%s' "$text" | head -5))" ;;
  esac
  # the calls after are left out (read without kernel records, the
  # profiled stretch's sync and the last one block for work of nothing):
  # the first stretch's 23 (two streams, 20 launches, a sync), not 55
  expect "$run: the calls after are left out of the analyses" \
    "$("$b/gputrace-report" --format json "$tmp/$run.db" | python3 -c '
import json, sys
r = json.load(sys.stdin)["ranks"][0]
print(r["api_calls"])')" 23
done

finish
