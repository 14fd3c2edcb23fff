#!/usr/bin/env bash
# report_bench.sh [RECORDS[:RANKS]...]: the report's speed and memory on
# synthetic runs (bench/gen_run.sh; generated, never committed).  For each
# size: records per second the report reads, trace events per second the
# export writes, and peak memory against the database's size.  Default:
# 1M and 10M records over 4 ranks (RANKS, when a size names none), 20M over
# 8 (ranks as long as the 10M run's, twice as many), and single ranks of
# 2M, 8M and 16M records.  The report holds one process's records at a
# time, and every rank's collectives go through a temporary file, so twice
# the ranks of the same length need the same memory; a rank of more than
# 4M records is read a window of 1M records at a time (viewer/read/windows.h),
# so a longer rank needs little more: its ext_corr rows, which stay loaded
# with it, and the windows' plan.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rep=$top/build/gputrace-report
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# one process each: its file as named (not a run directory), for sqlite3
export GPUTRACE_ONE_FILE=1
sizes=${*:-1000000 10000000 20000000:8 2000000:1 8000000:1 16000000:1}
# measure ROWS RANKS [NOTE]: the report on $tmp/run.db, without and with the
# Chrome trace; one line of the table
measure() {
  local rows=$1 ranks=$2 note=${3:-} db_mib r_s r_kb e_s e_kb events
  db_mib=$(( $(stat -c %s "$tmp/run.db") / 1048576 ))
  /usr/bin/time -f "%e %M" -o "$tmp/t1" "$rep" --format json "$tmp/run.db" > /dev/null
  /usr/bin/time -f "%e %M" -o "$tmp/t2" "$rep" --format json --chrome-trace "$tmp/trace.json" "$tmp/run.db" > /dev/null
  events=$(grep -c '"ph"' "$tmp/trace.json" || true)
  read -r r_s r_kb < "$tmp/t1"
  read -r e_s e_kb < "$tmp/t2"
  awk -v n="$rows" -v r="$ranks" -v db="$db_mib" -v rs="$r_s" -v es="$e_s" -v ev="$events" -v kb="$e_kb" -v note="$note" 'BEGIN {
    ex = es - rs; if (ex <= 0) ex = 0.001
    printf "%10d %5d %9d %10.2f %12.0f %10.2f %12.0f %10.0f %9.2f%s\n", n, r, db, rs, n / rs, ex, ev / ex, kb / 1024, kb / 1024 / db, note }'
  rm -f "$tmp"/run.db* "$tmp/trace.json"
}

printf "%10s %5s %9s %10s %12s %10s %12s %10s %9s\n" records ranks "db MiB" "report s" "records/s" "export s" "events/s" "peak MiB" "peak/db"
for size in $sizes; do
  n=${size%%:*}
  ranks=${RANKS:-4}
  case $size in *:*) ranks=${size#*:} ;; esac
  measure "$("$top/bench/gen_run.sh" "$tmp/run.db" "$n" "$ranks" | tail -n 1)" "$ranks"
done
b=$top/build
cc -O2 "-I${CUDA_HOME:-/usr/local/cuda}/include" -pthread -o "$tmp/sink_rate" "$top/bench/sink_rate.c" \
  "$b/tests/sim/.libs/libgpusim.so" "-Wl,-rpath,$b/tests/sim/.libs" -ldl
GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/run.db" LD_PRELOAD="$b/.libs/libgputrace.so" "$tmp/sink_rate" 300000 launch > /dev/null
measure "$(sqlite3 "$tmp/run.db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)
  + (select count(*) from cupti_api) + (select coalesce(sum(n), 0) from cupti_api_block)
  + (select count(*) from gpu_op) + (select coalesce(sum(n), 0) from gpu_op_block)")" 1 "  (traced: kernel launches, in blocks)"
