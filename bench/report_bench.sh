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
#
# Then the scaling over workers (--jobs, viewer/proc_jobs.h), side by side
# in one run: the same run (SCALE, default 4000000 records over 8 ranks),
# as one file and as a run directory, reported by 1 worker on one thread,
# 1 worker as by default (it reads a big table in two threads), and 2 and
# up to the CPUs' number of workers, interleaved, each REPEAT times
# (default 3; medians): records per second, per core (per worker), per
# second of CPU time (what one core does, whatever the machine's load), the
# speedup over one worker on one thread, and the machine's load (uptime)
# before and after, since a shared machine depresses it.  The outputs are
# compared too: they must be the same, byte for byte.
# `report_bench.sh --scaling [RECORDS[:RANKS]]` measures the scaling only.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
rep=$top/build/gputrace-report
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# one process each: its file as named (not a run directory), for sqlite3
export GPUTRACE_ONE_FILE=1
scaling_only=0
if [ "${1:-}" = "--scaling" ]; then scaling_only=1; shift; SCALE=${1:-${SCALE:-}}; set --; fi
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

# scaling RECORDS RANKS: the report of one run on 1, 2, ... workers, side by
# side.  Configurations: "1t" one worker on one thread; "1" one worker as
# by default (a big table read in halves on two threads); "Nt" N workers,
# each on one thread; "N" N workers as by default.  For the "t" ones the
# report says (GPUTRACE_REPORT_JOBS set) the CPU seconds of its own thread
# and of its busiest worker: their sum is what it takes on idle CPUs (its
# thread waits while the workers work), a figure that a loaded machine
# does not move much, beside the wall times that it does.
scaling() {
  local n=$1 ranks=$2 cpus reps=${REPEAT:-3} layout rows configs c j k
  cpus=$(getconf _NPROCESSORS_ONLN)
  rows=$("$top/bench/gen_run.sh" "$tmp/scale.db" "$n" "$ranks" | tail -n 1)
  # the same run as a run directory: one file per process, as `gputrace record` makes it
  mkdir -p "$tmp/scale.dir"
  for ((r = 0; r < ranks; r++)); do
    cp "$tmp/scale.db" "$tmp/scale.dir/rank$r.db"
    sqlite3 "$tmp/scale.dir/rank$r.db" "PRAGMA journal_mode=DELETE;
      DELETE FROM api_call WHERE process_id <> $((r + 1)); DELETE FROM cupti_api WHERE process_id <> $((r + 1));
      DELETE FROM gpu_op WHERE process_id <> $((r + 1)); DELETE FROM collective WHERE process_id <> $((r + 1));
      DELETE FROM ext_corr WHERE process_id <> $((r + 1)); DELETE FROM string WHERE process_id <> $((r + 1));
      DELETE FROM callsite WHERE process_id <> $((r + 1)); DELETE FROM process WHERE id <> $((r + 1)); VACUUM;" > /dev/null
  done
  echo
  echo "scaling over workers: $rows records, $ranks ranks, $cpus CPUs; load before: $(uptime | sed 's/.*load average: //')"
  printf "%-6s %-28s %7s %7s %10s %10s %10s %8s %9s %8s\n" layout workers "wall s" "cpu s" records/s /core \
    /cpu-s speedup "crit. s" speedup
  configs="1t 1"
  for ((j = 2; j <= cpus && j <= ranks; j *= 2)); do configs="$configs ${j}t $j"; done
  for layout in file dir; do
    local in=$tmp/scale.db; [ "$layout" = dir ] && in=$tmp/scale.dir
    for ((k = 0; k < reps; k++)); do # interleaved: the machine's load moves them all alike
      for c in $configs; do
        j=${c%t}
        if [ "$c" != "$j" ]; then export GPUTRACE_REPORT_THREADS=1; else unset GPUTRACE_REPORT_THREADS; fi
        GPUTRACE_REPORT_JOBS=$j /usr/bin/time -f "%e %U %S" -o "$tmp/t.$c.$k" "$rep" --format json "$in" \
          > "$tmp/out.$c" 2> "$tmp/err.$c.$k"
        sed -n 's/.*CPU seconds: \([0-9.]*\) on .*, \([0-9.]*\) on the busiest.*/\1 \2/p' "$tmp/err.$c.$k" \
          >> "$tmp/t.$c.$k"
      done
    done
    unset GPUTRACE_REPORT_THREADS
    for c in $configs; do
      cmp -s "$tmp/out.1t" "$tmp/out.$c" || echo "  (workers $c: the report differs from one worker's!)"
    done
    # per configuration, the medians: wall, CPU (user + sys), critical path (the report's thread + the busiest worker)
    for c in $configs; do
      for k in $(seq 0 $((reps - 1))); do
        awk 'NR == 1 { w = $1; u = $2 + $3 } NR == 2 { p = $1 + $2 } END { print w, u, (p ? p : "-") }' "$tmp/t.$c.$k"
      done > "$tmp/m.$c"
    done
    med() { sort -n -k"$2" "$1" | awk -v r="$reps" -v f="$2" 'NR == int((r + 1) / 2) { print $f }'; }
    local base_w base_p; base_w=$(med "$tmp/m.1t" 1); base_p=$(med "$tmp/m.1t" 3)
    for c in $configs; do
      j=${c%t}
      awk -v c="$c" -v j="$j" -v n="$rows" -v lay="$layout" -v w="$(med "$tmp/m.$c" 1)" -v u="$(med "$tmp/m.$c" 2)" \
          -v p="$(med "$tmp/m.$c" 3)" -v bw="$base_w" -v bp="$base_p" 'BEGIN {
        what = j " worker" (j > 1 ? "s" : "") (c == j ? ", as by default" : ", 1 thread each")
        crit = c == j ? "-" : sprintf("%.2f", p); sp = c == j ? "-" : sprintf("%.2fx", bp / p)
        printf "%-6s %-28s %7.2f %7.2f %10.0f %10.0f %10.0f %7.2fx %9s %8s\n", lay, what, w, u, n / w, n / w / j, n / u,
               bw / w, crit, sp }'
    done
  done
  echo "load after: $(uptime | sed 's/.*load average: //') (1, 5, 15 min; above $cpus the workers share the CPUs)"
  echo "(records/s per core: per worker; /cpu-s: per CPU second; speedups over 1 worker on 1 thread: wall, then the"
  echo " critical path on idle CPUs, the report's thread's CPU seconds plus its busiest worker's)"
  rm -rf "$tmp"/scale.* "$tmp"/out.* "$tmp"/t.* "$tmp"/m.* "$tmp"/err.*
}

if [ "$scaling_only" = 1 ]; then
  s=${SCALE:-4000000:8}
  scaling "${s%%:*}" "$( [[ $s == *:* ]] && echo "${s#*:}" || echo 8)"
  exit 0
fi

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
s=${SCALE:-4000000:8}
scaling "${s%%:*}" "$( [[ $s == *:* ]] && echo "${s#*:}" || echo 8)"
