#!/usr/bin/env bash
# tests/gpu/pack.sh DIR: what tests/gpu/run.sh needs on a GPU host that has
# none of the build's dependencies (no autotools, Criterion, SQLite's headers
# or its command line), built here from build/ (scripts/build.sh, then
# `make check` for the test programs) into DIR, laid out as build/ is:
#   DIR/.libs/libgputrace.so, DIR/gputrace, DIR/gputrace-report
#   DIR/tests/apps/{real_toolkit,cu_real_launch_*}, DIR/tests/sim/.libs/libgpusim.so
#   DIR/cu/: the workloads and benchmarks (tests/gpu/build_cu.sh), wrap_cost
#   over bench/stub_runtime.c
#   DIR/bin/sqlite3, DIR/lib/: SQLite's command line and the libraries it
#   and the tracer need, used there only where the host has none
# Then: GT_BUILD=DIR tests/gpu/run.sh on the GPU host.
set -eu
top=$(cd "$(dirname "$0")/../.." && pwd)
b=${GT_BUILD_FROM:-$top/build}
dir=$1
rm -rf "$dir"; mkdir -p "$dir/.libs" "$dir/tests/apps" "$dir/tests/sim/.libs" "$dir/cu" "$dir/bin" "$dir/lib"
cp "$b/.libs/libgputrace.so" "$dir/.libs/"
cp "$b/gputrace" "$b/gputrace-report" "$dir/"
for a in real_toolkit cu_real_launch_shared cu_real_launch_static; do
  [ -x "$b/tests/apps/$a" ] && cp "$b/tests/apps/$a" "$dir/tests/apps/"
done
cp "$b/tests/sim/.libs/libgpusim.so"* "$dir/tests/sim/.libs/"
"$top/tests/gpu/build_cu.sh" "$dir/cu"
# the wrapper's micro-benchmark over the stub runtime that returns at once (bench/run.sh)
inc="-I${CUDA_HOME:-/usr/local/cuda}/include"
cc -O2 $inc -shared -fPIC -o "$dir/cu/libbench_stub_runtime.so" "$top/bench/stub_runtime.c"
cc -O2 $inc -o "$dir/cu/wrap_cost" "$top/bench/wrap_cost.c" "$dir/cu/libbench_stub_runtime.so" -Wl,-rpath,'$ORIGIN' -ldl
cp "$(command -v sqlite3)" "$dir/bin/"
for l in libsqlite3.so.0 libreadline.so.8 libtinfo.so.6 libz.so.1; do
  cp -L "$(ldconfig -p | awk -v l="$l" '$1 == l && /x86-64/ {print $NF; exit}')" "$dir/lib/"
done
du -sh "$dir"
