#!/usr/bin/env bash
# check.sh [--sanitizers]: builds gputrace and runs the whole test suite
# (`make check`: Criterion unit tests and end-to-end tests on the simulator).
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dir=$("$top/scripts/build.sh" "$@" | tail -n 1)
cd "$dir"
# Holistic Trace Analysis (tests/e2e/kineto_hta.sh) is installed once per
# checkout, into a virtual environment both builds share
export GPUTRACE_HTA_VENV="${GPUTRACE_HTA_VENV:-$top/.venv-hta}"
if ! make -j"$(nproc)" check; then
  for f in $(grep -l '^FAIL\|^ERROR' $(find . -name '*.trs') 2>/dev/null | sed 's/\.trs$/.log/'); do
    echo "==== $f"; tail -n 60 "$f"
  done
  exit 1
fi
