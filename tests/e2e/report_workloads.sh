#!/bin/sh
# report_workloads.sh: runs report_workloads.py (see there) from the harness.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/report_workloads.py" "${top_builddir:-.}" "${top_srcdir:-.}"
