#!/usr/bin/env bash
# bench/tracer_threads.sh [RATE...]: the tracer's CPU per record by thread.
# bench/sink_rate's kernel launches at each RATE a second (default 10000
# and 100000) for about two seconds, CUPTI on (a call, an API record and a
# kernel record each), traced and untraced in turns, TT_RUNS times (default
# 3); the CPU time of every thread of the process is read from
# /proc/PID/task/TID/schedstat every 20 ms until it exits (nanoseconds, the
# scheduler's own count), and split by the threads' names: the tracer's
# writer and drain threads (named gputrace-writer and gputrace-drain), and
# the program's own threads (its main thread, where the wrappers run and
# the tracer starts, and the GPU simulator's, which make CUPTI's records
# only when traced).  Printed per stored record, medians: the tracer's two
# threads, and the program's threads traced minus untraced; then the
# tracer's threads without their start and exit (a run at 1 launch a
# second, ~1000 launches in its first burst, subtracted: the writer's final
# pass, its indexes and checkpoint, is a cost per process, not per record).
# bench/row_cost.sh measures the whole process instead (the simulator's
# CUPTI work and the tracer's start included).  Needs a build.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-$top/build}
runs=${TT_RUNS:-3}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
inc="-I${CUDA_HOME:-/usr/local/cuda}/include"
cc -O2 $inc -pthread -o "$tmp/sink_rate" "$top/bench/sink_rate.c" "$b/tests/sim/.libs/libgpusim.so" \
  -Wl,-rpath,"$b/tests/sim/.libs" -ldl
# "WRITER DRAIN PROGRAM" ms of CPU of a run of the command
cat > "$tmp/poll.py" <<'PY'
import os, subprocess, sys, time
p = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
last = {}
while p.poll() is None:
    try:
        for t in os.listdir(f"/proc/{p.pid}/task"):
            try:
                with open(f"/proc/{p.pid}/task/{t}/comm") as f:
                    name = f.read().strip()
                with open(f"/proc/{p.pid}/task/{t}/schedstat") as f:
                    last[t] = (name, int(f.read().split()[0]))
            except OSError:
                pass  # the thread ended between the listing and the read
    except OSError:
        pass
    time.sleep(0.02)
if p.returncode:
    sys.exit(f"failed: {' '.join(sys.argv[1:])}")
cpu = {"gputrace-writer": 0, "gputrace-drain": 0}
prog = 0
for name, ns in last.values():
    if name in cpu:
        cpu[name] += ns
    else:
        prog += ns
print(f"{cpu['gputrace-writer'] / 1e6:.2f} {cpu['gputrace-drain'] / 1e6:.2f} {prog / 1e6:.2f}")
PY
export GPUTRACE_ONE_FILE=1 GPUTRACE_QUIET=1
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
records() {
  sqlite3 "$1" "select (select count(*) from api_call) + (select count(*) from cupti_api) + (select count(*) from gpu_op)
    + (select coalesce(sum(n), 0) from api_call_block) + (select coalesce(sum(n), 0) from cupti_api_block)
    + (select coalesce(sum(n), 0) from gpu_op_block)"
}
for rate in ${*:-10000 100000}; do
  ws=() ds=() ps=() ss=()
  for i in $(seq "$runs"); do
    rm -f "$tmp/r.db"*
    read -r w1 d1 _ < <(GPUTRACE_OUTPUT="$tmp/r.db" LD_PRELOAD="$b/.libs/libgputrace.so" python3 "$tmp/poll.py" "$tmp/sink_rate" 1 launch)
    n1=$(records "$tmp/r.db")
    rm -f "$tmp/r.db"*
    read -r w d p < <(GPUTRACE_OUTPUT="$tmp/r.db" LD_PRELOAD="$b/.libs/libgputrace.so" python3 "$tmp/poll.py" "$tmp/sink_rate" "$rate" launch)
    read -r _ _ u < <(python3 "$tmp/poll.py" "$tmp/sink_rate" "$rate" launch)
    n=$(records "$tmp/r.db")
    ws+=("$(awk -v c="$w" -v n="$n" 'BEGIN {printf "%.0f", c * 1e6 / n}')")
    ds+=("$(awk -v c="$d" -v n="$n" 'BEGIN {printf "%.0f", c * 1e6 / n}')")
    ps+=("$(awk -v c="$p" -v u="$u" -v n="$n" 'BEGIN {printf "%.0f", (c - u) * 1e6 / n}')")
    ss+=("$(awk -v w="$w" -v d="$d" -v w1="$w1" -v d1="$d1" -v n="$n" -v n1="$n1" \
      'BEGIN {printf "%.0f", (w + d - w1 - d1) * 1e6 / (n - n1)}')")
    echo "   $rate launches/s: $n records; writer $w ms, drain $d ms, the program's threads $p ms (untraced $u)"
  done
  echo "   ... $rate launches/s, median of $runs (load $(cut -d' ' -f1-3 /proc/loadavg)), ns of CPU per stored record:" \
    "writer $(printf '%s\n' "${ws[@]}" | median), drain $(printf '%s\n' "${ds[@]}" | median)," \
    "the program's threads traced minus untraced $(printf '%s\n' "${ps[@]}" | median)" \
    "(its wrappers, the tracer's start and exit, the simulator's CUPTI records);" \
    "writer and drain without their start and exit $(printf '%s\n' "${ss[@]}" | median)"
done
