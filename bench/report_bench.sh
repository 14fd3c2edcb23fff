#!/usr/bin/env bash
# report_bench.sh [RECORDS[:RANKS]...]: the report's speed and memory on
# synthetic runs (bench/gen_run.sh; generated, never committed).  For each
# size: records per second the report reads, trace events per second the
# export writes, and peak memory against the database's size.  Default:
# 1M and 10M records over 4 ranks (RANKS, when a size names none), and 2M
# records of a single rank.  Peak memory follows the largest rank (the
# report holds one process's records at a time), so the same records over
# more ranks need less, and a file of one rank shows the per-record cost.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rep=$top/build/gputrace-report
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
sizes=${*:-1000000 10000000 2000000:1}
printf "%10s %5s %9s %10s %12s %10s %12s %10s %9s\n" records ranks "db MiB" "report s" "records/s" "export s" "events/s" "peak MiB" "peak/db"
for size in $sizes; do
  n=${size%%:*}
  ranks=${RANKS:-4}
  case $size in *:*) ranks=${size#*:} ;; esac
  rows=$("$top/bench/gen_run.sh" "$tmp/run.db" "$n" "$ranks" | tail -n 1)
  db_mib=$(( $(stat -c %s "$tmp/run.db") / 1048576 ))
  /usr/bin/time -f "%e %M" -o "$tmp/t1" "$rep" --format json "$tmp/run.db" > /dev/null
  /usr/bin/time -f "%e %M" -o "$tmp/t2" "$rep" --format json --chrome-trace "$tmp/trace.json" "$tmp/run.db" > /dev/null
  events=$(grep -c '"ph"' "$tmp/trace.json" || true)
  read -r r_s r_kb < "$tmp/t1"
  read -r e_s e_kb < "$tmp/t2"
  awk -v n="$rows" -v r="$ranks" -v db="$db_mib" -v rs="$r_s" -v es="$e_s" -v ev="$events" -v kb="$e_kb" 'BEGIN {
    ex = es - rs; if (ex <= 0) ex = 0.001
    printf "%10d %5d %9d %10.2f %12.0f %10.2f %12.0f %10.0f %9.2f\n", n, r, db, rs, n / rs, ex, ev / ex, kb / 1024, kb / 1024 / db }'
  rm -f "$tmp"/run.db* "$tmp/trace.json"
done
