#!/usr/bin/env bash
# demo.sh: builds gputrace, traces the demo (a simulated 4-rank training run
# with planted problems, tests/apps/train_demo.c, on the GPU simulator) under
# `gputrace record`, prints the report and writes the Chrome trace and the
# HTML report.  It installs gputrace, gputrace-report and libgputrace.so into
# install/ in the checkout, so that they run by name once install/bin is on
# PATH (the README's next sections call them so).
#
# It builds only what the demo runs: the tools, the tracer, the simulator
# and the demo program, not the test suite's programs (scripts/check.sh
# builds those), in build/ as scripts/build.sh configures it, so that
# check.sh goes on from there.  It says what it does before each step, and
# before anything is installed with apt-get.  The build's output goes to
# demo-out/build.log, whose end is shown if the build fails.
#
# For the tests (tests/e2e/quick_start.sh): GPUTRACE_DEMO_BUILD (a build
# directory, configured if it has no Makefile), GPUTRACE_DEMO_PREFIX (where
# to install) and GPUTRACE_DEMO_OUT (the demo's outputs).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=${GPUTRACE_DEMO_BUILD:-$top/build}
out=${GPUTRACE_DEMO_OUT:-$top/demo-out}
prefix=${GPUTRACE_DEMO_PREFIX:-$top/install}
bin="$prefix/bin"
log="$out/build.log"
start=$SECONDS

echo "gputrace demo: builds gputrace and the GPU simulator (no GPU needed), then traces a simulated"
echo "4-rank training job with planted problems and reports on it. Outputs go to $out."
echo

# run WHAT CMD...: CMD with its output in the log, a line every 30 s while
# it runs so that a long step never looks like a hang, and the log's end
# if it fails
run() {
  local what=$1 t0=$SECONDS
  shift
  echo "== $what"
  "$@" >> "$log" 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2> /dev/null; do
    for _ in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do
      sleep 2
      kill -0 "$pid" 2> /dev/null || break 2
    done
    echo "   ... $((SECONDS - t0)) s"
  done
  if ! wait "$pid"; then
    echo "demo.sh: $what failed; the end of $log:" >&2
    tail -n 30 "$log" >&2
    exit 1
  fi
  echo "   done in $((SECONDS - t0)) s"
}

# Debian packages the build needs: scripts/deps.sh installs those missing,
# with apt-get (and sudo, when not root), naming them first
echo "== checking the build's dependencies (Debian packages: any missing are installed with apt-get,"
if [ "$(id -u)" -eq 0 ]; then
  echo "   as root, after a line naming them)"
else
  echo "   through sudo, which may ask for your password, after a line naming them)"
fi
"$top/scripts/deps.sh"

mkdir -p "$dir" "$out"
: > "$log"
cd "$top"
# configure is generated once, before the first build; a configured build
# directory's own make regenerates what changed since (automake's rules),
# and `autoreconf -fi` there would replace build-aux's scripts under
# whatever is running from them (a test suite of the same tree)
if [ ! -f "$dir/Makefile" ] && ! { [ -x configure ] && [ configure -nt configure.ac ]; }; then
  run "generating configure (autoreconf)" autoreconf -fi
fi
cd "$dir"
if [ ! -f Makefile ]; then
  run "configuring in $dir" "$top/configure" -q --with-cuda="${CUDA_HOME:-/usr/local/cuda}"
fi
jobs=$(nproc)
# a first build takes about 40 s on 2 cores (1-2 minutes on a busy machine) (README, Quick start);
# afterwards only what changed is rebuilt
run "building gputrace, gputrace-report and libgputrace.so ($jobs parallel jobs; about 1 minute on 2 cores the first time)" \
  make -s -j"$jobs"
run "building the GPU simulator and the demo program" \
  make -s -j"$jobs" tests/sim/libgpusim.la tests/sim/gpusim-run tests/apps/train_demo
run "installing into $prefix" make -s install prefix="$prefix"
echo "   (the build took $((SECONDS - start)) s; its output is in $log)"
echo

echo "== tracing a simulated 4-rank training job (tests/apps/train_demo) into $out/run.db"
echo "\$ gputrace record -f -o $out/run.db -- tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo"
"$bin/gputrace" record -f -o "$out/run.db" -- tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo
echo
echo "\$ gputrace-report --chrome-trace $out/trace.json --html $out/report.html $out/run.db"
"$bin/gputrace-report" --chrome-trace "$out/trace.json" --html "$out/report.html" "$out/run.db"
echo
echo "The run is $out/run.db: a directory holding one SQLite file per rank (schema: docs/schema.md)."
echo "For SQL (sqlite3, pandas): gputrace merge $out/all.db $out/run.db writes them as one file, every"
echo "record a row (the tracer stores calls and GPU records in compact blocks, which the report reads)."
echo "Open $out/trace.json at https://ui.perfetto.dev (Open trace file) or in chrome://tracing;"
echo "open $out/report.html in any browser (one page, no network needed)."
echo
echo "gputrace and gputrace-report are installed in $bin. To run them by name:"
echo "  export PATH=\"$bin:\$PATH\""
echo "(the demo took $((SECONDS - start)) s)"
