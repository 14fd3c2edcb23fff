#!/usr/bin/env bash
# bench/e2e_cost.sh: the tracer's cost end to end, on the 4-rank `overlapped`
# workload (tests/apps/overlapped.c on the GPU simulator), traced with
# `gputrace record` at its defaults (a run directory, one file per rank,
# CUPTI on, stacks at 8) against the same run untraced.  The two are taken
# in turns, E2E_RUNS times (default 5), the order switched every other pair
# (a machine shared with other work drifts; a pair's ratio drifts less), and
# the median of the pairs' ratios printed: the target is 1.03 at most.  The
# CPU time of the two is printed beside (the ranks and the tracer's threads,
# user and system): the ratio of wall times holds only on a machine with
# cores to spare; on one loaded with other work it follows the CPU time.
# E2E_STEPS steps a run (default 400).  Needs a build (scripts/build.sh);
# BUILD names another one.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-$top/build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# at the defaults: a run directory, one file per rank (bench/run.sh, which
# calls this, sets one file for its single processes)
unset GPUTRACE_ONE_FILE
runs=${E2E_RUNS:-5}
export APP_STEPS=${E2E_STEPS:-400}
run=("$b/tests/sim/gpusim-run" -n 4 "$b/tests/apps/overlapped")
# "WALL_MS CPU_MS" of a command (CPU: user + system of it and every process
# it waited for, the ranks included), its output discarded; a failed run
# stops the bench
ms() {
  local t0 t1
  t0=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$tmp/cpu" "$@" > "$tmp/out" 2>&1 ||
    { echo "failed: $*" >&2; tail -5 "$tmp/out" >&2; exit 1; }
  t1=$(date +%s%N)
  echo "$(( (t1 - t0) / 1000000 )) $(awk '{printf "%.0f", ($1 + $2) * 1000}' "$tmp/cpu")"
}
untraced() { ms "${run[@]}"; }
traced() { rm -rf "$tmp/run"; ms "$b/gputrace" record -o "$tmp/run" -- "${run[@]}"; }
echo "   overlapped, 4 ranks, $APP_STEPS steps, $runs pairs (load before: $(cut -d' ' -f1-3 /proc/loadavg))"
ratios=() cpus=()
for i in $(seq "$runs"); do
  if [ $((i % 2)) -eq 1 ]; then u=$(untraced); t=$(traced); else t=$(traced); u=$(untraced); fi
  read -r uw uc <<< "$u"
  read -r tw tc <<< "$t"
  r=$(echo "$tw $uw" | awk '{printf "%.3f", $1 / $2}')
  c=$(echo "$tc $uc" | awk '{printf "%.3f", $1 / $2}')
  echo "untraced $uw ms (CPU $uc ms)  traced $tw ms (CPU $tc ms)  ratio $r (CPU $c)"
  ratios+=("$r") cpus+=("$c")
done
# the run directory of the last traced run holds what each rank recorded
drops=$(for f in "$tmp"/run/*.db; do sqlite3 "$f" "select dropped_host + dropped_cupti from process"; done |
  awk '{s += $1} END {print s + 0}')
printf '%s\n' "${ratios[@]}" | sort -n | awk -v d="$drops" -v n="$runs" '{v[NR] = $1}
  END {printf "   ... median of %d pairs: traced / untraced = %s (target 1.03 at most); the last traced run dropped %d records\n",
       n, v[int((n + 1) / 2)], d}'
# the CPU the tracer takes (its writer's SQLite work, mostly): what a
# machine without idle cores pays in wall time
printf '%s\n' "${cpus[@]}" | sort -n | awk -v n="$runs" '{v[NR] = $1}
  END {printf "   ... CPU time, traced / untraced: median %s\n", v[int((n + 1) / 2)]}'
echo "   (load after: $(cut -d' ' -f1-3 /proc/loadavg))"
