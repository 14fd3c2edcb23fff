#!/usr/bin/env bash
# bench/run.sh: the tracer's wrapper cost, as ratios measured side by side in
# one run.  Needs a build (scripts/build.sh).  Prints ns per call (median of
# batches) for: the floor (TSC read + store), untraced, traced with stacks
# off, traced with stacks at depth 8.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
b=$top/build
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cc -O2 -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$tmp/wrap_cost" "$top/bench/wrap_cost.c" \
   "$b/tests/sim/.libs/libgpusim.so" -Wl,-rpath,"$b/tests/sim/.libs"
lib=$b/.libs/libgputrace.so
floor=$("$tmp/wrap_cost" floor)
plain=$("$tmp/wrap_cost")
nostack=$(GPUTRACE_CUPTI=0 GPUTRACE_CALLSTACKS=0 GPUTRACE_OUTPUT=$tmp/a.db LD_PRELOAD=$lib "$tmp/wrap_cost")
stack8=$(GPUTRACE_CUPTI=0 GPUTRACE_CALLSTACKS=8 GPUTRACE_OUTPUT=$tmp/b.db LD_PRELOAD=$lib "$tmp/wrap_cost")
awk -v f="$floor" -v p="$plain" -v n="$nostack" -v s="$stack8" 'BEGIN {
  printf "floor (rdtsc + store)        %7.1f ns\n", f
  printf "cudaStreamQuery untraced     %7.1f ns\n", p
  printf "traced, stacks off           %7.1f ns   added %6.1f ns (%.2fx untraced)\n", n, n - p, n / p
  printf "traced, stacks depth 8       %7.1f ns   added %6.1f ns (%.2fx untraced)\n", s, s - p, s / p
}'
