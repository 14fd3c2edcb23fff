#!/bin/sh
# report_twins.sh: runs report_twins.py (see there) from the harness.
export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0:detect_leaks=0"
exec python3 "${top_srcdir:-.}/tests/e2e/report_twins.py" "${top_builddir:-.}"
