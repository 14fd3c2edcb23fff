#!/usr/bin/env bash
# bench/row_cost.sh: what the tracer's CPU costs per row it stores one by
# one, the way it stores a training run's records (tens of thousands a
# second a process: every record a row, none in blocks, which only a writer
# behind its queue uses).  bench/sink_rate's kernel launches at 10 K/s for
# 2 s, CUPTI on (a call, an API record and a kernel record each: ~60 K
# rows), traced minus untraced CPU time (user + system, to the microsecond,
# of the process and its threads; its output dropped) over the records
# stored, taken ROW_RUNS times (default 5) in turns with the untraced run and the median printed,
# all in and without the tracer's start and exit (see per_row);
# with BENCH_BASE_LIB (another build's libgputrace.so) the same for it, run
# for run beside this one.  Called by bench/run.sh (section 2); needs a build.
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
per_row() {
  local l=$1 u t n blocks u1 t1 n1 b1
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
ours=() based=() ours_m=() based_m=()
for i in $(seq "$runs"); do
  read -r ns m n blocks < <(per_row "$lib")
  ours+=("$ns") ours_m+=("$m")
  line="this build $ns ns a row, $m without start and exit ($n rows, $blocks records in blocks)"
  if [ -n "$base_lib" ]; then
    read -r ns m n blocks < <(per_row "$base_lib")
    based+=("$ns") based_m+=("$m")
    line="$line; baseline $ns, $m ($n rows, $blocks in blocks)"
  fi
  echo "   $line"
done
echo "   ... median of $runs (load $(cut -d' ' -f1-3 /proc/loadavg)): $(printf '%s\n' "${ours[@]}" | median) ns of the tracer's CPU per stored row," \
  "$(printf '%s\n' "${ours_m[@]}" | median) without its start and exit" \
  "$([ -z "$base_lib" ] || echo "(baseline: $(printf '%s\n' "${based[@]}" | median), $(printf '%s\n' "${based_m[@]}" | median))")"
