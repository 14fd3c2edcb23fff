#!/bin/sh
# monitor_captures.sh: two `gputrace capture` requests whose spans
# overlap (the second asked while the first still records, more than
# GROUP_MS after it): each is a window of its own on every rank.  A
# process kept one capture at a time, and the second took the first's
# place: the first was never written, and its `--wait` waited in vain.
set -u
. "${top_srcdir:-.}/tests/e2e/testlib.sh"
. "${top_srcdir:-.}/tests/e2e/monitorlib.sh"

field() { sqlite3 "$1" "$2" 2>/dev/null; }

r="$tmp/caps"
APP_STEPS=100000 traced_bg "$r" 2 "$b/tests/apps/train_demo"
wait_dbs "$r" 2
"$b/gputrace" capture "$r" --seconds 6 --wait 30 > "$tmp/cap1.out" 2>&1 & c1=$!
# 3 s from the first request's file (dated as it is made), not from the
# start of the command that makes it: a late start would bring the two
# within GROUP_MS, one request
k=0; while [ $k -lt 300 ] && [ -z "$(ls "$r/requests" 2> /dev/null)" ]; do sleep 0.1; k=$((k + 1)); done
sleep 3
"$b/gputrace" capture "$r" --seconds 1 --wait 30 > "$tmp/cap2.out" 2>&1; rc2=$?
wait $c1; rc1=$?
stop_bg
n=0
for w in $(windows "$r"); do
  [ "$(field "$(ls "$w"/*.db | head -n 1)" "select reason from window")" = capture ] && n=$((n + 1))
done
expect "two overlapping captures: the first's windows, both ranks" "$rc1:$(grep -c '^2 of 2' "$tmp/cap1.out")" "0:1"
expect "two overlapping captures: the second's windows, both ranks" "$rc2:$(grep -c '^2 of 2' "$tmp/cap2.out")" "0:1"
expect "two overlapping captures: two capture windows" "$n" 2
finish
