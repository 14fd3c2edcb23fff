#!/usr/bin/env bash
# demo.sh: builds gputrace, traces the demo (a simulated 4-rank training run
# with planted problems, tests/apps/train_demo.c, on the GPU simulator) under
# `gputrace record`, prints the report and writes the Chrome trace and the
# HTML report.  It installs gputrace, gputrace-report and libgputrace.so into
# install/ in the checkout, so that they run by name once install/bin is on
# PATH (the README's next sections call them so).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$top/scripts/build.sh" | tail -n 1)
out="$top/demo-out"
bin="$top/install/bin"
mkdir -p "$out"
cd "$dir"
make -s install prefix="$top/install" >/dev/null 2>&1
echo "== tracing a simulated 4-rank training job (tests/apps/train_demo) into $out/run.db"
echo "\$ gputrace record -f -o $out/run.db -- tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo"
"$bin/gputrace" record -f -o "$out/run.db" -- tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo
echo
echo "\$ gputrace-report --chrome-trace $out/trace.json --html $out/report.html $out/run.db"
"$bin/gputrace-report" --chrome-trace "$out/trace.json" --html "$out/report.html" "$out/run.db"
echo
echo "The run is $out/run.db: a directory holding one SQLite file per rank (schema: docs/schema.md)."
echo "Query one with sqlite3, or all of them in one file: gputrace merge $out/all.db $out/run.db"
echo "Open $out/trace.json at https://ui.perfetto.dev (Open trace file) or in chrome://tracing;"
echo "open $out/report.html in any browser (one page, no network needed)."
echo
echo "gputrace and gputrace-report are installed in $bin. To run them by name:"
echo "  export PATH=\"$bin:\$PATH\""
