#!/bin/sh
# monitor_hangs.sh: the hangs a monitor must catch besides a rank that
# stops before a collective (monitor.sh): a rank killed inside the job
# (the others wait for it in their next collective; its window is never
# written, and the report on the others' says which rank it lacks), and
# a rank whose GPU hangs in a kernel before an all-reduce every rank
# entered (every rank blocks in a device-side wait: all write windows),
# and that hang dumped by hand before the monitor's own timeout.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
. "${top_srcdir:-.}/tests/e2e/monitorlib.sh"
export GPUTRACE_HANG_S=2

# 1. rank 1 of 4 killed (SIGKILL) while the job runs
r="$tmp/killed"
APP_STEPS=100000 traced_bg "$r" 4 "$b/tests/apps/train_demo"
wait_dbs "$r" 4
sleep 1
victim=""
for f in "$r"/*.db; do
  [ "$(sqlite3 "$f" "select rank from process" 2>/dev/null)" = 1 ] && victim=$(sqlite3 "$f" "select pid from process")
done
[ -n "$victim" ] && kill -KILL "$victim"
wait_windows "$r" 3 40; got=$?
stop_bg
expect "a rank killed: the 3 others write their windows" "$got" 0
w=$(windows "$r" | head -n 1)
[ -n "$w" ] || w="$tmp/none"
expect "a rank killed: its window is not there" "$(ndb "$w")" 3
"$b/gputrace-report" "$w" > "$tmp/rep" 2>&1
expect "a rank killed: the report reads the others' windows" "$?" 0
grep -q "no window of rank(s) 1\b" "$tmp/rep"
expect "a rank killed: the report says which rank's window is missing" "$?" 0
grep -q "comm.hang" "$tmp/rep"
expect "a rank killed: the report finds the hang" "$?" 0

# 2. the last rank's GPU hangs in a kernel before an all-reduce all entered
r="$tmp/inside"
traced_bg "$r" 4 "$b/tests/apps/hang_inside"
wait_windows "$r" 4 40; got=$?
stop_bg
expect "a GPU hung in a kernel: every rank writes its window" "$got" 0
w=$(windows "$r" | head -n 1)
[ -n "$w" ] || w="$tmp/none"
reasons=$(for f in "$w"/*.db; do sqlite3 "$f" "select reason from window" 2>/dev/null; done | sort -u | tr '\n' ' ')
expect "a GPU hung in a kernel: the windows say hang" "$reasons" "hang "
"$b/gputrace-report" "$w" > "$tmp/rep" 2>&1
grep -q "comm.hang" "$tmp/rep"
expect "a GPU hung in a kernel: the report finds the hang" "$?" 0

# 3. the same hang dumped by hand (`gputrace dump`) before GPUTRACE_HANG_S
# says it is one: each rank is stuck in a blocking call, so its window gets
# CUPTI's every buffer as a hang's does (collector/monitor.c, STUCK_NS), and
# the report tells the all-reduce whose kernel never ended from one whose
# record CUPTI still held (a request window of a running process is not
# flushed otherwise)
r="$tmp/dumped"
GPUTRACE_HANG_S=600 traced_bg "$r" 4 "$b/tests/apps/hang_inside"
wait_dbs "$r" 4
expect "a hang dumped by hand: every rank began tracing" "$?" 0
# stuck: the GPU hangs at step 3 (well under a second in), every rank then
# blocks; 4 s leaves each blocked past STUCK_NS on a loaded machine
sleep 4
"$b/gputrace" dump "$r" --wait 30 > "$tmp/dump.out" 2>&1; rc=$?
stop_bg
expect "a hang dumped by hand: every rank writes its window" "$rc:$(grep -c '^4 of 4 process(es) wrote' "$tmp/dump.out")" "0:1"
w=$(windows "$r" | head -n 1)
[ -n "$w" ] || w="$tmp/none"
flushed=$(for f in "$w"/*.db; do sqlite3 "$f" "select reason || ' ' || gpu_flushed from window" 2>/dev/null; done | sort -u | tr '\n' ' ')
expect "a hang dumped by hand: request windows, CUPTI flushed for each" "$flushed" "request 1 "
"$b/gputrace-report" "$w" > "$tmp/rep" 2>&1
grep -q "comm.hang" "$tmp/rep"
expect "a hang dumped by hand: the report finds the hang" "$?" 0
[ -n "$(grep "comm.hang" "$tmp/rep")" ] || note "$(grep -E '^ *[0-9]+\. ' "$tmp/rep" | head -n 5 | tr -s ' ' | tr '\n' '|')"
finish
