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
# and the Perfetto UI and playwright (tests/e2e/browser.sh) likewise
export GPUTRACE_BROWSER_VENV="${GPUTRACE_BROWSER_VENV:-$top/.venv-browser}"
rm -f test-times.txt
# the tests that took longest (tests/timed_driver.sh): what the run's minutes
# went to, in the log whether or not it passed
slowest() {
  [ -s test-times.txt ] || return 0
  echo "slowest tests (wall seconds, $(wc -l <test-times.txt) tests):"
  sort -rn test-times.txt | head -n 12 | sed 's/^/  /'
}
if ! make -j"$(nproc)" check; then
  slowest
  # automake's .trs files say ":test-result: FAIL" (a check that failed:
  # "not ok" in an end-to-end test's TAP; a unit test's FAIL) or "ERROR"
  # (no plan, a wrong count, a non-zero exit). Each failing test's last
  # lines, then every check that failed, last, so that a CI log that keeps
  # only its end still says why
  failed=$(grep -l '^:test-result: \(FAIL\|ERROR\)' $(find . -name '*.trs') 2>/dev/null | sed 's/\.trs$/.log/')
  for f in $failed; do echo "==== $f (last lines)"; tail -n 20 "$f"; done
  for f in $failed; do
    echo "==== $f (failed checks)"
    grep -a '^not ok\|^Bail out!\|FAIL\|ERROR' "$f" | head -n 15
  done
  exit 1
fi
slowest
