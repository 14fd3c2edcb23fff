#!/usr/bin/env bash
# bench/wrap_whole.sh LIB WRAP_COST: the wrapped call's cost as a program
# pays it, beside section 1's isolated figure (bench/run.sh).  wrap_cost's
# "loop N" makes N cudaStreamQuery calls in a row (of a stub runtime that
# returns at once, bench/stub_runtime.c) and nothing else, while the
# tracer's drain and writer threads take the records on the other cores as
# they do in a real run.  Traced minus untraced, each the
# median of WHOLE_RUNS runs (default 9) taken in turns:
#  - the loop's wall time per call (what the calling thread waits, the
#    writer sharing the caches and the memory bus with it), and its
#    thread's CPU time per call (the same without the time other work on a
#    loaded machine took from it), and the same for a second round of N
#    WHOLE_LATER calls (default 100,000) in the same process: the first
#    pays for the ring's growth, the segments its backlog needs faulted in
#    on the calling thread's slow path (collector/tbuf.h); the second finds
#    them mapped, drained segments back in the ring's pool (and fits in the
#    ring's size, 131,072 records: a round of N = 200,000, made faster than
#    the drain's tick, once dropped a third of its calls, which then cost
#    nothing to store);
#  - the whole process's CPU time (user + system of every thread, wait4's
#    rusage) per call: with N calls minus with none, so that the tracer's
#    start and exit, paid once, are left out; and in the second round (the
#    two rounds minus the first alone, per call of the second): what a
#    program calling in bursts step after step pays once its first burst
#    grew the rings and the queue (the 50 ms pause between the rounds
#    counted too, an idle writer's few wake-ups).
# Every traced run must store every call: a figure with records dropped is
# not the cost of recording them.
# With BENCH_BASE_LIB (another build's libgputrace.so) the same for it, run
# for run beside this one; with BENCH_BASE_ENV (e.g. GPUTRACE_BLOCK_FORMAT=1)
# the baseline's traced runs get those variables too (this build's library
# when no BENCH_BASE_LIB is named): a setting's cost, run for run.  Stacks
# off, CUPTI off (the stub has no CUPTI).
set -euo pipefail
lib=$(realpath "${1:?usage: wrap_whole.sh LIB WRAP_COST}")
prog=$(realpath "${2:?usage: wrap_whole.sh LIB WRAP_COST}")
base_lib=${BENCH_BASE_LIB:+$(realpath "$BENCH_BASE_LIB")}
base_env=${BENCH_BASE_ENV:-}
[ -n "$base_lib" ] || [ -z "$base_env" ] || base_lib=$lib
runs=${WHOLE_RUNS:-9}
n=${WHOLE_CALLS:-200000}
n2=${WHOLE_LATER:-100000}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUTRACE_ONE_FILE=1 GPUTRACE_QUIET=1 GPUTRACE_CUPTI=0 GPUTRACE_CALLSTACKS=0
# "CPU_US LOOP_NS" of one run: the process's CPU microseconds (every thread,
# to the microsecond) and what it printed
run() {
  python3 -c 'import os, sys
r, w = os.pipe()
pid = os.fork()
if pid == 0:
    os.dup2(w, 1)
    os.execvp(sys.argv[1], sys.argv[1:])
os.close(w)
out = os.read(r, 4096).decode().strip()
_, status, ru = os.wait4(pid, 0)
if not os.WIFEXITED(status) or os.WEXITSTATUS(status):
    sys.exit("failed: " + " ".join(sys.argv[1:]))
print(round((ru.ru_utime + ru.ru_stime) * 1e6), out)' "$@"
}
# traced LIB N [ROUNDS [M]]: wrap_cost's loop, traced, with the variables in $benv too (the
# baseline's BENCH_BASE_ENV)
traced() { rm -f "$tmp/t.db"*; ( [ -z "$benv" ] || export $benv; GPUTRACE_OUTPUT="$tmp/t.db" LD_PRELOAD="$1" run "$prog" loop "$2" ${3:-} ${4:-} ); }
# stored WANT: the last traced run stored WANT calls at least and dropped none
# (called after its output was read: the run has ended); else "lost" is noted
stored() {
  [ "$(sqlite3 "file:$tmp/t.db?mode=ro" "select (select count(*) from api_call) + (select coalesce(sum(n), 0)
    from api_call_block) >= $1, dropped_host from process" 2>&1)" = "1|0" ] || touch "$tmp/lost"
}
median() { sort -g | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
# one turn for LIB: "WALL_ADDED CPU_ADDED PROCESS_ADDED SECOND_ROUND_CPU_ADDED
# SECOND_ROUND_PROCESS_ADDED", ns per call, against the untraced runs of the same turn
turn() {
  local l=$1 benv=${2:-} u0 u1 u2 uw uc t0 t1 t2 tw tc x us ts
  read -r u0 x < <(run "$prog" loop 0)
  read -r u1 uw uc < <(run "$prog" loop "$n")
  # a second round of N2 calls in the same process, the ring already grown
  read -r u2 x x us < <(run "$prog" loop "$n" 2 "$n2")
  read -r t2 x x ts < <(traced "$l" "$n" 2 "$n2")
  stored $((n + n2))
  read -r t0 x < <(traced "$l" 0)
  read -r t1 tw tc < <(traced "$l" "$n")
  stored "$n"
  echo "$tw $uw $tc $uc $t1 $t0 $u1 $u0 $ts $us $t2 $u2" | awk -v n="$n" -v n2="$n2" '{printf "%.1f %.1f %.1f %.1f %.1f\n",
    $1 - $2, $3 - $4, (($5 - $6) - ($7 - $8)) * 1000 / n, $9 - $10, (($11 - $5) - ($12 - $7)) * 1000 / n2}'
}
walls=() cpus=() procs=() seconds=() sprocs=() bwalls=() bcpus=() bprocs=() bseconds=() bsprocs=()
for i in $(seq "$runs"); do
  read -r w c p r q < <(turn "$lib")
  [ ! -e "$tmp/lost" ] || { echo "wrap_whole: a traced run dropped records: its figure is not the cost of recording them" >&2; exit 1; }
  walls+=("$w") cpus+=("$c") procs+=("$p") seconds+=("$r") sprocs+=("$q")
  line="this build: loop +$w ns wall, +$c ns its CPU (+$r a second round), process +$p ns CPU a call (+$q a second round)"
  if [ -n "$base_lib" ]; then
    read -r w c p r q < <(turn "$base_lib" "$base_env")
    [ ! -e "$tmp/lost" ] || { echo "wrap_whole: a baseline run dropped records" >&2; exit 1; }
    bwalls+=("$w") bcpus+=("$c") bprocs+=("$p") bseconds+=("$r") bsprocs+=("$q")
    line="$line; baseline: +$w, +$c (+$r), +$p (+$q)"
  fi
  echo "   $line"
done
m() { printf '%s\n' "$@" | median; }
echo "   ... median of $runs ($n calls a run, $n2 in a second round, writer draining; load $(cut -d' ' -f1-3 /proc/loadavg)): the loop +$(m "${walls[@]}") ns" \
  "a call wall, +$(m "${cpus[@]}") ns its thread's CPU (+$(m "${seconds[@]}") in a second round, the ring grown);" \
  "the whole process +$(m "${procs[@]}") ns CPU a call (+$(m "${sprocs[@]}") in a second round)" \
  "$([ -z "$base_lib" ] || echo "(baseline: +$(m "${bwalls[@]}"), +$(m "${bcpus[@]}") (+$(m "${bseconds[@]}")), +$(m "${bprocs[@]}") (+$(m "${bsprocs[@]}")))")"
