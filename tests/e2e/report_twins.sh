#!/bin/sh
# report_twins.sh: runs report_twins.py (see there) from the harness.
# Under the sanitizers the host's every call costs 2-4 times what it does
# in the normal build (the simulator's and the program's), the very thing
# these ratios measure: a CI run found free_each_step's what-if at 0.69
# twice there, 0.98 in the normal build beside it.  The report's replay
# and costs run under the sanitizers on recordings of these workloads in
# golden.sh and report_workloads.sh; the twins run in the normal build.
if [ -n "${GT_SANITIZED:-}" ]; then
  echo "1..0 # SKIP timing ratios, which the sanitizers' cost per call changes: run in the normal build"
  exit 0
fi
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/report_twins.py" "${top_builddir:-.}"
