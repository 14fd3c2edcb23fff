#!/usr/bin/env bash
# demo.sh: builds gputrace, traces the demo (a simulated 4-rank training run
# with planted problems, tests/apps/train_demo.c, on the GPU simulator) under
# `gputrace record`, prints the report and writes the Chrome trace.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$top/scripts/build.sh" | tail -n 1)
out="$top/demo-out"
mkdir -p "$out"
cd "$dir"
echo "== tracing a simulated 4-rank training job (tests/apps/train_demo) into $out/run.db"
./gputrace record -f -o "$out/run.db" -- tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo
echo
./gputrace-report --chrome-trace "$out/trace.json" "$out/run.db"
echo
echo "The run is $out/run.db: a directory holding one SQLite file per rank (schema: docs/schema.md)."
echo "Query one with sqlite3, or all of them in one file: $dir/gputrace merge $out/all.db $out/run.db"
echo "Open $out/trace.json at https://ui.perfetto.dev (Open trace file) or in chrome://tracing."
