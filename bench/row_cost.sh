#!/usr/bin/env bash
# bench/row_cost.sh: what the tracer's CPU costs per record it stores, the
# two ways it can store a training run's records (tens of thousands a
# second a process): in bulk blocks (the default, GPUTRACE_BULK_AFTER=0)
# and one row each (GPUTRACE_BULK_AFTER past any backlog, as before blocks
# were the default), side by side.  bench/sink_rate's kernel launches at
# 10 K/s for 2 s, CUPTI on (a call, an API record and a kernel record
# each: ~60 K records), traced minus untraced CPU time (user + system, to
# the microsecond, of the process and its threads; its output dropped)
# over the records stored, taken ROW_RUNS times (default 5) in turns with
# the untraced run and the median printed, all in and without the tracer's
# start and exit (see per_row); with BENCH_BASE_LIB (another build's
# libgputrace.so) the same for it, run for run beside this one.  Called by
# bench/run.sh (section 2); needs a build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-$top/build}
lib=${1:-$b/.libs/libgputrace.so}
sink=${2:?usage: row_cost.sh LIB SINK_RATE_BINARY}
base_lib=${BENCH_BASE_LIB:-}
runs=${ROW_RUNS:-5}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUTRACE_ONE_FILE=1 GPUTRACE_QUIET=1
# CPU microseconds of a command and every thread of it (wait4's rusage:
# the scheduler's own count, not the 10 ms ticks /usr/bin/time prints)
cpu_us() {
  python3 -c 'import os, sys
pid = os.fork()
if pid == 0:
    out = os.open(os.devnull, os.O_WRONLY)
    os.dup2(out, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
_, status, ru = os.wait4(pid, 0)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status):
    sys.exit("failed: " + " ".join(sys.argv[1:]))
print(round((ru.ru_utime + ru.ru_stime) * 1e6))' "$@" 2> "$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
}
rows() {
  sqlite3 -separator ' ' "$1" "select (select count(*) from api_call) + (select count(*) from cupti_api) + (select count(*) from gpu_op),
    (select coalesce(sum(n), 0) from api_call_block) + (select coalesce(sum(n), 0) from cupti_api_block)
    + (select coalesce(sum(n), 0) from gpu_op_block)"
}
# ns per row of one traced run against the untraced run beside it: all in,
# and with the tracer's start and exit left out (the same at 1 launch a
# second, ~1000 launches in the program's first burst, subtracted)
# per_row LIB BULK_AFTER
per_row() {
  local l=$1 u t n blocks u1 t1 n1 b1
  export GPUTRACE_BULK_AFTER=$2
  rm -f "$tmp/r.db"*
  u=$(cpu_us "$sink" 10000 launch)
  t=$(GPUTRACE_OUTPUT="$tmp/r.db" LD_PRELOAD="$l" cpu_us "$sink" 10000 launch)
  read -r n blocks < <(rows "$tmp/r.db")
  rm -f "$tmp/r.db"*
  u1=$(cpu_us "$sink" 1 launch)
  t1=$(GPUTRACE_OUTPUT="$tmp/r.db" LD_PRELOAD="$l" cpu_us "$sink" 1 launch)
  read -r n1 b1 < <(rows "$tmp/r.db")
  # over every record stored, the few a pass behind put in blocks too
  echo "$(( (t - u) * 1000 / (n + blocks) )) $(( ((t - u) - (t1 - u1)) * 1000 / (n + blocks - n1 - b1) )) $n $blocks"
}
median() { sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
m() { printf '%s\n' "$@" | median; }
ours=() ours_m=() rows_a=() rows_m=() based=() based_m=() brows=() brows_m=()
for i in $(seq "$runs"); do
  read -r ns m n blocks < <(per_row "$lib" 0)
  ours+=("$ns") ours_m+=("$m")
  line="this build, blocks: $ns ns a record, $m without start and exit ($n rows, $blocks records in blocks)"
  read -r ns m n blocks < <(per_row "$lib" 1000000000)
  rows_a+=("$ns") rows_m+=("$m")
  line="$line; rows: $ns, $m ($n rows, $blocks in blocks)"
  if [ -n "$base_lib" ]; then
    read -r ns m n blocks < <(per_row "$base_lib" 0)
    based+=("$ns") based_m+=("$m")
    read -r ns m n blocks < <(per_row "$base_lib" 1000000000)
    brows+=("$ns") brows_m+=("$m")
    line="$line; baseline blocks ${based[-1]}, ${based_m[-1]}, rows $ns, $m"
  fi
  echo "   $line"
done
echo "   ... median of $runs (load $(cut -d' ' -f1-3 /proc/loadavg)): the tracer's CPU per stored record, in blocks (the default)" \
  "$(m "${ours[@]}") ns, $(m "${ours_m[@]}") without its start and exit; one row each $(m "${rows_a[@]}"), $(m "${rows_m[@]}")" \
  "$([ -z "$base_lib" ] || echo "(baseline: blocks $(m "${based[@]}"), $(m "${based_m[@]}"); rows $(m "${brows[@]}"), $(m "${brows_m[@]}"))")"
