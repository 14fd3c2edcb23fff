#!/usr/bin/env bash
# bench/run.sh: the tracer's costs, each printed as a ratio or difference
# measured side by side in one run.  Needs a build (scripts/build.sh).
#  1. added ns per wrapped call (cudaStreamQuery of a stub runtime that
#     returns at once, bench/stub_runtime.c), wrapper vs direct call in the same process, untraced (the
#     method's own error), traced with stacks off (and the same with a
#     counter in place of the clock: the wrapper without its clock read;
#     cudaStreamQuery does not block, so it reads the clock once, at its
#     start: libtrace/trace.h, GT_F_END); the same call as a program
#     pays it, 200,000 in a row with the writer draining beside them, the
#     whole process timed (bench/wrap_whole.sh: the loop's wall and CPU
#     time, and the process's CPU, per call; beside it, as its baseline, the
#     same with blocks stored packed, GPUTRACE_BLOCK_FORMAT=1); and with stacks at 8 on a
#     call that captures them (cudaStreamSynchronize is measured by
#     bench/sink_rate.c instead; see there);
#  2. records per second the writer sustains into SQLite, and drops, with
#     calls flat out and offered at 1 M/s (the target), the same with CUPTI
#     on (a second record per call; and taken WRITER_RUNS times, default 20:
#     in how many runs anything was dropped), kernel launches with CUPTI on (three
#     records each) at 300 K/s, and NVTX ranges offered at 1 M/s; and the
#     tracer's CPU per record it stores, in blocks and one row each (bench/row_cost.sh),
#     and by thread, its own threads apart from the program's (bench/tracer_threads.sh);
#  3. the tracer's memory (peak RSS traced minus untraced), calls flat out
#     with CUPTI off, kernel launches flat out with CUPTI on, and the worst
#     case, every buffer full (the writer held up), against its 64 MiB bound;
#  4. added ns per NVTX push/pop pair, traced vs an untraced pair, same process;
#  5. added ns per captured call for its Python frames: 16 frames deep vs 2,
#     same process (and the same with frames off: the method's error);
#  6. a static-runtime program (no wrapper sees it), traced through the
#     driver's injection: what a kernel launch seen only through CUPTI's
#     activity costs, and a sync-like call recorded from CUPTI's callback
#     (with its stack), side by side in each process, injected and not;
#  7. the fixed cost of a short traced process (start-up and exit), traced
#     with `gputrace record` vs untraced, interleaved (the target: 50 ms);
#  8. end to end, the 4-rank `overlapped` workload under `gputrace record`
#     vs untraced (bench/e2e_cost.sh; the target: 1.03 at most);
#  9. added ns per captured call for 16 Python frames, taken with the GIL
#     released (from the thread's own state) beside with it held
#     (bench/py_nogil.sh);
# 10. monitor mode, always on: the 4-rank `overlapped` and `train_demo`
#     workloads untraced, in monitor mode and fully recorded, in turns:
#     wall and CPU ratios, peak memory, aggregates per hour
#     (bench/monitor_cost.sh; the target: 1.005 at most).
# The wrapped call's and the NVTX pair's figures are each taken RUNS times
# (default 5) and their median printed.  BENCH_ONLY=1 runs section 1 alone;
# BENCH_BASE_LIB=path/libgputrace.so (another build, e.g. of an older
# commit) is measured in section 1 run for run beside this one, so that a
# change's gain is read off one run, not two runs a VM's drift apart.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
# one process each: its file as named (not a run directory), for sqlite3
export GPUTRACE_ONE_FILE=1
inc="-I${CUDA_HOME:-/usr/local/cuda}/include"
sim="$b/tests/sim/.libs/libgpusim.so -Wl,-rpath,$b/tests/sim/.libs"
# the wrapped call's cost against a runtime that does nothing (the
# simulator's calls cost hundreds of ns, in whose shadow it went unseen)
cc -O2 $inc -shared -fPIC -o "$tmp/libbench_stub_runtime.so" "$top/bench/stub_runtime.c"
cc -O2 $inc -o "$tmp/wrap_cost" "$top/bench/wrap_cost.c" "$tmp/libbench_stub_runtime.so" -Wl,-rpath,"$tmp" -ldl
cc -O2 $inc -pthread -o "$tmp/sink_rate" "$top/bench/sink_rate.c" $sim -ldl
cc -O2 $inc -o "$tmp/nvtx_cost" "$top/bench/nvtx_cost.c" -ldl
# the static simulator, as nvcc's static runtime: only the simulator's CUPTI
# exported, for the injected tracer to find
cc -O2 $inc -o "$tmp/cb_cost" "$top/bench/cb_cost.c" "$b/tests/sim/libgpusim_static.a" -lm -ldl -lrt -pthread \
  -Wl,--export-dynamic-symbol='cupti*' -Wl,--export-dynamic-symbol=cb_cost_nop_kernel
