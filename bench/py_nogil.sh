#!/usr/bin/env bash
# bench/py_nogil.sh: bench/run.sh's section 9, runnable alone: what a
# captured call's Python frames cost when the calling thread released the
# GIL (read from its thread state, collector/pyframes.c) beside the same
# call made with the GIL held, 16 frames deep vs 2 (bench/py_cost.py),
# each taken RUNS times (default 5) and the median printed; frames off
# gives the method's own error.  BENCH_BASE_LIB=path/libgputrace.so (an
# older build) is measured beside it.  Needs a build (scripts/build.sh).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=${BUILD:-$top/build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
export GPUTRACE_ONE_FILE=1 GPUTRACE_CUPTI=0 GPUTRACE_QUIET=1
export GPUSIM_LIB=$b/tests/sim/.libs/libgpusim.so PY_KERNELS_LIB=$b/tests/apps/.libs/libpykernels.so
export FAKETORCH_DIR=$top/tests/apps/pylib/site-packages
RUNS=${RUNS:-5}
# ns added for 16 frames: (deep - shallow) scaled from the 14 frames between them
per16() { echo "$1 $2" | awk '{printf "%.0f", ($1 - $2) * 16 / 14}'; }
med() { printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {print v[int((NR + 1) / 2)]}'; }
run() { # LIB DEPTH MODE -> ns added for 16 frames
  local d s
  rm -f "$tmp/p.db"
  read -r d s < <(env GPUTRACE_PYSTACKS="$2" GPUTRACE_OUTPUT="$tmp/p.db" LD_PRELOAD="$1" python3 "$top/bench/py_cost.py" "$3")
  per16 "$d" "$s"
}
lib=$b/.libs/libgputrace.so
declare -A got
for i in $(seq "$RUNS"); do
  for mode in gil nogil; do
    got[off_$mode]+=" $(run "$lib" 0 "$mode")"
    got[on_$mode]+=" $(run "$lib" 16 "$mode")"
    [ -z "${BENCH_BASE_LIB:-}" ] || got[base_$mode]+=" $(run "$BENCH_BASE_LIB" 16 "$mode")"
  done
done
for mode in gil nogil; do
  what=$([ $mode = gil ] && echo "GIL held (PyDLL)    " || echo "GIL released (CDLL) ")
  echo "$what frames off (the method's error) $(med ${got[off_$mode]}) ns; frames on: $(med ${got[on_$mode]}) ns added per call for 16 frames (runs:${got[on_$mode]})"
  [ -z "${BENCH_BASE_LIB:-}" ] || echo "   the same, baseline library: $(med ${got[base_$mode]}) ns (runs:${got[base_$mode]})"
done
