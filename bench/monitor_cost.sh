#!/usr/bin/env bash
# bench/monitor_cost.sh: what monitor mode (docs/monitor.md) costs a job
# that leaves it on: a workload untraced, in monitor mode
# (`gputrace record --monitor`) and fully recorded (`gputrace record`),
# taken in turns MON_RUNS times (default 5), the order rotated each round;
# printed: the median of each round's monitor / untraced and full /
# untraced wall time (target for monitor: 1.005 at most) and CPU time, the
# largest rank's peak resident memory in each mode (target: monitor at
# most 16 MiB above untraced, the window included), and the aggregates
# that grow with the job (the steps' rows) per rank extrapolated to an hour
# at the workload's step rate (target: 2 MB at most; the simulator's steps
# are 3 to 30 ms, a real job's 100 ms to seconds).  The monitor runs
# with its metrics written every MON_METRICS_MS (default 1000, five times
# as often as GPUTRACE_METRICS_MS's default, so that a short run pays
# for several), and once more without them (GPUTRACE_METRICS_MS=0), for
# their own cost side by side.  Workloads: the 4-rank `overlapped` (MON_STEPS steps, default
# 400) and `train_demo`, on the GPU simulator, CUPTI on (the simulator's).
# The ratio of wall times holds only on a machine with cores to spare.
# Needs a build (scripts/build.sh); BUILD names another one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-$top/build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
unset GPUTRACE_ONE_FILE GPUTRACE_MODE
runs=${MON_RUNS:-5}
export APP_STEPS=${MON_STEPS:-400}
# "WALL_MS CPU_MS MAXRSS_KB" of a command (CPU and peak memory of it and
# the processes it waited for: the ranks), its output discarded
ms() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%U %S %M" -o "$tmp/cpu" "$@" > "$tmp/out" 2>&1 ||
    { echo "failed: $*" >&2; tail -5 "$tmp/out" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(awk '{printf "%.0f %d", ($1 + $2) * 1000, $3}' "$tmp/cpu")"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
bench() {
  local app=$1 r u m f
  local run=("$b/tests/sim/gpusim-run" -n 4 "$b/tests/apps/$app")
  : > "$tmp/rows"
  for i in $(seq "$runs"); do
    for mode in $(case $((i % 4)) in 0) echo u m n f;; 1) echo m n f u;; 2) echo n f u m;; 3) echo f u m n;; esac); do
      rm -rf "$tmp/run"
      case $mode in
        u) u=$(ms "${run[@]}") ;;
        n) n=$(GPUTRACE_METRICS_MS=0 ms "$b/gputrace" record --monitor -o "$tmp/run" -- "${run[@]}") ;;
        m) m=$(GPUTRACE_METRICS_MS=${MON_METRICS_MS:-1000} ms "$b/gputrace" record --monitor -o "$tmp/run" -- "${run[@]}")
           # the aggregates that grow with the job: the steps' rows, bytes
           # a second, per rank (the other tables are one row per call site
           # or communicator, whatever the job's length)
           agg=$(for db in "$tmp"/run/*.db; do
                   sqlite3 "$db" "select (select sum(pgsize - unused) from dbstat where name = 'mon_step') * 1e9 /
                                  (select max(end_ns) - min(start_ns) from mon_step)"
                 done | awk '{s += $1} END {printf "%.0f", s / NR}') ;;
        f) f=$(ms "$b/gputrace" record -o "$tmp/run" -- "${run[@]}") ;;
      esac
    done
    read -r uw uc ur <<< "$u"; read -r mw mc mr <<< "$m"; read -r fw fc fr <<< "$f"; read -r nw nc nr <<< "$n"
    echo "$uw $mw $fw $uc $mc $fc $ur $mr $fr $agg $nw $nc" >> "$tmp/rows"
    echo "   untraced $uw ms  monitor $mw ms (no metrics $nw ms)  full $fw ms  (CPU $uc / $mc / $nc / $fc ms; peak RSS $ur / $mr / $fr KiB)"
  done
  echo "   ... $app, median of $runs rounds:" \
    "monitor / untraced = $(awk '{printf "%.4f\n", $2 / $1}' "$tmp/rows" | median) (target 1.005 at most)," \
    "full / untraced = $(awk '{printf "%.4f\n", $3 / $1}' "$tmp/rows" | median);" \
    "CPU monitor / untraced = $(awk '{printf "%.3f\n", $5 / $4}' "$tmp/rows" | median)"
  echo "   ... the metrics' own cost: monitor / monitor without metrics = $(awk '{printf "%.4f\n", $2 / $11}' "$tmp/rows" | median)," \
    "CPU $(awk '{printf "%.3f\n", $5 / $12}' "$tmp/rows" | median)"
  echo "   ... peak RSS of the largest rank, monitor - untraced: $(awk '{printf "%.1f\n", ($8 - $7) / 1024}' "$tmp/rows" | median) MiB" \
    "(full - untraced: $(awk '{printf "%.1f\n", ($9 - $7) / 1024}' "$tmp/rows" | median) MiB)"
  echo "   ... aggregates: $(awk '{printf "%.2f\n", $10 * 3600 / 1e6}' "$tmp/rows" | median) MB" \
    "per rank per hour at this workload's step rate (target 2 at most)"
}
echo "   monitor mode's cost, 4 ranks, $APP_STEPS steps, $runs rounds (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
bench overlapped
bench train_demo
echo "   (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