lib=$b/.libs/libgputrace.so
env_off="GPUTRACE_CUPTI=0 GPUTRACE_QUIET=1"
ring="" # default ring size
RUNS=${RUNS:-5}
diff() { echo "$1 $2" | awk '{printf "%.1f", $1 - $2}'; }
# the added cost in units of the floor measured in the same run: this VM's
# speed wanders by a quarter from one run to the next, the ratio much less
floors() { echo "$1 $2 $3" | awk '{printf "%.2f floors", ($1 - $2) / $3}'; }
# the same library with a counter in place of the clock (collector/clock.h,
# GT_BENCH_COUNTER_CLOCK), built aside: what the wrapper costs without its
# clock read, run for run beside the real one
lib_counter=""
if (mkdir "$tmp/counter" && cd "$tmp/counter" &&
    "$top/configure" -q --with-cuda="${CUDA_HOME:-/usr/local/cuda}" CPPFLAGS=-DGT_BENCH_COUNTER_CLOCK &&
    make -j2 libgputrace.la) > "$tmp/counter.log" 2>&1; then
  lib_counter=$tmp/counter/.libs/libgputrace.so
else
  echo "(the counter-clock build failed; its lines are left out: $tmp/counter.log)"
fi
echo "== 1. added cost per wrapped call (median ns per call, wrapper vs direct call, same process)"
read -r w p f < <("$tmp/wrap_cost")
echo "untraced (the method's own error)       wrapper $w  direct $p  added $(diff "$w" "$p")   floor (TSC read + store) $f"
# the headline figure, from RUNS runs a few seconds apart: this VM's speed
# wanders between runs more than within one
# median ADDED...: "ns floors" pairs, the median by ns
median() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $0} END {m = v[int((NR + 1) / 2)]; split(m, x, " ");
  printf "median of %d runs: added %s ns = %s floors", NR, x[1], x[2]}'; }
added=() counted=() based=()
base_lib=${BENCH_BASE_LIB:-}
for i in $(seq "$RUNS"); do
  read -r w p f < <(env $env_off GPUTRACE_CALLSTACKS=0 GPUTRACE_OUTPUT="$tmp/a$i.db" LD_PRELOAD="$lib" "$tmp/wrap_cost")
  echo "traced, stacks off (cudaStreamQuery)     wrapper $w  direct $p  added $(diff "$w" "$p") = $(floors "$w" "$p" "$f")"
  added+=("$(diff "$w" "$p") $(floors "$w" "$p" "$f")")
  if [ -n "$base_lib" ]; then
    read -r w p f < <(env $env_off GPUTRACE_CALLSTACKS=0 GPUTRACE_OUTPUT="$tmp/o$i.db" LD_PRELOAD="$base_lib" "$tmp/wrap_cost")
    echo "   the same, baseline library             wrapper $w  direct $p  added $(diff "$w" "$p") = $(floors "$w" "$p" "$f")"
    based+=("$(diff "$w" "$p") $(floors "$w" "$p" "$f")")
  fi
  if [ -n "$lib_counter" ]; then
    read -r w p f < <(env $env_off GPUTRACE_CALLSTACKS=0 GPUTRACE_OUTPUT="$tmp/k$i.db" LD_PRELOAD="$lib_counter" "$tmp/wrap_cost")
    echo "   the same, no clock reads (counter build) wrapper $w  direct $p  added $(diff "$w" "$p") = $(floors "$w" "$p" "$f")"
    counted+=("$(diff "$w" "$p") $(floors "$w" "$p" "$f")")
  fi
done
echo "   ... $(median "${added[@]}")"
[ -z "$base_lib" ] || echo "   ... the baseline library ($base_lib): $(median "${based[@]}")"
[ -z "$lib_counter" ] ||
  echo "   ... without its clock read: $(median "${counted[@]}"); the rest is the clock (a floor is one read)"
