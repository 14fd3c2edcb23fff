#!/usr/bin/env bash
# demo.sh: builds gputrace and runs the demo: a simulated 4-rank training run
# with planted problems (tests/apps/train_demo.c) on the GPU simulator.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$top/scripts/build.sh" | tail -n 1)
cd "$dir"
echo "== running the simulated 4-rank training job (tests/apps/train_demo)"
tests/sim/gpusim-run -n 4 --timeout 120 tests/apps/train_demo