# the same call as a program pays it: 200,000 in a row, the writer draining
# beside them, the whole process timed (bench/wrap_whole.sh)
echo "   ... as a program pays it (200,000 calls in a row, the whole process timed, traced vs untraced; isolated above: $(median "${added[@]}" | sed 's/median of [0-9]* runs: added //')):"
# the baseline here: the same library storing its blocks packed (GPUTRACE_BLOCK_FORMAT=1),
# what compact blocks save the process, run for run
BENCH_BASE_ENV=GPUTRACE_BLOCK_FORMAT=1 bash "$top/bench/wrap_whole.sh" "$lib" "$tmp/wrap_cost"
read -r w p f < <(env $env_off GPUTRACE_CALLSTACKS=0 GPUTRACE_OUTPUT="$tmp/b.db" LD_PRELOAD="$lib" "$tmp/wrap_cost" memset)
echo "traced, stacks off (cudaMemsetAsync 0 B)  wrapper $w  direct $p  added $(diff "$w" "$p") = $(floors "$w" "$p" "$f")"
read -r w p f < <(env $env_off GPUTRACE_CALLSTACKS=8 GPUTRACE_OUTPUT="$tmp/c.db" LD_PRELOAD="$lib" "$tmp/wrap_cost" memset)
echo "traced, stacks at 8 (cudaMemsetAsync 0 B) wrapper $w  direct $p  added $(diff "$w" "$p") = $(floors "$w" "$p" "$f")"
[ "${BENCH_ONLY:-}" != 1 ] || exit 0
echo "== 2. records the writer stores per second (one thread calling flat out for 2 s, default settings)"
/usr/bin/time -f "%M" -o "$tmp/rss0" "$tmp/sink_rate" > /dev/null
out=$(env $env_off GPUTRACE_OUTPUT="$tmp/d.db" LD_PRELOAD="$lib" /usr/bin/time -f "%M" -o "$tmp/rss1" "$tmp/sink_rate")
secs=$(echo "$out" | sed -n 's/.* in \([0-9.]*\) s.*/\1/p')
rows=$(sqlite3 "$tmp/d.db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)")
dropped=$(sqlite3 "$tmp/d.db" "select dropped_host from process")
echo "$out"
echo "stored $rows rows in $secs s: $(echo "$rows $secs" | awk '{printf "%.0f", $1 / $2}') records/s stored, $dropped dropped"
echo "   ... offered at the target rate, 1 M calls/s for 2 s:"
out=$(env $env_off GPUTRACE_OUTPUT="$tmp/e.db" LD_PRELOAD="$lib" "$tmp/sink_rate" 1000000)
rows=$(sqlite3 "$tmp/e.db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)")
echo "$out"
echo "stored $rows rows, $(sqlite3 "$tmp/e.db" "select dropped_host from process") dropped"
echo "   ... offered at 1 M calls/s for 2 s with CUPTI on (the default: each call also makes a CUPTI API record):"
out=$(env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/g.db" LD_PRELOAD="$lib" "$tmp/sink_rate" 1000000)
echo "$out"
echo "stored $(sqlite3 "$tmp/g.db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)") calls and $(sqlite3 "$tmp/g.db" "select (select count(*) from cupti_api) + (select coalesce(sum(n), 0) from cupti_api_block)") CUPTI API records, $(sqlite3 "$tmp/g.db" "select dropped_host || ' calls and ' || dropped_cupti || ' CUPTI records' from process") dropped"
# the target, as a count: WRITER_RUNS runs (default 20) of the same, each
# its own process; a run that dropped anything counts, whatever the amount
WRITER_RUNS=${WRITER_RUNS:-20}
echo "   ... the same, $WRITER_RUNS runs (load before: $(cut -d' ' -f1-3 /proc/loadavg)):"
nd=0 worst=0 worst_n=0 rates=()
for i in $(seq "$WRITER_RUNS"); do
  out=$(env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/w$i.db" LD_PRELOAD="$lib" "$tmp/sink_rate" 1000000)
  made=$(echo "$out" | sed -n 's/^records \([0-9]*\) in \([0-9.]*\) s.*/\1 \2/p')
  read -r stored lost < <(sqlite3 -separator ' ' "$tmp/w$i.db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)
    + (select count(*) from cupti_api) + (select coalesce(sum(n), 0) from cupti_api_block), dropped_host + dropped_cupti from process")
  rates+=("$(echo "$stored $made" | awk '{printf "%.0f", $1 / $3}')")
  if [ "$lost" -gt 0 ]; then
    nd=$((nd + 1))
    pct=$(echo "$lost $made" | awk '{printf "%.2f", 100 * $1 / (2 * $2)}')
    if [ "$lost" -gt "$worst_n" ]; then worst=$pct worst_n=$lost; fi
  fi
  rm -f "$tmp/w$i.db"*
done
echo "dropped in $nd of $WRITER_RUNS runs; worst run lost $worst_n records ($worst% of its calls and API records);" \
  "median $(printf '%s\n' "${rates[@]}" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}') records/s stored" \
  "(load after: $(cut -d' ' -f1-3 /proc/loadavg))"
echo "   ... the tracer's CPU per record it stores, in blocks and one row each (10 K launches/s; bench/row_cost.sh):"
bash "$top/bench/row_cost.sh" "$lib" "$tmp/sink_rate"
echo "   ... the same by thread: the tracer's writer and drain threads apart from the program's (bench/tracer_threads.sh):"
BUILD="$b" bash "$top/bench/tracer_threads.sh"
echo "   ... kernel launches offered at 300 K/s for 2 s, CUPTI on (a call, an API record and a kernel record each):"
out=$(env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/h.db" LD_PRELOAD="$lib" "$tmp/sink_rate" 300000 launch)
echo "$out"
echo "stored $(sqlite3 "$tmp/h.db" "select (select count(*) from api_call) + (select coalesce(sum(n), 0) from api_call_block)") calls, $(sqlite3 "$tmp/h.db" "select (select count(*) from cupti_api) + (select coalesce(sum(n), 0) from cupti_api_block)") API records and $(sqlite3 "$tmp/h.db" "select (select count(*) from gpu_op) + (select coalesce(sum(n), 0) from gpu_op_block)") kernels; $(sqlite3 "$tmp/h.db" "select dropped_host || ' calls and ' || dropped_cupti || ' CUPTI records' from process") dropped"
echo "   ... NVTX push/pop ranges offered at 1 M/s for 2 s:"
out=$(env $env_off GPUTRACE_OUTPUT="$tmp/f.db" LD_PRELOAD="$lib" "$tmp/sink_rate" 1000000 nvtx)
rows=$(sqlite3 "$tmp/f.db" "select (select count(*) from nvtx_range) + (select coalesce(sum(n), 0) from nvtx_range_block)")
echo "$out"
echo "stored $rows ranges, $(sqlite3 "$tmp/f.db" "select dropped_host from process") dropped"
echo "== 3. tracer memory: peak RSS traced - untraced: $(( ($(cat "$tmp/rss1") - $(cat "$tmp/rss0")) / 1024 )) MiB"
# the worst case at defaults: CUPTI on, kernel launches flat out (a call, an
# API record and a kernel record each, faster than the writer stores them)
/usr/bin/time -f "%M" -o "$tmp/rss2" "$tmp/sink_rate" 0 launch > /dev/null
env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/i.db" LD_PRELOAD="$lib" /usr/bin/time -f "%M" -o "$tmp/rss3" "$tmp/sink_rate" 0 launch > /dev/null
echo "   ... CUPTI on, kernel launches flat out: $(( ($(cat "$tmp/rss3") - $(cat "$tmp/rss2")) / 1024 )) MiB"
# the worst case, every buffer full at once (collector/membudget.h): 16
# threads calling flat out, CUPTI on, while another process holds the
# database's write lock for 2.5 s, so that the writer stores nothing
# meanwhile; peak resident memory traced minus untraced, the same program
hwm() { sed -n 's/^hwm_kb: //p' "$1"; }
"$b/tests/apps/flood_threads" 16 3 > "$tmp/fl0"
env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/fl.db" LD_PRELOAD="$lib" "$b/tests/apps/flood_threads" 16 3 > "$tmp/fl1" &
python3 "$top/tests/e2e/hold_lock.py" "$tmp/fl.db" 2.5 > /dev/null
wait
echo "   ... every buffer full (16 threads flat out, CUPTI on, the writer held 2.5 s):" \
  "$(( ($(hwm "$tmp/fl1") - $(hwm "$tmp/fl0")) / 1024 )) MiB against the bound of 64 MiB" \
  "(rings and queue 32, CUPTI's buffers 16, SQLite's cache 8, the rest 8);" \
  "$(sqlite3 "$tmp/fl.db" "select dropped_host || ' calls and ' || dropped_cupti || ' CUPTI records' from process") dropped"
echo "== 4. NVTX push/pop pair (median ns per pair, traced vs untraced, same process)"
added=()
for i in $(seq "$RUNS"); do
  read -r t u < <(env $env_off GPUTRACE_OUTPUT="$tmp/n$i.db" LD_PRELOAD="$lib" "$tmp/nvtx_cost")
  echo "push/pop traced $t  untraced $u  added $(diff "$t" "$u") = $(floors "$t" "$u" "$f") (the floor of section 1's last run)"
  added+=("$(diff "$t" "$u")")
done
printf '%s\n' "${added[@]}" | sort -n | awk '{v[NR] = $1} END {printf "   ... median of %d runs: added %s ns\n", NR, v[int((NR + 1) / 2)]}'
echo "== 5. Python frames of a captured call (median ns per call, 16 frames deep vs 2, same process)"
export GPUSIM_LIB=$b/tests/sim/.libs/libgpusim.so PY_KERNELS_LIB=$b/tests/apps/.libs/libpykernels.so
export FAKETORCH_DIR=$top/tests/apps/pylib/site-packages
read -r d0 s0 < <(env $env_off GPUTRACE_PYSTACKS=0 GPUTRACE_OUTPUT="$tmp/p0.db" LD_PRELOAD="$lib" python3 "$top/bench/py_cost.py" gil)
echo "frames off (the method's own error)  deep $d0  shallow $s0  difference $(diff "$d0" "$s0")"
read -r d1 s1 < <(env $env_off GPUTRACE_PYSTACKS=16 GPUTRACE_OUTPUT="$tmp/p1.db" LD_PRELOAD="$lib" python3 "$top/bench/py_cost.py" gil)
echo "frames on, depth 16                  deep $d1  shallow $s1  difference $(diff "$d1" "$s1")" \
  " => about $(echo "$d1 $s1" | awk '{printf "%.0f", ($1 - $2) * 16 / 14}') ns added per call for 16 frames"
echo "== 6. a static-runtime program traced through the driver's injection (median ns per call, same process)"
for i in $(seq "$RUNS"); do
  read -r m0 l0 f0 < <("$tmp/cb_cost")
  read -r m1 l1 f1 < <(env GPUTRACE_QUIET=1 GPUTRACE_OUTPUT="$tmp/s$i.db" CUDA_INJECTION64_PATH="$lib" "$tmp/cb_cost")
  echo "untraced: memset $m0 launch $l0 | injected: memset $m1 launch $l1" \
    " => a launch seen only by CUPTI's activity adds $(diff "$l1" "$l0") ns (the simulator's CUPTI, not the real one's cost);" \
    " a memset recorded from its callback (stack at 8) adds $(diff "$m1" "$m0") ns = $(echo "$m1 $m0 $f1" | awk '{printf "%.1f floors", ($1 - $2) / $3}')"
done
echo "== 7. fixed cost of a traced process (median ms of wall time, a 1-step run traced with gputrace record vs untraced, interleaved)"
# what a short process pays beyond its calls: start-up, the writer, and the
# end (stacks are written as object+offset; lines are the report's to find)
ms() { local t0 t1; t0=$(date +%s%N); "$@" > /dev/null 2>&1; t1=$(date +%s%N); echo $(( (t1 - t0) / 1000000 )); }
fixed=()
for i in $(seq "$RUNS"); do
  u=$(APP_STEPS=1 ms "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/train_demo")
  t=$(APP_STEPS=1 ms "$b/gputrace" record -o "$tmp/x$i.db" -- "$b/tests/sim/gpusim-run" -n 1 "$b/tests/apps/train_demo")
  echo "untraced $u ms  traced $t ms  added $((t - u)) ms"
  fixed+=("$((t - u))")
done
printf '%s\n' "${fixed[@]}" | sort -n | awk '{v[NR] = $1} END {printf "   ... median of %d runs: %s ms added per process (target 50 ms at most)\n", NR, v[int((NR + 1) / 2)]}'
echo "== 8. end to end: the 4-rank overlapped workload, gputrace record at its defaults vs untraced (bench/e2e_cost.sh)"; BUILD="$b" "$top/bench/e2e_cost.sh"
echo "== 9. Python frames of a captured call, the GIL released vs held (median ns added per call for 16 frames, bench/py_nogil.sh)"
BUILD="$b" "$top/bench/py_nogil.sh"
echo "== 10. monitor mode: untraced vs --monitor vs full, 4 ranks (bench/monitor_cost.sh)"
BUILD="$b" "$top/bench/monitor_cost.sh"
